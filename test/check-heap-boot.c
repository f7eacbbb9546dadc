/*
 * check-heap-boot.c - the bootstrap area of the allocation wrappers
 * (preload/heap-boot.h): blocks aligned as asked, zeroed, their sizes
 * kept, recognised as the area's (and nothing else is), never
 * overlapping, from many threads at once; a clean ENOMEM when it is used
 * up.  Each test runs in a process of its own (Check's fork mode), with
 * a fresh area.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap-boot.h"

START_TEST(test_alignment_size_zero)
{
	static const size_t aligns[] = { 0, 1, 8, 16, 32, 64, 256, 4096 };

	for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
		unsigned char *p = causal_boot_alloc(100 + i, aligns[i]);
		size_t a = aligns[i] < 16 ? 16 : aligns[i];

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p % a, 0);
		ck_assert(causal_boot_owns(p));
		ck_assert(causal_boot_owns(p + 99 + i));
		ck_assert_uint_eq(causal_boot_size(p), 100 + i);
		for (size_t j = 0; j < 100 + i; j++)
			ck_assert_uint_eq(p[j], 0);
		memset(p, 0xff, 100 + i);
	}
	/* calloc(0) and malloc(0) get a block too */
	ck_assert_ptr_nonnull(causal_boot_alloc(0, 16));
}
END_TEST

START_TEST(test_not_ours)
{
	int local;
	void *heap = malloc(16);

	ck_assert(!causal_boot_owns(NULL));
	ck_assert(!causal_boot_owns(&local));
	ck_assert(!causal_boot_owns(heap));
	ck_assert(!causal_boot_owns(causal_boot_heap + CAUSAL_BOOT_BYTES));
	ck_assert(!causal_boot_owns(causal_boot_heap - 1));
	free(heap);
}
END_TEST

START_TEST(test_bad_alignment)
{
	errno = 0;
	ck_assert_ptr_null(causal_boot_alloc(10, 8192));
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert_ptr_null(causal_boot_alloc(10, 48));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_ptr_null(causal_boot_alloc(CAUSAL_BOOT_BYTES + 1, 16));
}
END_TEST

/* Used up: ENOMEM, and what was given stays given (no overlap). */
START_TEST(test_exhaustion)
{
	unsigned char *prev_end = causal_boot_heap;
	int blocks = 0;
	unsigned char *p;

	while ((p = causal_boot_alloc(200, 16))) {
		ck_assert((uintptr_t)p >=
			  (uintptr_t)(prev_end + sizeof(size_t)));
		ck_assert((uintptr_t)(p + 200) <=
			  (uintptr_t)(causal_boot_heap + CAUSAL_BOOT_BYTES));
		prev_end = p + 200;
		blocks++;
	}
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_ge(blocks, CAUSAL_BOOT_BYTES / (200 + 16 + 8));
	/* a smaller block may still fit at the end */
	p = causal_boot_alloc(1, 16);
	ck_assert(!p || causal_boot_owns(p));
}
END_TEST

#define THREADS 4
#define PER_THREAD 64

static void *grab(void *arg)
{
	unsigned char **out = arg;

	for (int i = 0; i < PER_THREAD; i++) {
		out[i] = causal_boot_alloc(24, 16);
		if (out[i])
			memset(out[i], (int)((uintptr_t)arg & 0xff), 24);
	}
	return NULL;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a,
		  y = (uintptr_t) * (void *const *)b;

	return (x > y) - (x < y);
}

/* Many threads at once: every block whole and apart from the others. */
START_TEST(test_threads)
{
	static unsigned char *got[THREADS][PER_THREAD];
	unsigned char *all[THREADS * PER_THREAD];
	pthread_t th[THREADS];

	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, grab, got[i]), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < THREADS; i++)
		for (int j = 0; j < PER_THREAD; j++) {
			ck_assert_ptr_nonnull(got[i][j]);
			ck_assert_uint_eq(causal_boot_size(got[i][j]), 24);
			for (int k = 0; k < 24; k++)
				ck_assert_uint_eq(got[i][j][k],
						  (uintptr_t)got[i] & 0xff);
			all[i * PER_THREAD + j] = got[i][j];
		}
	qsort(all, THREADS * PER_THREAD, sizeof(all[0]), cmp_ptr);
	for (int i = 1; i < THREADS * PER_THREAD; i++)
		ck_assert((uintptr_t)all[i] >=
			  (uintptr_t)(all[i - 1] + 24 + sizeof(size_t)));
}
END_TEST

Suite *heap_boot_suite(void)
{
	Suite *s = suite_create("heap-boot");
	TCase *tc = tcase_create("boot");

	tcase_add_test(tc, test_alignment_size_zero);
	tcase_add_test(tc, test_not_ours);
	tcase_add_test(tc, test_bad_alignment);
	tcase_add_test(tc, test_exhaustion);
	tcase_add_test(tc, test_threads);
	suite_add_tcase(s, tc);
	return s;
}
