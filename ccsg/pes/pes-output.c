/*
 * pes-output.c - the model and the views of a PES as text, JSON, CSV,
 * SVG or PNG (pes-output.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "pes-output.h"
#include "pes-plot.h"
#include "usage.h"

static const char *const kinds[] = { "program", "static", "sequence",
				     "parallel" };

/* A number JSON can hold (no NaN, no infinity). */
static void json_num(FILE *out, double v)
{
	fprintf(out, "%.10g", isfinite(v) ? v : 0);
}

static void print_members(FILE *out, const struct pes *p, const uint32_t *v,
			  size_t n, int json)
{
	for (size_t i = 0; i < n; i++) {
		if (json) {
			fputs(i ? "," : "", out);
			json_cstr(out, p->states[v[i]].name);
		} else {
			fprintf(out, " %s", p->states[v[i]].name);
		}
	}
}

static void text_aggregates(FILE *out, const struct pes *p)
{
	int any = 0;

	for (size_t s = 0; s < p->nstates; s++) {
		const struct pes_state *st = &p->states[s];

		if (st->kind == PES_PROGRAM)
			continue;
		if (!any++)
			fputs("\naggregate states:\n", out);
		fprintf(out, "  %s = %s", st->name, kinds[st->kind]);
		if (st->kind == PES_STATIC) {
			fputs(": any of", out);
			print_members(out, p, st->members, st->nmembers, 0);
		} else if (st->kind == PES_SEQUENCE) {
			fputs(":", out);
			print_members(out, p, st->members, st->nmembers, 0);
		} else {
			fprintf(out, " between %s and %s:",
				p->states[st->members[0]].name,
				p->states[st->members[1]].name);
			for (size_t k = 0; k < st->npaths; k++) {
				const struct pes_path *pa = &st->paths[k];

				fprintf(out, "%s", k ? ";" : "");
				print_members(out, p, pa->states, pa->len, 0);
				fprintf(out, " (x%zu, mean %.6g %s)", pa->count,
					pa->sojourn / (double)pa->count,
					p->unit);
			}
			if (st->direct)
				fprintf(out, "; none (x%zu)", st->direct);
		}
		fputc('\n', out);
	}
}

static void text_model(FILE *out, const struct pes *p,
		       const struct pes_model *m)
{
	int any = 0;

	fprintf(out,
		"%zu entries, %" PRId64 " to %" PRId64 " %s (span %.6g %s)\n",
		p->n, p->t[0], p->end_known ? p->end : p->t[p->n - 1], p->unit,
		m->span, p->unit);
	if (m->steady < 0)
		fprintf(out,
			"steady state: cannot tell (no transition taken "
			"%d times)\n",
			PES_STEADY_MIN);
	else
		fprintf(out,
			"steady state: %s (transition rates of the two halves "
			"differ by %.1f%% at most, %s -> %s; tolerance "
			"%.0f%%)\n",
			m->steady ? "yes" : "no", 100 * m->max_change,
			p->states[m->worst_from].name,
			p->states[m->worst_to].name, 100 * m->tol);
	fprintf(out, "\n%-16s %-9s %9s %7s %7s %12s %12s %10s %10s\n", "state",
		"kind", "count", "event%", "time%", "mean", "sd", "min", "max");
	for (size_t s = 0; s < p->nstates; s++) {
		const struct pes_stats *st = &m->st[s];

		if (!st->count)
			continue;
		fprintf(out,
			"%-16s %-9s %9zu %7.2f %7.2f %12.6g %12.6g %10" PRId64
			" %10" PRId64 "\n",
			p->states[s].name, kinds[p->states[s].kind], st->count,
			100 * st->event_share, 100 * st->time_share, st->mean,
			st->sd, st->min, st->max);
	}
	fprintf(out, "\noccupancy histograms (%zu bins from min to max):\n",
		m->bins);
	for (size_t s = 0; s < p->nstates; s++) {
		if (!m->st[s].measured)
			continue;
		fprintf(out, "  %-16s", p->states[s].name);
		for (size_t b = 0; b < m->bins; b++)
			fprintf(out, " %zu", m->st[s].hist[b]);
		fputc('\n', out);
	}
	fputs("\nembedded Markov chain:\n", out);
	for (size_t k = 0; k < m->ntr; k++)
		fprintf(out, "  %-16s -> %-16s %9zu  p=%.4f\n",
			p->states[m->tr[k].from].name,
			p->states[m->tr[k].to].name, m->tr[k].count,
			m->tr[k].p);
	text_aggregates(out, p);
	for (size_t s = 0; s < p->nstates; s++)
		if (p->states[s].removed && !m->st[s].count)
			fprintf(out, "%s%s", any++ ? " " : "\nfiltered out: ",
				p->states[s].name);
	if (any)
		fputc('\n', out);
}

static void json_model(FILE *out, const struct pes *p,
		       const struct pes_model *m)
{
	int first = 1;

	fprintf(out, "{\"timebase\":");
	json_cstr(out, p->unit);
	fprintf(out, ",\"entries\":%zu,\"start\":%" PRId64 ",\"end\":%" PRId64,
		p->n, p->t[0], p->end_known ? p->end : p->t[p->n - 1]);
	fputs(",\"span\":", out);
	json_num(out, m->span);
	fputs(",\"steady_state\":{\"steady\":", out);
	fputs(m->steady < 0 ? "null" : m->steady ? "true" : "false", out);
	fputs(",\"max_change\":", out);
	json_num(out, m->max_change);
	fputs(",\"tolerance\":", out);
	json_num(out, m->tol);
	fprintf(out, ",\"min_count\":%d", PES_STEADY_MIN);
	if (m->steady >= 0) {
		fputs(",\"from\":", out);
		json_cstr(out, p->states[m->worst_from].name);
		fputs(",\"to\":", out);
		json_cstr(out, p->states[m->worst_to].name);
	}
	fputs("},\"states\":[", out);
	for (size_t s = 0; s < p->nstates; s++) {
		const struct pes_stats *st = &m->st[s];

		if (!st->count)
			continue;
		fputs(first ? "" : ",", out);
		first = 0;
		fputs("{\"name\":", out);
		json_cstr(out, p->states[s].name);
		fprintf(out,
			",\"kind\":\"%s\",\"count\":%zu,\"departures\":%zu",
			kinds[p->states[s].kind], st->count, st->departures);
		fputs(",\"event_share\":", out);
		json_num(out, st->event_share);
		fputs(",\"time_share\":", out);
		json_num(out, st->time_share);
		fputs(",\"mean\":", out);
		json_num(out, st->mean);
		fputs(",\"sd\":", out);
		json_num(out, st->sd);
		fprintf(out,
			",\"min\":%" PRId64 ",\"max\":%" PRId64
			",\"histogram\":[",
			st->min, st->max);
		for (size_t b = 0; b < m->bins; b++)
			fprintf(out, "%s%zu", b ? "," : "", st->hist[b]);
		fputs("]}", out);
	}
	fputs("],\"transitions\":[", out);
	for (size_t k = 0; k < m->ntr; k++) {
		fputs(k ? ",{\"from\":" : "{\"from\":", out);
		json_cstr(out, p->states[m->tr[k].from].name);
		fputs(",\"to\":", out);
		json_cstr(out, p->states[m->tr[k].to].name);
		fprintf(out, ",\"count\":%zu,\"p\":", m->tr[k].count);
		json_num(out, m->tr[k].p);
		fputc('}', out);
	}
	fputs("],\"aggregates\":[", out);
	first = 1;
	for (size_t s = 0; s < p->nstates; s++) {
		const struct pes_state *st = &p->states[s];

		if (st->kind == PES_PROGRAM)
			continue;
		fputs(first ? "{\"name\":" : ",{\"name\":", out);
		first = 0;
		json_cstr(out, st->name);
		fprintf(out, ",\"kind\":\"%s\",\"members\":[", kinds[st->kind]);
		print_members(out, p, st->members, st->nmembers, 1);
		fputc(']', out);
		if (st->kind == PES_PARALLEL) {
			fputs(",\"paths\":[", out);
			for (size_t k = 0; k < st->npaths; k++) {
				const struct pes_path *pa = &st->paths[k];

				fputs(k ? ",{\"states\":[" : "{\"states\":[",
				      out);
				print_members(out, p, pa->states, pa->len, 1);
				fprintf(out,
					"],\"count\":%zu,\"mean_sojourn\":",
					pa->count);
				json_num(out, pa->sojourn / (double)pa->count);
				fputc('}', out);
			}
			fprintf(out, "],\"direct\":%zu", st->direct);
		}
		fputc('}', out);
	}
	fputs("],\"filtered\":[", out);
	first = 1;
	for (size_t s = 0; s < p->nstates; s++)
		if (p->states[s].removed && !m->st[s].count) {
			fputs(first ? "" : ",", out);
			first = 0;
			json_cstr(out, p->states[s].name);
		}
	fputc(']', out);
}

/* The largest difference between the transition probabilities of two
 * models of the same states (a transition one lacks counts as p = 0). */
static double chain_distance(const struct pes_model *a,
			     const struct pes_model *b)
{
	double d = 0;
	size_t i = 0, j = 0;

	while (i < a->ntr || j < b->ntr) {
		const struct pes_transition *x = i < a->ntr ? &a->tr[i] : NULL;
		const struct pes_transition *y = j < b->ntr ? &b->tr[j] : NULL;
		double e;

		if (x && y && x->from == y->from && x->to == y->to) {
			e = fabs(x->p - y->p);
			i++, j++;
		} else if (x && (!y || x->from < y->from ||
				 (x->from == y->from && x->to < y->to))) {
			e = x->p;
			i++;
		} else {
			e = y->p;
			j++;
		}
		if (e > d)
			d = e;
	}
	return d;
}

static void compare(FILE *out, const struct pes *p, const struct pes_model *m,
		    const struct pes *syn, const struct pes_model *ms, int json)
{
	int first = 1;

	if (json) {
		fprintf(out,
			",\"simulation\":{\"entries\":%zu,\"span\":", syn->n);
		json_num(out, ms->span);
		fputs(",\"max_p_difference\":", out);
		json_num(out, chain_distance(m, ms));
		fputs(",\"states\":[", out);
	} else {
		fprintf(out,
			"\nsimulation of the model: %zu entries, span %.6g "
			"%s; transition probabilities differ by %.4f at most\n",
			syn->n, ms->span, p->unit, chain_distance(m, ms));
		fprintf(out, "%-16s %15s %15s %23s\n", "state",
			"event% obs/sim", "time% obs/sim", "mean obs/sim");
	}
	for (size_t s = 0; s < p->nstates; s++) {
		const struct pes_stats *a = &m->st[s], *b = &ms->st[s];

		if (!a->count && !b->count)
			continue;
		if (!json) {
			fprintf(out,
				"%-16s %7.2f/%-7.2f %7.2f/%-7.2f %11.6g/%.6g\n",
				p->states[s].name, 100 * a->event_share,
				100 * b->event_share, 100 * a->time_share,
				100 * b->time_share, a->mean, b->mean);
			continue;
		}
		fputs(first ? "{\"name\":" : ",{\"name\":", out);
		first = 0;
		json_cstr(out, p->states[s].name);
		const double v[6] = { a->event_share, b->event_share,
				      a->time_share,  b->time_share,
				      a->mean,	      b->mean };
		static const char *const k[6] = {
			"event_share", "sim_event_share",
			"time_share",  "sim_time_share",
			"mean",	       "sim_mean"
		};
		for (int i = 0; i < 6; i++) {
			fprintf(out, ",\"%s\":", k[i]);
			json_num(out, v[i]);
		}
		fputc('}', out);
	}
	if (json)
		fputs("]}", out);
}

int pes_print_model(FILE *out, const struct pes *p, const struct pes_model *m,
		    const struct pes *syn, const struct pes_model *msyn,
		    enum pes_out fmt)
{
	int json = fmt == PES_OUT_JSON;

	if (json)
		json_model(out, p, m);
	else
		text_model(out, p, m);
	if (syn && msyn && syn->n)
		compare(out, p, m, syn, msyn, json);
	if (json)
		fputs("}\n", out);
	return ferror(out) ? -EIO : 0;
}

/* --- views ------------------------------------------------------------------
 */

/* The y of each state in the views: the states present, numbered in the
 * order of their numbers (Chitra's f(s), with no gap left by a state
 * filtered or aggregated away). */
struct yaxis {
	const struct pes *p;
	uint32_t *y;	     /* per state */
	const char **labels; /* per y */
	size_t n;
	int time_view;
	double scale; /* time base units to the plot's unit */
};

static int yaxis_init(struct yaxis *a, const struct pes *p, int time_view)
{
	unsigned char *present = calloc(p->nstates + 1, 1);

	a->p = p;
	a->n = 0;
	a->time_view = time_view;
	a->scale = 1;
	a->y = calloc(p->nstates + 1, sizeof(*a->y));
	a->labels = calloc(p->nstates + 1, sizeof(*a->labels));
	if (!present || !a->y || !a->labels) {
		free(present);
		free(a->y);
		free(a->labels);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->n; i++)
		present[p->seq[i]] = 1;
	for (size_t s = 0; s < p->nstates; s++)
		if (present[s]) {
			a->labels[a->n] = p->states[s].name;
			a->y[s] = (uint32_t)a->n++;
		}
	free(present);
	return 0;
}

static void view_point(const void *ctx, size_t i, double *x, double *y)
{
	const struct yaxis *a = ctx;

	*x = a->time_view ? (double)(a->p->t[i] - a->p->t[0]) * a->scale
			  : (double)i;
	*y = a->y[a->p->seq[i]];
}

/* A readable unit for a span of s seconds (s, ms, us or ns): its name,
 * and its length in seconds in *per. */
static const char *time_unit(double s, double *per)
{
	static const char *const names[] = { "s", "ms", "us", "ns" };
	int k = 0;

	while (k < 3 && s < pow(10, -3 * k))
		k++;
	*per = pow(10, -3 * k);
	return names[k];
}

int pes_print_view(FILE *out, const char *path, const struct pes *p,
		   enum pes_view view, enum pes_out fmt)
{
	int tv = view == PES_VIEW_TIME;
	struct yaxis a;
	int ret = 0;

	if (yaxis_init(&a, p, tv))
		return fail("out of memory"), -ENOMEM;
	if (fmt == PES_OUT_SVG || fmt == PES_OUT_PNG) {
		/* the time view's x: the time since the sequence's start, in
		 * a unit that suits its span; the start itself in the title */
		int64_t end = p->end_known ? p->end : p->t[p->n - 1];
		double per,
			span = (double)(end - p->t[0]) * p->seconds_per_unit;
		const char *unit = time_unit(span, &per);
		char title[96], xlabel[64];

		a.scale = p->seconds_per_unit / per;
		if (tv) {
			snprintf(title, sizeof(title),
				 "time view, starting at %" PRId64 " %s",
				 p->t[0], p->unit);
			snprintf(xlabel, sizeof(xlabel),
				 "time since the start (%s)", unit);
		}
		struct pes_plot pl = { tv ? title : "event view",
				       tv ? xlabel : "event",
				       "state",
				       tv ? PES_PLOT_STEP : PES_PLOT_LINE,
				       p->n,
				       view_point,
				       &a,
				       0,
				       tv ? span / per : (double)(p->n - 1),
				       0,
				       a.n ? (double)(a.n - 1) : 0,
				       a.labels,
				       a.n,
				       0 };
		ret = pes_plot_write(&pl, path, fmt == PES_OUT_PNG);
	} else if (fmt == PES_OUT_CSV) {
		fputs(tv ? "time,y,state,occupancy\n" : "event,y,state\n", out);
		for (size_t i = 0; i < p->n; i++) {
			if (tv)
				fprintf(out, "%" PRId64 ",", p->t[i]);
			else
				fprintf(out, "%zu,", i);
			fprintf(out, "%" PRIu32 ",%s", a.y[p->seq[i]],
				p->states[p->seq[i]].name);
			if (tv && pes_occupancy(p, i) >= 0)
				fprintf(out, ",%" PRId64, pes_occupancy(p, i));
			else if (tv)
				fputc(',', out);
			fputc('\n', out);
		}
	} else {
		fprintf(out, "{\"view\":\"%s\",\"timebase\":",
			tv ? "time" : "event");
		json_cstr(out, p->unit);
		fputs(",\"states\":[", out);
		for (size_t k = 0; k < a.n; k++) {
			fputs(k ? "," : "", out);
			json_cstr(out, a.labels[k]);
		}
		fputs("],\"points\":[", out);
		for (size_t i = 0; i < p->n; i++) {
			fputs(i ? ",[" : "[", out);
			if (tv)
				fprintf(out, "%" PRId64, p->t[i]);
			else
				fprintf(out, "%zu", i);
			fprintf(out, ",%" PRIu32 "]", a.y[p->seq[i]]);
		}
		fputc(']', out);
		if (tv && p->end_known)
			fprintf(out, ",\"end\":%" PRId64, p->end);
		fputs("}\n", out);
	}
	free(a.y);
	free(a.labels);
	if (!ret && out && ferror(out))
		ret = -EIO;
	return ret;
}

struct freq_ctx {
	const double *power;
	double bin;
};

static void freq_point(const void *ctx, size_t i, double *x, double *y)
{
	const struct freq_ctx *c = ctx;

	*x = (double)i * c->bin;
	*y = c->power[i];
}

/* The bins the frequency view shows: up to the least j (in *share) where
 * bins 1 to j hold PES_FREQ_SHARE of the power of bins 1 to nf - 1 (the
 * mean, bin 0, left out), and a quarter more, so that the peak is not on
 * the frame; from bin 1 on a logarithmic axis, which spans a decade at
 * least; every bin with PES_FREQ_ALL. */
static void freq_range(const double *power, size_t nf, unsigned axis,
		       size_t *from, size_t *to, size_t *share)
{
	double total = 0, acc = 0;
	size_t j = nf - 1;

	*from = axis & PES_FREQ_LOG && nf > 2 ? 1 : 0; /* else linear */
	*to = *share = nf - 1;
	if (axis & PES_FREQ_ALL || nf < 3)
		return;
	for (size_t k = 1; k < nf; k++)
		total += power[k];
	for (size_t k = 1; k < nf && total > 0; k++)
		if ((acc += power[k]) >= PES_FREQ_SHARE * total) {
			j = k;
			break;
		}
	*share = j;
	j += j / 4 + 1;
	if (axis & PES_FREQ_LOG && j < 10)
		j = 10;
	*to = j < nf - 1 ? j : nf - 1;
}

int pes_print_freq(FILE *out, const char *path, const struct pes *p,
		   const double *power, size_t nf, double bin, int time_domain,
		   const char *signal, unsigned axis, enum pes_out fmt)
{
	const char *unit = time_domain ? "Hz" : "cycles per event";

	(void)p;
	if (fmt == PES_OUT_SVG || fmt == PES_OUT_PNG) {
		struct freq_ctx c = { power, bin };
		double top = 0;
		size_t from, to, share;
		char title[400], xlabel[64];

		freq_range(power, nf, axis, &from, &to, &share);
		for (size_t j = 1; j <= to; j++)
			if (power[j] > top)
				top = power[j];
		snprintf(title, sizeof(title),
			 "frequency view (%s domain, %s%s), %s %.6g%s",
			 time_domain ? "time" : "event",
			 signal ? "indicator of " : "state number",
			 signal ? signal : "",
			 axis & PES_FREQ_ALL ? "every bin up to"
					     : "99% of the power below",
			 (double)(axis & PES_FREQ_ALL ? to : share) * bin,
			 time_domain ? " Hz" : " cycles per event");
		snprintf(xlabel, sizeof(xlabel), "frequency (%s)", unit);
		struct pes_plot pl = { title,
				       xlabel,
				       "power",
				       PES_PLOT_BARS,
				       nf,
				       freq_point,
				       &c,
				       (double)from * bin,
				       (double)to * bin,
				       0,
				       top > 0 ? top : 1,
				       NULL,
				       0,
				       from > 0 };
		return pes_plot_write(&pl, path, fmt == PES_OUT_PNG);
	}
	if (fmt == PES_OUT_CSV) {
		fprintf(out, "bin,%s,power\n",
			time_domain ? "frequency_hz" : "cycles_per_event");
		for (size_t j = 0; j < nf; j++)
			fprintf(out, "%zu,%.10g,%.10g\n", j, (double)j * bin,
				power[j]);
	} else {
		fprintf(out,
			"{\"view\":\"frequency\",\"domain\":\"%s\",\"unit\":"
			"\"%s\",\"signal\":",
			time_domain ? "time" : "event", unit);
		if (signal)
			json_cstr(out, signal);
		else
			fputs("null", out);
		fputs(",\"bin_width\":", out);
		json_num(out, bin);
		fputs(",\"power\":[", out);
		for (size_t j = 0; j < nf; j++) {
			fputs(j ? "," : "", out);
			json_num(out, power[j]);
		}
		fputs("]}\n", out);
	}
	return ferror(out) ? -EIO : 0;
}
