/*
 * check-util-hashmap.c - util/hashmap.h against a plain array as the
 * reference: every key stored is found with its value, every other key is
 * absent, through growth, colliding keys and the edge keys.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "hashmap.h"

/* xorshift64*: deterministic keys without rand()'s shared state. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

START_TEST(test_empty)
{
	struct hashmap m = {0};

	ck_assert_int_eq(hashmap_get(&m, 0), -1);
	ck_assert_int_eq(hashmap_get(&m, 42), -1);
	hashmap_release(&m);
	hashmap_release(&m); /* twice: still fine */
	ck_assert_int_eq(hashmap_get(&m, 0), -1);
}
END_TEST

START_TEST(test_put_keeps_first)
{
	struct hashmap m = {0};

	ck_assert_int_eq(hashmap_put(&m, 7, 3), 3);
	ck_assert_int_eq(hashmap_put(&m, 7, 9), 3); /* present: the old one */
	ck_assert_int_eq(hashmap_get(&m, 7), 3);
	ck_assert_uint_eq(m.n, 1);
	ck_assert_int_eq(hashmap_put(&m, 8, -1), -EINVAL);
	ck_assert_int_eq(hashmap_get(&m, 8), -1);
	ck_assert_uint_eq(m.n, 1);
	/* 0 and all-ones are keys like any other; 0 is a value */
	ck_assert_int_eq(hashmap_put(&m, 0, 0), 0);
	ck_assert_int_eq(hashmap_put(&m, UINT64_MAX, INT32_MAX), INT32_MAX);
	ck_assert_int_eq(hashmap_get(&m, 0), 0);
	ck_assert_int_eq(hashmap_get(&m, UINT64_MAX), INT32_MAX);
	ck_assert_int_eq(hashmap_get(&m, 1), -1);
	hashmap_release(&m);
	ck_assert_uint_eq(m.n, 0);
	ck_assert_int_eq(hashmap_get(&m, 7), -1);
	ck_assert_int_eq(hashmap_put(&m, 7, 1), 1); /* usable again */
	hashmap_release(&m);
}
END_TEST

/* Random, sequential and (process, thread) keys: all found after growth. */
START_TEST(test_many_keys)
{
	enum { N = 200000 };
	uint64_t *keys = malloc(N * sizeof(*keys)), s = 0x9e3779b97f4a7c15ULL;
	struct hashmap m = {0};

	ck_assert_ptr_nonnull(keys);
	for (int i = 0; i < N; i++) {
		switch (i % 3) {
		case 0:
			keys[i] = next_rand(&s);
			break;
		case 1:
			keys[i] = (uint64_t)i << 20;
			break; /* low bits all 0 */
		default:
			keys[i] = hashmap_key2((uint32_t)i % 97, (uint32_t)i);
			break;
		}
		ck_assert_int_eq(hashmap_put(&m, keys[i], i), i);
	}
	ck_assert_uint_eq(m.n, N);
	ck_assert_uint_le(2 * m.n, m.cap); /* load at most 1/2 */
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(hashmap_get(&m, keys[i]), i);
	/* keys never stored: absent (odd multiples of 2^19 are not i << 20) */
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(hashmap_get(&m, ((uint64_t)i << 20) | 1 << 19),
				 -1);
	hashmap_release(&m);
	free(keys);
}
END_TEST

/* Keys that all land on one slot of a small table: the probe walks a
 * cluster, finds each key in it and stops at its end for the others. */
START_TEST(test_colliding_keys)
{
	struct hashmap m = {0};
	uint64_t same[20], other = 0;
	int n = 0;

	for (uint64_t k = 1; n < 20; k++)
		if ((hash64(k) & 63) == 5)
			same[n++] = k;
		else if (!other)
			other = k;
	/* 20 keys keep a 64-slot table (load < 1/2), all wanting slot 5 */
	for (int i = 0; i < 20; i++)
		ck_assert_int_eq(hashmap_put(&m, same[i], 100 + i), 100 + i);
	ck_assert_uint_eq(m.cap, 64);
	for (int i = 0; i < 20; i++)
		ck_assert_int_eq(hashmap_get(&m, same[i]), 100 + i);
	ck_assert_int_eq(hashmap_get(&m, other), -1);
	for (uint64_t k = same[19] + 1, found = 0; found < 5; k++)
		if ((hash64(k) & 63) == 5) { /* in the cluster's path */
			ck_assert_int_eq(hashmap_get(&m, k), -1);
			found++;
		}
	/* the cluster wraps round the table's end too */
	hashmap_release(&m);
	n = 0;
	for (uint64_t k = 1; n < 20; k++)
		if ((hash64(k) & 63) == 60) {
			ck_assert_int_eq(hashmap_put(&m, k, n), n);
			n++;
		}
	ck_assert_uint_eq(m.cap, 64);
	n = 0;
	for (uint64_t k = 1; n < 20; k++)
		if ((hash64(k) & 63) == 60) {
			ck_assert_int_eq(hashmap_get(&m, k), n);
			n++;
		}
	hashmap_release(&m);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* hash64 is a bijection: distinct keys, distinct hashes. */
START_TEST(test_hash64_distinct)
{
	enum { N = 1 << 16 };
	uint64_t *h = malloc(N * sizeof(*h));

	ck_assert_ptr_nonnull(h);
	for (uint64_t i = 0; i < N; i++)
		h[i] = hash64(i);
	qsort(h, N, sizeof(*h), cmp_u64);
	for (int i = 1; i < N; i++)
		ck_assert(h[i] != h[i - 1]);
	free(h);
	ck_assert_uint_eq(hashmap_key2(1, 2), 0x100000002ULL);
	ck_assert_uint_eq(hashmap_key2(UINT32_MAX, 0), 0xffffffff00000000ULL);
}
END_TEST

Suite *util_hashmap_suite(void)
{
	Suite *s = suite_create("util-hashmap");
	TCase *tc = tcase_create("hashmap");

	/* 200,000 keys: under a sanitizer on a loaded machine, more than
	 * Check's default 4 s */
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_put_keeps_first);
	tcase_add_test(tc, test_many_keys);
	tcase_add_test(tc, test_colliding_keys);
	tcase_add_test(tc, test_hash64_distinct);
	suite_add_tcase(s, tc);
	return s;
}
