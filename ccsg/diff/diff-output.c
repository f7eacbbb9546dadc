/*
 * diff-output.c - `ccsg diff` as text (what stands out first, then a
 * block per function and host) and as JSON (docs/ccsg.md, "diff").
 */
#include <inttypes.h>
#include <math.h>

#include "diff.h"
#include "json.h"

static const char *const side_name[2] = { "A", "B" };

static const char *verdict(const struct diff_test *t)
{
	if (isnan(t->p))
		return "not tested";
	return t->stands > 0   ? "stands out, higher"
	       : t->stands < 0 ? "stands out, lower"
			       : "within the noise";
}

/* "+12.3%" of b against a, or "" when a is 0. */
static void percent(char *buf, size_t len, double a, double b)
{
	if (a == 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, " (%+.1f%%)", 100 * (b - a) / fabs(a));
}

/* One figure of a row: A, B (or "-"), the delta; unit 1 prints whole
 * numbers (calls, bytes), any other 3 decimals. */
static void text_line(FILE *out, const char *what, int pa, int pb, double a,
		      double b, double unit, const struct diff_test *t)
{
	int prec = unit == 1 ? 0 : 3;
	char pct[32];

	fprintf(out, "  %-18s", what);
	if (pa)
		fprintf(out, " %12.*f", prec, a / unit);
	else
		fprintf(out, " %12s", "-");
	if (pb)
		fprintf(out, " %12.*f", prec, b / unit);
	else
		fprintf(out, " %12s", "-");
	percent(pct, sizeof(pct), a, b);
	if (pa && pb)
		fprintf(out, " %+12.*f%s", prec, (b - a) / unit, pct);
	else
		fprintf(out, " %12s", "-");
	if (t && isnan(t->p))
		fprintf(out, "  %s", verdict(t));
	else if (t)
		fprintf(out, "  %s, p %.2g", verdict(t), t->p);
	fputc('\n', out);
}

static void text_names(FILE *out, const char *what, const struct diff_names *l)
{
	for (int s = 0; s < 2; s++) {
		if (!l[s].n)
			continue;
		fprintf(out, "  %s only in %s:", what, side_name[s]);
		for (size_t i = 0; i < l[s].n; i++)
			fprintf(out, " %s", l[s].v[i]);
		fputc('\n', out);
	}
}

static void text_row(FILE *out, const struct diff_row *r)
{
	const struct diff_fig *a = &r->a, *b = &r->b;
	int pa = a->present, pb = b->present;

	fprintf(out, "\n%s on %s%s\n", r->name, r->host,
		!pa   ? " (only in B)"
		: !pb ? " (only in A)"
		      : "");
	fprintf(out, "  %-18s %12s %12s %12s\n", "", "A", "B", "delta");
	text_line(out, "calls", pa, pb, (double)a->calls, (double)b->calls, 1,
		  NULL);
	text_line(out, "self CPU ms", pa, pb, (double)a->self_ns,
		  (double)b->self_ns, 1e6, &r->self);
	text_line(out, "desc CPU ms", pa, pb, (double)a->desc_ns,
		  (double)b->desc_ns, 1e6, NULL);
	text_line(out, "latency mean ms", pa && a->nlat, pb && b->nlat,
		  a->lat_mean, b->lat_mean, 1e6, NULL);
	text_line(out, "latency median ms", pa && a->nlat, pb && b->nlat,
		  (double)a->lat_median, (double)b->lat_median, 1e6, &r->lat);
	text_line(out, "latency p95 ms", pa && a->nlat, pb && b->nlat,
		  (double)a->lat_p95, (double)b->lat_p95, 1e6, NULL);
	text_line(out, "heap bytes", pa, pb, (double)a->heap_bytes,
		  (double)b->heap_bytes, 1, NULL);
}

int diff_print_text(FILE *out, const struct diff_report *r)
{
	size_t n = 0;

	fprintf(out, "ccsg diff: A = %s, B = %s\n", r->path_a, r->path_b);
	fprintf(out,
		"per-call self CPU and latency: Mann-Whitney U test, "
		"two-sided; stands out at p < %g with the median moved by "
		"%g%% or more\n",
		r->alpha, 100 * r->min_change);
	if (diff_differs(r)) {
		fprintf(out, "the traces differ (what matches is compared):\n");
		text_names(out, "programs", r->progs);
		text_names(out, "hosts", r->hosts);
		text_names(out, "functions", r->functions);
	}
	fprintf(out, "\nstands out:\n");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct diff_row *w = &r->rows[i];

		if (!w->self.stands && !w->lat.stands)
			continue;
		n++;
		fprintf(out, "  %s on %s:", w->name, w->host);
		if (w->self.stands)
			fprintf(out, " self CPU %s (p %.2g)",
				w->self.stands > 0 ? "higher" : "lower",
				w->self.p);
		if (w->lat.stands)
			fprintf(out, "%s latency %s (p %.2g)",
				w->self.stands ? "," : "",
				w->lat.stands > 0 ? "higher" : "lower",
				w->lat.p);
		fputc('\n', out);
	}
	if (!n)
		fprintf(out, "  nothing\n");
	for (size_t i = 0; i < r->nrows; i++)
		text_row(out, &r->rows[i]);
	return ferror(out) ? -1 : 0;
}

/* ---- JSON ------------------------------------------------------------------
 */

static void json_names(FILE *out, const char *key, const struct diff_names *l)
{
	fprintf(out, "    \"%s\": {", key);
	for (int s = 0; s < 2; s++) {
		fprintf(out, "%s\"only_%c\": [", s ? ", " : "", "ab"[s]);
		json_cstrs(out, l[s].v, l[s].n);
		fputc(']', out);
	}
	fputc('}', out);
}

/* "key": {"a": A, "b": B, "delta": B - A}, in unit (1: whole numbers);
 * a missing side null */
static void json_pair(FILE *out, const char *key, int pa, int pb, double a,
		      double b, double unit)
{
	int prec = unit == 1 ? 0 : 3;

	fprintf(out, ", \"%s\": {\"a\": ", key);
	if (pa)
		fprintf(out, "%.*f", prec, a / unit);
	else
		fputs("null", out);
	fputs(", \"b\": ", out);
	if (pb)
		fprintf(out, "%.*f", prec, b / unit);
	else
		fputs("null", out);
	if (pa && pb)
		fprintf(out, ", \"delta\": %.*f}", prec, (b - a) / unit);
	else
		fputs(", \"delta\": null}", out);
}

static void json_test(FILE *out, const char *key, const struct diff_test *t)
{
	fprintf(out, ", \"%s\": {\"p\": ", key);
	if (isnan(t->p))
		fputs("null", out);
	else
		fprintf(out, "%.6g", t->p);
	fprintf(out, ", \"stands_out\": %s, \"sign\": %d}",
		t->stands ? "true" : "false", t->stands);
}

static void json_row(FILE *out, const struct diff_row *r)
{
	const struct diff_fig *a = &r->a, *b = &r->b;
	int pa = a->present, pb = b->present;
	int la = pa && a->nlat, lb = pb && b->nlat;

	fputs("    {\"name\": ", out);
	json_cstr(out, r->name);
	fputs(", \"host\": ", out);
	json_cstr(out, r->host);
	json_pair(out, "calls", pa, pb, (double)a->calls, (double)b->calls, 1);
	json_pair(out, "self_cpu_us", pa, pb, (double)a->self_ns,
		  (double)b->self_ns, 1e3);
	json_test(out, "self_cpu_test", &r->self);
	json_pair(out, "desc_cpu_us", pa, pb, (double)a->desc_ns,
		  (double)b->desc_ns, 1e3);
	json_pair(out, "latency_mean_us", la, lb, a->lat_mean, b->lat_mean,
		  1e3);
	json_pair(out, "latency_median_us", la, lb, (double)a->lat_median,
		  (double)b->lat_median, 1e3);
	json_pair(out, "latency_p95_us", la, lb, (double)a->lat_p95,
		  (double)b->lat_p95, 1e3);
	json_test(out, "latency_test", &r->lat);
	json_pair(out, "heap_bytes", pa, pb, (double)a->heap_bytes,
		  (double)b->heap_bytes, 1);
	fputc('}', out);
}

int diff_print_json(FILE *out, const struct diff_report *r)
{
	fputs("{\n  \"a\": ", out);
	json_cstr(out, r->path_a);
	fputs(",\n  \"b\": ", out);
	json_cstr(out, r->path_b);
	fprintf(out,
		",\n  \"test\": \"mann-whitney-u\", \"alpha\": %g, "
		"\"min_change\": %g,\n",
		r->alpha, r->min_change);
	fprintf(out, "  \"differs\": %s,\n  \"differences\": {\n",
		diff_differs(r) ? "true" : "false");
	json_names(out, "programs", r->progs);
	fputs(",\n", out);
	json_names(out, "hosts", r->hosts);
	fputs(",\n", out);
	json_names(out, "functions", r->functions);
	fputs("\n  },\n  \"functions\": [\n", out);
	for (size_t i = 0; i < r->nrows; i++) {
		json_row(out, &r->rows[i]);
		fputs(i + 1 < r->nrows ? ",\n" : "\n", out);
	}
	fputs("  ]\n}\n", out);
	return ferror(out) ? -1 : 0;
}
