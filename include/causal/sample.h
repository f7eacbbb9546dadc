/*
 * causal/sample.h - head sampling: is a call chain recorded?  (CAUSAL_SAMPLE,
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
 *
 * Header only, so that the library (shim-rpc/ids.c) and the tools
 * (ccsg/sampling.c, which recomputes each chain's decision) share the
 * one definition.
 */
#ifndef CAUSAL_SAMPLE_H
#define CAUSAL_SAMPLE_H

#include <stdint.h>

#include "causal/log-format.h"

#define CAUSAL_SAMPLE_ALL UINT64_MAX

static inline uint64_t causal_sample_stir(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static inline uint64_t causal_sample_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/*
 * The hash of a chain id, the same on every host: its bytes read
 * big-endian as two 64-bit words and a 32-bit one (the process UUID,
 * then its counter), each xored into the state and stirred with
 * splitmix64's finaliser (a bijection that spreads every input bit over
 * the 64, so consecutive counters of one process hash apart).
 */
static inline uint64_t
causal_sample_hash(const uint8_t chain[CAUSAL_CHAIN_ID_LEN])
{
	uint64_t h = 0x43534c5453414d50ull; /* "CSLTSAMP" */

	h = causal_sample_stir(h ^ causal_sample_be(chain, 8));
	h = causal_sample_stir(h ^ causal_sample_be(chain + 8, 8));
	return causal_sample_stir(h ^ causal_sample_be(chain + 16, 4));
}

/* Is the chain sampled at this threshold?  1 or 0. */
static inline int causal_sample_keep(const uint8_t chain[CAUSAL_CHAIN_ID_LEN],
				     uint64_t threshold)
{
	if (threshold == CAUSAL_SAMPLE_ALL)
		return 1;
	return causal_sample_hash(chain) < threshold;
}

/*
 * The threshold of a rate stored as processes.sample_rate_q32 (the
 * threshold's top 32 bits, 2^32 for every chain): the tools' way back to
 * the library's decision, off only for a hash within 2^32 of the
 * threshold (a chain in 2^32).
 */
static inline uint64_t causal_sample_threshold_q32(uint64_t q32)
{
	return q32 >> 32 ? CAUSAL_SAMPLE_ALL : q32 << 32;
}

#endif
