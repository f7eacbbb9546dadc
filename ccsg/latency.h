/*
 * latency.h - end-to-end latency of the calls (monitoring paper, Section
 * 4.2, Equation 3): from the stub start's entry to the stub end's exit, on
 * the client's clock.  Per function node: count, mean, standard deviation,
 * min, median, 95th percentile, max, and how the time splits between the
 * network and runtime (outside the skeleton), the server's own code (the
 * skeleton minus the children) and the children's latency.
 *
 * The split of one call, of latency L on the client's clock: server time
 * S = skeleton end - skeleton start (server's clock) bounded to [0, L]
 * (a PROC_UNAVAIL reply can end its skeleton before the start probe's
 * exit: 0; a call the client gave up on, RPC_TIMEDOUT, while the server
 * went on: L), children K = the sum of its child calls' latencies
 * bounded to [0, S]; network L - S, server S - K.  A call without both
 * skeleton probes (untraced or lost server, a probe dropped, a crash) is
 * not split: all of L is 'unsplit'.  So every share is within 0-100% and
 * the four add up to 100%.
 */
#ifndef CCSG_LATENCY_H
#define CCSG_LATENCY_H

#include "ccsg.h"

struct ccsg_latency {
	int32_t node;			/* function node of the graph */
	int64_t calls;			/* calls with both stub probes */
	int64_t skipped;		/* calls without them */
	int64_t failed;			/* calls that failed (ccsg_call_failed), of all */
	int64_t bounded;		/* calls whose S or K was bounded (above) */
	double mean, sd;		/* nanoseconds */
	int64_t min, median, p95, max;
	double network_share, server_share, children_share;	/* of the total latency */
	double unknown_share;		/* untraced servers: no split */
};

/* One entry per function node with calls, sorted by total latency,
 * largest first.  0 or -ENOMEM. */
int ccsg_latency_build(const struct ccsg_graph *g, struct ccsg_latency **out, size_t *n);

/*
 * The same, chain by chain, as a stream folds them (stream.h): each
 * chain's calls with node[j] the function node of its j-th call (-1:
 * none), then finish.  ccsg_latency_chain() is a watch of a stream
 * (stream.h): acc is a struct ccsg_latency_acc.  Memory: the sums per node and
 * one latency per call (8 bytes), which the exact median and 95th percentile
 * need.
 */
struct ccsg_latency_acc {
	struct node_sums *sums; /* per graph node */
	size_t nnodes;
	int64_t *child; /* the chain's calls: their children's latency */
	size_t cap_child;
};

int ccsg_latency_chain(void *acc, const struct ccsg_graph *g,
		       const struct ccsg_chain *ch, const int32_t *node,
		       int64_t ord0);
int ccsg_latency_finish(struct ccsg_latency_acc *acc,
			const struct ccsg_graph *g, struct ccsg_latency **out,
			size_t *n);
void ccsg_latency_acc_release(struct ccsg_latency_acc *acc);

#endif
