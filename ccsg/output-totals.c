/*
 * output-totals.c - the exact totals of a sampled trace in `ccsg report`
 * and `ccsg latency` (docs/ccsg.md, "Exact totals and estimates"): what
 * is exact (every call, counted where it ran) next to what the sampled
 * chains estimate, scaled by the rate with a 95% confidence interval.
 */
#include <inttypes.h>
#include <stdio.h>

#include "json.h"
#include "ccsg.h"
#include "exact-totals.h"
#include "sampling.h"

/* The function node of the graph for prog/vers/proc, or NULL. */
static const struct ccsg_node *
node_of(const struct ccsg_graph *g, uint32_t prog, uint32_t vers, uint32_t proc)
{
	for (size_t i = 0; i < g->nnodes; i++) {
		const struct ccsg_node *x = &g->nodes[i];

		if (x->kind == CCSG_FUNCTION && x->prog == prog &&
		    x->vers == vers && x->proc == proc)
			return x;
	}
	return NULL;
}

static const char *fn_name(const struct ccsg_graph *g, uint32_t prog,
			   uint32_t vers, uint32_t proc, char *buf, size_t len)
{
	const struct ccsg_node *x = node_of(g, prog, vers, proc);

	if (!prog)
		return "<main>";
	if (x && x->name)
		return x->name;
	snprintf(buf, len, "%u/%u/%u", prog, vers, proc);
	return buf;
}

static const char *host_name(const struct ccsg_graph *g, int32_t host)
{
	const struct ccsg_trace *t = g->dscg->trace;

	return host >= 0 && (size_t)host < t->nhosts ? t->hosts[host] : "?";
}

/* What the sampled chains show of f: its calls (when it ran on one host
 * only; -1 else) and its self CPU on f's host, and their estimates. */
struct sampled {
	int64_t calls, self_ns;
	double calls_est, calls_ci, self_est, self_ci;
};

static void sampled_of(const struct ccsg_graph *g, const struct ccsg_totals *x,
		       const struct ccsg_totals_fn *f, struct sampled *s)
{
	const struct ccsg_node *n = node_of(g, f->prog, f->vers, f->proc);
	int32_t dim = f->host >= 0 ? g->dims->of_host[f->host] : -1;
	const struct ccsg_scaled *e = &x->est;
	size_t at = n ? (size_t)(n - g->nodes) : 0;
	/* the graph is scaled (sampling.h): its figures before */
	int scaled = n && at < e->nnodes;
	int64_t calls = scaled ? e->sampled[at] : n ? n->calls : 0;

	s->calls = n && ccsg_totals_hosts_of(x, f) == 1 ? calls : -1;
	s->self_ns = !n || dim < 0 ? 0
		     : scaled	   ? e->self_sampled[at * e->k + dim]
				   : n->self[dim];
	/* the draws: chains, kept or left whole (sampling.h) */
	ccsg_totals_estimate((double)(s->calls > 0 ? s->calls : 0),
			     n ? n->chains : 0, x->rate, &s->calls_est,
			     &s->calls_ci);
	ccsg_totals_estimate((double)s->self_ns, n ? n->chains : 0, x->rate,
			     &s->self_est, &s->self_ci);
}

static void sampling_text(FILE *f, const struct ccsg_totals *x)
{
	fprintf(f,
		"\nSampling: chains recorded at rate %.6g (CAUSAL_SAMPLE).  "
		"Exact: the\n"
		"tables of exact totals below (every call, counted where it "
		"ran).\n"
		"Estimated: every other figure, from the sampled chains only, "
		"scaled:\nest = sampled / rate, +- the half-width of its 95%% "
		"confidence interval\n(the flat profile and call graph above "
		"show est).\n",
		x->rate);
	if (x->lost)
		fprintf(f,
			"%" PRId64 " calls were not counted (a thread's "
			"table was full)\n",
			x->lost);
}

/* The function nodes' estimates, with their intervals, summed over the
 * dimensions (the half-widths too: a bound). */
static void scaled_text(FILE *f, const struct ccsg_graph *g,
			const struct ccsg_totals *x)
{
	const struct ccsg_scaled *e = &x->est;

	if (!e->nnodes)
		return;
	fputs("\nEstimated per function (the sampled chains / rate, ms, +- "
	      "95%)\n\n",
	      f);
	fprintf(f, "%9s %9s %20s %20s  name\n", "sampled", "est calls",
		"est self", "est desc");
	for (size_t i = 0; i < g->nnodes && i < e->nnodes; i++) {
		const struct ccsg_node *n = &g->nodes[i];
		double ci[2] = { 0, 0 };

		if (n->kind != CCSG_FUNCTION)
			continue;
		for (size_t d = 0; d < e->k; d++) {
			ci[0] += e->self_ci[i * e->k + d];
			ci[1] += e->desc_ci[i * e->k + d];
		}
		fprintf(f,
			"%9" PRId64 " %9" PRId64 " %10.3f +-%7.3f "
			"%10.3f +-%7.3f  %s\n",
			e->sampled[i], n->calls,
			(double)ccsg_vec_sum(n->self, e->k) / 1e6, ci[0] / 1e6,
			(double)ccsg_vec_sum(n->desc, e->k) / 1e6, ci[1] / 1e6,
			n->name);
	}
}

/* A vector of 95% intervals, [[lo, hi], ...], us: v +- half. */
static void ci_json(FILE *f, const int64_t *v, const double *half, size_t k)
{
	fputc('[', f);
	for (size_t d = 0; d < k; d++)
		fprintf(f, "%s[%.3f, %.3f]", d ? ", " : "",
			((double)v[d] - half[d]) / 1e3,
			((double)v[d] + half[d]) / 1e3);
	fputc(']', f);
}

void ccsg_totals_node_json(FILE *f, const void *ctx, int32_t u)
{
	const struct ccsg_graph *g = ctx;
	const struct ccsg_totals *x = g->dscg->trace->totals;
	const struct ccsg_scaled *e = x ? &x->est : NULL;
	const struct ccsg_node *n = &g->nodes[u];
	int scaled = ccsg_node_scaled(g, u);

	if (!e || (size_t)u >= e->nnodes)
		return;
	fprintf(f, ", \"estimated\": %s, \"sample_rate\": %.9g",
		scaled ? "true" : "false", x->rate);
	if (scaled) {
		fprintf(f, ", \"sampled_%s\": %" PRId64,
			n->kind == CCSG_THREAD ? "threads" : "calls",
			e->sampled[u]);
		fputs(", \"self_cpu_ci95_us\": ", f);
		ci_json(f, n->self, &e->self_ci[u * e->k], e->k);
	}
	fputs(", \"desc_cpu_ci95_us\": ", f);
	ci_json(f, n->desc, &e->desc_ci[u * e->k], e->k);
}

void ccsg_totals_report_text(FILE *f, const struct ccsg_graph *g,
			     const struct ccsg_totals *x)
{
	char buf[64];

	sampling_text(f, x);
	scaled_text(f, g, x);
	fputs("\nExact totals per function and host (self CPU in ms, "
	      "Equation 1), and the\nsampled chains' estimates\n\n",
	      f);
	fprintf(f, "%9s %7s %10s %18s %20s  %-10s name\n", "calls", "failed",
		"self", "est calls", "est self", "host");
	for (size_t i = 0; i < x->nfns; i++) {
		const struct ccsg_totals_fn *t = &x->fns[i];
		struct sampled s;

		sampled_of(g, x, t, &s);
		fprintf(f, "%9" PRId64 " %7" PRId64 " %10.3f", t->calls,
			t->failures, (double)t->cpu_ns / 1e6);
		if (s.calls >= 0)
			fprintf(f, " %9.0f +-%6.0f", s.calls_est, s.calls_ci);
		else
			fprintf(f, " %18s", "-");
		fprintf(f, " %10.3f +-%7.3f  %-10s %s%s\n", s.self_est / 1e6,
			s.self_ci / 1e6, host_name(g, t->host),
			fn_name(g, t->prog, t->vers, t->proc, buf, sizeof(buf)),
			t->partial ? " (not exact: a process at rate 1)" : "");
	}
}

/* An arc's mean latency, its 50th, 95th and 99th percentiles and its
 * maximum, in ns / unit. */
static void arc_figures(const struct ccsg_totals_arc *a, double unit,
			double out[5])
{
	static const double q[] = { 0.5, 0.95, 0.99, 1.0 };

	out[0] = a->calls ? (double)a->latency_ns / (double)a->calls / unit : 0;
	for (int i = 0; i < 4; i++)
		out[i + 1] =
			(double)ccsg_totals_quantile(a->hist, a->calls, q[i]) /
			unit;
}

static void arcs_text(FILE *f, const struct ccsg_graph *g,
		      const struct ccsg_totals *x)
{
	char b1[64], b2[64];

	fputs("\nExact latency per arc (caller -> callee, on the caller's "
	      "host), ms: Equation 3\n(inner edges), its percentiles within "
	      "1.6%\n\n",
	      f);
	fprintf(f, "%9s %7s %9s %9s %9s %9s %9s  %-10s arc\n", "calls",
		"failed", "mean", "p50", "p95", "p99", "max", "host");
	for (size_t i = 0; i < x->narcs; i++) {
		const struct ccsg_totals_arc *a = &x->arcs[i];

		double ms[5];

		arc_figures(a, 1e6, ms);
		fprintf(f,
			"%9" PRId64 " %7" PRId64
			" %9.3f %9.3f %9.3f %9.3f %9.3f  %-10s %s -> %s\n",
			a->calls, a->failures, ms[0], ms[1], ms[2], ms[3],
			ms[4], host_name(g, a->host),
			fn_name(g, a->caller_prog, a->caller_vers,
				a->caller_proc, b1, sizeof(b1)),
			fn_name(g, a->prog, a->vers, a->proc, b2, sizeof(b2)));
	}
}

static void sampling_json(FILE *f, const struct ccsg_totals *x)
{
	fprintf(f,
		",\n \"sampling\": {\"rate\": %.9g, \"lost_calls\": %" PRId64
		", \"exact\": [\"exact_functions\", \"exact_arcs\"], "
		"\"estimated\": \"every other figure: the sampled chains "
		"only, scaled by 1 / rate\"}",
		x->rate, x->lost);
}

void ccsg_totals_report_json(FILE *f, const struct ccsg_graph *g,
			     const struct ccsg_totals *x)
{
	char buf[64];

	sampling_json(f, x);
	fputs(",\n \"exact_functions\": [", f);
	for (size_t i = 0; i < x->nfns; i++) {
		const struct ccsg_totals_fn *t = &x->fns[i];
		struct sampled s;

		sampled_of(g, x, t, &s);
		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", f);
		json_cstr(f, fn_name(g, t->prog, t->vers, t->proc, buf,
				     sizeof(buf)));
		fputs(", \"host\": ", f);
		json_cstr(f, host_name(g, t->host));
		fprintf(f,
			", \"program\": %u, \"version\": %u, \"procedure\": "
			"%u, \"exact\": %s, \"calls\": %" PRId64
			", \"failed\": %" PRId64 ", \"self_cpu_us\": %.3f, "
			"\"alloc_bytes\": %" PRId64
			", \"sampled_self_cpu_us\": %.3f, "
			"\"estimated_self_cpu_us\": %.3f, "
			"\"estimated_self_cpu_ci95_us\": %.3f",
			t->prog, t->vers, t->proc,
			t->partial ? "false" : "true", t->calls, t->failures,
			(double)t->cpu_ns / 1e3, t->alloc_bytes,
			(double)s.self_ns / 1e3, s.self_est / 1e3,
			s.self_ci / 1e3);
		if (s.calls >= 0)
			fprintf(f,
				", \"sampled_calls\": %" PRId64
				", \"estimated_calls\": %.1f, "
				"\"estimated_calls_ci95\": %.1f",
				s.calls, s.calls_est, s.calls_ci);
		fputc('}', f);
	}
	fputs("\n ]", f);
}

void ccsg_totals_arcs_json(FILE *f, const struct ccsg_graph *g,
			   const struct ccsg_totals *x)
{
	char buf[64];
	double us[5];

	fputs(",\n \"exact_arcs\": [", f);
	for (size_t i = 0; i < x->narcs; i++) {
		const struct ccsg_totals_arc *a = &x->arcs[i];

		fputs(i ? ",\n  {\"caller\": " : "\n  {\"caller\": ", f);
		json_cstr(f, fn_name(g, a->caller_prog, a->caller_vers,
				     a->caller_proc, buf, sizeof(buf)));
		fputs(", \"callee\": ", f);
		json_cstr(f, fn_name(g, a->prog, a->vers, a->proc, buf,
				     sizeof(buf)));
		fputs(", \"host\": ", f);
		json_cstr(f, host_name(g, a->host));
		arc_figures(a, 1e3, us);
		fprintf(f,
			", \"calls\": %" PRId64 ", \"failed\": %" PRId64
			", \"mean_us\": %.3f, \"p50_us\": %.3f, \"p95_us\": "
			"%.3f, \"p99_us\": %.3f, \"max_us\": %.3f}",
			a->calls, a->failures, us[0], us[1], us[2], us[3],
			us[4]);
	}
	fputs("\n ]", f);
}

void ccsg_totals_latency_text(FILE *f, const struct ccsg_graph *g,
			      const struct ccsg_totals *x)
{
	sampling_text(f, x);
	arcs_text(f, g, x);
}

void ccsg_totals_latency_json(FILE *f, const struct ccsg_graph *g,
			      const struct ccsg_totals *x)
{
	sampling_json(f, x);
	ccsg_totals_arcs_json(f, g, x);
}

void ccsg_totals_report_arcs_text(FILE *f, const struct ccsg_graph *g,
				  const struct ccsg_totals *x)
{
	arcs_text(f, g, x);
}
