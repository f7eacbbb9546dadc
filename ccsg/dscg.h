/*
 * dscg.h - the dynamic system call graph (Section 4.1 of the monitoring
 * paper): each chain's events sorted and scanned with the state machine of
 * Figure 7, thread instance nodes linked by thread-spawn-thread,
 * function-spawn-thread and thread-invoke-function, one virtual main node
 * on top.
 *
 * The graph is a tree over node ids: calls are 0 .. ncalls-1, threads
 * ncalls .. ncalls+nthreads-1, the virtual main node is the last id.  A
 * chain's root calls hang under the thread that started the chain (its
 * global thread node), or under main when that thread is unknown.  The
 * auxiliary global thread and segment nodes are not ids: a root call's
 * chain and seg say which it belongs to.
 */
#ifndef CCSG_DSCG_H
#define CCSG_DSCG_H

#include "trace.h"

/* How many calls have each value of a text column (trace.strings). */
struct ccsg_tally {
	struct ccsg_tally_entry {
		int32_t str;		/* trace.strings index of the value */
		size_t n;
	} *v;				/* by count, largest first, then by value */
	size_t n, cap;
	struct hashmap index;		/* str -> entry */
};

struct ccsg_dscg_stats {
	size_t calls, chains, threads;
	size_t broken_chains;		/* with an abnormal transition or truncated */
	size_t segments;		/* segment nodes of the broken chains */
	size_t breaks;			/* abnormal transitions */
	size_t truncated_chains;	/* ended with calls still open */
	size_t no_server;		/* calls whose server side is missing */
	size_t no_client;		/* calls whose client side is missing */
	size_t incomplete;		/* calls that lack an end probe */
	size_t lost_starts;		/* calls without a start probe (dropped): no function */
	size_t failed;			/* ccsg_call_failed() */
	struct ccsg_tally failures;	/* failed calls by status_name, else reply */
	struct ccsg_tally tags;		/* rpc_calls.tag by value (NULL not counted) */
	struct ccsg_tally reply_tags;	/* rpc_calls.reply_tag by value */
	size_t spawned_threads;		/* function-spawn-thread links */
	size_t thread_calls;		/* chains started by a thread (thread-invoke-function) */
	int32_t max_depth;
};

struct ccsg_dscg {
	struct ccsg_trace *trace;
	size_t nnodes;			/* ncalls + nthreads + 1 */
	int32_t main;			/* id of the virtual main node */
	int32_t *parent;		/* node ids; -1 for main */
	int32_t *first_child, *next_sibling;	/* -1 terminated */
	struct ccsg_dscg_stats stats;
};

/* Scan every chain and link the tree.  0 or -ENOMEM. */
int ccsg_dscg_build(struct ccsg_dscg *d, struct ccsg_trace *t);
void ccsg_dscg_release(struct ccsg_dscg *d);

static inline int ccsg_dscg_is_call(const struct ccsg_dscg *d, int32_t n)
{
	return n >= 0 && (size_t)n < d->trace->ncalls;
}

static inline int ccsg_dscg_is_thread(const struct ccsg_dscg *d, int32_t n)
{
	return (size_t)n >= d->trace->ncalls && n != d->main;
}

#endif
