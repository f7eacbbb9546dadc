/* check-tag.c - the causality tag carried with each RPC call and reply */
#include <check.h>
#include <string.h>

#include "tag.h"

static struct causal_tag sample(void)
{
	struct causal_tag t;

	memset(&t, 0, sizeof(t));
	memset(t.chain, 0xab, sizeof(t.chain));
	t.chain[19] = 7;
	t.event_no = 12345;
	t.xid = 0xdeadbeef;
	return t;
}

START_TEST(round_trip)
{
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];

	causal_tag_encode(&in, buf);
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_OK);
	ck_assert_int_eq(memcmp(out.chain, in.chain, sizeof(in.chain)), 0);
	ck_assert_uint_eq(out.event_no, 12345);
	ck_assert_uint_eq(out.xid, 0xdeadbeef);
	/* big-endian on the wire, as XDR is */
	ck_assert_uint_eq(buf[0], 'C');
	ck_assert_uint_eq(buf[8], 0xde);
}
END_TEST

START_TEST(untagged_bytes_are_absent)
{
	uint8_t zeros[CAUSAL_TAG_LEN] = { 0 };
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];

	ck_assert_int_eq(causal_tag_decode(zeros, sizeof(zeros), 0, &out),
			 CAUSAL_TAG_ABSENT);
	causal_tag_encode(&in, buf);
	/* a message cut short holds no tag */
	ck_assert_int_eq(causal_tag_decode(buf, CAUSAL_TAG_LEN - 1, in.xid,
					   &out),
			 CAUSAL_TAG_ABSENT);
	ck_assert_int_eq(causal_tag_decode(buf, 0, in.xid, &out),
			 CAUSAL_TAG_ABSENT);
}
END_TEST

START_TEST(every_flipped_byte_is_caught)
{
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];
	size_t i;

	causal_tag_encode(&in, buf);
	for (i = 0; i < CAUSAL_TAG_LEN; i++) {
		uint8_t bad[CAUSAL_TAG_LEN];
		int st;

		memcpy(bad, buf, sizeof(bad));
		bad[i] ^= 0x10;
		st = causal_tag_decode(bad, sizeof(bad), in.xid, &out);
		/* damage to the magic makes it no tag; anywhere else the
		 * checksum refuses it; never is it taken as valid */
		ck_assert_msg(st == (i < 4 ? CAUSAL_TAG_ABSENT
					   : CAUSAL_TAG_MALFORMED),
			      "byte %zu: status %d", i, st);
	}
}
END_TEST

START_TEST(stale_xid_is_refused)
{
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];

	causal_tag_encode(&in, buf);
	/* a tag left in a reused UDP buffer by an earlier call */
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid + 1, &out),
			 CAUSAL_TAG_STALE);
}
END_TEST

START_TEST(hostile_values_are_refused)
{
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];

	in.event_no = CAUSAL_TAG_EVENT_MAX;
	causal_tag_encode(&in, buf);
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_MALFORMED);
	in = sample();
	memset(in.chain, 0, sizeof(in.chain)); /* no chain at all */
	causal_tag_encode(&in, buf);
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_MALFORMED);
}
END_TEST

Suite *tag_suite(void)
{
	Suite *s = suite_create("tag");
	TCase *tc = tcase_create("codec");

	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, untagged_bytes_are_absent);
	tcase_add_test(tc, every_flipped_byte_is_caught);
	tcase_add_test(tc, stale_xid_is_refused);
	tcase_add_test(tc, hostile_values_are_refused);
	suite_add_tcase(s, tc);
	return s;
}
