/*
 * output.h - the formats of the ccsg commands.  Each printer writes to a
 * FILE and returns 0, or -EIO when writing failed.
 */
#ifndef CCSG_OUTPUT_H
#define CCSG_OUTPUT_H

#include <stdio.h>

#include "ccsg.h"
#include "impact/impact.h"
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

/* Shared by the printers: the summary heading every output, and names
 * escaped for XML attributes and dot labels. */
void ccsg_summary_json(FILE *f, const struct ccsg_trace *t,
		       const struct ccsg_dscg_stats *s);
void ccsg_summary_text(FILE *f, const struct ccsg_trace *t,
		       const struct ccsg_dscg_stats *s);
void ccsg_xml_str(FILE *f, const char *s);
void ccsg_dot_str(FILE *f, const char *s);
int ccsg_dscg_print(FILE *f, const struct ccsg_dscg *d,
		    const struct idl_names *nm, int format);
/*
 * `ccsg impact`: the CCSG with the CCDG of im superimposed (every node's
 * before, after and delta), the changes cs as parsed, and the mean
 * latency of lat (ccsg_latency_build() of im's graph) predicted, said to
 * be an estimate.  JSON and XML extend report's; -ENOMEM, -EIO.
 */
int ccsg_impact_print(FILE *f, const struct ccsg_impact *im,
		      const struct ccsg_changes *cs,
		      const struct ccsg_latency *lat, size_t nlat, int format);
int ccsg_latency_print(FILE *f, const struct ccsg_graph *g, const struct ccsg_latency *l,
		       size_t n, int format);

#endif
