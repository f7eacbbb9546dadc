/*
 * check-sample.c - head sampling (issue 37 item 1): the decision of
 * include/causal/sample.h, CAUSAL_SAMPLE's parsing (preload/config.c), and the
 * unsampled bit of the call tag (shim-rpc/tag.c).
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "config.h"
#include "log-record.h"
#include "sample.h"
#include "tag.h"

#define NCHAINS 100000

/* A chain id as the library makes it: a process uuid, then a counter. */
static void chain_of(uint8_t chain[CAUSAL_CHAIN_ID_LEN], uint64_t uuid_seed,
		     uint32_t counter)
{
	uint64_t x = uuid_seed;

	for (int i = 0; i < 16; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		chain[i] = (uint8_t)(x >> 56);
	}
	chain[16] = (uint8_t)(counter >> 24);
	chain[17] = (uint8_t)(counter >> 16);
	chain[18] = (uint8_t)(counter >> 8);
	chain[19] = (uint8_t)counter;
}

static uint64_t threshold(const char *text)
{
	uint64_t t = 12345;

	ck_assert_msg(!causal_parse_sample(text, &t), "'%s' refused", text);
	return t;
}

/* The hash is fixed: any host, any build, any byte order computes these
 * (checked against an independent Python rendering of sample.h's text). */
START_TEST(hash_is_fixed)
{
	uint8_t a[CAUSAL_CHAIN_ID_LEN], b[CAUSAL_CHAIN_ID_LEN] = { 0 };

	for (int i = 0; i < CAUSAL_CHAIN_ID_LEN; i++)
		a[i] = (uint8_t)(i + 1);
	b[19] = 1;
	ck_assert_uint_eq(causal_sample_hash(a), 0xe93817e0bdd51de4ull);
	ck_assert_uint_eq(causal_sample_hash(b), 0xd04b2421038e7192ull);
}
END_TEST

/*
 * The share sampled over 100,000 chain ids is the rate within 5 standard
 * deviations of the binomial, over many processes and over the
 * consecutive counters of one (the ids a busy process makes); the
 * decision is the same each time asked (two roots agree), and a chain
 * sampled at a rate is sampled at every higher one.
 */
static void rate_within_bounds(const char *text, double p, int processes)
{
	uint64_t t = threshold(text), hi = threshold("1/2");
	double sd = sqrt(NCHAINS * p * (1 - p));
	long kept = 0;

	for (int i = 0; i < NCHAINS; i++) {
		uint8_t c[CAUSAL_CHAIN_ID_LEN];
		int k;

		chain_of(c, (uint64_t)(i % processes) + 77,
			 (uint32_t)(i / processes) + 1);
		k = causal_sample_keep(c, t);
		ck_assert_int_eq(causal_sample_keep(c, t), k);
		if (k && p <= 0.5)
			ck_assert(causal_sample_keep(c, hi));
		kept += k;
	}
	ck_assert_msg(fabs((double)kept - NCHAINS * p) <= 5 * sd,
		      "%s over %d processes: %ld of %d chains sampled, "
		      "expected %.0f +- %.0f",
		      text, processes, kept, NCHAINS, NCHAINS * p, 5 * sd);
}

START_TEST(rate_1_in_100)
{
	rate_within_bounds("1/100", 0.01, 1);
	rate_within_bounds("0.01", 0.01, 100);
}
END_TEST

START_TEST(rate_1_in_4)
{
	rate_within_bounds("1/4", 0.25, 1);
	rate_within_bounds("0.25", 0.25, 1000);
	rate_within_bounds("0.9", 0.9, 10);
}
END_TEST

START_TEST(one_samples_all_zero_none)
{
	uint64_t all = threshold("1"), none = threshold("0");

	ck_assert_uint_eq(all, CAUSAL_SAMPLE_ALL);
	ck_assert_uint_eq(none, 0);
	for (int i = 0; i < NCHAINS; i++) {
		uint8_t c[CAUSAL_CHAIN_ID_LEN];

		chain_of(c, 5, (uint32_t)i);
		ck_assert(causal_sample_keep(c, all));
		ck_assert(!causal_sample_keep(c, none));
	}
	/* even the chain whose hash is the highest there is */
	ck_assert_uint_eq(threshold("1.0"), CAUSAL_SAMPLE_ALL);
	ck_assert_uint_eq(threshold("7/7"), CAUSAL_SAMPLE_ALL);
	ck_assert_uint_eq(threshold("0/3"), 0);
	ck_assert_uint_eq(threshold("0.000"), 0);
}
END_TEST

START_TEST(fractions_and_decimals_agree)
{
	ck_assert_uint_eq(threshold("1/100"), threshold("0.01"));
	ck_assert_uint_eq(threshold("1/100"), UINT64_MAX / 100);
	ck_assert_uint_eq(threshold("1/4"), 1ull << 62);
	ck_assert_uint_eq(threshold("0.25"), 1ull << 62);
	ck_assert_uint_eq(threshold("1/2"), threshold("0.500000000000000000"));
	ck_assert_uint_eq(threshold("1/1024"), 1ull << 54);
	ck_assert_uint_eq(threshold("3/1000"), threshold("0.003"));
}
END_TEST

START_TEST(bad_values_are_refused)
{
	static const char *const bad[] = {
		"",
		"abc",
		"1/0",
		"2",
		"1.5",
		"-0.1",
		"3/2",
		"0.01x",
		"1/",
		"/4",
		" 0.5",
		"0.5 ",
		"1e-2",
		"50%",
		"0.",
		".5",
		"1/4/2",
		"0x1",
		"1.0001",
		"0.0000000000000000001",
		"99999999999999999999/1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t t = 42;

		ck_assert_msg(causal_parse_sample(bad[i], &t) == -1,
			      "'%s' taken", bad[i]);
		ck_assert_uint_eq(t, 42);
	}
	ck_assert_int_eq(causal_parse_sample(NULL, NULL), -1);
}
END_TEST

static const char *sample_env;

static const char *fake_getenv(const char *name)
{
	return !strcmp(name, "CAUSAL_SAMPLE") ? sample_env : NULL;
}

/* The environment: unset is 1; a value is read; a bad one is said in one
 * line and the default (every chain) kept. */
START_TEST(config_reads_causal_sample)
{
	struct causal_config cfg;
	char problems[512];

	sample_env = NULL;
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 0);
	ck_assert_uint_eq(cfg.sample, CAUSAL_SAMPLE_ALL);
	sample_env = "1/4";
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 0);
	ck_assert_uint_eq(cfg.sample, 1ull << 62);
	sample_env = "1/O0";
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 1);
	ck_assert_uint_eq(cfg.sample, CAUSAL_SAMPLE_ALL);
	ck_assert_str_eq(problems,
			 "causal: ignoring CAUSAL_SAMPLE='1/O0': expected a "
			 "probability such as 1/100, 0.01, 0 or 1; every "
			 "chain is recorded\n");
}
END_TEST

/*
 * The unsampled bit round-trips, is bit 30 of the flags (the first flags
 * byte, buffer byte 12, 0x40, beside bit 31's monitoring types), is
 * covered by the checksum, and a tag without it (an older libcausal's:
 * flags 0, or the types alone) reads as sampled.
 */
START_TEST(tag_carries_unsampled_bit)
{
	struct causal_tag in, out;
	uint8_t buf[CAUSAL_TAG_LEN];

	memset(&in, 0, sizeof(in));
	memset(in.chain, 0x5a, sizeof(in.chain));
	in.event_no = 9;
	in.xid = 0x1234;
	in.flags = CAUSAL_TAG_F_MON | CAUSAL_TAG_F_UNSAMPLED | 0x3;
	causal_tag_encode(&in, buf);
	ck_assert_uint_eq(buf[12], 0xc0);
	ck_assert_uint_eq(buf[15], 0x3);
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_OK);
	ck_assert_uint_eq(out.flags, in.flags);
	ck_assert(out.flags & CAUSAL_TAG_F_UNSAMPLED);
	buf[12] ^= 0x40; /* the bit lost on the way */
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_MALFORMED);
	for (int old = 0; old < 2; old++) {
		in.flags = old ? CAUSAL_TAG_F_MON | 0xf : 0;
		causal_tag_encode(&in, buf);
		ck_assert_int_eq(
			causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			CAUSAL_TAG_OK);
		ck_assert(!(out.flags & CAUSAL_TAG_F_UNSAMPLED));
	}
}
END_TEST

Suite *sample_suite(void)
{
	Suite *s = suite_create("sample");
	TCase *tc = tcase_create("decision");

	tcase_add_test(tc, hash_is_fixed);
	tcase_add_test(tc, rate_1_in_100);
	tcase_add_test(tc, rate_1_in_4);
	tcase_add_test(tc, one_samples_all_zero_none);
	tcase_add_test(tc, fractions_and_decimals_agree);
	tcase_add_test(tc, bad_values_are_refused);
	tcase_add_test(tc, config_reads_causal_sample);
	tcase_add_test(tc, tag_carries_unsampled_bit);
	suite_add_tcase(s, tc);
	return s;
}
