/*
 * decimal.h - integers as decimal digits, written by hand: stdio's
 * formatting was most of the time of a `tracedump dump` and of an export,
 * which write millions of numbers.
 */
#ifndef CAUSAL_DECIMAL_H
#define CAUSAL_DECIMAL_H

#include <stdint.h>

#define DECIMAL_U64_MAX 20 /* digits of UINT64_MAX */

/* v's digits, written backwards so that they end just before end: their
 * start (end - decimal_u64_len(v)). */
static inline char *decimal_u64_before(char *end, uint64_t v)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

/* How many digits v has, 1 to DECIMAL_U64_MAX. */
static inline int decimal_u64_len(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* The magnitude of v, right for INT64_MIN too. */
static inline uint64_t decimal_abs(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

#endif
