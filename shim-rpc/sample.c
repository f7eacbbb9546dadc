/*
 * sample.c - the head sampling decision (sample.h): pure, no state, so
 * the tools and the tests compute exactly what the library decided.
 */
#include "sample.h"

static uint64_t stir(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

uint64_t causal_sample_hash(const uint8_t chain[CAUSAL_CHAIN_ID_LEN])
{
	uint64_t h = 0x43534c5453414d50ull; /* "CSLTSAMP" */

	h = stir(h ^ be(chain, 8));
	h = stir(h ^ be(chain + 8, 8));
	return stir(h ^ be(chain + 16, 4));
}

int causal_sample_keep(const uint8_t chain[CAUSAL_CHAIN_ID_LEN],
		       uint64_t threshold)
{
	if (threshold == CAUSAL_SAMPLE_ALL)
		return 1;
	return causal_sample_hash(chain) < threshold;
}
