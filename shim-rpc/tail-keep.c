/*
 * tail-keep.c - when an RPC probe keeps its unsampled chain (tail-keep.h).
 */
#include "tail-keep.h"
#include "keep.h"

static void keep(struct causal_ctx *ctx)
{
	if (!ctx->keep)
		causal_keep_chain(ctx->chain);
	ctx->keep = 1;
}

void causal_rpc_keep_stub(struct causal_ctx *ctx, uint64_t ns, int failed,
			  const struct causal_tag *reply, int reply_status)
{
	int callee_kept =
		reply_status == CAUSAL_TAG_OK &&
		reply->flags & CAUSAL_TAG_F_KEEP &&
		!memcmp(reply->chain, ctx->chain, CAUSAL_CHAIN_ID_LEN);

	if (callee_kept || failed || causal_keep_slow(ns))
		keep(ctx);
}

uint32_t causal_rpc_keep_skel(struct causal_ctx *ctx, uint64_t ns, int reply)
{
	if (ctx->keep || causal_keep_slow(ns) || reply != CAUSAL_REPLY_SUCCESS)
		keep(ctx);
	return ctx->keep ? CAUSAL_TAG_F_KEEP : 0;
}
