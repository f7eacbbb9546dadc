/*
 * check-ccsg-dscg.c - the Figure 7 scan: whole chains, untraced peers and
 * broken chains (a lost server log, a lost client log, a crash) shown as
 * segments and counted.
 */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "dscg.h"

#define C1 "00000000000000000000000000000000000000c1"
#define C2 "00000000000000000000000000000000000000c2"
#define C3 "00000000000000000000000000000000000000c3"
#define C4 "00000000000000000000000000000000000000c4"

static const long long none[4] = { NUL, NUL, NUL, NUL };

static int call_with_id(const struct ccsg_trace *t, long long id)
{
	for (size_t i = 0; i < t->ncalls; i++)
		if (t->calls[i].call_id == id)
			return (int)i;
	ck_abort_msg("no call %lld", id);
	return -1;
}

START_TEST(test_broken_chains)
{
	struct ccsg_trace t;
	struct ccsg_dscg d;
	const char *path;

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_thread(1, 1, 0, 100, -1);
	/* C1: a whole chain, an untraced server's call is a normal leaf */
	{
		long long e1[4] = { 0, 1, 4, 5 }, e2[4] = { 2, NUL, NUL, 3 };

		fx_call(C1, 7, 1, "a_1", 1, 1, 2, 1, 1, e1, none);	/* call 1 */
		fx_call(C1, 7, 2, "b_1", 2, 1, 0, 0, 0, e2, none);	/* call 2 */
	}
	/* C2: the server's log was lost: a gap of two events, then a
	 * nested call seen only from its server: two segments */
	{
		long long e3[4] = { 0, NUL, NUL, 7 }, e4[4] = { NUL, 3, 4, NUL };

		fx_call(C2, 7, 1, "a_1", 1, 1, 0, 0, 0, e3, none);	/* call 3 */
		fx_call(C2, 7, 3, NULL, 0, 0, 2, 1, 2, e4, none);	/* call 4 */
	}
	/* C3: the client's log was lost: the chain starts at event 5 */
	{
		long long e5[4] = { NUL, 5, 6, NUL };

		fx_call(C3, 7, 1, NULL, 0, 0, 2, 1, 3, e5, none);	/* call 5 */
	}
	/* C4: a crash: the server never ended */
	{
		long long e6[4] = { 0, 1, NUL, NUL };

		fx_call(C4, 7, 1, "a_1", 1, 1, 2, 1, 4, e6, none);	/* call 6 */
	}
	path = fx_close();
	ck_assert_int_eq(ccsg_trace_load(&t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&d, &t), 0);
	ck_assert_int_eq(d.stats.calls, 6);
	ck_assert_int_eq(d.stats.chains, 4);
	ck_assert_int_eq(d.stats.broken_chains, 3);
	ck_assert_int_eq(d.stats.truncated_chains, 1);
	ck_assert_int_eq(d.stats.no_server, 2);
	ck_assert_int_eq(d.stats.no_client, 2);
	ck_assert_int_eq(d.stats.incomplete, 1);
	/* C1 whole: call 2 is call 1's child */
	ck_assert_int_eq(t.chains[0].segments, 0);
	ck_assert_int_eq(t.calls[call_with_id(&t, 2)].parent, call_with_id(&t, 1));
	ck_assert_int_eq(t.calls[call_with_id(&t, 2)].depth, 2);
	/* C2: two segments, call 4 a root of the second; nothing dropped */
	ck_assert_int_eq(t.chains[1].segments, 2);
	ck_assert_int_eq(t.calls[call_with_id(&t, 3)].seg, 0);
	ck_assert_int_eq(t.calls[call_with_id(&t, 4)].seg, 1);
	ck_assert_int_eq(t.calls[call_with_id(&t, 4)].parent, -1);
	ck_assert(t.calls[call_with_id(&t, 4)].abnormal);
	ck_assert_int_ge(t.chains[1].breaks, 2);
	/* C3 and C4 are segments too */
	ck_assert_int_ge(t.chains[2].segments, 1);
	ck_assert_int_ge(t.chains[3].segments, 1);
	ck_assert(t.chains[3].truncated);
	/* every call is in the tree: under a call, a thread or main */
	for (size_t i = 0; i < t.ncalls; i++)
		ck_assert_int_ge(d.parent[i], 0);
	/* the chains of thread 1/1 hang under it (thread-invoke-function) */
	ck_assert_int_eq(d.parent[call_with_id(&t, 1)], (int)t.ncalls + 0);
	ck_assert_int_eq(d.parent[call_with_id(&t, 5)], d.main);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	unlink(path);
}
END_TEST

/* A thread spawned in a skeleton starts a chain: function-spawn-thread,
 * then thread-invoke-function; its child thread is thread-spawn-thread. */
START_TEST(test_thread_links)
{
	struct ccsg_trace t;
	struct ccsg_dscg d;
	const char *path;
	int base;

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_proc(3, 1);
	{
		long long e1[4] = { 0, 1, 2, 3 }, e2[4] = { 0, 1, 2, 3 };

		fx_call(C1, 7, 5, "spawn_1", 1, 1, 2, 1, 9, e1, none);
		fx_call(C2, 7, 1, "say_1", 2, 2, 3, 1, 1, e2, none);
	}
	fx_thread(2, 1, 0, 100, -1);
	fx_thread(2, 2, 1, 100, 9);	/* spawned by the SPAWN skeleton */
	fx_thread(2, 3, 2, 100, 9);	/* its child, same context */
	path = fx_close();
	ck_assert_int_eq(ccsg_trace_load(&t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&d, &t), 0);
	base = (int)t.ncalls;
	ck_assert_int_eq(d.stats.broken_chains, 0);
	ck_assert_int_eq(d.parent[base + 1], 0);		/* thread 2/2 under call SPAWN */
	ck_assert_int_eq(d.parent[base + 2], base + 1);	/* 2/3 under 2/2 */
	ck_assert_int_eq(d.parent[1], base + 1);		/* SAY under thread 2/2 */
	ck_assert_int_eq(d.parent[base + 0], d.main);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	unlink(path);
}
END_TEST

Suite *ccsg_dscg_suite(void)
{
	Suite *s = suite_create("ccsg-dscg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_broken_chains);
	tcase_add_test(tc, test_thread_links);
	suite_add_tcase(s, tc);
	return s;
}
