/*
 * api-diff.c - `ccsg serve --diff B` (docs/viewer.md): the report of
 * `ccsg diff A B` (diff.h), made once at start-up, beside the CCSG's
 * function nodes.  A node's rows are its function's on each host, found
 * by the function's name as `ccsg diff` matches them; the node shows
 * their sums and each row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "internal.h"
#include "json.h"

/* The first of r's rows (sorted by name, then host) named name, or -1. */
static int32_t first_row(const struct diff_report *r, const char *name)
{
	size_t lo = 0, hi = r->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(r->rows[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nrows && !strcmp(r->rows[lo].name, name) ? (int32_t)lo
								: -1;
}

/* The per-call samples served the tests: the figures stay. */
static void drop_samples(struct diff_fig *f)
{
	free(f->self);
	free(f->lat);
	f->self = f->lat = NULL;
	f->nself = f->nlat = 0;
}

int viewer_set_diff(struct viewer *v, struct diff_report *r)
{
	const struct ccsg_graph *g = v->graph;

	v->diff = malloc(sizeof(*v->diff));
	v->diff_row = malloc((g->nnodes + 1) * sizeof(*v->diff_row));
	if (!v->diff || !v->diff_row) {
		free(v->diff);
		v->diff = NULL;
		diff_release(r);
		return fail("out of memory");
	}
	*v->diff = *r;
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < v->diff->nrows; i++) {
		drop_samples(&v->diff->rows[i].a);
		drop_samples(&v->diff->rows[i].b);
	}
	for (size_t n = 0; n < g->nnodes; n++) {
		const struct ccsg_node *x = &g->nodes[n];

		v->diff_row[n] = x->kind == CCSG_FUNCTION && x->name
					 ? first_row(v->diff, x->name)
					 : -1;
	}
	return 0;
}

void api_diff_release(struct viewer *v)
{
	if (v->diff)
		diff_release(v->diff);
	free(v->diff);
	free(v->diff_row);
	v->diff = NULL;
	v->diff_row = NULL;
}

void api_diff_put_info(FILE *f, const struct viewer *v)
{
	const struct diff_report *r = v->diff;

	fputs(", \"diff\": ", f);
	if (!r) {
		fputs("null", f);
		return;
	}
	fputs("{\"b\": ", f);
	json_cstr(f, r->path_b);
	fprintf(f,
		", \"test\": \"mann-whitney-u\", \"alpha\": %g, "
		"\"min_change\": %g, \"differs\": %s}",
		r->alpha, r->min_change, diff_differs(r) ? "true" : "false");
}

static void put_p(FILE *f, const char *key, double p)
{
	if (isnan(p))
		fprintf(f, ", \"%s\": null", key);
	else
		fprintf(f, ", \"%s\": %.3g", key, p);
}

/* , "change_pct": delta as a percentage of a (null when a is 0) */
static void put_pct(FILE *f, int64_t a, int64_t b)
{
	if (a)
		fprintf(f, ", \"change_pct\": %.1f",
			100.0 * (double)(b - a) / (double)a);
	else
		fputs(", \"change_pct\": null", f);
}

static void put_row(FILE *f, const struct diff_row *w, int first)
{
	fprintf(f, "%s{\"host\": ", first ? "" : ", ");
	json_cstr(f, w->host);
	fprintf(f,
		", \"in_a\": %s, \"in_b\": %s, \"calls_a\": %lld, "
		"\"calls_b\": %lld, \"self_cpu_a_ns\": %lld, "
		"\"self_cpu_b_ns\": %lld, \"self_cpu_delta_ns\": %lld, "
		"\"total_cpu_delta_ns\": %lld",
		w->a.present ? "true" : "false",
		w->b.present ? "true" : "false", (long long)w->a.calls,
		(long long)w->b.calls, (long long)w->a.self_ns,
		(long long)w->b.self_ns,
		(long long)(w->b.self_ns - w->a.self_ns),
		(long long)(w->b.self_ns + w->b.desc_ns - w->a.self_ns -
			    w->a.desc_ns));
	put_pct(f, w->a.self_ns, w->b.self_ns);
	fprintf(f, ", \"significant\": %s, \"sign\": %d",
		w->self.stands ? "true" : "false", w->self.stands);
	put_p(f, "p", w->self.p);
	fprintf(f,
		", \"latency_median_a_ns\": %lld, \"latency_median_b_ns\": "
		"%lld, \"latency_significant\": %s",
		(long long)w->a.lat_median, (long long)w->b.lat_median,
		w->lat.stands ? "true" : "false");
	put_p(f, "latency_p", w->lat.p);
	fputc('}', f);
}

void api_diff_put_node(FILE *f, const struct viewer *v, int32_t n)
{
	const struct diff_report *r = v->diff;
	int64_t self_a = 0, self_b = 0, tot_a = 0, tot_b = 0;
	int64_t calls_a = 0, calls_b = 0;
	int sig = 0, lat_sig = 0, in_b = 0, first = 1;
	double p = NAN;
	int32_t i0 = r ? v->diff_row[n] : -1, i;

	if (!r || v->graph->nodes[n].kind != CCSG_FUNCTION)
		return;
	for (i = i0; i >= 0 && (size_t)i < r->nrows &&
		     !strcmp(r->rows[i].name, r->rows[i0].name);
	     i++) {
		const struct diff_row *w = &r->rows[i];

		self_a += w->a.self_ns;
		self_b += w->b.self_ns;
		tot_a += w->a.self_ns + w->a.desc_ns;
		tot_b += w->b.self_ns + w->b.desc_ns;
		calls_a += w->a.calls;
		calls_b += w->b.calls;
		sig |= w->self.stands != 0;
		lat_sig |= w->lat.stands != 0;
		in_b |= w->b.present;
		if (!isnan(w->self.p) && (isnan(p) || w->self.p < p))
			p = w->self.p;
	}
	fprintf(f,
		", \"diff\": {\"in_b\": %s, \"calls_a\": %lld, \"calls_b\": "
		"%lld, \"self_cpu_a_ns\": %lld, \"self_cpu_b_ns\": %lld, "
		"\"self_cpu_delta_ns\": %lld, \"total_cpu_delta_ns\": %lld",
		in_b ? "true" : "false", (long long)calls_a, (long long)calls_b,
		(long long)self_a, (long long)self_b,
		(long long)(self_b - self_a), (long long)(tot_b - tot_a));
	put_pct(f, self_a, self_b);
	fprintf(f, ", \"significant\": %s", sig ? "true" : "false");
	put_p(f, "p", p);
	fprintf(f, ", \"latency_significant\": %s, \"hosts\": [",
		lat_sig ? "true" : "false");
	for (i = i0; i >= 0 && (size_t)i < r->nrows &&
		     !strcmp(r->rows[i].name, r->rows[i0].name);
	     i++, first = 0)
		put_row(f, &r->rows[i], first);
	fputs("]}", f);
}
