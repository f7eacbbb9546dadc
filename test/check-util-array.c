/*
 * check-util-array.c - util/array.h: GROW keeps what was appended, grows
 * geometrically and leaves the array as it was when it cannot grow.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "array.h"

START_TEST(test_grow_keeps_contents)
{
	uint32_t *v = NULL;
	size_t n = 0, cap = 0, reallocs = 0, last_cap = 0;

	for (uint32_t i = 0; i < 100000; i++) {
		ck_assert_int_eq(GROW(v, cap, n + 1), 0);
		ck_assert_uint_ge(cap, n + 1);
		if (cap != last_cap) {
			reallocs++;
			last_cap = cap;
		}
		v[n++] = i * 2654435761u;
	}
	for (uint32_t i = 0; i < 100000; i++)
		ck_assert_uint_eq(v[i], i * 2654435761u);
	/* doubling: 16, 32, ... 131072, 14 capacities */
	ck_assert_uint_eq(reallocs, 14);
	ck_assert_uint_eq(cap, 131072);
	free(v);
}
END_TEST

START_TEST(test_grow_no_shrink_and_jump)
{
	struct {
		char c[24];
	} *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(GROW(v, cap, 0), 0); /* nothing needed */
	ck_assert_ptr_null(v);
	ck_assert_uint_eq(cap, 0);
	ck_assert_int_eq(GROW(v, cap, 1000), 0); /* straight to 1024 */
	ck_assert_uint_eq(cap, 1024);
	v[999].c[23] = 'x';
	ck_assert_int_eq(GROW(v, cap, 10), 0); /* never shrinks */
	ck_assert_uint_eq(cap, 1024);
	ck_assert_int_eq(v[999].c[23], 'x');
	free(v);
}
END_TEST

/* n * elem past SIZE_MAX: -ENOMEM, and the array as it was. */
START_TEST(test_grow_overflow_leaves_array)
{
	uint64_t *v = NULL, *before;
	size_t cap = 0;

	ck_assert_int_eq(GROW(v, cap, 3), 0);
	v[0] = 1, v[1] = 2, v[2] = 3;
	before = v;
	ck_assert_int_eq(GROW(v, cap, SIZE_MAX / 4), -ENOMEM);
	ck_assert_int_eq(GROW(v, cap, SIZE_MAX), -ENOMEM);
	ck_assert_ptr_eq(v, before);
	ck_assert_uint_eq(cap, 16);
	ck_assert(v[0] == 1 && v[1] == 2 && v[2] == 3);
	ck_assert_int_eq(array_grow((void **)&before, &cap, 32, 0), -EINVAL);
	free(v);
}
END_TEST

Suite *util_array_suite(void)
{
	Suite *s = suite_create("util-array");
	TCase *tc = tcase_create("array");

	tcase_add_test(tc, test_grow_keeps_contents);
	tcase_add_test(tc, test_grow_no_shrink_and_jump);
	tcase_add_test(tc, test_grow_overflow_leaves_array);
	suite_add_tcase(s, tc);
	return s;
}
