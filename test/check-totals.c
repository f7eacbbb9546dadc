/*
 * check-totals.c - the exact totals' latency histogram
 * (include/causal/latency-hist.h) and what ccsg reads of it
 * (ccsg/exact-totals.h): buckets in order, every value within 1.6% of what its
 * bucket reports, quantiles, and the estimates of sampled figures.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>

#include "causal/latency-hist.h"
#include "exact-totals.h"

START_TEST(test_buckets_ordered_and_tight)
{
	unsigned prev = 0;

	/* every value to 2^20 ns, then a sparse walk to past 2^40 */
	for (uint64_t v = 0; v < (1u << 20) || v < (1ull << 42);
	     v = v < (1u << 20) ? v + 1 : v + v / 97 + 1) {
		unsigned b = causal_hist_bucket(v);
		uint64_t mid = causal_hist_value(b);

		/* plain tests: Check's assertions cost a pipe write each */
		if (b < prev || b > prev + 1 || b >= CAUSAL_HIST_BUCKETS)
			ck_abort_msg("%llu: bucket %u after %u",
				     (unsigned long long)v, b, prev);
		prev = b;
		if (v >> CAUSAL_HIST_MAX_BITS)
			continue; /* the last bucket holds all beyond */
		if (v < causal_hist_low(b) ||
		    v >= causal_hist_low(b) + causal_hist_width(b) ||
		    fabs((double)mid - (double)v) > (double)v / 64.0 + 0.5)
			ck_abort_msg("%llu reads %llu", (unsigned long long)v,
				     (unsigned long long)mid);
	}
	ck_assert_uint_eq(causal_hist_bucket(UINT64_MAX),
			  CAUSAL_HIST_BUCKETS - 1);
}
END_TEST

START_TEST(test_quantiles)
{
	static uint64_t hist[CAUSAL_HIST_BUCKETS];
	uint64_t p50, p99;

	/* 1,000 calls of 1..1000 us */
	for (uint64_t us = 1; us <= 1000; us++)
		hist[causal_hist_bucket(us * 1000)]++;
	p50 = ccsg_totals_quantile(hist, 1000, 0.5);
	p99 = ccsg_totals_quantile(hist, 1000, 0.99);
	ck_assert_msg(fabs((double)p50 - 500e3) <= 500e3 / 64 + 1000,
		      "p50 %llu", (unsigned long long)p50);
	ck_assert_msg(fabs((double)p99 - 990e3) <= 990e3 / 64 + 1000,
		      "p99 %llu", (unsigned long long)p99);
	ck_assert_uint_eq(ccsg_totals_quantile(hist, 0, 0.5), 0);
}
END_TEST

START_TEST(test_estimates)
{
	double est, ci;

	/* 50 chains of 4 sampled at 1/4: 200, +- 1.96 * 200 * sqrt(.75/50) */
	ccsg_totals_estimate(50, 50, 0.25, &est, &ci);
	ck_assert(fabs(est - 200) < 1e-9);
	ck_assert(fabs(ci - 1.96 * 200 * sqrt(0.75 / 50)) < 1e-9);
	/* everything sampled: exact, no interval */
	ccsg_totals_estimate(50, 50, 1, &est, &ci);
	ck_assert(est == 50 && ci == 0);
}
END_TEST

Suite *totals_suite(void)
{
	Suite *s = suite_create("totals");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_buckets_ordered_and_tight);
	tcase_add_test(tc, test_quantiles);
	tcase_add_test(tc, test_estimates);
	suite_add_tcase(s, tc);
	return s;
}
