/*
 * output.c - text (gprof-like), JSON, XML (Section 3.3 of the CPU paper:
 * the breadth-first primary tree, then the secondary links) and Graphviz
 * dot for the CCSG; text and JSON for the latency table; the summary
 * every output begins with.  The DSCG's printer is output-dscg.c, the
 * parts every graph printer shares output-graph.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "output-graph.h"
#include "output.h"
#include "exact-totals.h"

int ccsg_format_parse(const char *s)
{
	static const char *const names[] = { "text", "json", "xml", "dot" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* --- the summary --------------------------------------------------------- */

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

/* A process that did not end cleanly (db-ends.h), the i-th of a list. */
static void unclean_json(FILE *f, const struct db_unclean *u, size_t i)
{
	const struct db_proc *p = u->proc;

	fputs(i ? ", {\"host\": " : "{\"host\": ", f);
	json_cstr(f, p ? p->host : NULL);
	fprintf(f, ", \"pid\": %lld, \"exe\": ", p ? (long long)p->pid : 0LL);
	json_cstr(f, p ? p->exe : NULL);
	fputs(", \"ended\": ", f);
	json_cstr(f, u->how);
	if (u->last_ns >= 0)
		fprintf(f, ", \"last_record_ns\": %lld", (long long)u->last_ns);
	else
		fputs(", \"last_record_ns\": null", f);
	fprintf(f, ", \"open_chains\": %lld}", (long long)u->open_chains);
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
	fputs(", \"unclean_processes\": [", f);
	for (size_t i = 0; i < t->ends.n; i++)
		unclean_json(f, &t->ends.v[i], i);
	fprintf(f,
		"], \"kept_chains\": {\"total\": %zu, \"complete\": %zu, "
		"\"incomplete\": %zu}}",
		s->kept_chains, s->kept_complete,
		s->kept_chains - s->kept_complete);
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
	if (t->ends.n)
		fprintf(f,
			"processes that did not end cleanly: %zu (their calls "
			"may be cut short, their CPU after the last record "
			"unknown)\n",
			t->ends.n);
	for (size_t i = 0; i < t->ends.n; i++) {
		fputs("  ", f);
		db_unclean_print(f, &t->ends.v[i]);
		fputc('\n', f);
	}
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
	if (s->kept_chains)
		fprintf(f,
			"kept chains (tail keep, not sampled): %zu, %zu "
			"complete, %zu incomplete (a traced host's side of "
			"some call missing)\n",
			s->kept_chains, s->kept_complete,
			s->kept_chains - s->kept_complete);
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

void ccsg_graph_notes_text(FILE *f, const struct ccsg_graph *g)
{
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
	fprintf(f, "user CPU of the whole system: %.3f ms", ccsg_ms(total));
	for (size_t i = 0; i < k; i++)
		fprintf(f, "%s%s %.3f", i ? ", " : " (", g->dims->names[i],
			ccsg_ms(g->total[i]));
	fputs(k ? ")\n" : "\n", f);
	ccsg_graph_notes_text(f, g);

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
			total ? 100.0 * self / total : 0.0, ccsg_ms(self),
			ccsg_ms(ccsg_vec_sum(x->desc, k)), ccsg_node_count(x));
		if (x->kind == CCSG_FUNCTION)
			fprintf(f, " %7" PRId64, x->failed);
		else
			fprintf(f, " %7s", "");
		for (size_t j = 0; j < k; j++)
			fprintf(f, " %10.3f", ccsg_ms(x->self[j]));
		fprintf(f, "  %s [%d]\n", x->name, order[i]);
	}

	fputs("\nCall graph (callers above a node, callees below; counts are "
	      "calls or threads;\n"
	      "on a caller's or callee's line, self and desc are what came by "
	      "that arc, as in gprof)\n\n",
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
				"%-7s %7s %10.3f %10.3f %6" PRId64 "/%-6" PRId64
				"      %s [%d]%s\n",
				"", "", ccsg_ms(ccsg_vec_sum(ed->self, k)),
				ccsg_ms(ccsg_vec_sum(ed->desc, k)), ed->count,
				ccsg_node_count(x), p->name, ed->from,
				ed->primary ? "" : " (secondary)");
		}
		snprintf(idx, sizeof(idx), "[%d]", u);
		fprintf(f, "%-7s %6.2f%% %10.3f %10.3f %13" PRId64 "  %s\n",
			idx, total ? 100.0 * (self + desc) / total : 0.0,
			ccsg_ms(self), ccsg_ms(desc), ccsg_node_count(x),
			x->name);
		for (size_t e = 0; e < g->nedges; e++) {
			const struct ccsg_edge *ed = &g->edges[e];
			const struct ccsg_node *c = &g->nodes[ed->to];

			if (ed->from != u)
				continue;
			fprintf(f,
				"%-7s %7s %10.3f %10.3f %6" PRId64 "/%-6" PRId64
				"          %s [%d]\n",
				"", "", ccsg_ms(ccsg_vec_sum(ed->self, k)),
				ccsg_ms(ccsg_vec_sum(ed->desc, k)), ed->count,
				ccsg_node_count(c), c->name, ed->to);
		}
		fputs("-----------------------------------------------\n", f);
	}
	free(order);
	if (g->dscg->trace->totals) {
		ccsg_totals_report_text(f, g, g->dscg->trace->totals);
		ccsg_totals_report_arcs_text(f, g, g->dscg->trace->totals);
	}
}

/* --- report as JSON, XML and dot: the graph printers with CPU figures ---- */

/* A dot node's figures: self and desc, all hosts, in ms. */
static void cpu_dot_label(FILE *f, const void *ctx, int32_t u)
{
	const struct ccsg_graph *g = ctx;
	const struct ccsg_node *x = &g->nodes[u];
	size_t k = g->dims->n;

	fprintf(f, "\\nself %.3f ms\\ndesc %.3f ms",
		ccsg_ms(ccsg_vec_sum(x->self, k)),
		ccsg_ms(ccsg_vec_sum(x->desc, k)));
}

void ccsg_cpu_figures(struct ccsg_figures *fig, const struct ccsg_graph *g)
{
	*fig = (struct ccsg_figures){
		.g = g,
		.n = 2,
		.s = { { "self_cpu_us", g, 0 }, { "desc_cpu_us", g, 1 } },
		.dot_label = cpu_dot_label,
		.ctx = g,
	};
}

void ccsg_report_json_open(FILE *f, const struct ccsg_figures *fig)
{
	const struct ccsg_graph *g = fig->g;
	size_t k = g->dims->n;

	fputs("{\"trace\": ", f);
	json_cstr(f, g->dscg->trace->path);
	fputs(", \"hosts\": [", f);
	json_cstrs(f, g->dims->names, k);
	fputs("],\n \"summary\": ", f);
	ccsg_summary_json(f, g->dscg->trace, &g->dscg->stats);
	fputs(",\n \"total_cpu_us\": ", f);
	ccsg_figures_json_vec(f, fig, g->total);
	fprintf(f,
		", \"clamped\": %" PRId64 ", \"unmeasured_threads\": %" PRId64
		",\n ",
		g->clamped, g->unmeasured_threads);
}

static void report_json(FILE *f, const struct ccsg_graph *g)
{
	struct ccsg_figures fig;

	ccsg_cpu_figures(&fig, g);
	if (g->dscg->trace->totals) /* scaled: each node says so */
		fig.json_more = ccsg_totals_node_json;
	ccsg_report_json_open(f, &fig);
	ccsg_graph_json(f, &fig);
	if (g->dscg->trace->totals) {
		ccsg_totals_report_json(f, g, g->dscg->trace->totals);
		ccsg_totals_arcs_json(f, g, g->dscg->trace->totals);
	}
	fputs("\n}\n", f);
}

void ccsg_report_xml_open(FILE *f, const struct ccsg_graph *g)
{
	ccsg_graph_xml_open(f, g);
	fputs(" unit=\"us\">\n", f);
	ccsg_monitoring_xml(f, &g->dscg->trace->mon);
}

static void report_xml(FILE *f, const struct ccsg_graph *g)
{
	struct ccsg_figures fig;

	ccsg_cpu_figures(&fig, g);
	ccsg_report_xml_open(f, g);
	ccsg_graph_xml_trees(f, &fig);
	fputs("</ccsg>\n", f);
}

void ccsg_report_dot_open(FILE *f, const struct ccsg_graph *g)
{
	ccsg_graph_dot_open(f);
	ccsg_monitoring_dot(f, &g->dscg->trace->mon);
}

static void report_dot(FILE *f, const struct ccsg_graph *g)
{
	struct ccsg_figures fig;

	ccsg_cpu_figures(&fig, g);
	ccsg_report_dot_open(f, g);
	ccsg_graph_dot_body(f, &fig);
}

int ccsg_report_print(FILE *f, const struct ccsg_graph *g, int format)
{
	switch (format) {
	case CCSG_JSON:
		report_json(f, g);
		break;
	case CCSG_XML:
		report_xml(f, g);
		break;
	case CCSG_DOT:
		report_dot(f, g);
		break;
	default: report_text(f, g); break;
	}
	return ccsg_print_done(f);
}

/* --- latency ------------------------------------------------------------------- */

/* A function's latency entry in JSON (docs/ccsg.md, "latency"). */
static void latency_json(FILE *f, const struct ccsg_graph *g,
			 const struct ccsg_latency *L)
{
	const struct ccsg_node *x = &g->nodes[L->node];

	fprintf(f, "{\"id\": %d, \"name\": ", L->node);
	json_cstr(f, x->name);
	fprintf(f,
		", \"program\": %u, \"version\": %u, \"procedure\": %u, "
		"\"calls\": %" PRId64 ", \"without_latency\": %" PRId64 ", "
		"\"mean_us\": %.3f, \"sd_us\": %.3f, \"min_us\": %.3f, "
		"\"median_us\": %.3f, \"p95_us\": %.3f, \"max_us\": %.3f, "
		"\"uncompensated_mean_us\": %.3f, "
		"\"uncompensated_sd_us\": %.3f, "
		"\"subtracted_mean_us\": %.3f, \"probes_mean_us\": %.3f, "
		"\"network_share\": %.4f, \"server_share\": %.4f, "
		"\"children_share\": %.4f, \"unsplit_share\": %.4f, "
		"\"failed\": %" PRId64 ", \"split_bounded\": %" PRId64 "}",
		x->prog, x->vers, x->proc, L->calls, L->skipped, L->mean / 1e3,
		L->sd / 1e3, ccsg_us(L->min), ccsg_us(L->median),
		ccsg_us(L->p95), ccsg_us(L->max), L->uncomp_mean / 1e3,
		L->uncomp_sd / 1e3, L->subtracted / 1e3, L->probes / 1e3,
		L->network_share, L->server_share, L->children_share,
		L->unknown_share, L->failed, L->bounded);
}

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
			fputs(i ? ",\n  " : "\n  ", f);
			latency_json(f, g, &l[i]);
		}
		fputs("\n]", f);
		if (t->totals)
			ccsg_totals_latency_json(f, g, t->totals);
		fputs("}\n", f);
		return ccsg_print_done(f);
	}
	fprintf(f, "ccsg latency of %s\n", t->path);
	ccsg_summary_text(f, t, &g->dscg->stats);
	fputs("\nEnd-to-end latency, ms: Equation 3 (from the stub start "
	      "probe's exit\n"
	      "to the stub end probe's entry) less the probe time the call "
	      "held (its\n"
	      "skeleton's probes, every probe of its nested calls); uncomp = "
	      "Equation 3\n"
	      "alone, subtr = the probe time subtracted, probes = the call's "
	      "own probes\n"
	      "(means); shares of the total: net = network and runtime "
	      "outside the\n"
	      "skeleton, srv = the server's own code, kids = child calls, ? = "
	      "not split\n"
	      "(untraced server, a skeleton probe missing); a call's server "
	      "time is\n"
	      "bounded by its latency, its children's by the server time; "
	      "failed = calls\n"
	      "that failed, with or without a latency\n\n",
	      f);
	fprintf(f,
		"%8s %7s %9s %9s %9s %9s %9s %9s %9s %7s %7s %5s %5s %5s %5s  "
		"name\n",
		"calls", "failed", "mean", "sd", "min", "median", "p95", "max",
		"uncomp", "subtr", "probes", "net", "srv", "kids", "?");
	for (size_t i = 0; i < n; i++) {
		const struct ccsg_latency *L = &l[i];

		fprintf(f, "%8" PRId64 " %7" PRId64, L->calls, L->failed);
		if (L->calls)
			fprintf(f,
				" %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f "
				"%7.3f %7.3f"
				" %4.0f%% %4.0f%% %4.0f%% %4.0f%%",
				L->mean / 1e6, L->sd / 1e6, ccsg_ms(L->min),
				ccsg_ms(L->median), ccsg_ms(L->p95),
				ccsg_ms(L->max), L->uncomp_mean / 1e6,
				L->subtracted / 1e6, L->probes / 1e6,
				100 * L->network_share, 100 * L->server_share,
				100 * L->children_share,
				100 * L->unknown_share);
		else		/* no latency to show */
			fprintf(f,
				" %9s %9s %9s %9s %9s %9s %9s %7s %7s %5s %5s "
				"%5s %5s",
				"-", "-", "-", "-", "-", "-", "-", "-", "-",
				"-", "-", "-", "-");
		fprintf(f, "  %s", g->nodes[L->node].name);
		if (L->skipped)
			fprintf(f, " (%" PRId64 " calls without both stub probes)", L->skipped);
		if (L->bounded)
			fprintf(f, " (%" PRId64 " split%s bounded)", L->bounded,
				L->bounded > 1 ? "s" : "");
		fputc('\n', f);
	}
	if (t->totals)
		ccsg_totals_latency_text(f, g, t->totals);
	return ccsg_print_done(f);
}
