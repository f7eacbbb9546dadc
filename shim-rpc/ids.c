/*
 * ids.c - the identifiers the probes stamp: function ids (one per stub
 * or skeleton invocation) and call chain ids (process UUID + counter,
 * Section 2.3.4.3 of the monitoring paper).  Relaxed atomic counters:
 * probes run in every thread at once, and only uniqueness matters.
 */
#include "ids.h"
#include "sample.h"
/* the process's uuid, which chain ids are made of: the library's state */
#include "../preload/internal.h"

static _Atomic uint64_t next_function_id = 1;
static _Atomic uint32_t next_chain;

uint64_t causal_rpc_next_function_id(void)
{
	return atomic_fetch_add_explicit(&next_function_id, 1,
					 memory_order_relaxed);
}

void causal_rpc_new_chain(uint8_t chain[CAUSAL_CHAIN_ID_LEN],
			  uint8_t *unsampled)
{
	uint32_t n =
	    atomic_fetch_add_explicit(&next_chain, 1, memory_order_relaxed) + 1;

	memcpy(chain, causal_g.id.uuid, CAUSAL_UUID_LEN);
	chain[16] = (uint8_t)(n >> 24);
	chain[17] = (uint8_t)(n >> 16);
	chain[18] = (uint8_t)(n >> 8);
	chain[19] = (uint8_t)n;
	*unsampled = !causal_sample_keep(chain, causal_g.cfg.sample);
}
