/*
 * output.h - the formats of the ccsg commands.  Each printer writes to a
 * FILE and returns 0, or -EIO when writing failed.
 */
#ifndef CCSG_OUTPUT_H
#define CCSG_OUTPUT_H

#include <errno.h>
#include <stdio.h>

#include "ccsg.h"
#include "latency.h"
#include "names.h"

enum ccsg_format { CCSG_TEXT, CCSG_JSON, CCSG_XML, CCSG_DOT };

/* "text", "json", ... -> enum ccsg_format, or -1. */
int ccsg_format_parse(const char *s);

int ccsg_report_print(FILE *f, const struct ccsg_graph *g, int format);
/*
 * `report --resource=memory`: the graphs of bytes allocated and freed
 * (ccsg_graph_build_res(), same DSCG, dimensions and grouping), and the
 * peak heap of every process (output-memory.c).
 */
int ccsg_memory_print(FILE *f, const struct ccsg_graph *alloc,
		      const struct ccsg_graph *freed, int format);

/* Shared by the printers: the summary heading every output. */
void ccsg_summary_json(FILE *f, const struct ccsg_trace *t,
		       const struct ccsg_dscg_stats *s);
void ccsg_summary_text(FILE *f, const struct ccsg_trace *t,
		       const struct ccsg_dscg_stats *s);
/* `ccsg dscg` (output-dscg.c). */
int ccsg_dscg_print(FILE *f, const struct ccsg_dscg *d,
		    const struct idl_names *nm, int format);
int ccsg_latency_print(FILE *f, const struct ccsg_graph *g, const struct ccsg_latency *l,
		       size_t n, int format);

/*
 * For an analysis whose output extends report's (impact/impact-output.c):
 * the CPU figures of g as report prints them (self and desc in us, a dot
 * node's in ms; output-graph.h), to which it adds its hooks; report's
 * JSON up to its nodes ("{\"trace\": ... \"unmeasured_threads\": N,\n "),
 * its XML up to its trees (the root element and the monitoring), its
 * dot up to its nodes; and the lines on what g's CPU figures could not
 * count (clamped self CPU, threads without a CPU time), each when there
 * is something to say.
 */
struct ccsg_figures;
void ccsg_cpu_figures(struct ccsg_figures *fig, const struct ccsg_graph *g);
void ccsg_report_json_open(FILE *f, const struct ccsg_figures *fig);
void ccsg_report_xml_open(FILE *f, const struct ccsg_graph *g);
void ccsg_report_dot_open(FILE *f, const struct ccsg_graph *g);
void ccsg_graph_notes_text(FILE *f, const struct ccsg_graph *g);

/* ns in us and in ms, as the printers show them */
static inline double ccsg_us(int64_t ns)
{
	return ns / 1000.0;
}

static inline double ccsg_ms(int64_t ns)
{
	return ns / 1e6;
}

/* What a printer returns once it wrote everything: 0, or -EIO. */
static inline int ccsg_print_done(FILE *f)
{
	return fflush(f) || ferror(f) ? -EIO : 0;
}

#endif
