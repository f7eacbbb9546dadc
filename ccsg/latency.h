/*
 * latency.h - end-to-end latency of the calls (monitoring paper, Section
 * 4.2), per call and per function node.
 *
 * The four probes of a call each have an entry and an exit time:
 *
 *   client  [probe 1]------------------------------------[probe 4]
 *           ^       ^                                    ^       ^
 *   stub_start_ns   stub_start_exit_ns        stub_end_ns   stub_end_exit_ns
 *   server              [probe 2]--------------[probe 3]
 *                       ^       ^              ^       ^
 *            skel_start_ns   skel_start_exit_ns  skel_end_ns  skel_end_exit_ns
 *
 * Equation 3: the latency is stub_end_ns - stub_start_exit_ns, between
 * the stub probes' inner edges (the probes' own work is not the call's),
 * on the client's clock; the server time is skel_end_ns -
 * skel_start_exit_ns, between the skeleton probes' inner edges, on the
 * server's.  A probe's own time is its exit - its entry; a probe whose
 * exit (or entry) the database lacks counts as one instant.
 *
 * Interference (Equation 4, the intra-chain part): a call whose reply
 * reached its client (ccsg_call_replied()) held, inside its inner edges,
 * its own skeleton probes and every probe of every call nested in it, on
 * whatever host (a nested call that was not replied to: its stub probes
 * only, its skeleton may have run on after).  The compensated latency
 * subtracts that probe time; it is the figure reported.  What cannot be
 * subtracted (the tags' marshalling, the writer thread's CPU on a shared
 * core, cache effects: docs/ccsg.md) stays in it.
 *
 * The split of one call, of compensated latency L: server time S less
 * the nested probe time, bounded to [0, L] (a PROC_UNAVAIL reply can end
 * its skeleton before the start probe's exit: 0; a call the client gave
 * up on, RPC_TIMEDOUT, while the server went on: L), children K = the sum
 * of its child calls' compensated latencies bounded to [0, S]; network
 * L - S, server S - K.  A call without both skeleton probes (untraced or
 * lost server, a probe dropped, a crash) is not split: all of L is
 * 'unsplit'.  So every share is within 0-100% and the four add up to 100%.
 */
#ifndef CCSG_LATENCY_H
#define CCSG_LATENCY_H

#include "ccsg.h"

/*
 * Whether call c's reply reached its client: both stub probes and both
 * skeleton probes, the skeleton's end before the stub's end (events),
 * and a client status that is a reply (success, or an error the server
 * answered; not RPC_TIMEDOUT, RPC_CANTRECV...).  Only such a call's
 * skeleton lies inside its stub.
 */
int ccsg_call_replied(const struct ccsg_call *c);

/* One call's figures, ns; latency CCSG_NONE without both stub probes
 * (or with the stub end's entry before the stub start's exit). */
struct ccsg_call_latency {
	int64_t latency;       /* compensated: uncompensated - subtracted */
	int64_t uncompensated; /* Equation 3, inner edges */
	int64_t subtracted;    /* the probe time it held (above) */
	int64_t nested;	       /* of which its nested calls' */
	int64_t probes;	       /* its own four probes' time */
	int64_t server;	       /* skeleton inner edges, CCSG_NONE */
	int64_t children;      /* its child calls' compensated latencies */
	uint8_t bounded;       /* the subtraction was bounded at 0 */
};

/*
 * The figures of chain part ch's calls (t->calls[ch->first ..]), into
 * out[0 .. ch->n).  A part holds its calls' descendants (stream.h).
 */
void ccsg_latency_calls(const struct ccsg_trace *t, const struct ccsg_chain *ch,
			struct ccsg_call_latency *out);

struct ccsg_latency {
	int32_t node;			/* function node of the graph */
	int64_t calls;			/* calls with both stub probes */
	int64_t skipped;		/* calls without them */
	int64_t failed;			/* calls that failed (ccsg_call_failed), of all */
	int64_t bounded;		/* calls whose S or K was bounded (above) */
	double mean, sd;		/* compensated, nanoseconds */
	int64_t min, median, p95, max;
	double uncomp_mean, uncomp_sd; /* Equation 3 alone */
	double subtracted;	       /* mean probe time subtracted */
	double probes;		       /* mean of the calls' own probes */
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
	struct ccsg_call_latency *calls; /* the chain part's */
	size_t cap_calls;
};

int ccsg_latency_chain(void *acc, const struct ccsg_graph *g,
		       const struct ccsg_chain *ch, const int32_t *node,
		       int64_t ord0);
int ccsg_latency_finish(struct ccsg_latency_acc *acc,
			const struct ccsg_graph *g, struct ccsg_latency **out,
			size_t *n);
void ccsg_latency_acc_release(struct ccsg_latency_acc *acc);

#endif
