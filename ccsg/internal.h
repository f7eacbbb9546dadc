/*
 * internal.h - what the ccsg engine files share and nobody else needs:
 * a growable array macro and an open-addressing hash map from a 64-bit
 * key to an int (thread and function lookups are by (proc_id, id) pairs,
 * packed into one key).
 */
#ifndef CCSG_INTERNAL_H
#define CCSG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Grow *arr (of *cap elements) to hold at least n; 0 or -ENOMEM. */
int ccsg_grow(void **arr, size_t *cap, size_t n, size_t elem);
#define CCSG_GROW(arr, cap, n) ccsg_grow((void **)&(arr), &(cap), (n), sizeof(*(arr)))

struct ccsg_map {
	uint64_t *keys;
	int32_t *vals;		/* -1 = empty slot */
	size_t cap, n;
};

static inline uint64_t ccsg_key2(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

void ccsg_map_release(struct ccsg_map *m);
/* The value stored under key, or -1. */
int32_t ccsg_map_get(const struct ccsg_map *m, uint64_t key);
/* Store val (>= 0) under key unless present; returns the value now
 * stored (the old one when present), or -ENOMEM. */
int32_t ccsg_map_put(struct ccsg_map *m, uint64_t key, int32_t val);

/* 64-bit mix (splitmix64 finaliser). */
static inline uint64_t ccsg_hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif
