/*
 * impact-output.c - `ccsg impact`'s output (impact-output.h): report's
 * CCSG with the CCDG superimposed.  JSON, XML and dot are report's
 * (output.h) with each node's after and delta added through the graph
 * printers' hooks (output-graph.h), and the changes, the CCDG and the
 * latency predicted after the graph; text is a report of its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "impact-output.h"
#include "json.h"
#include "output-escape.h"
#include "output-graph.h"
#include "output.h"

/*
 * What impact adds to report's printers: the changes, the CCSG with the
 * CCDG superimposed, the latency predicted.  fig is report's CPU figures
 * (output.h) with impact's hooks, whose context is the view.
 */
struct impact_view {
	const struct ccsg_impact *im;
	const struct ccsg_changes *cs;
	const struct ccsg_latency *lat;
	size_t nlat;
	int64_t *self, *desc; /* scratch: a node's after vectors */
	struct ccsg_figures fig;
};

/* enum ccsg_change_scope as written in JSON and XML */
static const char *const change_scope[] = { "all", "processor group",
					    "processor" };

static const char *const latency_caveat =
	"an estimate: it assumes that the CPU removed or added lies on the "
	"critical path of each call (its own skeleton, its synchronous "
	"child calls and the threads it joins) and that the host is not "
	"saturated";

double ccsg_impact_latency_delta(const struct ccsg_impact *im,
				 const struct ccsg_latency *l)
{
	return l->calls ? (double)im->sync_delta[l->node] / (double)l->calls
			: 0.0;
}

double ccsg_impact_latency_after(const struct ccsg_impact *im,
				 const struct ccsg_latency *l)
{
	double a = l->mean + ccsg_impact_latency_delta(im, l);

	return a > 0 ? a : 0;
}

/* self - before, per dimension, into d */
static void vec_diff(int64_t *d, const int64_t *after, const int64_t *before,
		     size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = after[i] - before[i];
}

/* A node's after and delta vectors and whether it is in the CCDG, after
 * report's fields. */
static void json_more(FILE *f, const void *ctx, int32_t u)
{
	const struct impact_view *iv = ctx;
	const struct ccsg_graph *g = iv->im->g;
	size_t i = (size_t)u;
	size_t k = g->dims->n;
	int64_t *d = iv->self + iv->im->k * 2;

	ccsg_impact_after(iv->im, u, iv->self, iv->desc);
	fputs(", \"self_cpu_us_after\": ", f);
	ccsg_figures_json_vec(f, &iv->fig, iv->self);
	fputs(", \"desc_cpu_us_after\": ", f);
	ccsg_figures_json_vec(f, &iv->fig, iv->desc);
	vec_diff(d, iv->self, g->nodes[i].self, k);
	fputs(", \"self_cpu_us_delta\": ", f);
	ccsg_figures_json_vec(f, &iv->fig, d);
	vec_diff(d, iv->desc, g->nodes[i].desc, k);
	fputs(", \"desc_cpu_us_delta\": ", f);
	ccsg_figures_json_vec(f, &iv->fig, d);
	fprintf(f, ", \"affected\": %s",
		iv->im->affected[i] ? "true" : "false");
}

static int cmp_int32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* The CCDG's nodes and edges, in id order (free them). */
static int32_t *sorted_copy(const int32_t *v, size_t n)
{
	int32_t *s = malloc((n + 1) * sizeof(int32_t));

	if (s && n) {
		memcpy(s, v, n * sizeof(int32_t));
		qsort(s, n, sizeof(int32_t), cmp_int32);
	}
	return s;
}

static void changes_json(FILE *f, const struct ccsg_changes *cs)
{
	char text[2048];

	fputs(",\n \"changes\": [", f);
	for (size_t i = 0; i < cs->n; i++) {
		const struct ccsg_change *c = &cs->v[i];

		ccsg_change_format(c, text, sizeof(text));
		fprintf(f,
			"%s\n  {\"kind\": \"%s\", \"on\": \"%s\", "
			"\"processors\": [",
			i ? "," : "",
			c->kind == CCSG_REDUCTION ? "reduction" : "increase",
			change_scope[c->scope]);
		json_cstrs(f, c->where, c->nwhere);
		fputs("], \"functions\": [", f);
		json_cstrs(f, c->functions, c->nfunctions);
		fprintf(f,
			"], \"percent\": %.9g, \"factor\": \"%" PRIu64
			"/%" PRIu64 "\", \"nodes\": [",
			c->percent_value, c->num, c->den);
		for (size_t j = 0; j < c->nnodes; j++)
			fprintf(f, "%s%d", j ? ", " : "", c->nodes[j]);
		fprintf(f, "], \"calls\": %" PRId64 ", \"text\": ", c->calls);
		json_cstr(f, text);
		fputc('}', f);
	}
	fputs("\n ]", f);
}

static void impact_json_tail(FILE *f, const struct impact_view *iv,
			     const struct ccsg_graph *g)
{
	const struct ccsg_impact *im = iv->im;
	size_t k = g->dims->n;
	int32_t *nodes = sorted_copy(im->ccdg_nodes, im->nccdg_nodes);
	int32_t *edges = sorted_copy(im->ccdg_edges, im->nccdg_edges);

	changes_json(f, iv->cs);
	for (size_t i = 0; i < k; i++)
		iv->self[i] = g->total[i] + im->total_delta[i];
	fputs(",\n \"total_cpu_us_after\": ", f);
	ccsg_figures_json_vec(f, &iv->fig, iv->self);
	fputs(", \"total_cpu_us_delta\": ", f);
	ccsg_figures_json_vec(f, &iv->fig, im->total_delta);
	fputs(",\n \"ccdg\": {\"nodes\": [", f);
	for (size_t i = 0; nodes && i < im->nccdg_nodes; i++)
		fprintf(f, "%s%d", i ? ", " : "", nodes[i]);
	fputs("], \"edges\": [", f);
	for (size_t i = 0; edges && i < im->nccdg_edges; i++) {
		const struct ccsg_edge *e = &g->edges[edges[i]];

		fprintf(f,
			"%s{\"from\": %d, \"to\": %d, \"count\": %" PRId64 "}",
			i ? ", " : "", e->from, e->to, e->count);
	}
	fputs("]},\n \"latency\": {\"unit\": \"us\", \"estimate\": ", f);
	json_cstr(f, latency_caveat);
	fputs(", \"functions\": [", f);
	for (size_t i = 0; i < iv->nlat; i++) {
		const struct ccsg_latency *l = &iv->lat[i];

		fprintf(f, "%s\n  {\"id\": %d, \"name\": ", i ? "," : "",
			l->node);
		json_cstr(f, g->nodes[l->node].name);
		fprintf(f,
			", \"calls\": %" PRId64 ", \"mean_us\": %.3f, "
			"\"mean_us_after\": %.3f, \"mean_us_delta\": %.3f, "
			"\"affected\": %s}",
			l->calls, l->mean / 1e3,
			ccsg_impact_latency_after(iv->im, l) / 1e3,
			ccsg_impact_latency_delta(iv->im, l) / 1e3,
			im->affected[l->node] ? "true" : "false");
	}
	fputs("\n ]}", f);
	free(nodes);
	free(edges);
}

/* The same as XML attributes. */
static void xml_more(FILE *f, const void *ctx, int32_t u)
{
	const struct impact_view *iv = ctx;
	const struct ccsg_graph *g = iv->im->g;
	size_t k = g->dims->n;
	int64_t *d = iv->self + iv->im->k * 2;

	ccsg_impact_after(iv->im, u, iv->self, iv->desc);
	fputs(" self_cpu_us_after=\"", f);
	ccsg_figures_xml_vec(f, &iv->fig, iv->self);
	fputs("\" desc_cpu_us_after=\"", f);
	ccsg_figures_xml_vec(f, &iv->fig, iv->desc);
	vec_diff(d, iv->self, g->nodes[u].self, k);
	fputs("\" self_cpu_us_delta=\"", f);
	ccsg_figures_xml_vec(f, &iv->fig, d);
	vec_diff(d, iv->desc, g->nodes[u].desc, k);
	fputs("\" desc_cpu_us_delta=\"", f);
	ccsg_figures_xml_vec(f, &iv->fig, d);
	fprintf(f, "\" affected=\"%s\"",
		iv->im->affected[u] ? "true" : "false");
}

static void xml_changes(FILE *f, const struct ccsg_changes *cs)
{
	char text[2048];

	fputs(" <changes>\n", f);
	for (size_t i = 0; i < cs->n; i++) {
		const struct ccsg_change *c = &cs->v[i];

		ccsg_change_format(c, text, sizeof(text));
		fprintf(f,
			"  <change kind=\"%s\" on=\"%s\" percent=\"%.9g\" "
			"factor=\"%" PRIu64 "/%" PRIu64 "\" calls=\"%" PRId64
			"\">",
			c->kind == CCSG_REDUCTION ? "reduction" : "increase",
			change_scope[c->scope], c->percent_value, c->num,
			c->den, c->calls);
		ccsg_xml_str(f, text);
		fputs("</change>\n", f);
	}
	fputs(" </changes>\n", f);
}

static void xml_impact_tail(FILE *f, const struct impact_view *iv,
			    const struct ccsg_graph *g)
{
	const struct ccsg_impact *im = iv->im;
	int32_t *nodes = sorted_copy(im->ccdg_nodes, im->nccdg_nodes);
	int32_t *edges = sorted_copy(im->ccdg_edges, im->nccdg_edges);

	fputs(" <ccdg>\n", f);
	for (size_t i = 0; nodes && i < im->nccdg_nodes; i++)
		fprintf(f, "  <node id=\"%d\"/>\n", nodes[i]);
	for (size_t i = 0; edges && i < im->nccdg_edges; i++)
		fprintf(f,
			"  <link from=\"%d\" to=\"%d\" count=\"%" PRId64
			"\"/>\n",
			g->edges[edges[i]].from, g->edges[edges[i]].to,
			g->edges[edges[i]].count);
	fputs(" </ccdg>\n <latency unit=\"us\" estimate=\"", f);
	ccsg_xml_str(f, latency_caveat);
	fputs("\">\n", f);
	for (size_t i = 0; i < iv->nlat; i++) {
		const struct ccsg_latency *l = &iv->lat[i];

		fprintf(f, "  <function id=\"%d\" name=\"", l->node);
		ccsg_xml_str(f, g->nodes[l->node].name);
		fprintf(f,
			"\" calls=\"%" PRId64 "\" mean_us=\"%.3f\" "
			"mean_us_after=\"%.3f\" mean_us_delta=\"%.3f\"/>\n",
			l->calls, l->mean / 1e3,
			ccsg_impact_latency_after(iv->im, l) / 1e3,
			ccsg_impact_latency_delta(iv->im, l) / 1e3);
	}
	fputs(" </latency>\n", f);
	free(nodes);
	free(edges);
}

/*
 * dot with the CCDG superimposed: a node's colour says its change
 * (self + descendants, all hosts): green reduced, red increased, blue
 * affected without a net change (changes that cancel, or round to 0),
 * grey unaffected; the CCDG's arcs are drawn bold in their target's
 * colour.
 */
static const char *dot_colour(const struct impact_view *iv, int32_t u, int fill)
{
	size_t k = iv->im->k;
	int64_t d = ccsg_vec_sum(iv->im->self_delta + (size_t)u * k, k) +
		    ccsg_vec_sum(iv->im->desc_delta + (size_t)u * k, k);

	if (!iv->im->affected[u])
		return fill ? "grey92" : "grey50";
	if (d < 0)
		return fill ? "palegreen" : "darkgreen";
	if (d > 0)
		return fill ? "lightpink" : "red";
	return fill ? "lightblue" : "blue";
}

/* A node's self and desc before and after, in place of report's. */
static void dot_label(FILE *f, const void *ctx, int32_t u)
{
	const struct impact_view *iv = ctx;
	const struct ccsg_graph *g = iv->im->g;
	size_t k = g->dims->n;
	const struct ccsg_node *x = &g->nodes[u];
	int64_t s0 = ccsg_vec_sum(x->self, k), d0 = ccsg_vec_sum(x->desc, k),
		s1, d1;

	ccsg_impact_after(iv->im, u, iv->self, iv->desc);
	s1 = ccsg_vec_sum(iv->self, k);
	d1 = ccsg_vec_sum(iv->desc, k);
	fprintf(f,
		"\\nself %.3f -> %.3f ms (%+.3f)\\ndesc %.3f -> %.3f ms "
		"(%+.3f)",
		ccsg_ms(s0), ccsg_ms(s1), ccsg_ms(s1 - s0), ccsg_ms(d0),
		ccsg_ms(d1), ccsg_ms(d1 - d0));
}

static void dot_style(FILE *f, const void *ctx, int32_t u)
{
	const struct impact_view *iv = ctx;

	fprintf(f, ", style=filled, color=\"%s\", fillcolor=\"%s\"",
		dot_colour(iv, u, 0), dot_colour(iv, u, 1));
}

static void dot_edge_style(FILE *f, const void *ctx, size_t e)
{
	const struct impact_view *iv = ctx;

	if (iv->im->edge_affected[e])
		fprintf(f, ", penwidth=2, color=\"%s\"",
			dot_colour(iv, iv->im->g->edges[e].to, 0));
	else
		fputs(", color=\"grey50\"", f);
}

/* --- impact as text
 * ------------------------------------------------------------ */

static const struct impact_view *sort_iv;

/* flat profile order: self after, largest first, then id */
static int cmp_self_after(const void *a, const void *b)
{
	const struct impact_view *iv = sort_iv;
	const struct ccsg_graph *g = iv->im->g;
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	size_t k = iv->im->k;
	int64_t sx = ccsg_vec_sum(g->nodes[x].self, g->dims->n) +
		     ccsg_vec_sum(iv->im->self_delta + (size_t)x * k, k);
	int64_t sy = ccsg_vec_sum(g->nodes[y].self, g->dims->n) +
		     ccsg_vec_sum(iv->im->self_delta + (size_t)y * k, k);

	if (sx != sy)
		return sx < sy ? 1 : -1;
	return x - y;
}

static void changes_text(FILE *f, const struct ccsg_graph *g,
			 const struct ccsg_changes *cs)
{
	char text[2048];

	fputs("changes, applied in order:\n", f);
	for (size_t i = 0; i < cs->n; i++) {
		const struct ccsg_change *c = &cs->v[i];

		ccsg_change_format(c, text, sizeof(text));
		fprintf(f,
			"  %zu. %s\n     (self CPU x %" PRIu64 "/%" PRIu64
			": %" PRId64 " call%s of",
			i + 1, text, c->num, c->den, c->calls,
			c->calls == 1 ? "" : "s");
		for (size_t j = 0; j < c->nnodes; j++)
			fprintf(f, "%s %s [%d]", j ? "," : "",
				g->nodes[c->nodes[j]].name, c->nodes[j]);
		fputs(")\n", f);
	}
}

static void total_text(FILE *f, const struct ccsg_graph *g,
		       const struct ccsg_impact *im)
{
	size_t k = g->dims->n;
	int64_t before = ccsg_vec_sum(g->total, k);
	int64_t delta = ccsg_vec_sum(im->total_delta, k);

	fprintf(f,
		"user CPU of the whole system: %.3f -> %.3f ms (%+.3f ms, "
		"%+.2f%%)\n",
		ccsg_ms(before), ccsg_ms(before + delta), ccsg_ms(delta),
		before ? 100.0 * delta / before : 0.0);
	for (size_t i = 0; i < k; i++)
		fprintf(f, "%s%s %.3f -> %.3f (%+.3f)", i ? ", " : "  ",
			g->dims->names[i], ccsg_ms(g->total[i]),
			ccsg_ms(g->total[i] + im->total_delta[i]),
			ccsg_ms(im->total_delta[i]));
	if (k)
		fputc('\n', f);
}

static void flat_text(FILE *f, const struct ccsg_graph *g,
		      const struct impact_view *iv, int32_t *order)
{
	size_t k = g->dims->n, n = g->nnodes;

	fputs("\nFlat profile: the CCSG with the CCDG superimposed (CPU in ms, "
	      "all hosts;\n"
	      "* = affected, in the CCDG; self = Equations 1 and 2, desc = "
	      "Equations 3 and 4)\n\n",
	      f);
	fprintf(f, "  %10s    %10s %10s  %10s    %10s %10s %9s  name\n", "self",
		"after", "delta", "desc", "after", "delta", "count");
	for (size_t i = 0; i < n; i++)
		order[i] = (int32_t)i;
	sort_iv = iv;
	qsort(order, n, sizeof(int32_t), cmp_self_after);
	for (size_t i = 0; i < n; i++) {
		int32_t u = order[i];
		const struct ccsg_node *x = &g->nodes[u];
		int64_t s0 = ccsg_vec_sum(x->self, k),
			d0 = ccsg_vec_sum(x->desc, k);
		int64_t s1, d1;

		ccsg_impact_after(iv->im, u, iv->self, iv->desc);
		s1 = ccsg_vec_sum(iv->self, k);
		d1 = ccsg_vec_sum(iv->desc, k);
		fprintf(f,
			"%c %10.3f -> %10.3f %+10.3f  %10.3f -> %10.3f %+10.3f "
			"%9" PRId64 "  %s [%d]\n",
			iv->im->affected[u] ? '*' : ' ', ccsg_ms(s0),
			ccsg_ms(s1), ccsg_ms(s1 - s0), ccsg_ms(d0), ccsg_ms(d1),
			ccsg_ms(d1 - d0), ccsg_node_count(x), x->name, u);
	}
}

static void ccdg_vec_text(FILE *f, const char *what, const int64_t *before,
			  const int64_t *after, size_t k)
{
	fprintf(f, "    %-4s %10.3f -> %10.3f  delta", what,
		ccsg_ms(ccsg_vec_sum(before, k)),
		ccsg_ms(ccsg_vec_sum(after, k)));
	for (size_t j = 0; j < k; j++)
		fprintf(f, " %+10.3f", ccsg_ms(after[j] - before[j]));
	fputc('\n', f);
}

static void ccdg_text(FILE *f, const struct ccsg_graph *g,
		      const struct impact_view *iv)
{
	const struct ccsg_impact *im = iv->im;
	size_t k = g->dims->n;
	int32_t *nodes = sorted_copy(im->ccdg_nodes, im->nccdg_nodes);

	if (!nodes)
		return;
	fputs("\nCPU Consumption Delta Graph: the affected nodes and the arcs "
	      "the change went\n"
	      "through (ms; deltas per host:",
	      f);
	for (size_t j = 0; j < k; j++)
		fprintf(f, " %s", g->dims->names[j]);
	fputs(")\n", f);
	for (size_t i = 0; i < im->nccdg_nodes; i++) {
		int32_t u = nodes[i];

		ccsg_impact_after(im, u, iv->self, iv->desc);
		fprintf(f, "\n[%d] %s\n", u, g->nodes[u].name);
		ccdg_vec_text(f, "self", g->nodes[u].self, iv->self, k);
		ccdg_vec_text(f, "desc", g->nodes[u].desc, iv->desc, k);
		for (size_t e = 0; e < g->nedges; e++) {
			const struct ccsg_edge *ed = &g->edges[e];

			if (!im->edge_affected[e] ||
			    (ed->to != u && ed->from != u))
				continue;
			fprintf(f, "    %-9s [%d] %s (%" PRId64 ")\n",
				ed->to == u ? "called by" : "calls",
				ed->to == u ? ed->from : ed->to,
				g->nodes[ed->to == u ? ed->from : ed->to].name,
				ed->count);
		}
	}
	free(nodes);
}

static void latency_text(FILE *f, const struct ccsg_graph *g,
			 const struct impact_view *iv)
{
	fputs("\nPredicted mean end-to-end latency (Equation 3 of the "
	      "monitoring paper, ms).\n"
	      "This is an estimate: it assumes that the CPU removed or added "
	      "lies on the\n"
	      "critical path of each call (its own skeleton, its synchronous "
	      "child calls\n"
	      "and the threads it joins) and that the host is not "
	      "saturated.\n\n",
	      f);
	fprintf(f, "  %8s %10s    %10s %10s  name\n", "calls", "mean", "after",
		"delta");
	for (size_t i = 0; i < iv->nlat; i++) {
		const struct ccsg_latency *l = &iv->lat[i];

		if (!l->calls) {
			fprintf(f,
				"  %8d %10s    %10s %10s  %s (no call with a "
				"latency)\n",
				0, "-", "-", "-", g->nodes[l->node].name);
			continue;
		}
		fprintf(f, "%c %8" PRId64 " %10.3f -> %10.3f %+10.3f  %s\n",
			iv->im->affected[l->node] ? '*' : ' ', l->calls,
			l->mean / 1e6,
			ccsg_impact_latency_after(iv->im, l) / 1e6,
			ccsg_impact_latency_delta(iv->im, l) / 1e6,
			g->nodes[l->node].name);
	}
}

static void impact_text(FILE *f, const struct ccsg_graph *g,
			const struct impact_view *iv)
{
	int32_t *order = malloc((g->nnodes + 1) * sizeof(int32_t));

	if (!order)
		return;
	fprintf(f, "ccsg impact of %s\n", g->dscg->trace->path);
	ccsg_summary_text(f, g->dscg->trace, &g->dscg->stats);
	changes_text(f, g, iv->cs);
	total_text(f, g, iv->im);
	ccsg_graph_notes_text(f, g);
	flat_text(f, g, iv, order);
	ccdg_text(f, g, iv);
	latency_text(f, g, iv);
	free(order);
}

/* --- impact as JSON, XML and dot: report's, extended
 * ---------------------------------------- */

static void impact_json(FILE *f, const struct impact_view *iv)
{
	ccsg_report_json_open(f, &iv->fig);
	ccsg_graph_json(f, &iv->fig);
	impact_json_tail(f, iv, iv->im->g);
	fputs("\n}\n", f);
}

static void impact_xml(FILE *f, const struct impact_view *iv)
{
	ccsg_report_xml_open(f, iv->im->g);
	xml_changes(f, iv->cs);
	ccsg_graph_xml_trees(f, &iv->fig);
	xml_impact_tail(f, iv, iv->im->g);
	fputs("</ccsg>\n", f);
}

static void impact_dot(FILE *f, const struct impact_view *iv)
{
	char text[2048];

	ccsg_report_dot_open(f, iv->im->g);
	fputs("  labelloc=t;\n  label=\"", f);
	for (size_t i = 0; i < iv->cs->n; i++) {
		ccsg_change_format(&iv->cs->v[i], text, sizeof(text));
		ccsg_dot_str(f, text);
		fputs("\\n", f);
	}
	fputs("green: reduced, red: increased, blue: no net change, "
	      "grey: unaffected\";\n",
	      f);
	ccsg_graph_dot_body(f, &iv->fig);
}

int ccsg_impact_print(FILE *f, const struct ccsg_impact *im,
		      const struct ccsg_changes *cs,
		      const struct ccsg_latency *lat, size_t nlat, int format)
{
	struct impact_view iv = { im, cs, lat, nlat, NULL, NULL, { 0 } };

	/* self, desc and a difference: k each */
	iv.self = calloc(3 * im->k, sizeof(int64_t));
	if (!iv.self)
		return -ENOMEM;
	iv.desc = iv.self + im->k;
	ccsg_cpu_figures(&iv.fig, im->g);
	iv.fig.json_more = json_more;
	iv.fig.xml_more = xml_more;
	iv.fig.dot_label = dot_label;
	iv.fig.dot_style = dot_style;
	iv.fig.dot_edge_style = dot_edge_style;
	iv.fig.ctx = &iv;
	switch (format) {
	case CCSG_JSON:
		impact_json(f, &iv);
		break;
	case CCSG_XML:
		impact_xml(f, &iv);
		break;
	case CCSG_DOT:
		impact_dot(f, &iv);
		break;
	default:
		impact_text(f, im->g, &iv);
		break;
	}
	free(iv.self);
	return ccsg_print_done(f);
}
