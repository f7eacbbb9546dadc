/*
 * output-memory.c - `ccsg report --resource=memory`: the memory
 * summarization graph.  Two graphs built by the same machinery as the
 * CCSG (ccsg_graph_build_res()) on the same DSCG, one of heap bytes
 * allocated and one of bytes freed, so their nodes and edges are the
 * same; each node shows both, self (Equations 1 and 2 with bytes) and
 * descendants (Equations 3 and 4), as vectors per host or group.  Then
 * the peak heap of every process.  Formats and shapes follow report's
 * (output.c), bytes in place of CPU.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "output-escape.h"
#include "output-graph.h"
#include "output.h"

/* The graphs of bytes allocated and freed, one structure. */
struct mem_view {
	const struct ccsg_graph *a, *fr;
};

static void dot_label(FILE *f, const void *ctx, int32_t u);

static void memory_figures(struct ccsg_figures *fig, const struct mem_view *v)
{
	const struct ccsg_graph *a = v->a, *fr = v->fr;

	*fig = (struct ccsg_figures){
		.g = a,
		.bytes = 1,
		.n = 4,
		.s = { { "self_alloc_bytes", a, 0 },
		       { "desc_alloc_bytes", a, 1 },
		       { "self_freed_bytes", fr, 0 },
		       { "desc_freed_bytes", fr, 1 } },
		.dot_label = dot_label,
		.ctx = v,
	};
}

static const char *host_name(const struct ccsg_trace *t,
			     const struct ccsg_proc *p)
{
	return p->host >= 0 ? t->hosts[p->host] : "?";
}

/* What the figures do not cover, in words. */
static void caveats_text(FILE *f, const struct ccsg_graph *a)
{
	const struct ccsg_trace *t = a->dscg->trace;

	if (!t->has_heap)
		fputs("this database has no heap columns (merged by an older "
		      "tracedump): "
		      "every figure is 0\n",
		      f);
	if (a->unmeasured_calls)
		fprintf(f,
			"skeletons without heap figures (memory accounting "
			"off, or a probe "
			"lost): %" PRId64 ", counted 0\n",
			a->unmeasured_calls);
	if (a->unmeasured_threads)
		fprintf(f,
			"user threads without heap figures (no end record, or "
			"memory "
			"accounting off): %" PRId64 ", counted 0\n",
			a->unmeasured_threads);
	if (a->clamped)
		fprintf(f, "negative self figures set to 0: %" PRId64 "\n",
			a->clamped);
}

static const struct ccsg_graph *sort_a;

static int cmp_self_alloc(const void *x, const void *y)
{
	size_t k = sort_a->dims->n;
	int32_t i = *(const int32_t *)x, j = *(const int32_t *)y;
	int64_t si = ccsg_vec_sum(sort_a->nodes[i].self, k);
	int64_t sj = ccsg_vec_sum(sort_a->nodes[j].self, k);

	if (si != sj)
		return si < sj ? 1 : -1;
	return i - j;
}

static void processes_text(FILE *f, const struct ccsg_trace *t)
{
	fputs("\nProcesses (peak heap: the highest live bytes of the "
	      "process)\n\n",
	      f);
	fprintf(f, "%-16s %8s %16s  %s\n", "host", "pid", "peak heap",
		"executable");
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct ccsg_proc *p = &t->procs[i];
		char peak[32];

		if (!p->present)
			continue; /* no processes row */
		if (p->peak_heap == CCSG_NONE)
			snprintf(peak, sizeof(peak), "-");
		else
			snprintf(peak, sizeof(peak), "%" PRId64, p->peak_heap);
		fprintf(f, "%-16s %8d %16s  %s\n", host_name(t, p), p->pid,
			peak, p->exe ? p->exe : "?");
	}
}

static void memory_text(FILE *f, const struct ccsg_graph *a,
			const struct ccsg_graph *fr)
{
	const struct ccsg_trace *t = a->dscg->trace;
	size_t k = a->dims->n, n = a->nnodes;
	int64_t total_a = ccsg_vec_sum(a->total, k),
		total_f = ccsg_vec_sum(fr->total, k);
	int32_t *order = malloc(n * sizeof(int32_t));

	if (!order)
		return;
	fprintf(f, "ccsg report --resource=memory of %s\n", t->path);
	ccsg_summary_text(f, t, &a->dscg->stats);
	fprintf(f, "heap of the whole system: %" PRId64 " bytes allocated",
		total_a);
	for (size_t i = 0; i < k; i++)
		fprintf(f, "%s%s %" PRId64, i ? ", " : " (", a->dims->names[i],
			a->total[i]);
	fprintf(f, "%s, %" PRId64 " bytes freed", k ? ")" : "", total_f);
	for (size_t i = 0; i < k; i++)
		fprintf(f, "%s%s %" PRId64, i ? ", " : " (", fr->dims->names[i],
			fr->total[i]);
	fputs(k ? ")\n" : "\n", f);
	caveats_text(f, a);

	fputs("\nFlat profile (bytes; self = Equations 1 and 2, desc = "
	      "Equations 3 and 4;"
	      " alloc: allocated, freed: freed by the node's own code)\n\n",
	      f);
	fprintf(f, "%7s %12s %12s %12s %12s %9s", "%alloc", "self alloc",
		"desc alloc", "self freed", "desc freed", "count");
	for (size_t i = 0; i < k; i++)
		fprintf(f, " %12.12s", a->dims->names[i]);
	fputs("  name\n", f);
	for (size_t i = 0; i < n; i++)
		order[i] = (int32_t)i;
	sort_a = a;
	qsort(order, n, sizeof(int32_t), cmp_self_alloc);
	for (size_t i = 0; i < n; i++) {
		const struct ccsg_node *x = &a->nodes[order[i]],
				       *y = &fr->nodes[order[i]];
		int64_t self = ccsg_vec_sum(x->self, k);

		if (x->kind == CCSG_MAIN)
			continue;
		fprintf(f,
			"%6.2f%% %12" PRId64 " %12" PRId64 " %12" PRId64
			" %12" PRId64 " %9" PRId64,
			total_a ? 100.0 * (double)self / (double)total_a : 0.0,
			self, ccsg_vec_sum(x->desc, k),
			ccsg_vec_sum(y->self, k), ccsg_vec_sum(y->desc, k),
			ccsg_node_count(x));
		for (size_t j = 0; j < k; j++)
			fprintf(f, " %12" PRId64, x->self[j]);
		fprintf(f, "  %s [%d]\n", x->name, order[i]);
	}

	fputs("\nCall graph (callers above a node, callees below; bytes "
	      "allocated, self and desc;"
	      " counts are calls or threads;\non a caller's or callee's "
	      "line, what came by that arc, as in gprof)\n\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		int32_t u = (int32_t)i;
		const struct ccsg_node *x = &a->nodes[u];

		for (size_t e = 0; e < a->nedges; e++) {
			const struct ccsg_edge *ed = &a->edges[e];

			if (ed->to == u)
				fprintf(f,
					"%-7s %12" PRId64 " %12" PRId64
					" %6" PRId64 "/%-6" PRId64
					"  %s [%d]%s\n",
					"", ccsg_vec_sum(ed->self, k),
					ccsg_vec_sum(ed->desc, k), ed->count,
					ccsg_node_count(x),
					a->nodes[ed->from].name, ed->from,
					ed->primary ? "" : " (secondary)");
		}
		fprintf(f,
			"[%d]%*s %12" PRId64 " %12" PRId64 " %13" PRId64
			"  %s\n",
			u,
			u < 10	   ? 4
			: u < 100  ? 3
			: u < 1000 ? 2
				   : 1,
			"", ccsg_vec_sum(x->self, k), ccsg_vec_sum(x->desc, k),
			ccsg_node_count(x), x->name);
		for (size_t e = 0; e < a->nedges; e++) {
			const struct ccsg_edge *ed = &a->edges[e];
			const struct ccsg_node *c = &a->nodes[ed->to];

			if (ed->from == u)
				fprintf(f,
					"%-7s %12" PRId64 " %12" PRId64
					" %6" PRId64 "/%-6" PRId64
					"      %s [%d]\n",
					"", ccsg_vec_sum(ed->self, k),
					ccsg_vec_sum(ed->desc, k), ed->count,
					ccsg_node_count(c), c->name, ed->to);
		}
		fputs("-----------------------------------------------\n", f);
	}
	processes_text(f, t);
	free(order);
}

static void memory_json(FILE *f, const struct ccsg_graph *a,
			const struct ccsg_graph *fr)
{
	const struct ccsg_trace *t = a->dscg->trace;
	const struct mem_view v = { a, fr };
	struct ccsg_figures fig;
	size_t k = a->dims->n;
	int first = 1;

	memory_figures(&fig, &v);
	fputs("{\"trace\": ", f);
	json_cstr(f, t->path);
	fputs(", \"resource\": \"memory\", \"unit\": \"bytes\", \"hosts\": [",
	      f);
	json_cstrs(f, a->dims->names, k);
	fputs("],\n \"summary\": ", f);
	ccsg_summary_json(f, t, &a->dscg->stats);
	fputs(",\n \"total_alloc_bytes\": ", f);
	ccsg_figures_json_vec(f, &fig, a->total);
	fputs(", \"total_freed_bytes\": ", f);
	ccsg_figures_json_vec(f, &fig, fr->total);
	fprintf(f,
		", \"heap_columns\": %s, \"clamped\": %" PRId64
		", \"unmeasured_threads\": %" PRId64
		", \"unmeasured_calls\": %" PRId64 ",\n \"processes\": [",
		t->has_heap ? "true" : "false", a->clamped + fr->clamped,
		a->unmeasured_threads, a->unmeasured_calls);
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct ccsg_proc *p = &t->procs[i];

		if (!p->present)
			continue;
		fprintf(f, "%s\n  {\"host\": ", first ? "" : ",");
		first = 0;
		json_cstr(f, host_name(t, p));
		fprintf(f, ", \"pid\": %d, \"exe\": ", p->pid);
		if (p->exe)
			json_cstr(f, p->exe);
		else
			fputs("null", f);
		if (p->peak_heap == CCSG_NONE)
			fputs(", \"peak_heap_bytes\": null}", f);
		else
			fprintf(f, ", \"peak_heap_bytes\": %" PRId64 "}",
				p->peak_heap);
	}
	fputs("\n ],\n ", f);
	ccsg_graph_json(f, &fig);
	fputs("\n}\n", f);
}

static void memory_xml(FILE *f, const struct ccsg_graph *a,
		       const struct ccsg_graph *fr)
{
	const struct ccsg_trace *t = a->dscg->trace;
	const struct mem_view v = { a, fr };
	struct ccsg_figures fig;

	memory_figures(&fig, &v);
	ccsg_graph_xml_open(f, a);
	fputs(" resource=\"memory\" unit=\"bytes\">\n <processes>\n", f);
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct ccsg_proc *p = &t->procs[i];

		if (!p->present)
			continue;
		fputs("  <process host=\"", f);
		ccsg_xml_str(f, host_name(t, p));
		fprintf(f, "\" pid=\"%d\" exe=\"", p->pid);
		ccsg_xml_str(f, p->exe);
		fputc('"', f);
		if (p->peak_heap != CCSG_NONE)
			fprintf(f, " peak_heap_bytes=\"%" PRId64 "\"",
				p->peak_heap);
		fputs("/>\n", f);
	}
	fputs(" </processes>\n", f);
	ccsg_graph_xml_trees(f, &fig);
	fputs("</ccsg>\n", f);
}

static void dot_label(FILE *f, const void *ctx, int32_t u)
{
	const struct mem_view *v = ctx;
	const struct ccsg_node *x = &v->a->nodes[u], *y = &v->fr->nodes[u];
	size_t k = v->a->dims->n;

	fprintf(f,
		"\\nalloc self %" PRId64 " B, desc %" PRId64 " B"
		"\\nfreed self %" PRId64 " B, desc %" PRId64 " B",
		ccsg_vec_sum(x->self, k), ccsg_vec_sum(x->desc, k),
		ccsg_vec_sum(y->self, k), ccsg_vec_sum(y->desc, k));
}

static void memory_dot(FILE *f, const struct ccsg_graph *a,
		       const struct ccsg_graph *fr)
{
	const struct mem_view v = { a, fr };
	struct ccsg_figures fig;

	memory_figures(&fig, &v);
	ccsg_graph_dot_open(f);
	ccsg_graph_dot_body(f, &fig);
}

int ccsg_memory_print(FILE *f, const struct ccsg_graph *alloc,
		      const struct ccsg_graph *freed, int format)
{
	switch (format) {
	case CCSG_JSON:
		memory_json(f, alloc, freed);
		break;
	case CCSG_XML:
		memory_xml(f, alloc, freed);
		break;
	case CCSG_DOT:
		memory_dot(f, alloc, freed);
		break;
	default:
		memory_text(f, alloc, freed);
		break;
	}
	return ccsg_print_done(f);
}
