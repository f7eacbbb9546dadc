/*
 * check-ccsg-chain-kind.c - sampled and kept chains (ccsg/sampling.h,
 * ccsg/chain-kind.h): the head decision recomputed from a chain's id and
 * its root's rate as the library made it, and a call that lacks a traced
 * host's side.
 */
#include <check.h>
#include <string.h>

#include "causal/sample.h"
#include "chain-kind.h"
#include "config.h"
#include "sampling.h"

/* A trace of one process (proc 1), interning "ok"; x its exact totals'
 * rates: proc 1 at threshold (causal/sample.h). */
static void one_proc(struct ccsg_trace *t, struct ccsg_totals *x,
		     uint64_t threshold)
{
	static struct ccsg_proc procs[2];
	static char ok[] = "ok", absent[] = "absent";
	static char *strings[] = { ok, absent };
	static uint64_t thresholds[2];
	static int32_t by_uuid[] = { 1 };

	memset(t, 0, sizeof(*t));
	memset(x, 0, sizeof(*x));
	memset(procs, 0, sizeof(procs));
	memset(procs[1].uuid, 0xab, 16);
	procs[1].present = 1;
	t->procs = procs;
	t->nprocs = 2;
	t->strings = strings;
	t->nstrings = 2;
	thresholds[0] = CAUSAL_SAMPLE_ALL;
	thresholds[1] = threshold;
	x->threshold = thresholds;
	x->nprocs = 2;
	x->by_uuid = by_uuid;
	x->nby_uuid = 1;
}

/* At 1/1000, the chains of proc 1 are sampled exactly as the library
 * decides, with the rate as the merge stores it (its top 32 bits); at 1
 * every one; a chain of a process not in the trace counts as sampled. */
START_TEST(test_sampled_as_decided)
{
	struct ccsg_trace t;
	struct ccsg_totals x;
	struct ccsg_chain ch = { .first = 0 };
	uint64_t threshold = 0;
	int sampled = 0, agree = 0;

	ck_assert_int_eq(causal_parse_sample("1/1000", &threshold), 0);
	one_proc(&t, &x, causal_sample_threshold_q32(threshold >> 32));
	memset(ch.id, 0xab, 16);
	for (uint32_t n = 1; n <= 20000; n++) {
		int lib;

		ch.id[16] = (uint8_t)(n >> 24);
		ch.id[17] = (uint8_t)(n >> 16);
		ch.id[18] = (uint8_t)(n >> 8);
		ch.id[19] = (uint8_t)n;
		lib = causal_sample_keep(ch.id, threshold);
		sampled += lib;
		agree += lib == ccsg_chain_sampled_by(&x, &t, &ch);
	}
	ck_assert_int_eq(agree, 20000);
	ck_assert_int_gt(sampled, 5);
	ck_assert_int_lt(sampled, 50);

	one_proc(&t, &x, CAUSAL_SAMPLE_ALL);
	ck_assert_int_eq(ccsg_chain_sampled_by(&x, &t, &ch), 1);
	ch.id[0] = 0xcd; /* another process's */
	ck_assert_int_eq(ccsg_chain_sampled_by(&x, &t, &ch), 1);
	ck_assert_int_eq(ccsg_chain_sampled_by(NULL, &t, &ch), 1);
}
END_TEST

/* A side is lost when the other side says a traced host answered (a
 * reply tag 'ok') or called (a tag 'ok'); an untraced peer is not. */
START_TEST(test_side_lost)
{
	struct ccsg_trace t;
	struct ccsg_totals x;
	struct ccsg_call c = { .missing = CCSG_BOTH, .tag = 0, .reply_tag = 0 };

	one_proc(&t, &x, CAUSAL_SAMPLE_ALL);
	ck_assert_int_eq(ccsg_call_side_lost(&t, &c), 0);
	c.missing = CCSG_NO_SERVER;
	ck_assert_int_eq(ccsg_call_side_lost(&t, &c), 1);
	c.reply_tag = 1; /* absent: an untraced server */
	ck_assert_int_eq(ccsg_call_side_lost(&t, &c), 0);
	c.reply_tag = -1;
	ck_assert_int_eq(ccsg_call_side_lost(&t, &c), 0);
	c.missing = CCSG_NO_CLIENT;
	ck_assert_int_eq(ccsg_call_side_lost(&t, &c), 1);
	c.tag = -1; /* no tag: an untraced client */
	ck_assert_int_eq(ccsg_call_side_lost(&t, &c), 0);
}
END_TEST

Suite *ccsg_chain_kind_suite(void)
{
	Suite *s = suite_create("ccsg-chain-kind");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_sampled_as_decided);
	tcase_add_test(tc, test_side_lost);
	suite_add_tcase(s, tc);
	return s;
}
