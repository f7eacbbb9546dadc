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
/* A fresh call chain id: process UUID + counter (Section 2.3.4.3). */
void causal_rpc_new_chain(uint8_t chain[CAUSAL_CHAIN_ID_LEN]);

/* The context event numbers move along: Figure 4 of the monitoring paper. */
static inline uint64_t causal_ctx_next_event(struct causal_ctx *ctx)
{
	if (!causal_ctx_active(ctx)) {
		causal_rpc_new_chain(ctx->chain);
		ctx->event_no = 0;
	} else {
		ctx->event_no++;
	}
	return ctx->event_no;
}

#endif
