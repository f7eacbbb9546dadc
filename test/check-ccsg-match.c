/*
 * check-ccsg-match.c - ccsg/ccsg-match.h, the one rule by which `ccsg
 * diff` and `ccsg impact --against` pair two traces' items: the k-th of a
 * key in A (in index order) with the k-th in B, the others each side's
 * own, and whether the other side has the key at all; nodes and hosts by
 * name; the programs of a graph.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ccsg-match.h"

struct names {
	const char *const *v;
};

static int by_name(const void *x, size_t i, const void *y, size_t j)
{
	const struct names *a = x, *b = y;

	return strcmp(a->v[i], b->v[j]);
}

START_TEST(test_kth_with_kth)
{
	/* "f" twice in A, three times in B; "g" in A only, "h" in B only */
	static const char *const av[] = { "f", "g", "f", "a" };
	static const char *const bv[] = { "h", "f", "a", "f", "f" };
	const struct names a = { av }, b = { bv };
	struct ccsg_match m;

	ck_assert_int_eq(ccsg_match_build(&m, &a, 4, &b, 5, by_name), 0);
	ck_assert_int_eq(m.of_a[0], 1); /* the first f with the first */
	ck_assert_int_eq(m.of_a[2], 3); /* the second with the second */
	ck_assert_int_eq(m.of_a[1], -1);
	ck_assert_int_eq(m.of_a[3], 2);
	ck_assert_int_eq(m.of_b[0], -1);
	ck_assert_int_eq(m.of_b[1], 0);
	ck_assert_int_eq(m.of_b[3], 2);
	ck_assert_int_eq(m.of_b[4], -1); /* the third f: B's own... */
	ck_assert_int_eq(m.in_a[4], 1);	 /* ...but A has an f */
	ck_assert_int_eq(m.in_a[0], 0);	 /* A has no h */
	ck_assert_int_eq(m.in_b[1], 0);	 /* B has no g */
	ck_assert_int_eq(m.in_b[0] && m.in_b[2] && m.in_b[3], 1);
	ccsg_match_release(&m);
	ck_assert_ptr_null(m.of_a);
}
END_TEST

START_TEST(test_empty)
{
	static const char *const av[] = { "x" };
	const struct names a = { av };
	struct ccsg_match m;

	ck_assert_int_eq(ccsg_match_build(&m, &a, 1, &a, 0, by_name), 0);
	ck_assert_int_eq(m.of_a[0], -1);
	ck_assert_int_eq(m.in_b[0], 0);
	ccsg_match_release(&m);
	ck_assert_int_eq(ccsg_match_build(&m, &a, 0, &a, 0, by_name), 0);
	ccsg_match_release(&m);
}
END_TEST

START_TEST(test_graphs)
{
	static char *an[] = { "<main>", "P::f", "P::g", "<threads of main>" };
	static char *bn[] = { "<main>", "P::g", "Q::h" };
	static char *ah[] = { "hostA", "hostB" }, *bh[] = { "hostB", "hostC" };
	struct ccsg_node na[4] = { { 0 } }, nb[3] = { { 0 } };
	struct ccsg_dims da = { 2, ah, NULL }, db = { 2, bh, NULL };
	struct ccsg_graph a = { 0 }, b = { 0 };
	struct ccsg_match m;
	uint32_t *p;
	size_t n;

	for (int i = 0; i < 4; i++)
		na[i] = (struct ccsg_node){ .kind = i == 0   ? CCSG_MAIN
						    : i == 3 ? CCSG_THREAD
							     : CCSG_FUNCTION,
					    .name = an[i],
					    .prog = 7 };
	for (int i = 0; i < 3; i++)
		nb[i] = (struct ccsg_node){ .kind = i ? CCSG_FUNCTION
						      : CCSG_MAIN,
					    .name = bn[i],
					    .prog = i == 2 ? 9 : 7 };
	a = (struct ccsg_graph){ .dims = &da, .nodes = na, .nnodes = 4 };
	b = (struct ccsg_graph){ .dims = &db, .nodes = nb, .nnodes = 3 };
	ck_assert_int_eq(ccsg_match_nodes(&m, &a, &b), 0);
	ck_assert_int_eq(m.of_a[0], 0);
	ck_assert_int_eq(m.of_a[1], -1);
	ck_assert_int_eq(m.of_a[2], 1);
	ck_assert_int_eq(m.of_a[3], -1);
	ck_assert_int_eq(m.of_b[2], -1);
	ccsg_match_release(&m);
	ck_assert_int_eq(ccsg_match_dims(&m, &da, &db), 0);
	ck_assert_int_eq(m.of_a[0], -1);
	ck_assert_int_eq(m.of_a[1], 0);
	ck_assert_int_eq(m.of_b[1], -1);
	ccsg_match_release(&m);
	p = ccsg_programs(&b, &n);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(p[0], 7);
	ck_assert_uint_eq(p[1], 9);
	ck_assert(ccsg_programs_have(p, n, 9));
	ck_assert(!ccsg_programs_have(p, n, 8));
	free(p);
}
END_TEST

Suite *ccsg_match_suite(void)
{
	Suite *s = suite_create("ccsg-match");
	TCase *tc = tcase_create("match");

	tcase_add_test(tc, test_kth_with_kth);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_graphs);
	suite_add_tcase(s, tc);
	return s;
}
