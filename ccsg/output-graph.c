/*
 * output-graph.c - the parts of a summarization graph's JSON, XML and
 * dot that every resource shares (output-graph.h).
 */
#include <inttypes.h>

#include "json.h"
#include "output-escape.h"
#include "output-graph.h"

const char *const ccsg_kind_names[] = { "main", "function", "thread" };

int64_t ccsg_node_count(const struct ccsg_node *n)
{
	return n->kind == CCSG_THREAD ? n->threads : n->calls;
}

static void one(FILE *f, const struct ccsg_figures *fig, int64_t v)
{
	if (fig->bytes)
		fprintf(f, "%" PRId64, v);
	else
		fprintf(f, "%.3f", v / 1000.0);
}

void ccsg_figures_json_vec(FILE *f, const struct ccsg_figures *fig,
			   const int64_t *v)
{
	fputc('[', f);
	for (size_t i = 0; i < fig->g->dims->n; i++) {
		fputs(i ? ", " : "", f);
		one(f, fig, v[i]);
	}
	fputc(']', f);
}

void ccsg_figures_xml_vec(FILE *f, const struct ccsg_figures *fig,
			  const int64_t *v)
{
	for (size_t i = 0; i < fig->g->dims->n; i++) {
		fputs(i ? " " : "", f);
		one(f, fig, v[i]);
	}
}

static const int64_t *series(const struct ccsg_series *s, int32_t u)
{
	return s->desc ? s->g->nodes[u].desc : s->g->nodes[u].self;
}

/* The same of edge e: the share of its destination's that came by it. */
static const int64_t *edge_series(const struct ccsg_series *s, size_t e)
{
	return s->desc ? s->g->edges[e].desc : s->g->edges[e].self;
}

void ccsg_graph_json(FILE *f, const struct ccsg_figures *fig)
{
	const struct ccsg_graph *g = fig->g;

	fputs("\"nodes\": [", f);
	for (size_t i = 0; i < g->nnodes; i++) {
		const struct ccsg_node *x = &g->nodes[i];

		fprintf(f, "%s\n  {\"id\": %zu, \"kind\": \"%s\", \"name\": ",
			i ? "," : "", i, ccsg_kind_names[x->kind]);
		json_cstr(f, x->name);
		for (size_t s = 0; s < fig->n; s++) {
			fprintf(f, ", \"%s\": ", fig->s[s].name);
			ccsg_figures_json_vec(f, fig,
					      series(&fig->s[s], (int32_t)i));
		}
		if (x->kind == CCSG_FUNCTION)
			fprintf(f,
				", \"program\": %u, \"version\": %u, "
				"\"procedure\": %u, \"calls\": %" PRId64
				", \"failed\": %" PRId64,
				x->prog, x->vers, x->proc, x->calls, x->failed);
		if (x->kind == CCSG_THREAD)
			fprintf(f, ", \"parent\": %d, \"threads\": %" PRId64,
				x->parent, x->threads);
		if (fig->json_more)
			fig->json_more(f, fig->ctx, (int32_t)i);
		fputc('}', f);
	}
	fputs("\n ],\n \"edges\": [", f);
	for (size_t i = 0; i < g->nedges; i++) {
		const struct ccsg_edge *e = &g->edges[i];

		fprintf(f,
			"%s\n  {\"from\": %d, \"to\": %d, \"count\": %" PRId64
			", \"primary\": %s",
			i ? "," : "", e->from, e->to, e->count,
			e->primary ? "true" : "false");
		for (size_t s = 0; s < fig->n; s++) {
			fprintf(f, ", \"%s\": ", fig->s[s].name);
			ccsg_figures_json_vec(f, fig,
					      edge_series(&fig->s[s], i));
		}
		fputc('}', f);
	}
	fputs("\n ]", f);
}

void ccsg_graph_xml_open(FILE *f, const struct ccsg_graph *g)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ccsg trace=\"", f);
	ccsg_xml_str(f, g->dscg->trace->path);
	fputs("\" hosts=\"", f);
	for (size_t i = 0; i < g->dims->n; i++) {
		fputs(i ? " " : "", f);
		ccsg_xml_str(f, g->dims->names[i]);
	}
	fputc('"', f);
}

/* The figures of edge e as attributes, each name after prefix. */
static void xml_edge_figures(FILE *f, const struct ccsg_figures *fig, size_t e,
			     const char *prefix)
{
	for (size_t s = 0; s < fig->n; s++) {
		fprintf(f, " %s%s=\"", prefix, fig->s[s].name);
		ccsg_figures_xml_vec(f, fig, edge_series(&fig->s[s], e));
		fputc('"', f);
	}
}

/* Node u of the primary tree, reached by edge in (-1: the root). */
static void xml_node(FILE *f, const struct ccsg_figures *fig, int32_t u,
		     int32_t in, int depth)
{
	const struct ccsg_graph *g = fig->g;
	const struct ccsg_node *x = &g->nodes[u];
	int children = 0;

	fprintf(f, "%*s<node id=\"%d\" kind=\"%s\" name=\"", 2 * depth, "", u,
		ccsg_kind_names[x->kind]);
	ccsg_xml_str(f, x->name);
	for (size_t s = 0; s < fig->n; s++) {
		fprintf(f, "\" %s=\"", fig->s[s].name);
		ccsg_figures_xml_vec(f, fig, series(&fig->s[s], u));
	}
	fputc('"', f);
	if (x->kind == CCSG_FUNCTION)
		fprintf(f,
			" program=\"%u\" version=\"%u\" procedure=\"%u\" "
			"calls=\"%" PRId64 "\" failed=\"%" PRId64 "\"",
			x->prog, x->vers, x->proc, x->calls, x->failed);
	if (x->kind == CCSG_THREAD)
		fprintf(f, " threads=\"%" PRId64 "\"", x->threads);
	if (in >= 0) {
		fprintf(f, " count=\"%" PRId64 "\"", g->edges[in].count);
		xml_edge_figures(f, fig, (size_t)in, "arc_");
	}
	if (fig->xml_more)
		fig->xml_more(f, fig->ctx, u);
	for (size_t e = 0; e < g->nedges; e++) {
		const struct ccsg_edge *ed = &g->edges[e];

		if (ed->from != u || !ed->primary)
			continue;
		if (!children++)
			fputs(">\n", f);
		xml_node(f, fig, ed->to, (int32_t)e, depth + 1);
	}
	if (children)
		fprintf(f, "%*s</node>\n", 2 * depth, "");
	else
		fputs("/>\n", f);
}

void ccsg_graph_xml_trees(FILE *f, const struct ccsg_figures *fig)
{
	const struct ccsg_graph *g = fig->g;

	fputs(" <primary>\n", f);
	xml_node(f, fig, 0, -1, 2);
	fputs(" </primary>\n <secondary>\n", f);
	for (size_t e = 0; e < g->nedges; e++) {
		if (g->edges[e].primary)
			continue;
		fprintf(f,
			"  <link from=\"%d\" to=\"%d\" count=\"%" PRId64 "\"",
			g->edges[e].from, g->edges[e].to, g->edges[e].count);
		xml_edge_figures(f, fig, e, "");
		fputs("/>\n", f);
	}
	fputs(" </secondary>\n", f);
}

void ccsg_graph_dot_open(FILE *f)
{
	fputs("digraph ccsg {\n  rankdir=TB;\n  node [shape=box, "
	      "fontname=\"monospace\"];\n",
	      f);
}

void ccsg_graph_dot_body(FILE *f, const struct ccsg_figures *fig)
{
	const struct ccsg_graph *g = fig->g;
	size_t k = g->dims->n;

	for (size_t i = 0; i < g->nnodes; i++) {
		const struct ccsg_node *x = &g->nodes[i];

		fprintf(f, "  n%zu [%slabel=\"", i,
			x->kind == CCSG_THREAD ? "shape=ellipse, "
			: x->kind == CCSG_MAIN ? "shape=doubleoctagon, "
					       : "");
		ccsg_dot_str(f, x->name);
		fig->dot_label(f, fig->ctx, (int32_t)i);
		if (x->kind == CCSG_FUNCTION) {
			fprintf(f, "\\n%" PRId64 " calls", x->calls);
			if (x->failed)
				fprintf(f, ", %" PRId64 " failed", x->failed);
		}
		if (k > 1) { /* the first series per host */
			const int64_t *v = series(&fig->s[0], (int32_t)i);

			fputs("\\n<", f);
			for (size_t j = 0; j < k; j++)
				if (fig->bytes)
					fprintf(f, "%s%" PRId64, j ? ", " : "",
						v[j]);
				else
					fprintf(f, "%s%.3f", j ? ", " : "",
						v[j] / 1e6);
			fputc('>', f);
		}
		fputc('"', f);
		if (fig->dot_style)
			fig->dot_style(f, fig->ctx, (int32_t)i);
		fputs("];\n", f);
	}
	for (size_t e = 0; e < g->nedges; e++) {
		fprintf(f, "  n%d -> n%d [label=\"%" PRId64 "\"%s",
			g->edges[e].from, g->edges[e].to, g->edges[e].count,
			g->edges[e].primary ? "" : ", style=dashed");
		if (fig->dot_edge_style)
			fig->dot_edge_style(f, fig->ctx, e);
		fputs("];\n", f);
	}
	fputs("}\n", f);
}
