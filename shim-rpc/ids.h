/*
 * ids.h - the identifiers the RPC probes stamp (ids.c): function ids, call
 * chain ids, and the event numbers along a chain.
 */
#ifndef CAUSAL_SHIM_RPC_IDS_H
#define CAUSAL_SHIM_RPC_IDS_H

#include <stdint.h>

#include "causal/log-format.h"
#include "context.h"

/* A fresh function id: one per stub or skeleton invocation. */
uint64_t causal_rpc_next_function_id(void);
/*
 * A fresh call chain id: process UUID + counter (Section 2.3.4.3).  A
 * chain starts here, so its head sampling is decided here, by this
 * process's CAUSAL_SAMPLE (sample.h): *unsampled is set when it is not.
 */
void causal_rpc_new_chain(uint8_t chain[CAUSAL_CHAIN_ID_LEN],
			  uint8_t *unsampled);

/* A new chain for ctx, sampled or not; the next event is its first, 0.
 * A stub opens it before reading its clocks: an unsampled one reads none. */
static inline void causal_ctx_open_chain(struct causal_ctx *ctx)
{
	causal_rpc_new_chain(ctx->chain, &ctx->unsampled);
	ctx->event_no = UINT64_MAX; /* wraps to 0 at the next event */
}

/* The context event numbers move along: Figure 4 of the monitoring paper. */
static inline uint64_t causal_ctx_next_event(struct causal_ctx *ctx)
{
	if (!causal_ctx_active(ctx))
		causal_ctx_open_chain(ctx);
	return ++ctx->event_no;
}

#endif
