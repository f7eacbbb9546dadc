/*
 * keep-cast.c - tail keep through the coordinator (keep.h,
 * docs/tracing.md "Tail keep"): the consumer thread announces the
 * chains this process keeps (KEEP) and keeps those the coordinator says
 * others kept (KEPT), so that a process that served a sibling call of a
 * kept chain, off the path the reply tag takes back, writes its part
 * too.  Only the consumer thread runs this: the probes merely mark the
 * chain in the kept set (keep-set.c), and nothing here waits for them.
 */
#include <stdio.h>

#include "causal/monitor-proto.h"
#include "keep.h"

static uint64_t seen_version; /* of the kept set, last scanned */
static struct causal_mon_bucket bucket;
static _Atomic uint64_t cast, dropped, learned;

int causal_keepcast_next(uint64_t now_ns, char *msg, size_t size)
{
	uint64_t v = causal_keep_version();
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	char hex[CAUSAL_MON_CHAIN_HEX + 1];

	if (!causal_keep_enabled() || v == seen_version)
		return 0;
	while (causal_keep_announce_next(chain)) {
		if (!causal_mon_bucket_take(&bucket, now_ns,
					    CAUSAL_MON_KEEP_RATE,
					    CAUSAL_MON_KEEP_RATE)) {
			atomic_fetch_add(&dropped, 1);
			continue;
		}
		atomic_fetch_add(&cast, 1);
		causal_mon_chain_hex(chain, hex);
		snprintf(msg, size, "KEEP %s %llu", hex,
			 (unsigned long long)atomic_load(&dropped));
		return 1;
	}
	/* what was added since v is scanned next time */
	seen_version = v;
	return 0;
}

int causal_keepcast_take(char *rest)
{
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];

	if (causal_mon_chain(causal_mon_field(&rest), chain) || *rest)
		return -1;
	if (causal_keep_enabled()) {
		causal_keep_learn(chain);
		atomic_fetch_add(&learned, 1);
	}
	return 0;
}

void causal_keepcast_counts(uint64_t *c, uint64_t *d, uint64_t *l)
{
	*c = atomic_load_explicit(&cast, memory_order_relaxed);
	*d = atomic_load_explicit(&dropped, memory_order_relaxed);
	*l = atomic_load_explicit(&learned, memory_order_relaxed);
}
