/*
 * check-ccsg-diff.c - `ccsg diff A B` (ccsg/diff/): the Mann-Whitney U
 * test on synthetic samples (identical samples never stand out, shifted
 * ones do, and its p agrees with scipy's), then the command on small
 * traces made with the fixture: a function whose calls burn twice the
 * CPU stands out with the right sign and its unchanged neighbour does
 * not; traces of different programs are compared on what matches and
 * what differs is said; a missing trace is one line and status 1.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ccsg-fixture.h"
#include "diff/diff.h"
#include "json-read.h"
#include "tool-run.h"

/* ---- the statistic ------------------------------------------------------- */

START_TEST(test_identical_samples)
{
	int64_t a[12];

	for (int i = 0; i < 12; i++)
		a[i] = 1000 + 37 * (i % 5);
	ck_assert(diff_mann_whitney(a, 12, a, 12) == 1.0 ||
		  diff_mann_whitney(a, 12, a, 12) > 0.9);
	/* all equal: no variance, p 1, nothing stands out */
	{
		const int64_t c[4] = { 5, 5, 5, 5 };
		struct diff_test t = diff_test_samples(c, 4, c, 4, 0.01, 0.05);

		ck_assert(t.p == 1.0);
		ck_assert_int_eq(t.stands, 0);
	}
	ck_assert_int_eq(diff_test_samples(a, 12, a, 12, 0.01, 0.05).stands, 0);
}
END_TEST

START_TEST(test_shifted_samples)
{
	int64_t a[20], b[20], s[20];
	struct diff_test t;

	for (int i = 0; i < 20; i++) {
		a[i] = 1000 + 10 * i;
		b[i] = 2000 + 10 * i; /* every call twice as long */
		s[i] = 500 + 10 * i;
	}
	t = diff_test_samples(a, 20, b, 20, 0.01, 0.05);
	ck_assert_msg(t.p < 1e-6, "p %g", t.p);
	ck_assert_int_eq(t.stands, 1);
	t = diff_test_samples(a, 20, s, 20, 0.01, 0.05);
	ck_assert_int_eq(t.stands, -1);
	/* a shift the test sees but below --min-change: not standing out */
	for (int i = 0; i < 20; i++)
		b[i] = a[i] + 30;
	t = diff_test_samples(a, 20, b, 20, 1.0, 0.05);
	ck_assert_int_eq(t.stands, 0);
	/* too few calls: not tested */
	ck_assert(isnan(diff_mann_whitney(a, 1, b, 20)));
	ck_assert(isnan(diff_test_samples(a, 20, b, 1, 0.01, 0.05).p));
}
END_TEST

/* the p of scipy.stats.mannwhitneyu(a, b, method="asymptotic"), R's
 * wilcox.test(a, b, exact = FALSE) */
START_TEST(test_known_p)
{
	const int64_t a[5] = { 3, 1, 5, 2, 4 }, b[5] = { 6, 7, 8, 9, 10 };
	/* with ties: [1, 2, 2, 3, 4] against [2, 3, 5, 6, 6] */
	const int64_t c[5] = { 1, 2, 2, 3, 4 }, d[5] = { 2, 3, 5, 6, 6 };

	ck_assert_msg(fabs(diff_mann_whitney(a, 5, b, 5) - 0.012186) < 1e-5,
		      "p %g", diff_mann_whitney(a, 5, b, 5));
	ck_assert_msg(fabs(diff_mann_whitney(c, 5, d, 5) - 0.110492) < 1e-5,
		      "p %g", diff_mann_whitney(c, 5, d, 5));
	/* the order of the samples does not matter, nor their sides */
	ck_assert(diff_mann_whitney(b, 5, a, 5) ==
		  diff_mann_whitney(a, 5, b, 5));
}
END_TEST

/* ---- the command on small traces
 * --------------------------------------------- */

#define NCALLS 10

/*
 * A trace of NCALLS calls of procedures 1 and 2 of program 7 (client
 * process 1 on host A, server 2 on host B), each on a chain of its own:
 * call k of procedure 1 burns slow + 10 k us on the server, of procedure 2
 * 500 + 10 k us.  extra_prog: as many calls of program extra_prog,
 * served on host C (0: none).
 */
static const char *trace(long long slow, unsigned extra_prog)
{
	char ch[64];
	int chains = 0;

	fx_open();
	fx_two_procs();
	if (extra_prog) {
		fx_host(3, "C");
		fx_proc(3, 3);
		fx_thread(3, 1, 0, 100000, -1);
	}
	fx_exec("UPDATE threads SET cpu_ns = 100000000");
	for (int k = 0; k < NCALLS; k++)
		for (unsigned p = 1; p <= (extra_prog ? 3u : 2u); p++) {
			long long burn = p == 1 ? slow + 10 * k : 500 + 10 * k;
			const long long ev[4] = { 1, 2, 3, 4 + burn / 10 };
			const long long cpu[4] = { 0, 1000 * chains,
						   1000 * chains + burn, 1 };

			snprintf(ch, sizeof(ch), "%038d%02x", 0, chains++);
			if (p == 3)
				fx_call(ch, extra_prog, 1, "extra_1", 1, 1, 3,
					1, 1, ev, cpu);
			else
				fx_call(ch, 7, p, p == 1 ? "slow_1" : "same_1",
					1, 1, 2, 1, (int)p, ev, cpu);
		}
	return fx_close();
}

static struct tool_out diff(const char *a, const char *b, const char *format)
{
	return tool_run((const char *[]){ tool_path("ccsg"), "diff", a, b,
					  format, NULL });
}

/* The row of the function whose name holds fn on host. */
static const struct jval *row(const struct jval *doc, const char *fn,
			      const char *host)
{
	const struct jval *fns = json_need(doc, "functions", J_ARR, "diff");

	for (int i = 0; i < fns->n; i++)
		if (strstr(json_need(&fns->item[i], "name", J_STR, "row")->str,
			   fn) &&
		    !strcmp(json_need(&fns->item[i], "host", J_STR, "row")->str,
			    host))
			return &fns->item[i];
	ck_abort_msg("no row of %s on %s", fn, host);
	return NULL;
}

static double num(const struct jval *r, const char *key, const char *side)
{
	return json_need(json_need(r, key, J_OBJ, "row"), side, J_NUM, key)
		->num;
}

static int stands(const struct jval *r, const char *test)
{
	const struct jval *t = json_need(r, test, J_OBJ, "row");

	return (int)json_need(t, "sign", J_NUM, test)->num *
	       (json_need(t, "stands_out", J_BOOL, test)->num ? 1 : 0);
}

START_TEST(test_doubled_function_stands_out)
{
	struct e2e t;
	char a[PATH_MAX], b[PATH_MAX];
	struct tool_out r;
	struct jval *doc;
	const struct jval *slow, *same;
	e2e_init(&t); /* tool_run() runs in its directory */

	snprintf(a, sizeof(a), "%s", trace(1000, 0));
	snprintf(b, sizeof(b), "%s", trace(2000, 0));
	r = diff(a, b, "--format=json");
	ck_assert_msg(WIFEXITED(r.status) && !WEXITSTATUS(r.status),
		      "ccsg diff: %s", r.err);
	ck_assert_str_eq(r.err, "");
	doc = json_parse(r.out, "ccsg diff --format=json");
	ck_assert(!json_need(doc, "differs", J_BOOL, "diff")->num);
	ck_assert_str_eq(json_need(doc, "test", J_STR, "diff")->str,
			 "mann-whitney-u");
	slow = row(doc, "slow", "B");
	same = row(doc, "same", "B");
	ck_assert_int_eq((int)num(slow, "calls", "a"), NCALLS);
	ck_assert_int_eq((int)num(slow, "calls", "b"), NCALLS);
	/* 1000 .. 1090 us a call, then 2000 .. 2090 */
	ck_assert_int_eq((int)num(slow, "self_cpu_us", "a"),
			 NCALLS * 1000 + 450);
	ck_assert_int_eq((int)num(slow, "self_cpu_us", "delta"), NCALLS * 1000);
	ck_assert_int_eq(stands(slow, "self_cpu_test"), 1);
	ck_assert_int_eq(stands(slow, "latency_test"), 1);
	ck_assert_int_eq((int)num(same, "self_cpu_us", "delta"), 0);
	ck_assert_int_eq(stands(same, "self_cpu_test"), 0);
	ck_assert_int_eq(stands(same, "latency_test"), 0);
	json_free(doc);
	tool_out_release(&r);

	/* B against A: lower; and the text says what stands out first */
	r = diff(b, a, "--format=text");
	ck_assert_msg(WIFEXITED(r.status) && !WEXITSTATUS(r.status),
		      "ccsg diff: %s", r.err);
	ck_assert_msg(strstr(r.out, "stands out:\n  7::slow on B: self CPU "
				    "lower (p "),
		      "%s", r.out);
	ck_assert_msg(!strstr(r.out, "7::same on B:"), "%s", r.out);
	tool_out_release(&r);
	unlink(a);
	unlink(b);
}
END_TEST

START_TEST(test_different_programs)
{
	struct e2e t;
	char a[PATH_MAX], b[PATH_MAX];
	struct tool_out r;
	struct jval *doc;
	const struct jval *d, *l;
	e2e_init(&t); /* tool_run() runs in its directory */

	snprintf(a, sizeof(a), "%s", trace(1000, 0));
	snprintf(b, sizeof(b), "%s", trace(1000, 9));
	r = diff(a, b, "--format=json");
	ck_assert_msg(WIFEXITED(r.status) && !WEXITSTATUS(r.status),
		      "ccsg diff: %s", r.err);
	/* one warning line */
	ck_assert_msg(strstr(r.err, "ccsg: warning: ") == r.err &&
			      strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
		      "stderr: '%s'", r.err);
	doc = json_parse(r.out, "ccsg diff --format=json");
	ck_assert(json_need(doc, "differs", J_BOOL, "diff")->num);
	d = json_need(doc, "differences", J_OBJ, "diff");
	l = json_need(json_need(d, "programs", J_OBJ, "d"), "only_b", J_ARR,
		      "programs");
	ck_assert_int_eq(l->n, 1);
	ck_assert_str_eq(l->item[0].str, "0x9");
	l = json_need(json_need(d, "hosts", J_OBJ, "d"), "only_b", J_ARR,
		      "hosts");
	ck_assert_int_eq(l->n, 1);
	ck_assert_str_eq(l->item[0].str, "C");
	ck_assert_int_eq(json_need(json_need(d, "programs", J_OBJ, "d"),
				   "only_a", J_ARR, "programs")
				 ->n,
			 0);
	/* what matches is compared; B's own row has no A side */
	ck_assert_int_eq(stands(row(doc, "slow", "B"), "self_cpu_test"), 0);
	ck_assert_int_eq((int)num(row(doc, "slow", "B"), "calls", "b"), NCALLS);
	ck_assert(json_need(
		json_need(row(doc, "extra", "C"), "calls", J_OBJ, "row"), "a",
		J_NULL, "calls"));
	json_free(doc);
	tool_out_release(&r);
	unlink(a);
	unlink(b);
}
END_TEST

START_TEST(test_bad_input)
{
	struct e2e t;
	char a[PATH_MAX];
	struct tool_out r;
	e2e_init(&t); /* tool_run() runs in its directory */

	snprintf(a, sizeof(a), "%s", trace(1000, 0));
	/* a missing trace, either side: one error line, status 1 */
	r = diff(a, "/nonexistent/trace.db", "--format=text");
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1);
	ck_assert_str_eq(r.out, "");
	ck_assert_msg(!strncmp(r.err, "ccsg: error: ", 13) &&
			      strchr(r.err, '\n') ==
				      r.err + strlen(r.err) - 1 &&
			      strstr(r.err, "/nonexistent/trace.db"),
		      "stderr: '%s'", r.err);
	tool_out_release(&r);
	r = diff("/nonexistent/a.db", a, "--format=json");
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1);
	ck_assert_str_eq(r.out, "");
	tool_out_release(&r);
	/* not a database */
	r = diff(a, "/etc/hostname", "--format=json");
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1);
	ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
		      "stderr: '%s'", r.err);
	tool_out_release(&r);
	/* bad usage: one trace, a bad --alpha, a bad format: status 2 */
	r = tool_run((const char *[]){ tool_path("ccsg"), "diff", a, NULL });
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2);
	tool_out_release(&r);
	r = tool_run((const char *[]){ tool_path("ccsg"), "diff", a, a,
				       "--alpha", "2", NULL });
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2);
	tool_out_release(&r);
	r = diff(a, a, "--format=xml");
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2);
	tool_out_release(&r);
	unlink(a);
}
END_TEST

Suite *ccsg_diff_suite(void)
{
	Suite *s = suite_create("ccsg-diff");
	TCase *tc = tcase_create("diff");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_identical_samples);
	tcase_add_test(tc, test_shifted_samples);
	tcase_add_test(tc, test_known_p);
	tcase_add_test(tc, test_doubled_function_stands_out);
	tcase_add_test(tc, test_different_programs);
	tcase_add_test(tc, test_bad_input);
	suite_add_tcase(s, tc);
	return s;
}
