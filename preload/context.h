/*
 * context.h - the causality context a thread carries in TLS.
 *
 * This is the "function-transportable" and "thread-transportable" log data of
 * Section 2.3.4 of the monitoring paper: the call chain id (function UUID =
 * 16-byte process UUID + 4-byte counter), the event number along the chain,
 * the local function id of the stub/skeleton the thread is executing, and
 * the white/black marker.  The RPC shim updates it at each probe; the
 * pthread shim hands a copy to every child thread.
 */
#ifndef CAUSAL_CONTEXT_H
#define CAUSAL_CONTEXT_H

#include <stdint.h>
#include <string.h>

#include "causal/log-format.h"

struct causal_ctx {
	uint8_t chain[CAUSAL_CHAIN_ID_LEN]; /* all zero: no chain active */
	uint8_t marker;		/* enum causal_marker */
	uint8_t mon;		/* CAUSAL_MON_* the enclosing call imposes */
	uint8_t unsampled;	/* the chain is not recorded (head sampling,
				 * shim-rpc/sample.h): its calls write no
				 * records but still carry the tag */
	uint8_t keep;		/* tail keep (keep.h): this unsampled chain
				 * is kept, a callee's reply said so */
	uint64_t event_no;
	uint64_t function_id;	/* local function id (0: none) */
};

static inline int causal_ctx_active(const struct causal_ctx *ctx)
{
	static const uint8_t zero[CAUSAL_CHAIN_ID_LEN];

	return memcmp(ctx->chain, zero, sizeof(zero)) != 0;
}

/*
 * What a child thread starts with.  The parent's context itself goes into
 * the child's THREAD_START record (its function id is the child's "function
 * container identifier": the function-spawn-thread relation).  The child
 * does not continue the parent's chain: both would then number events of
 * one chain concurrently.  Its own calls start chains of their own, tied to
 * it by its thread id (the thread-invoke-function relation, Section 4.1 of
 * the monitoring paper).  Only the marker carries over, so threads spawned
 * by infrastructure stay infrastructure, and the monitoring types of the
 * call the parent is in (causal overriding: a thread spawned inside a
 * monitored call is monitored, monitor.h).
 */
static inline void causal_ctx_inherit(struct causal_ctx *child,
				      const struct causal_ctx *parent)
{
	memset(child, 0, sizeof(*child));
	child->marker = parent->marker;
	child->mon = parent->mon;
}

#endif
