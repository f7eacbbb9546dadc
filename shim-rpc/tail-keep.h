/*
 * tail-keep.h - the RPC probes' part of tail keep (preload/keep.h,
 * docs/tracing.md "Tail keep"): an unsampled chain's calls record, held,
 * when tail keep is on; a slow or failed call keeps its chain here, and
 * the reply tag tells the caller (CAUSAL_TAG_F_KEEP).
 */
#ifndef CAUSAL_SHIM_RPC_TAIL_KEEP_H
#define CAUSAL_SHIM_RPC_TAIL_KEEP_H

#include <rpc/rpc.h>

#include "context.h"
#include "keep.h"
#include "tag.h"

/* A call of a chain head sampling left out (unsampled) is held: tail
 * keep is on, so it records (held) and is timed.  The one test of both
 * sides: the stub's through causal_rpc_holds(), the skeleton's before its
 * context is set. */
static inline int causal_rpc_held(int unsampled)
{
	return unsampled && causal_keep_enabled();
}

static inline int causal_rpc_holds(const struct causal_ctx *ctx)
{
	return causal_rpc_held(ctx->unsampled);
}

/*
 * A stub end in a held chain: keep it when the call took longer than
 * the threshold (ns), failed (an error status, but the timeout that
 * ends a one-way call), or its reply says a callee kept it.
 */
void causal_rpc_keep_stub(struct causal_ctx *ctx, uint64_t ns, int failed,
			  const struct causal_tag *reply, int reply_status);

/*
 * A skeleton end in a held chain (ctx: the skeleton's, before the thread
 * gets its own back): keep it when the skeleton took longer than the
 * threshold, answered an error (reply: enum causal_reply_kind), or one of
 * its calls' replies said so.  Returns the flags of the reply's tag.
 */
uint32_t causal_rpc_keep_skel(struct causal_ctx *ctx, uint64_t ns, int reply);

#endif
