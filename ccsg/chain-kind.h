/*
 * chain-kind.h - how a chain came to be in the trace (docs/ccsg.md,
 * "Sampled and kept chains"): sampled by the head decision at its root
 * (CAUSAL_SAMPLE), or kept by tail keep (CAUSAL_KEEP_SLOWER_THAN) though
 * head sampling left it out; and a kept chain complete or not.
 *
 * The head decision is a pure function of the chain id and the rate of
 * the process that made the id (its first 16 bytes are that process's
 * uuid; processes.sample_rate_q32): any reader recomputes it, as every
 * host did (shim-rpc/sample.h).  A chain whose root process is not in
 * the trace, or a trace from before the rates (schema 11), counts as
 * sampled.
 */
#ifndef CCSG_CHAIN_KIND_H
#define CCSG_CHAIN_KIND_H

#include "trace.h"

/*
 * Index t's processes by uuid, with their head sampling thresholds
 * (processes.sample_rate_q32 read into procs[].sample_q32 by the load).
 * 0 or -ENOMEM.
 */
int ccsg_chain_kinds_index(struct ccsg_trace *t);

/*
 * Is chain ch in the trace by the head decision (1), or kept by tail
 * keep alone (0)?  The estimates that scale by the sampling rate take
 * the sampled chains only.
 */
int ccsg_chain_is_sampled(const struct ccsg_trace *t,
			  const struct ccsg_chain *ch);

/*
 * Does call c lack a side that a traced host should have written: its
 * server's, though the reply came back with a tag (a traced server), or
 * its client's, though the call came with one (a traced client)?  A
 * kept chain with such a call is incomplete (ccsg_chain.gap).
 */
int ccsg_call_side_lost(const struct ccsg_trace *t, const struct ccsg_call *c);

#endif
