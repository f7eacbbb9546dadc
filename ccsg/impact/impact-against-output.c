/*
 * impact-against-output.c - an estimate beside a second run
 * (impact-against.h) as text, a table a user reads row by row, or JSON
 * (docs/impact.md says every field).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "impact-against.h"
#include "json.h"
#include "output.h"

static const char *const fig_name[] = { "self", "desc" };

static const char *node_name(const struct ccsg_against *x, int32_t n)
{
	return x->im->g->nodes[n].name;
}

static const char *dim_name(const struct ccsg_against *x, int32_t d)
{
	return x->im->g->dims->names[d];
}

/* ---- text ---------------------------------------------------------------- */

static void text_fig(FILE *f, const struct ccsg_against_fig *v, int desc)
{
	int64_t err = v->pred - v->b;

	fprintf(f, "  %-5s %10.3f %10.3f %10.3f %+10.3f", fig_name[desc],
		ccsg_ms(v->a), ccsg_ms(v->pred), ccsg_ms(v->b), ccsg_ms(err));
	if (v->b)
		fprintf(f, " %+8.1f%%",
			100.0 * (double)err / fabs((double)v->b));
	else
		fprintf(f, " %9s", "-");
	fputc('\n', f);
}

static void text_names(FILE *f, const char *title, const struct ccsg_graph *g,
		       const int32_t *v, size_t n)
{
	if (!n)
		return;
	fprintf(f, "%s:", title);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %s", i ? "," : "", g->nodes[v[i]].name);
	fputc('\n', f);
}

static void text_dims(FILE *f, const char *title, const struct ccsg_dims *d,
		      const int32_t *v, size_t n)
{
	if (!n)
		return;
	fprintf(f, "%s:", title);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %s", i ? "," : "", d->names[v[i]]);
	fputc('\n', f);
}

static void text_programs(FILE *f, const uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s0x%" PRIx32, i ? ", " : "", v[i]);
	if (!n)
		fputs("none", f);
}

static void text_worst(FILE *f, const struct ccsg_against *x,
		       const struct ccsg_against_worst *w, int rel)
{
	const struct ccsg_against_row *r;

	if (w->row < 0) {
		fputs("none", f);
		return;
	}
	r = &x->rows[w->row];
	if (rel)
		fprintf(f, "%+.1f%%", 100 * w->value);
	else
		fprintf(f, "%+.3f ms", w->value / 1e6);
	fprintf(f, " (%s %s on %s)", node_name(x, r->node_a), fig_name[w->desc],
		dim_name(x, r->dim_a));
}

static void print_text(FILE *f, const struct ccsg_against *x,
		       const struct ccsg_changes *cs, const char *path_a,
		       const char *path_b)
{
	const struct ccsg_graph *a = x->im->g;
	char text[2048];

	fprintf(f,
		"Predicted from %s with the changes, against %s as "
		"measured:\n",
		path_a, path_b);
	for (size_t i = 0; i < cs->n; i++) {
		ccsg_change_format(&cs->v[i], text, sizeof(text));
		fprintf(f, "  %s\n", text);
	}
	if (!x->same_programs) {
		fputs("note: A and B trace different programs (A: ", f);
		text_programs(f, x->progs_a, x->nprogs_a);
		fputs("; B: ", f);
		text_programs(f, x->progs_b, x->nprogs_b);
		fputs("): comparing the nodes they share\n", f);
	}
	fprintf(f,
		"\nCPU in ms per node and host; error = predicted - B, "
		"relative to B; * = in the CCDG; OFF = outside %g%% + %g ms;"
		"\n(runtime) = not predicted, out of the summary; "
		"<main>'s desc less the runtime nodes\n\n",
		100 * CCSG_AGAINST_TOL_REL, CCSG_AGAINST_TOL_ABS_NS / 1e6);
	fprintf(f, "  %-5s %10s %10s %10s %10s %9s\n", "", "A", "predicted",
		"B", "error", "relative");
	for (size_t i = 0; i < x->nrows; i++) {
		const struct ccsg_against_row *r = &x->rows[i];

		fprintf(f, "%c %s on %s%s\n",
			x->im->affected[r->node_a] ? '*' : ' ',
			node_name(x, r->node_a), dim_name(x, r->dim_a),
			r->runtime  ? "  (runtime)"
			: r->agrees ? ""
				    : "  OFF");
		text_fig(f, &r->self, 0);
		text_fig(f, &r->desc, 1);
	}
	text_names(f, "\nnodes only in A", a, x->only_a, x->nonly_a);
	text_names(f, "nodes only in B", x->b, x->only_b, x->nonly_b);
	text_dims(f, "hosts only in A", a->dims, x->dims_only_a,
		  x->ndims_only_a);
	text_dims(f, "hosts only in B", x->b->dims, x->dims_only_b,
		  x->ndims_only_b);
	if (x->nlatency)
		fputs("\nmean latency, ms (an estimate, not in the summary: "
		      "wall time)\n",
		      f);
	for (size_t i = 0; i < x->nlatency; i++) {
		const struct ccsg_against_latency *l = &x->latency[i];

		fprintf(f, "  %-30s A %10.3f  predicted %10.3f  B %10.3f\n",
			node_name(x, l->node_a), l->a / 1e6, l->pred / 1e6,
			l->b / 1e6);
	}
	fprintf(f,
		"\nsummary: %zu of %zu node-host rows agree within %g%% + "
		"%g ms (self and desc); largest relative error ",
		x->agree, x->compared, 100 * CCSG_AGAINST_TOL_REL,
		CCSG_AGAINST_TOL_ABS_NS / 1e6);
	text_worst(f, x, &x->worst_rel, 1);
	fputs("; largest error ", f);
	text_worst(f, x, &x->worst_abs, 0);
	fputc('\n', f);
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_fig(FILE *f, const char *name,
		     const struct ccsg_against_fig *v)
{
	int64_t err = v->pred - v->b;

	fprintf(f,
		", \"%s_cpu_us_a\": %.3f, \"%s_cpu_us_predicted\": %.3f, "
		"\"%s_cpu_us_b\": %.3f, \"%s_cpu_us_error\": %.3f, "
		"\"%s_cpu_error_relative\": ",
		name, ccsg_us(v->a), name, ccsg_us(v->pred), name,
		ccsg_us(v->b), name, ccsg_us(err), name);
	if (v->b)
		fprintf(f, "%.6f", (double)err / fabs((double)v->b));
	else
		fputs("null", f);
}

static void json_nodes(FILE *f, const struct ccsg_graph *g, const int32_t *v,
		       size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"id\": %d, \"name\": ", i ? ", " : "", v[i]);
		json_cstr(f, g->nodes[v[i]].name);
		fputc('}', f);
	}
	fputc(']', f);
}

static void json_dims(FILE *f, const struct ccsg_dims *d, const int32_t *v,
		      size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		json_cstr(f, d->names[v ? (size_t)v[i] : i]);
	}
	fputc(']', f);
}

static void json_programs(FILE *f, const uint32_t *v, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%" PRIu32, i ? ", " : "", v[i]);
	fputc(']', f);
}

static void json_worst(FILE *f, const struct ccsg_against *x,
		       const struct ccsg_against_worst *w, const char *key,
		       int rel)
{
	const struct ccsg_against_row *r = &x->rows[w->row < 0 ? 0 : w->row];

	fprintf(f, ", \"%s\": ", key);
	if (w->row < 0) {
		fprintf(f, "null, \"%s_at\": null", key);
		return;
	}
	fprintf(f, rel ? "%.6f" : "%.3f", rel ? w->value : w->value / 1e3);
	fprintf(f, ", \"%s_at\": {\"name\": ", key);
	json_cstr(f, node_name(x, r->node_a));
	fputs(", \"host\": ", f);
	json_cstr(f, dim_name(x, r->dim_a));
	fprintf(f, ", \"figure\": \"%s\"}", fig_name[w->desc]);
}

static void print_json(FILE *f, const struct ccsg_against *x,
		       const struct ccsg_changes *cs, const char *path_a,
		       const char *path_b)
{
	const struct ccsg_graph *a = x->im->g;
	char text[2048];

	fputs("{\"a\": ", f);
	json_cstr(f, path_a);
	fputs(", \"b\": ", f);
	json_cstr(f, path_b);
	fprintf(f,
		", \"unit\": \"us\",\n \"tolerance\": {\"relative\": %g, "
		"\"absolute_us\": %g},\n \"changes\": [",
		CCSG_AGAINST_TOL_REL, CCSG_AGAINST_TOL_ABS_NS / 1e3);
	for (size_t i = 0; i < cs->n; i++) {
		ccsg_change_format(&cs->v[i], text, sizeof(text));
		fputs(i ? ", " : "", f);
		json_cstr(f, text);
	}
	fputs("],\n \"programs\": {\"a\": ", f);
	json_programs(f, x->progs_a, x->nprogs_a);
	fputs(", \"b\": ", f);
	json_programs(f, x->progs_b, x->nprogs_b);
	fprintf(f, ", \"same\": %s},\n \"hosts\": {\"a\": ",
		x->same_programs ? "true" : "false");
	json_dims(f, a->dims, NULL, a->dims->n);
	fputs(", \"b\": ", f);
	json_dims(f, x->b->dims, NULL, x->b->dims->n);
	fputs(", \"only_in_a\": ", f);
	json_dims(f, a->dims, x->dims_only_a, x->ndims_only_a);
	fputs(", \"only_in_b\": ", f);
	json_dims(f, x->b->dims, x->dims_only_b, x->ndims_only_b);
	fputs("},\n \"nodes\": [", f);
	for (size_t i = 0; i < x->nrows; i++) {
		const struct ccsg_against_row *r = &x->rows[i];

		fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
		json_cstr(f, node_name(x, r->node_a));
		fputs(", \"host\": ", f);
		json_cstr(f, dim_name(x, r->dim_a));
		fprintf(f,
			", \"id_a\": %d, \"id_b\": %d, \"affected\": %s, "
			"\"runtime\": %s, \"less_runtime\": %s",
			r->node_a, r->node_b,
			x->im->affected[r->node_a] ? "true" : "false",
			r->runtime ? "true" : "false",
			r->less_runtime ? "true" : "false");
		json_fig(f, "self", &r->self);
		json_fig(f, "desc", &r->desc);
		fprintf(f, ", \"agrees\": %s}", r->agrees ? "true" : "false");
	}
	fputs("\n ],\n \"only_in_a\": ", f);
	json_nodes(f, a, x->only_a, x->nonly_a);
	fputs(",\n \"only_in_b\": ", f);
	json_nodes(f, x->b, x->only_b, x->nonly_b);
	fputs(",\n \"latency\": [", f);
	for (size_t i = 0; i < x->nlatency; i++) {
		const struct ccsg_against_latency *l = &x->latency[i];

		fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
		json_cstr(f, node_name(x, l->node_a));
		fprintf(f,
			", \"mean_us_a\": %.3f, \"mean_us_predicted\": %.3f, "
			"\"mean_us_b\": %.3f, \"mean_us_error\": %.3f}",
			l->a / 1e3, l->pred / 1e3, l->b / 1e3,
			(l->pred - l->b) / 1e3);
	}
	fprintf(f, "\n ],\n \"summary\": {\"compared\": %zu, \"agree\": %zu",
		x->compared, x->agree);
	json_worst(f, x, &x->worst_rel, "largest_relative_error", 1);
	json_worst(f, x, &x->worst_abs, "largest_error_us", 0);
	fputs("}}\n", f);
}

int ccsg_against_print(FILE *f, const struct ccsg_against *x,
		       const struct ccsg_changes *cs, const char *path_a,
		       const char *path_b, int format)
{
	if (format == CCSG_JSON)
		print_json(f, x, cs, path_a, path_b);
	else
		print_text(f, x, cs, path_a, path_b);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
