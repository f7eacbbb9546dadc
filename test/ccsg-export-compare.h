/*
 * ccsg-export-compare.h - `ccsg export` as the command runs it, the calls
 * read again chain by chain for each pass (export_source_stream()),
 * against the export of the loaded trace (export_source_loaded()), byte
 * by byte: chrome (its formatter threads too, over small parts gathered),
 * OTLP/JSON (its spill to a file too, past a budget of a few bytes) and
 * the folded stacks of each weight.  Both share the formats' code, so
 * the loaded trace's export is also checked against the DSCG built in
 * memory (dscg.h), node by node:
 *   - folded: the lines are the DSCG's pre-order walk, a stack for each
 *     instance's path of frames, in the order each was first met, each
 *     with the weights of its instances (xc_folded_oracle());
 *   - OTLP: every span's parent is its node's parent in the DSCG (its
 *     client side for a server side), and its self and descendant CPU
 *     the CCSG's over its DSCG subtree (xc_otlp_oracle()).
 */
#ifndef CCSG_EXPORT_COMPARE_H
#define CCSG_EXPORT_COMPARE_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccsg.h"
#include "dscg.h"
#include "export/export-spill.h"
#include "export/export.h"
#include "json-read.h"
#include "names.h"
#include "stream.h"

/*
 * Compare every export of the trace at path, streamed, with that of the
 * loaded trace, whose exports are also checked against its DSCG; any
 * difference fails the test.  loaded: the CPU graph of path's loaded
 * trace, a node per function and a dimension per host (what `ccsg export`
 * folds).
 */
void xc_compare(const char *path, const struct ccsg_graph *loaded);

#endif
