/*
 * check-policy.c - resource policies (preload/policy.h): the grammar, the
 * defaults, bad input with a one-line reason, and CAUSAL_POLICY_FILE.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"

static struct causal_policy p;
static char err[256];

START_TEST(rules_and_defaults)
{
	ck_assert_int_eq(causal_policy_parse(&p,
					     "cpu>75%/1s, rss>200MB, "
					     "heap>150MB, blocked>50%/1s",
					     err, sizeof(err)),
			 0);
	ck_assert_uint_eq(p.nrules, 4);
	ck_assert_uint_eq(p.rule[0].resource, CAUSAL_POLICY_CPU);
	ck_assert_uint_eq(p.rule[0].threshold, 7500);
	ck_assert_uint_eq(p.rule[0].window_ms, 1000);
	ck_assert_str_eq(p.rule[0].text, "cpu>75%/1s");
	ck_assert_uint_eq(p.rule[1].resource, CAUSAL_POLICY_RSS);
	ck_assert_uint_eq(p.rule[1].threshold, 200ull << 20);
	ck_assert_uint_eq(p.rule[1].window_ms, 0);
	ck_assert_uint_eq(p.rule[2].resource, CAUSAL_POLICY_HEAP);
	ck_assert_uint_eq(p.rule[2].threshold, 150ull << 20);
	ck_assert_uint_eq(p.rule[3].resource, CAUSAL_POLICY_BLOCKED);
	ck_assert_uint_eq(p.rule[3].threshold, 5000);
	ck_assert_uint_eq(p.rate_hz, 1000);
	ck_assert_uint_eq(p.n, 500);
	ck_assert_uint_eq(p.period_ms, 100);
	ck_assert_uint_eq(p.holdoff_ms, 1000);
	ck_assert_uint_eq(p.depth, 32);
	ck_assert_int_eq(p.signo, 0);
	ck_assert_int_eq(p.timer_only, 0);
}
END_TEST

START_TEST(settings_windows_and_units)
{
	ck_assert_int_eq(causal_policy_parse(&p,
					     " cpu > 12.5 / 250ms ; "
					     "rss>1.5GB\nrate=500,n=20,"
					     "period=50ms,holdoff=2s,depth=8,"
					     "signal=RTMIN+2",
					     err, sizeof(err)),
			 0);
	ck_assert_uint_eq(p.rule[0].threshold, 1250);
	ck_assert_uint_eq(p.rule[0].window_ms, 250);
	ck_assert_str_eq(p.rule[0].text, "cpu>12.5/250ms");
	ck_assert_uint_eq(p.rule[1].threshold, 3ull << 29);
	ck_assert_uint_eq(p.rate_hz, 500);
	ck_assert_uint_eq(p.n, 20);
	ck_assert_uint_eq(p.period_ms, 50);
	ck_assert_uint_eq(p.holdoff_ms, 2000);
	ck_assert_uint_eq(p.depth, 8);
	ck_assert_int_eq(p.signo, SIGRTMIN + 2);
	ck_assert_int_eq(causal_policy_parse(&p, "rss>10kb,signal=RTMAX-1", err,
					     sizeof(err)),
			 0);
	ck_assert_uint_eq(p.rule[0].threshold, 10240);
	ck_assert_int_eq(p.signo, SIGRTMAX - 1);
	ck_assert_int_eq(causal_policy_parse(&p, "blocked>50,signal=27", err,
					     sizeof(err)),
			 0);
	ck_assert_int_eq(p.signo, 27);
	ck_assert_int_eq(causal_policy_parse(&p, "cpu>5,sampler=timer", err,
					     sizeof(err)),
			 0);
	ck_assert_int_eq(p.timer_only, 1);
	ck_assert_int_eq(
		causal_policy_parse(&p, "cpu>5,sampler=perf", err, sizeof(err)),
		0);
	ck_assert_int_eq(p.timer_only, 0);
}
END_TEST

static const struct {
	const char *text, *why;
} bad[] = {
	{ "", "no rule in ''" },
	{ "rate=100", "no rule in 'rate=100'" },
	{ "disk>30%", "unknown resource in 'disk>30%'" },
	{ "cpu>", "no threshold in 'cpu>'" },
	{ "cpu>75%/1h", "bad window (10ms or more) in 'cpu>75%/1h'" },
	{ "cpu>75%/5ms", "bad window (10ms or more) in 'cpu>75%/5ms'" },
	{ "cpu>75MB", "bad unit in 'cpu>75MB'" },
	{ "blocked>150%", "a share above 100% in 'blocked>150%'" },
	{ "rss>2TB", "bad unit (B, KB, MB, GB) in 'rss>2TB'" },
	{ "rss>1MB/1s", "bad unit (B, KB, MB, GB) in 'rss>1MB/1s'" },
	{ "cpu>50,rate=0", "value out of range in 'rate=0'" },
	{ "cpu>50,n=-1", "bad number in 'n=-1'" },
	{ "cpu>50,period=1ms", "bad duration in 'period=1ms'" },
	{ "cpu>50,signal=9", "bad signal in 'signal=9'" },
	{ "cpu>50,signal=RTMIN-1", "bad signal in 'signal=RTMIN-1'" },
	{ "cpu>50,sampler=itimer", "bad sampler (perf, timer) in "
				   "'sampler=itimer'" },
	{ "cpu>50,colour=red", "unknown setting 'colour=red'" },
	{ "cpu>50,hello", "neither a rule nor a setting 'hello'" },
};

START_TEST(bad_policies_say_why)
{
	char want[256];

	snprintf(want, sizeof(want), "policy: %s", bad[_i].why);
	ck_assert_int_eq(
		causal_policy_parse(&p, bad[_i].text, err, sizeof(err)), -1);
	ck_assert_str_eq(err, want);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

static const char *env_policy, *env_file;

static const char *fake_getenv(const char *name)
{
	if (!strcmp(name, "CAUSAL_POLICY"))
		return env_policy;
	if (!strcmp(name, "CAUSAL_POLICY_FILE"))
		return env_file;
	return NULL;
}

START_TEST(load_from_environment_or_file)
{
	char path[] = "/tmp/causal-policy-XXXXXX";
	const char text[] = "# sporadic bottlenecks\n"
			    "cpu>60%/500ms   # the spikes\n"
			    "n=50\n";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1),
			 (int)sizeof(text) - 1);
	close(fd);
	env_policy = env_file = NULL;
	ck_assert_int_eq(causal_policy_load(&p, fake_getenv, err, sizeof(err)),
			 0);
	env_file = path;
	ck_assert_int_eq(causal_policy_load(&p, fake_getenv, err, sizeof(err)),
			 1);
	ck_assert_uint_eq(p.nrules, 1);
	ck_assert_uint_eq(p.rule[0].threshold, 6000);
	ck_assert_uint_eq(p.rule[0].window_ms, 500);
	ck_assert_uint_eq(p.n, 50);
	/* the environment's policy wins over the file */
	env_policy = "rss>1MB";
	ck_assert_int_eq(causal_policy_load(&p, fake_getenv, err, sizeof(err)),
			 1);
	ck_assert_uint_eq(p.rule[0].resource, CAUSAL_POLICY_RSS);
	env_policy = NULL;
	unlink(path);
	ck_assert_int_eq(causal_policy_load(&p, fake_getenv, err, sizeof(err)),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "cannot open"));
	env_policy = "cpu>";
	ck_assert_int_eq(causal_policy_load(&p, fake_getenv, err, sizeof(err)),
			 -1);
}
END_TEST

/*
 * A FIFO named as the policy file (nobody writes to it) is refused at
 * once: it held the program before main (issue 40); so is a device or a
 * symbolic link, and a file of 4 KiB or more.
 */
START_TEST(load_refuses_what_is_not_a_small_regular_file)
{
	char dir[] = "/tmp/causal-policy-dir-XXXXXX", path[64], big[5000];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	env_policy = NULL;
	env_file = path;
	ck_assert_int_eq(causal_policy_load(&p, fake_getenv, err, sizeof(err)),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "is not a regular file"));
	unlink(path);
	env_file = "/dev/zero";
	ck_assert_int_eq(causal_policy_load(&p, fake_getenv, err, sizeof(err)),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "is not a regular file"));
	snprintf(path, sizeof(path), "%s/big", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	memset(big, ' ', sizeof(big));
	memcpy(big, "cpu>50%", 7);
	fwrite(big, 1, sizeof(big), f);
	fclose(f);
	env_file = path;
	ck_assert_int_eq(causal_policy_load(&p, fake_getenv, err, sizeof(err)),
			 -1);
	ck_assert_str_eq(strstr(err, "is longer"), "is longer than 4095 bytes");
	snprintf(big, sizeof(big), "%s/link", dir);
	ck_assert_int_eq(symlink(path, big), 0);
	env_file = big;
	ck_assert_int_eq(causal_policy_load(&p, fake_getenv, err, sizeof(err)),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "is a symbolic link"));
	unlink(big);
	unlink(path);
	rmdir(dir);
	env_file = NULL;
}
END_TEST

Suite *policy_suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, rules_and_defaults);
	tcase_add_test(tc, settings_windows_and_units);
	tcase_add_loop_test(tc, bad_policies_say_why, 0,
			    sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, load_from_environment_or_file);
	tcase_add_test(tc, load_refuses_what_is_not_a_small_regular_file);
	suite_add_tcase(s, tc);
	return s;
}
