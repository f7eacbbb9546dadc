/*
 * ccsg-match.h - what one trace's CCSG has that another's has too: one
 * rule for `ccsg diff` (its rows, function by host; its functions, hosts
 * and programs in one trace only: docs/ccsg.md, "diff") and `ccsg impact
 * --against` (its nodes and hosts: docs/impact.md, "Against a second
 * run").
 *
 * Items are matched by a key (a node's name, a host's, a row's function
 * and host): the k-th item of a key in A, in index order, goes with the
 * k-th item of that key in B; the others are A's or B's own.  Names are
 * those ccsg_graph_name() gives, so both traces need the same --idl.
 */
#ifndef CCSG_CCSG_MATCH_H
#define CCSG_CCSG_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "ccsg.h"

/* The keys of item i of set x and item j of set y (each set A or B),
 * as strcmp() orders them. */
typedef int (*ccsg_match_cmp)(const void *x, size_t i, const void *y, size_t j);

struct ccsg_match {
	int32_t *of_a; /* B's item of A's item i, or -1 */
	int32_t *of_b; /* A's item of B's item j, or -1 */
	uint8_t *in_b; /* B has A's item i's key (matched or not) */
	uint8_t *in_a; /* A has B's item j's key */
};

/* Match na items of a with nb of b by cmp into m: 0, or -ENOMEM with m
 * released. */
int ccsg_match_build(struct ccsg_match *m, const void *a, size_t na,
		     const void *b, size_t nb, ccsg_match_cmp cmp);
void ccsg_match_release(struct ccsg_match *m);

/* The nodes of two named graphs, by name. */
int ccsg_match_nodes(struct ccsg_match *m, const struct ccsg_graph *a,
		     const struct ccsg_graph *b);
/* Their vector dimensions (hosts or processor groups), by name. */
int ccsg_match_dims(struct ccsg_match *m, const struct ccsg_dims *a,
		    const struct ccsg_dims *b);

/* The RPC programs of g's function nodes, sorted, each once: malloc'd,
 * n of them, or NULL. */
uint32_t *ccsg_programs(const struct ccsg_graph *g, size_t *n);
/* Whether prog is one of the n programs ccsg_programs() gave. */
int ccsg_programs_have(const uint32_t *progs, size_t n, uint32_t prog);

#endif
