/*
 * ccsg-stream-compare.h - the CCSG of a trace read chain by chain
 * (stream.h, what `ccsg report` does) against the one built from the
 * loaded trace (what every other command does), node by node: kinds,
 * names, counts, the self and descendant vectors, the edges and their
 * primary marks, the threads' Equation 2, the DSCG's counts and tallies,
 * and the latency table (`ccsg latency` streams too); and the CCSG
 * folded by 2 and by 3 workers, each over its share of the chains
 * (workers.h, `ccsg report --workers`), against the same; and the
 * chains selective monitoring cut (monitoring.h) that each found; and
 * first, that the arcs of the loaded graph add up to their nodes.
 * Strings are compared as text: the two read the calls in different
 * orders, so their interned indices differ.
 */
#ifndef CCSG_STREAM_COMPARE_H
#define CCSG_STREAM_COMPARE_H

#include <check.h>
#include <string.h>

#include "ccsg.h"
#include "latency.h"
#include "names.h"
#include "stream.h"
#include "workers.h"

/* The arcs into each node of g add up to its self and desc figures. */
void sc_arcs_add_up(const struct ccsg_graph *g);

/*
 * Stream the trace at path into a graph of the loaded graph's resource
 * and dimensions (groups: the text loaded's were parsed from, or NULL for
 * hosts), and compare; then the same by 2 and by 3 workers (shares of the
 * chains).
 */
void sc_compare(const char *path, const struct ccsg_graph *loaded,
		const char *groups);

#endif
