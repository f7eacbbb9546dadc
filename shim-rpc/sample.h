/*
 * sample.h - head sampling: is a call chain recorded?  (CAUSAL_SAMPLE,
 * docs/tracing.md, "Head sampling".)
 *
 * Decided once, where a chain starts (a client's first call, or a server
 * called by an untraced peer), as a pure function of the chain id and the
 * rate: any host can recompute it, and two roots with the same rate agree
 * on the same chain.  The decision then travels with the chain in the
 * call tag (tag.h, CAUSAL_TAG_F_UNSAMPLED), and every host honours it
 * whatever its own rate.
 *
 * The rate is a threshold on a 64-bit hash: a chain is sampled when its
 * hash is below it; CAUSAL_SAMPLE_ALL (probability 1) samples every chain,
 * 0 none.  config.h parses CAUSAL_SAMPLE into a threshold.
 */
#ifndef CAUSAL_SHIM_RPC_SAMPLE_H
#define CAUSAL_SHIM_RPC_SAMPLE_H

#include <stdint.h>

#include "causal/log-format.h"

#define CAUSAL_SAMPLE_ALL UINT64_MAX

/*
 * The hash of a chain id, the same on every host: its bytes read
 * big-endian as two 64-bit words and a 32-bit one (the process UUID,
 * then its counter), each xored into the state and stirred with
 * splitmix64's finaliser (a bijection that spreads every input bit over
 * the 64, so consecutive counters of one process hash apart).
 */
uint64_t causal_sample_hash(const uint8_t chain[CAUSAL_CHAIN_ID_LEN]);

/* Is the chain sampled at this threshold?  1 or 0. */
int causal_sample_keep(const uint8_t chain[CAUSAL_CHAIN_ID_LEN],
		       uint64_t threshold);

#endif
