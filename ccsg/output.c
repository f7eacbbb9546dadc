/*
 * output.c - text (gprof-like), JSON, XML (Section 3.3 of the CPU paper:
 * the breadth-first primary tree, then the secondary links) and Graphviz
 * dot for the CCSG; text and JSON for the DSCG and the latency table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "json.h"
#include "output-graph.h"
#include "output.h"
#include "utf8.h"

int ccsg_format_parse(const char *s)
{
	static const char *const names[] = { "text", "json", "xml", "dot" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/*
 * Copy the well-formed UTF-8 sequence at *s and step past it, or write
 * U+FFFD for a byte that begins none (XML and dot are UTF-8; the names a
 * traced program gave may be any bytes).  0 if *s is ASCII: the caller's.
 */
static int non_ascii(FILE *f, const char **s)
{
	const unsigned char *p = (const unsigned char *)*s;
	size_t n;

	if (*p < 0x80)
		return 0;
	n = utf8_seq_len(p, strnlen(*s, 4));
	if (n)
		fwrite(p, 1, n, f);
	else
		fputs(UTF8_REPLACEMENT, f);
	*s += n ? n : 1;
	return 1;
}

void ccsg_xml_str(FILE *f, const char *s)
{
	while (s && *s) {
		if (non_ascii(f, &s))
			continue;
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
		s++;
	}
}

void ccsg_dot_str(FILE *f, const char *s)
{
	while (s && *s) {
		if (non_ascii(f, &s))
			continue;
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
		s++;
	}
}

static int done(FILE *f)
{
	return fflush(f) || ferror(f) ? -EIO : 0;
}

static double us(int64_t ns)
{
	return ns / 1000.0;
}

static double ms(int64_t ns)
{
	return ns / 1e6;
}

static void json_vec(FILE *f, const int64_t *v, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%.3f", i ? ", " : "", us(v[i]));
	fputc(']', f);
}

static void tally_json(FILE *f, const struct ccsg_trace *t, const struct ccsg_tally *ty)
{
	fputc('{', f);
	for (size_t i = 0; i < ty->n; i++) {
		fputs(i ? ", " : "", f);
		json_cstr(f, t->strings[ty->v[i].str]);
		fprintf(f, ": %zu", ty->v[i].n);
	}
	fputc('}', f);
}

void ccsg_summary_json(FILE *f, const struct ccsg_trace *t,
		       const struct ccsg_dscg_stats *s)
{
	fprintf(f, "{\"calls\": %zu, \"chains\": %zu, \"threads\": %zu, \"broken_chains\": %zu, "
		"\"segments\": %zu, \"abnormal_transitions\": %zu, \"truncated_chains\": %zu, "
		"\"calls_without_server\": %zu, \"calls_without_client\": %zu, "
		"\"incomplete_calls\": %zu, \"max_depth\": %d, \"calls_without_start\": %zu, "
		"\"failed_calls\": %zu, \"failures\": ",
		s->calls, s->chains, s->threads, s->broken_chains, s->segments, s->breaks,
		s->truncated_chains, s->no_server, s->no_client, s->incomplete, s->max_depth,
		s->lost_starts, s->failed);
	tally_json(f, t, &s->failures);
	fputs(", \"tags\": ", f);
	tally_json(f, t, &s->tags);
	fputs(", \"reply_tags\": ", f);
	tally_json(f, t, &s->reply_tags);
	fputs(", \"monitoring\": ", f);
	ccsg_monitoring_json(f, &t->mon);
	fputc('}', f);
}

static void tally_text(FILE *f, const struct ccsg_trace *t, const struct ccsg_tally *ty)
{
	for (size_t i = 0; i < ty->n; i++)
		fprintf(f, "%s%s %zu", i ? ", " : "", t->strings[ty->v[i].str], ty->v[i].n);
}

/* What the numbers cannot show: said in words, before the numbers. */
void ccsg_summary_text(FILE *f, const struct ccsg_trace *t,
		       const struct ccsg_dscg_stats *s)
{
	fprintf(f, "%zu calls in %zu chains, %zu threads", s->calls, s->chains, s->threads);
	if (!s->calls)
		fputs("; no RPC calls in this trace", f);
	fputc('\n', f);
	if (s->broken_chains)
		fprintf(f, "broken chains: %zu (%zu segments, %zu abnormal transitions, %zu "
			"truncated): a lost log, an untraced peer or a crash\n",
			s->broken_chains, s->segments, s->breaks, s->truncated_chains);
	if (s->broken_chains && t->mon.switches)
		fputs("  or calls not monitored: every type was off for them "
		      "(below)\n",
		      f);
	if (s->lost_starts)
		fprintf(f, "calls whose start probe was lost: %zu (records dropped: function "
			"unknown; each is a '" CCSG_LOST_NAME "' segment, in no function)\n",
			s->lost_starts);
	if (s->no_server)
		fprintf(f, "calls to an untraced or lost server: %zu (their server CPU is unknown)\n",
			s->no_server);
	if (s->no_client)
		fprintf(f, "calls from an untraced or lost client: %zu (under <main>)\n", s->no_client);
	if (s->incomplete)
		fprintf(f, "calls without their end probe: %zu (CPU unknown)\n", s->incomplete);
	if (s->failed) {
		fprintf(f, "failed calls: %zu (", s->failed);
		tally_text(f, t, &s->failures);
		fputs(")\n", f);
	}
	if (s->tags.n) {
		fputs("tags at the skeleton start: ", f);
		tally_text(f, t, &s->tags);
		fputs(" (a call without an 'ok' tag starts a chain of its own on the server)\n", f);
	}
	if (s->reply_tags.n) {
		fputs("tags in the replies: ", f);
		tally_text(f, t, &s->reply_tags);
		fputc('\n', f);
	}
	ccsg_monitoring_text(f, &t->mon);
}

/* --- report ------------------------------------------------------------------ */

static const struct ccsg_graph *sort_g;

static int cmp_self(const void *a, const void *b)
{
	const struct ccsg_node *x = &sort_g->nodes[*(const int32_t *)a];
	const struct ccsg_node *y = &sort_g->nodes[*(const int32_t *)b];
	size_t k = sort_g->dims->n;
	int64_t sx = ccsg_vec_sum(x->self, k), sy = ccsg_vec_sum(y->self, k);

	if (sx != sy)
		return sx < sy ? 1 : -1;
	return *(const int32_t *)a - *(const int32_t *)b;
}

static int cmp_total(const void *a, const void *b)
{
	const struct ccsg_node *x = &sort_g->nodes[*(const int32_t *)a];
	const struct ccsg_node *y = &sort_g->nodes[*(const int32_t *)b];
	size_t k = sort_g->dims->n;
	int64_t sx = ccsg_vec_sum(x->self, k) + ccsg_vec_sum(x->desc, k);
	int64_t sy = ccsg_vec_sum(y->self, k) + ccsg_vec_sum(y->desc, k);

	if (sx != sy)
		return sx < sy ? 1 : -1;
	return *(const int32_t *)a - *(const int32_t *)b;
}

static void report_text(FILE *f, const struct ccsg_graph *g)
{
	size_t k = g->dims->n, n = g->nnodes;
	int64_t total = ccsg_vec_sum(g->total, k);
	int32_t *order = malloc(n * sizeof(int32_t));

	if (!order)
		return;
	fprintf(f, "ccsg report of %s\n", g->dscg->trace->path);
	ccsg_summary_text(f, g->dscg->trace, &g->dscg->stats);
	fprintf(f, "user CPU of the whole system: %.3f ms", ms(total));
	for (size_t i = 0; i < k; i++)
		fprintf(f, "%s%s %.3f", i ? ", " : " (", g->dims->names[i], ms(g->total[i]));
	fputs(k ? ")\n" : "\n", f);
	if (g->clamped)
		fprintf(f, "negative self CPU set to 0: %" PRId64 " times (clock granularity)\n",
			g->clamped);
	if (g->unmeasured_threads)
		fprintf(f, "user threads without a CPU time (no end record): %" PRId64 "\n",
			g->unmeasured_threads);

	fputs("\nFlat profile (CPU in ms; self = Equations 1 and 2, desc = Equations 3 and 4)\n\n", f);
	fprintf(f, "%7s %10s %10s %9s %7s", "%total", "self", "desc", "calls", "failed");
	for (size_t i = 0; i < k; i++)
		fprintf(f, " %10.10s", g->dims->names[i]);
	fputs("  name\n", f);
	for (size_t i = 0; i < n; i++)
		order[i] = (int32_t)i;
	sort_g = g;
	qsort(order, n, sizeof(int32_t), cmp_self);
	for (size_t i = 0; i < n; i++) {
		const struct ccsg_node *x = &g->nodes[order[i]];
		int64_t self = ccsg_vec_sum(x->self, k);

		if (x->kind == CCSG_MAIN)
			continue;
		fprintf(f, "%6.2f%% %10.3f %10.3f %9" PRId64,
			total ? 100.0 * self / total : 0.0, ms(self),
			ms(ccsg_vec_sum(x->desc, k)), ccsg_node_count(x));
		if (x->kind == CCSG_FUNCTION)
			fprintf(f, " %7" PRId64, x->failed);
		else
			fprintf(f, " %7s", "");
		for (size_t j = 0; j < k; j++)
			fprintf(f, " %10.3f", ms(x->self[j]));
		fprintf(f, "  %s [%d]\n", x->name, order[i]);
	}

	fputs("\nCall graph (callers above a node, callees below; counts are calls or threads)\n\n",
	      f);
	fprintf(f, "%-7s %7s %10s %10s %13s  name\n", "index", "%total", "self", "desc", "count");
	qsort(order, n, sizeof(int32_t), cmp_total);
	for (size_t i = 0; i < n; i++) {
		int32_t u = order[i];
		const struct ccsg_node *x = &g->nodes[u];
		int64_t self = ccsg_vec_sum(x->self, k), desc = ccsg_vec_sum(x->desc, k);
		char idx[16];

		for (size_t e = 0; e < g->nedges; e++) {
			const struct ccsg_edge *ed = &g->edges[e];
			const struct ccsg_node *p = &g->nodes[ed->from];

			if (ed->to != u)
				continue;
			fprintf(f,
				"%-7s %7s %10s %10s %6" PRId64 "/%-6" PRId64
				"      %s [%d]%s\n",
				"", "", "", "", ed->count, ccsg_node_count(x),
				p->name, ed->from,
				ed->primary ? "" : " (secondary)");
		}
		snprintf(idx, sizeof(idx), "[%d]", u);
		fprintf(f, "%-7s %6.2f%% %10.3f %10.3f %13" PRId64 "  %s\n",
			idx, total ? 100.0 * (self + desc) / total : 0.0,
			ms(self), ms(desc), ccsg_node_count(x), x->name);
		for (size_t e = 0; e < g->nedges; e++) {
			const struct ccsg_edge *ed = &g->edges[e];
			const struct ccsg_node *c = &g->nodes[ed->to];

			if (ed->from != u)
				continue;
			fprintf(f,
				"%-7s %7s %10.3f %10.3f %6" PRId64 "/%-6" PRId64
				"          %s [%d]\n",
				"", "", ms(ccsg_vec_sum(c->self, k)),
				ms(ccsg_vec_sum(c->desc, k)), ed->count,
				ccsg_node_count(c), c->name, ed->to);
		}
		fputs("-----------------------------------------------\n", f);
	}
	free(order);
}

/*
 * What `impact` adds to the report's printers (NULL for `report`, whose
 * output stays as it was): the changes, the CCSG with the CCDG
 * superimposed, the latency predicted.
 */
struct impact_view {
	const struct ccsg_impact *im;
	const struct ccsg_changes *cs;
	const struct ccsg_latency *lat;
	size_t nlat;
	int64_t *self, *desc; /* scratch: a node's after vectors */
};

static const char *const latency_caveat =
	"an estimate: it assumes that the CPU removed or added lies on the "
	"critical path of each call (its own skeleton, its synchronous "
	"child calls and the threads it joins) and that the host is not "
	"saturated";

/* The predicted mean latency of l (ns) after the changes. */
static double latency_delta(const struct impact_view *iv,
			    const struct ccsg_latency *l)
{
	return l->calls ? (double)iv->im->sync_delta[l->node] / (double)l->calls
			: 0.0;
}

static double latency_after(const struct impact_view *iv,
			    const struct ccsg_latency *l)
{
	double a = l->mean + latency_delta(iv, l);

	return a > 0 ? a : 0;
}

/* self - before, per dimension, into d */
static void vec_diff(int64_t *d, const int64_t *after, const int64_t *before,
		     size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = after[i] - before[i];
}

static void node_impact_json(FILE *f, const struct impact_view *iv,
			     const struct ccsg_graph *g, size_t i)
{
	size_t k = g->dims->n;
	int64_t *d = iv->self + iv->im->k * 2;

	ccsg_impact_after(iv->im, (int32_t)i, iv->self, iv->desc);
	fputs(", \"self_cpu_us_after\": ", f);
	json_vec(f, iv->self, k);
	fputs(", \"desc_cpu_us_after\": ", f);
	json_vec(f, iv->desc, k);
	vec_diff(d, iv->self, g->nodes[i].self, k);
	fputs(", \"self_cpu_us_delta\": ", f);
	json_vec(f, d, k);
	vec_diff(d, iv->desc, g->nodes[i].desc, k);
	fputs(", \"desc_cpu_us_delta\": ", f);
	json_vec(f, d, k);
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
	static const char *const scope[] = { "all", "processor group",
					     "processor" };
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
			scope[c->scope]);
		for (size_t j = 0; j < c->nwhere; j++) {
			fputs(j ? ", " : "", f);
			json_cstr(f, c->where[j]);
		}
		fputs("], \"functions\": [", f);
		for (size_t j = 0; j < c->nfunctions; j++) {
			fputs(j ? ", " : "", f);
			json_cstr(f, c->functions[j]);
		}
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
	json_vec(f, iv->self, k);
	fputs(", \"total_cpu_us_delta\": ", f);
	json_vec(f, im->total_delta, k);
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
			l->calls, l->mean / 1e3, latency_after(iv, l) / 1e3,
			latency_delta(iv, l) / 1e3,
			im->affected[l->node] ? "true" : "false");
	}
	fputs("\n ]}", f);
	free(nodes);
	free(edges);
}

/* A graph printer's context: the graph, and impact's view or NULL. */
struct cpu_view {
	const struct ccsg_graph *g;
	const struct impact_view *iv;
};

static void impact_json_more(FILE *f, const void *ctx, int32_t u)
{
	const struct cpu_view *v = ctx;

	node_impact_json(f, v->iv, v->g, (size_t)u);
}

static void xml_impact_attrs(FILE *f, const struct impact_view *iv,
			     const struct ccsg_graph *g, int32_t u);

static void impact_xml_more(FILE *f, const void *ctx, int32_t u)
{
	const struct cpu_view *v = ctx;

	xml_impact_attrs(f, v->iv, v->g, u);
}

static void dot_label(FILE *f, const void *ctx, int32_t u);
static void dot_style(FILE *f, const void *ctx, int32_t u);
static void dot_edge_style(FILE *f, const void *ctx, size_t e);

/* The CPU figures of g (and impact's, with iv) for output-graph.h. */
static void cpu_figures(struct ccsg_figures *fig, const struct cpu_view *v)
{
	*fig = (struct ccsg_figures){
		.g = v->g,
		.n = 2,
		.s = { { "self_cpu_us", v->g, 0 }, { "desc_cpu_us", v->g, 1 } },
		.json_more = v->iv ? impact_json_more : NULL,
		.xml_more = v->iv ? impact_xml_more : NULL,
		.dot_label = dot_label,
		.dot_style = v->iv ? dot_style : NULL,
		.dot_edge_style = v->iv ? dot_edge_style : NULL,
		.ctx = v,
	};
}

static void report_json(FILE *f, const struct ccsg_graph *g,
			const struct impact_view *iv)
{
	struct cpu_view v = { g, iv };
	struct ccsg_figures fig;
	size_t k = g->dims->n;

	cpu_figures(&fig, &v);
	fputs("{\"trace\": ", f);
	json_cstr(f, g->dscg->trace->path);
	fputs(", \"hosts\": [", f);
	for (size_t i = 0; i < k; i++) {
		fputs(i ? ", " : "", f);
		json_cstr(f, g->dims->names[i]);
	}
	fputs("],\n \"summary\": ", f);
	ccsg_summary_json(f, g->dscg->trace, &g->dscg->stats);
	fputs(",\n \"total_cpu_us\": ", f);
	json_vec(f, g->total, k);
	fprintf(f,
		", \"clamped\": %" PRId64 ", \"unmeasured_threads\": %" PRId64
		",\n ",
		g->clamped, g->unmeasured_threads);
	ccsg_graph_json(f, &fig);
	if (iv)
		impact_json_tail(f, iv, g);
	fputs("\n}\n", f);
}

static void xml_vec(FILE *f, const int64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%.3f", i ? " " : "", us(v[i]));
}

static void xml_impact_attrs(FILE *f, const struct impact_view *iv,
			     const struct ccsg_graph *g, int32_t u)
{
	size_t k = g->dims->n;
	int64_t *d = iv->self + iv->im->k * 2;

	ccsg_impact_after(iv->im, u, iv->self, iv->desc);
	fputs(" self_cpu_us_after=\"", f);
	xml_vec(f, iv->self, k);
	fputs("\" desc_cpu_us_after=\"", f);
	xml_vec(f, iv->desc, k);
	vec_diff(d, iv->self, g->nodes[u].self, k);
	fputs("\" self_cpu_us_delta=\"", f);
	xml_vec(f, d, k);
	vec_diff(d, iv->desc, g->nodes[u].desc, k);
	fputs("\" desc_cpu_us_delta=\"", f);
	xml_vec(f, d, k);
	fprintf(f, "\" affected=\"%s\"",
		iv->im->affected[u] ? "true" : "false");
}

static void xml_changes(FILE *f, const struct ccsg_changes *cs)
{
	static const char *const scope[] = { "all", "processor group",
					     "processor" };
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
			scope[c->scope], c->percent_value, c->num, c->den,
			c->calls);
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
			l->calls, l->mean / 1e3, latency_after(iv, l) / 1e3,
			latency_delta(iv, l) / 1e3);
	}
	fputs(" </latency>\n", f);
	free(nodes);
	free(edges);
}

static void report_xml(FILE *f, const struct ccsg_graph *g,
		       const struct impact_view *iv)
{
	struct cpu_view v = { g, iv };
	struct ccsg_figures fig;

	cpu_figures(&fig, &v);
	ccsg_graph_xml_open(f, g);
	fputs(" unit=\"us\">\n", f);
	ccsg_monitoring_xml(f, &g->dscg->trace->mon);
	if (iv)
		xml_changes(f, iv->cs);
	ccsg_graph_xml_trees(f, &fig);
	if (iv)
		xml_impact_tail(f, iv, g);
	fputs("</ccsg>\n", f);
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

static void dot_impact_label(FILE *f, const struct impact_view *iv,
			     const struct ccsg_graph *g, int32_t u)
{
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
		ms(s0), ms(s1), ms(s1 - s0), ms(d0), ms(d1), ms(d1 - d0));
}

static void dot_label(FILE *f, const void *ctx, int32_t u)
{
	const struct cpu_view *v = ctx;
	const struct ccsg_node *x = &v->g->nodes[u];
	size_t k = v->g->dims->n;

	if (v->iv)
		dot_impact_label(f, v->iv, v->g, u);
	else
		fprintf(f, "\\nself %.3f ms\\ndesc %.3f ms",
			ms(ccsg_vec_sum(x->self, k)),
			ms(ccsg_vec_sum(x->desc, k)));
}

static void dot_style(FILE *f, const void *ctx, int32_t u)
{
	const struct cpu_view *v = ctx;

	fprintf(f, ", style=filled, color=\"%s\", fillcolor=\"%s\"",
		dot_colour(v->iv, u, 0), dot_colour(v->iv, u, 1));
}

static void dot_edge_style(FILE *f, const void *ctx, size_t e)
{
	const struct cpu_view *v = ctx;

	if (v->iv->im->edge_affected[e])
		fprintf(f, ", penwidth=2, color=\"%s\"",
			dot_colour(v->iv, v->g->edges[e].to, 0));
	else
		fputs(", color=\"grey50\"", f);
}

static void report_dot(FILE *f, const struct ccsg_graph *g,
		       const struct impact_view *iv)
{
	struct cpu_view v = { g, iv };
	struct ccsg_figures fig;

	cpu_figures(&fig, &v);
	ccsg_graph_dot_open(f);
	ccsg_monitoring_dot(f, &g->dscg->trace->mon);
	if (iv) {
		char text[2048];

		fputs("  labelloc=t;\n  label=\"", f);
		for (size_t i = 0; i < iv->cs->n; i++) {
			ccsg_change_format(&iv->cs->v[i], text, sizeof(text));
			ccsg_dot_str(f, text);
			fputs("\\n", f);
		}
		fputs("green: reduced, red: increased, blue: no net change, "
		      "grey: unaffected\";\n",
		      f);
	}
	ccsg_graph_dot_body(f, &fig);
}

int ccsg_report_print(FILE *f, const struct ccsg_graph *g, int format)
{
	switch (format) {
	case CCSG_JSON:
		report_json(f, g, NULL);
		break;
	case CCSG_XML:
		report_xml(f, g, NULL);
		break;
	case CCSG_DOT:
		report_dot(f, g, NULL);
		break;
	default: report_text(f, g); break;
	}
	return done(f);
}

/* --- impact as text
 * ------------------------------------------------------------ */

static const struct impact_view *sort_iv;

/* flat profile order: self after, largest first, then id */
static int cmp_self_after(const void *a, const void *b)
{
	const struct impact_view *iv = sort_iv;
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	size_t k = iv->im->k;
	int64_t sx = ccsg_vec_sum(sort_g->nodes[x].self, sort_g->dims->n) +
		     ccsg_vec_sum(iv->im->self_delta + (size_t)x * k, k);
	int64_t sy = ccsg_vec_sum(sort_g->nodes[y].self, sort_g->dims->n) +
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
		ms(before), ms(before + delta), ms(delta),
		before ? 100.0 * delta / before : 0.0);
	for (size_t i = 0; i < k; i++)
		fprintf(f, "%s%s %.3f -> %.3f (%+.3f)", i ? ", " : "  ",
			g->dims->names[i], ms(g->total[i]),
			ms(g->total[i] + im->total_delta[i]),
			ms(im->total_delta[i]));
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
	sort_g = g;
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
			iv->im->affected[u] ? '*' : ' ', ms(s0), ms(s1),
			ms(s1 - s0), ms(d0), ms(d1), ms(d1 - d0),
			ccsg_node_count(x), x->name, u);
	}
}

static void ccdg_vec_text(FILE *f, const char *what, const int64_t *before,
			  const int64_t *after, size_t k)
{
	fprintf(f, "    %-4s %10.3f -> %10.3f  delta", what,
		ms(ccsg_vec_sum(before, k)), ms(ccsg_vec_sum(after, k)));
	for (size_t j = 0; j < k; j++)
		fprintf(f, " %+10.3f", ms(after[j] - before[j]));
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
			l->mean / 1e6, latency_after(iv, l) / 1e6,
			latency_delta(iv, l) / 1e6, g->nodes[l->node].name);
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
	if (g->clamped)
		fprintf(f,
			"negative self CPU set to 0: %" PRId64
			" times (clock granularity)\n",
			g->clamped);
	if (g->unmeasured_threads)
		fprintf(f,
			"user threads without a CPU time (no end record): "
			"%" PRId64 "\n",
			g->unmeasured_threads);
	flat_text(f, g, iv, order);
	ccdg_text(f, g, iv);
	latency_text(f, g, iv);
	free(order);
}

int ccsg_impact_print(FILE *f, const struct ccsg_impact *im,
		      const struct ccsg_changes *cs,
		      const struct ccsg_latency *lat, size_t nlat, int format)
{
	const struct ccsg_graph *g = im->g;
	struct impact_view iv = { im, cs, lat, nlat, NULL, NULL };

	/* self, desc and a difference: k each */
	iv.self = calloc(3 * im->k, sizeof(int64_t));
	if (!iv.self)
		return -ENOMEM;
	iv.desc = iv.self + im->k;
	switch (format) {
	case CCSG_JSON:
		report_json(f, g, &iv);
		break;
	case CCSG_XML:
		report_xml(f, g, &iv);
		break;
	case CCSG_DOT:
		report_dot(f, g, &iv);
		break;
	default:
		impact_text(f, g, &iv);
		break;
	}
	free(iv.self);
	return done(f);
}

/* --- dscg ------------------------------------------------------------------------ */

struct dprint {
	FILE *f;
	const struct ccsg_dscg *d;
	const struct idl_names *nm;
};

/*
 * A node's children are listed in DSCG order; the roots of chains (calls
 * under a thread or main) are grouped by chain and, in a broken chain,
 * by segment.  struct group is the chain and segment open in the list.
 */
struct group {
	int32_t chain, seg; /* -1: none */
};

enum { NEW_CHAIN = 1, NEW_SEGMENT = 2 };

/* Is child c of u the root of a chain? */
static int is_root(const struct ccsg_dscg *d, int32_t u, int32_t c)
{
	return ccsg_dscg_is_call(d, c) && !ccsg_dscg_is_call(d, u);
}

/* The groups root c opens after those of g: NEW_CHAIN, NEW_SEGMENT (the
 * first of a new broken chain too), both or none. */
static int opens(const struct ccsg_trace *t, int32_t c, const struct group *g)
{
	const struct ccsg_call *call = &t->calls[c];
	int r = call->chain != g->chain ? NEW_CHAIN : 0;

	if (t->chains[call->chain].segments && (r || call->seg != g->seg))
		r |= NEW_SEGMENT;
	return r;
}

/* Where a thread ran: its host's name and its executable's base name,
 * "?" when unknown. */
static void thread_where(const struct ccsg_trace *t,
			 const struct ccsg_thread *th, const char **host,
			 const char **exe)
{
	int32_t h = ccsg_trace_host(t, th->proc);
	const char *path = th->proc > 0 && (size_t)th->proc < t->nprocs
			       ? t->procs[th->proc].exe
			       : NULL;
	const char *base =
	    path && strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	*host = h >= 0 ? t->hosts[h] : "?";
	*exe = base ? base : "?";
}

/* --- dscg as text: one line a node, indented by depth --- */

static void dnode_text(struct dprint *p, int32_t u, int depth);

static void indent(FILE *f, int depth) { fprintf(f, "%*s", 2 * depth, ""); }

static void chain_text(FILE *f, const struct ccsg_chain *ch, int depth)
{
	char hex[2 * sizeof(ch->id) + 1];

	hex_encode(hex, ch->id, sizeof(ch->id));
	indent(f, depth);
	fprintf(f, "chain %s (%d calls", hex, ch->n);
	if (ch->segments)
		fprintf(f, "; BROKEN: %d abnormal transitions, %d segments%s",
			ch->breaks, ch->segments,
			ch->truncated ? ", truncated" : "");
	fputs(")\n", f);
}

static void dchildren_text(struct dprint *p, int32_t u, int depth)
{
	const struct ccsg_dscg *d = p->d;
	const struct ccsg_trace *t = d->trace;
	struct group g = {-1, -1};

	for (int32_t c = d->first_child[u]; c >= 0; c = d->next_sibling[c]) {
		int level = depth;

		if (is_root(d, u, c)) {
			const struct ccsg_call *call = &t->calls[c];
			const struct ccsg_chain *ch = &t->chains[call->chain];
			int r = opens(t, c, &g);

			if (r & NEW_CHAIN) {
				g = (struct group){call->chain, -1};
				chain_text(p->f, ch, depth);
			}
			if (r & NEW_SEGMENT) {
				g.seg = call->seg;
				indent(p->f, depth + 1);
				fprintf(p->f, "segment %d\n", g.seg);
			}
			level = depth + 1 + (ch->segments != 0);
		}
		/* threads are linked before chains: no thread after a chain */
		dnode_text(p, c, level);
	}
}

/* The outcome of a call, the papers' 'exception': the client's status,
 * the server's reply, the sizes on both sides, the tag statuses; what a
 * missing probe did not record is left out (text) or null (JSON). */
static void call_outcome_text(FILE *f, const struct ccsg_trace *t, const struct ccsg_call *c)
{
	const int64_t size[4] = { c->args_bytes, c->results_bytes, c->server_args_bytes,
				  c->server_results_bytes };
	static const char *const size_name[4] = { "args", "results", "server_args",
						  "server_results" };

	if (c->status >= 0)
		fprintf(f, " status %s", t->strings[c->status_name]);
	if (c->reply >= 0)
		fprintf(f, " reply %s", ccsg_reply_names[c->reply]);
	for (int i = 0; i < 4; i++)
		if (size[i] != CCSG_NONE)
			fprintf(f, " %s %" PRId64, size_name[i], size[i]);
	if (c->tag >= 0)
		fprintf(f, " tag %s", t->strings[c->tag]);
	if (c->reply_tag >= 0)
		fprintf(f, " reply_tag %s", t->strings[c->reply_tag]);
}

static void call_text(struct dprint *p, const struct ccsg_call *c, int depth)
{
	const struct ccsg_trace *t = p->d->trace;
	FILE *f = p->f;
	char name[1024];

	ccsg_call_name(p->nm, t, c, name, sizeof(name));
	indent(f, depth);
	fprintf(f, "%s [call %" PRId64 "]", name, c->call_id);
	if (c->client_proc)
		fprintf(f, " client %d/%d", c->client_proc, c->client_tid);
	if (c->server_proc)
		fprintf(f, " server %d/%d", c->server_proc, c->server_tid);
	fputs(" events", f);
	for (int k = 0; k < 4; k++)
		if (c->ev[k] != CCSG_NONE)
			fprintf(f, " %" PRId64, c->ev[k]);
	call_outcome_text(f, t, c);
	if (c->missing == CCSG_NO_SERVER)
		fputs(" (no server)", f);
	if (c->missing == CCSG_NO_CLIENT)
		fputs(" (no client)", f);
	if (c->one_way)
		fputs(" (one-way)", f);
	if (c->failed)
		fputs(" (failed)", f);
	if (c->abnormal)
		fputs(" (abnormal)", f);
	fputc('\n', f);
}

static void thread_text(struct dprint *p, const struct ccsg_thread *th,
			int depth)
{
	const char *host, *exe;

	thread_where(p->d->trace, th, &host, &exe);
	indent(p->f, depth);
	fprintf(p->f, "thread %d/%d %s:%s%s", th->proc, th->tid, host, exe,
		th->infra ? " (infra)" : "");
	if (th->cpu_ns != CCSG_NONE)
		fprintf(p->f, " cpu %.3f ms", ms(th->cpu_ns));
	fputc('\n', p->f);
}

static void dnode_text(struct dprint *p, int32_t u, int depth)
{
	const struct ccsg_dscg *d = p->d;

	if (u == d->main)
		fputs("<main>\n", p->f);
	else if (ccsg_dscg_is_call(d, u))
		call_text(p, &d->trace->calls[u], depth);
	else
		thread_text(p,
			    &d->trace->threads[u - (int32_t)d->trace->ncalls],
			    depth);
	dchildren_text(p, u, depth + 1);
}

/* --- dscg as JSON: a node is {"kind": ..., "children": [...]} --- */

static void dnode_json(struct dprint *p, int32_t u);

static void chain_json(FILE *f, const struct ccsg_chain *ch, int first)
{
	char hex[2 * sizeof(ch->id) + 1];

	hex_encode(hex, ch->id, sizeof(ch->id));
	fprintf(f,
		"%s{\"kind\": \"chain\", \"chain\": \"%s\", \"calls\": %d, "
		"\"broken\": %s, "
		"\"abnormal_transitions\": %d, \"segments\": %d, "
		"\"truncated\": %s, "
		"\"children\": [",
		first ? "" : ", ", hex, ch->n, ch->segments ? "true" : "false",
		ch->breaks, ch->segments, ch->truncated ? "true" : "false");
}

static void dchildren_json(struct dprint *p, int32_t u)
{
	const struct ccsg_dscg *d = p->d;
	const struct ccsg_trace *t = d->trace;
	struct group g = {-1, -1};
	/* is the next item the first of its list: u's children, the open
	 * chain's, the open segment's? */
	int first = 1, cfirst = 1, sfirst = 1;

	for (int32_t c = d->first_child[u]; c >= 0; c = d->next_sibling[c]) {
		int *fl = &first;

		if (is_root(d, u, c)) {
			const struct ccsg_call *call = &t->calls[c];
			const struct ccsg_chain *ch = &t->chains[call->chain];
			int r = opens(t, c, &g);

			/* close the open segment, and the chain if it ends */
			if (r && g.chain >= 0 && g.seg >= 0 &&
			    t->chains[g.chain].segments)
				fputs("]}", p->f);
			if ((r & NEW_CHAIN) && g.chain >= 0)
				fputs("]}", p->f);
			if (r & NEW_CHAIN) {
				g = (struct group){call->chain, -1};
				chain_json(p->f, ch, first);
				first = 0;
				cfirst = 1;
			}
			if (r & NEW_SEGMENT) {
				g.seg = call->seg;
				fprintf(p->f,
					"%s{\"kind\": \"segment\", \"index\": "
					"%d, \"children\": [",
					cfirst ? "" : ", ", g.seg);
				cfirst = 0;
				sfirst = 1;
			}
			fl = ch->segments ? &sfirst : &cfirst;
		}
		fputs(*fl ? "" : ", ", p->f);
		*fl = 0;
		dnode_json(p, c);
	}
	if (g.chain >= 0) {
		if (t->chains[g.chain].segments)
			fputs("]}", p->f);
		fputs("]}", p->f);
	}
}

static void json_opt_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, ", \"%s\": ", key);
	if (s)
		json_cstr(f, s);
	else
		fputs("null", f);
}

static void json_opt_int(FILE *f, const char *key, int64_t v)
{
	if (v == CCSG_NONE)
		fprintf(f, ", \"%s\": null", key);
	else
		fprintf(f, ", \"%s\": %" PRId64, key, v);
}

static void call_outcome_json(FILE *f, const struct ccsg_trace *t, const struct ccsg_call *c)
{
	json_opt_str(f, "status", c->status >= 0 ? t->strings[c->status_name] : NULL);
	json_opt_str(f, "reply", c->reply >= 0 ? ccsg_reply_names[c->reply] : NULL);
	fprintf(f, ", \"failed\": %s", c->failed ? "true" : "false");
	json_opt_int(f, "args_bytes", c->args_bytes);
	json_opt_int(f, "results_bytes", c->results_bytes);
	json_opt_int(f, "server_args_bytes", c->server_args_bytes);
	json_opt_int(f, "server_results_bytes", c->server_results_bytes);
	json_opt_str(f, "tag", c->tag >= 0 ? t->strings[c->tag] : NULL);
	json_opt_str(f, "reply_tag", c->reply_tag >= 0 ? t->strings[c->reply_tag] : NULL);
	fprintf(f, ", \"one_way\": %s", c->one_way ? "true" : "false");
}

static void call_json(struct dprint *p, const struct ccsg_call *c)
{
	const struct ccsg_trace *t = p->d->trace;
	FILE *f = p->f;
	char name[1024];

	ccsg_call_name(p->nm, t, c, name, sizeof(name));
	fprintf(f, "{\"kind\": \"call\", \"call_id\": %" PRId64 ", \"name\": ",
		c->call_id);
	json_cstr(f, name);
	fputs(", \"events\": [", f);
	for (int k = 0; k < 4; k++) {
		if (c->ev[k] == CCSG_NONE)
			fprintf(f, "%snull", k ? ", " : "");
		else
			fprintf(f, "%s%" PRId64, k ? ", " : "", c->ev[k]);
	}
	fprintf(
	    f,
	    "], \"client\": [%d, %d], \"server\": [%d, %d], \"missing\": %s, "
	    "\"abnormal\": %s, \"start_lost\": %s",
	    c->client_proc, c->client_tid, c->server_proc, c->server_tid,
	    c->missing == CCSG_NO_SERVER   ? "\"server\""
	    : c->missing == CCSG_NO_CLIENT ? "\"client\""
					   : "null",
	    c->abnormal ? "true" : "false", c->lost ? "true" : "false");
	call_outcome_json(f, t, c);
}

static void thread_json(struct dprint *p, const struct ccsg_thread *th)
{
	FILE *f = p->f;
	const char *host, *exe;

	thread_where(p->d->trace, th, &host, &exe);
	fprintf(f,
		"{\"kind\": \"thread\", \"proc\": %d, \"tid\": %d, \"host\": ",
		th->proc, th->tid);
	json_cstr(f, host);
	fputs(", \"exe\": ", f);
	json_cstr(f, exe);
	fprintf(f, ", \"marker\": \"%s\", \"cpu_ns\": ",
		th->infra ? "infra" : "user");
	if (th->cpu_ns == CCSG_NONE)
		fputs("null", f);
	else
		fprintf(f, "%" PRId64, th->cpu_ns);
}

static void dnode_json(struct dprint *p, int32_t u)
{
	const struct ccsg_dscg *d = p->d;

	if (u == d->main)
		fputs("{\"kind\": \"main\"", p->f);
	else if (ccsg_dscg_is_call(d, u))
		call_json(p, &d->trace->calls[u]);
	else
		thread_json(p,
			    &d->trace->threads[u - (int32_t)d->trace->ncalls]);
	fputs(", \"children\": [", p->f);
	dchildren_json(p, u);
	fputs("]}", p->f);
}

int ccsg_dscg_print(FILE *f, const struct ccsg_dscg *d,
		    const struct idl_names *nm, int format)
{
	struct dprint p = {f, d, nm};

	if (format == CCSG_JSON) {
		fputs("{\"trace\": ", f);
		json_cstr(f, d->trace->path);
		fputs(", \"summary\": ", f);
		ccsg_summary_json(f, d->trace, &d->stats);
		fputs(",\n \"root\": ", f);
		dnode_json(&p, d->main);
		fputs("}\n", f);
	} else {
		fprintf(f, "dscg of %s\n", d->trace->path);
		ccsg_summary_text(f, d->trace, &d->stats);
		fputc('\n', f);
		dnode_text(&p, d->main, 0);
	}
	return done(f);
}

/* --- latency ------------------------------------------------------------------- */

int ccsg_latency_print(FILE *f, const struct ccsg_graph *g, const struct ccsg_latency *l,
		       size_t n, int format)
{
	const struct ccsg_trace *t = g->dscg->trace;

	if (format == CCSG_JSON) {
		fputs("{\"trace\": ", f);
		json_cstr(f, t->path);
		fputs(", \"unit\": \"us\",\n \"summary\": ", f);
		ccsg_summary_json(f, t, &g->dscg->stats);
		fputs(",\n \"functions\": [", f);
		for (size_t i = 0; i < n; i++) {
			const struct ccsg_node *x = &g->nodes[l[i].node];

			fprintf(f, "%s\n  {\"id\": %d, \"name\": ", i ? "," : "", l[i].node);
			json_cstr(f, x->name);
			fprintf(f, ", \"program\": %u, \"version\": %u, \"procedure\": %u, "
				"\"calls\": %" PRId64 ", \"without_latency\": %" PRId64 ", "
				"\"mean_us\": %.3f, \"sd_us\": %.3f, \"min_us\": %.3f, "
				"\"median_us\": %.3f, \"p95_us\": %.3f, \"max_us\": %.3f, "
				"\"network_share\": %.4f, \"server_share\": %.4f, "
				"\"children_share\": %.4f, \"unsplit_share\": %.4f, "
				"\"failed\": %" PRId64 ", \"split_bounded\": %" PRId64 "}",
				x->prog, x->vers, x->proc, l[i].calls, l[i].skipped, l[i].mean / 1e3,
				l[i].sd / 1e3, us(l[i].min), us(l[i].median), us(l[i].p95), us(l[i].max),
				l[i].network_share, l[i].server_share, l[i].children_share,
				l[i].unknown_share, l[i].failed, l[i].bounded);
		}
		fputs("\n]}\n", f);
		return done(f);
	}
	fprintf(f, "ccsg latency of %s\n", t->path);
	ccsg_summary_text(f, t, &g->dscg->stats);
	fputs("\nEnd-to-end latency (Equation 3: stub start to stub end, ms); shares of the total:\n"
	      "net = network and runtime outside the skeleton, srv = the server's own code,\n"
	      "kids = child calls, ? = not split (untraced server, a skeleton probe missing);\n"
	      "a call's server time is bounded by its latency, its children's by the server time;\n"
	      "failed = calls that failed, with or without a latency\n\n", f);
	fprintf(f, "%8s %7s %9s %9s %9s %9s %9s %9s %5s %5s %5s %5s  name\n", "calls", "failed",
		"mean", "sd", "min", "median", "p95", "max", "net", "srv", "kids", "?");
	for (size_t i = 0; i < n; i++) {
		const struct ccsg_latency *L = &l[i];

		fprintf(f, "%8" PRId64 " %7" PRId64, L->calls, L->failed);
		if (L->calls)
			fprintf(f, " %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %4.0f%% %4.0f%% %4.0f%% "
				"%4.0f%%", L->mean / 1e6, L->sd / 1e6, ms(L->min), ms(L->median),
				ms(L->p95), ms(L->max), 100 * L->network_share, 100 * L->server_share,
				100 * L->children_share, 100 * L->unknown_share);
		else		/* no latency to show */
			fprintf(f, " %9s %9s %9s %9s %9s %9s %5s %5s %5s %5s", "-", "-", "-", "-", "-",
				"-", "-", "-", "-", "-");
		fprintf(f, "  %s", g->nodes[L->node].name);
		if (L->skipped)
			fprintf(f, " (%" PRId64 " calls without both stub probes)", L->skipped);
		if (L->bounded)
			fprintf(f, " (%" PRId64 " split%s bounded)", L->bounded,
				L->bounded > 1 ? "s" : "");
		fputc('\n', f);
	}
	return done(f);
}
