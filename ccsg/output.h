/*
 * output.h - the formats of the ccsg commands.  Each printer writes to a
 * FILE and returns 0, or -EIO when writing failed.
 */
#ifndef CCSG_OUTPUT_H
#define CCSG_OUTPUT_H

#include <stdio.h>

#include "ccsg.h"
#include "latency.h"
#include "names.h"

enum ccsg_format { CCSG_TEXT, CCSG_JSON, CCSG_XML, CCSG_DOT };

/* "text", "json", ... -> enum ccsg_format, or -1. */
int ccsg_format_parse(const char *s);

int ccsg_report_print(FILE *f, const struct ccsg_graph *g, int format);
int ccsg_dscg_print(FILE *f, const struct ccsg_dscg *d, const struct ccsg_names *nm, int format);
int ccsg_latency_print(FILE *f, const struct ccsg_graph *g, const struct ccsg_latency *l,
		       size_t n, int format);

#endif
