/*
 * latency-hist.h - the fixed buckets of the exact totals' latency
 * histograms (docs/tracing.md, "Exact totals"), shared by the library,
 * which counts into them, and the tools, which read them back.
 *
 * HDR-style, log-linear: a value v in nanoseconds below 64 has a bucket
 * of its own; above, each power of two [2^k, 2^(k+1)) is cut into 32
 * buckets of equal width 2^(k-5).  A bucket is at most 1/32 of its lower
 * bound wide, so its middle is within 1/64 (1.6%) of every value in it.
 * Values from 2^40 ns (18 minutes) up share the last bucket.
 */
#ifndef CAUSAL_LATENCY_HIST_H
#define CAUSAL_LATENCY_HIST_H

#include <stdint.h>

#define CAUSAL_HIST_SUB_BITS 5
#define CAUSAL_HIST_SUB (1u << CAUSAL_HIST_SUB_BITS)
#define CAUSAL_HIST_MAX_BITS 40
/* buckets 0..63 hold 0..63; then 32 per power of two up to 2^40 */
#define CAUSAL_HIST_BUCKETS                                                    \
	(CAUSAL_HIST_SUB * (CAUSAL_HIST_MAX_BITS - CAUSAL_HIST_SUB_BITS + 1))

static inline unsigned causal_hist_bucket(uint64_t v)
{
	unsigned e;

	if (v < 2 * CAUSAL_HIST_SUB)
		return (unsigned)v;
	if (v >> CAUSAL_HIST_MAX_BITS)
		return CAUSAL_HIST_BUCKETS - 1;
	e = 63u - (unsigned)__builtin_clzll(v) - CAUSAL_HIST_SUB_BITS;
	return CAUSAL_HIST_SUB * e + (unsigned)(v >> e);
}

/* The lowest value of bucket b, and its width. */
static inline uint64_t causal_hist_low(unsigned b)
{
	unsigned e;

	if (b < 2 * CAUSAL_HIST_SUB)
		return b;
	e = b / CAUSAL_HIST_SUB - 1;
	return (uint64_t)(b % CAUSAL_HIST_SUB + CAUSAL_HIST_SUB) << e;
}

static inline uint64_t causal_hist_width(unsigned b)
{
	return b < 2 * CAUSAL_HIST_SUB ? 1 : 1ull << (b / CAUSAL_HIST_SUB - 1);
}

/* What a value of bucket b is reported as: its middle. */
static inline uint64_t causal_hist_value(unsigned b)
{
	return causal_hist_low(b) + causal_hist_width(b) / 2;
}

#endif
