/*
 * hashmap.h - a hash map from a 64-bit key to an index (an int32_t >= 0,
 * typically into an array the caller grows beside it).  Open addressing
 * with linear probing, the load kept under 1/2 so that probes stay short;
 * the keys are mixed (splitmix64's finaliser), so packed or sequential
 * keys spread as well as random ones.
 *
 *	struct hashmap m = { 0 };
 *	int32_t i = hashmap_get(&m, hashmap_key2(proc, tid));
 *
 *	if (i < 0) {			// absent: append, then index it
 *		if (GROW(v, cap, n + 1) ||
 *		    hashmap_put(&m, hashmap_key2(proc, tid), (int32_t)n) < 0)
 *			return -ENOMEM;
 *		i = (int32_t)n++;
 *	}
 *	...
 *	hashmap_release(&m);
 *
 * No removal and no iteration: what needs an order keeps its own array.
 * A zeroed struct hashmap is an empty map.
 */
#ifndef CAUSAL_HASHMAP_H
#define CAUSAL_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct hashmap {
	uint64_t *keys;
	int32_t *vals; /* -1: an empty slot */
	size_t cap;    /* slots: 0 or a power of 2 */
	size_t n;      /* keys stored */
};

/* The value stored under key, or -1. */
int32_t hashmap_get(const struct hashmap *m, uint64_t key);

/*
 * Store val (>= 0) under key unless the key is there already.  Returns the
 * value now stored under key: val, or the older value, which stays; or
 * -ENOMEM (the map unchanged), -EINVAL for a negative val.
 */
int32_t hashmap_put(struct hashmap *m, uint64_t key, int32_t val);

/* Free the map's memory; it is empty again, ready for use. */
void hashmap_release(struct hashmap *m);

/* One key from two 32-bit halves, e.g. (process, thread). */
static inline uint64_t hashmap_key2(uint32_t hi, uint32_t lo)
{
	return (uint64_t)hi << 32 | lo;
}

/* FNV-1a of n bytes on from h (HASH_FNV_SEED to begin): the key of a
 * name, a chain id, any run of bytes. */
#define HASH_FNV_SEED 0xcbf29ce484222325ULL
static inline uint64_t hash_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* 64-bit mix (splitmix64's finaliser): a bijection, so no two keys
 * collide before the table's mask. */
static inline uint64_t hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif
