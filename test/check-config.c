/* check-config.c - environment settings of libcausal.so */
#include <check.h>
#include <string.h>

#include "config.h"
#include "monitor.h"

static const char *env_names[5], *env_values[5];

static const char *fake_getenv(const char *name)
{
	int i;

	for (i = 0; i < 5 && env_names[i]; i++)
		if (!strcmp(env_names[i], name))
			return env_values[i];
	return NULL;
}

static void set_env(int i, const char *name, const char *value)
{
	env_names[i] = name;
	env_values[i] = value;
	if (i + 1 < 5)
		env_names[i + 1] = NULL;
}

START_TEST(defaults_when_unset)
{
	struct causal_config cfg;
	char problems[512];

	env_names[0] = NULL;
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)), 0);
	ck_assert_str_eq(cfg.log_dir, "logs");
	ck_assert_uint_eq(cfg.buffer_kb, CAUSAL_DEFAULT_BUFFER_KB);
	ck_assert_uint_eq(cfg.flush_ms, CAUSAL_DEFAULT_FLUSH_MS);
	ck_assert_uint_eq(cfg.cpu_exact_us, CAUSAL_DEFAULT_CPU_EXACT_US);
	ck_assert_int_eq(cfg.log_dir_trust, 0);
	ck_assert_str_eq(problems, "");
}
END_TEST

START_TEST(values_are_read_and_buffer_rounded_to_power_of_two)
{
	struct causal_config cfg;
	char problems[512];

	set_env(0, "CAUSAL_LOG_DIR", "/tmp/x");
	set_env(1, "CAUSAL_BUFFER_KB", "100");
	set_env(2, "CAUSAL_FLUSH_MS", "7");
	set_env(3, "CAUSAL_CPU_EXACT_US", "0"); /* read the clock every time */
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)), 0);
	ck_assert_str_eq(cfg.log_dir, "/tmp/x");
	ck_assert_uint_eq(cfg.buffer_kb, 128);
	ck_assert_uint_eq(cfg.flush_ms, 7);
	ck_assert_uint_eq(cfg.cpu_exact_us, 0);
}
END_TEST

START_TEST(bad_values_fall_back_and_are_reported)
{
	struct causal_config cfg;
	char problems[512];

	set_env(0, "CAUSAL_BUFFER_KB", "12k");
	set_env(1, "CAUSAL_FLUSH_MS", "0");
	set_env(2, "CAUSAL_CPU_EXACT_US", "5000");
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)), 3);
	ck_assert_uint_eq(cfg.cpu_exact_us, CAUSAL_DEFAULT_CPU_EXACT_US);
	ck_assert_uint_eq(cfg.buffer_kb, CAUSAL_DEFAULT_BUFFER_KB);
	ck_assert_uint_eq(cfg.flush_ms, CAUSAL_DEFAULT_FLUSH_MS);
	ck_assert_ptr_nonnull(strstr(problems, "CAUSAL_BUFFER_KB='12k'"));
	ck_assert_ptr_nonnull(strstr(problems, "CAUSAL_FLUSH_MS='0'"));
	/* one line per problem, each prefixed, for the user's stderr */
	ck_assert_ptr_eq(strstr(problems, "causal: "), problems);
	ck_assert_ptr_nonnull(strstr(strchr(problems, '\n'), "causal: "));
}
END_TEST

START_TEST(parse_uint_bounds)
{
	uint32_t v;

	ck_assert_int_eq(causal_parse_uint("4", 4, 10, &v), 0);
	ck_assert_uint_eq(v, 4);
	ck_assert_int_eq(causal_parse_uint("10", 4, 10, &v), 0);
	ck_assert_int_eq(causal_parse_uint("3", 4, 10, &v), -1);
	ck_assert_int_eq(causal_parse_uint("11", 4, 10, &v), -1);
	ck_assert_int_eq(causal_parse_uint("", 4, 10, &v), -1);
	ck_assert_int_eq(causal_parse_uint("-5", 0, 10, &v), -1);
	ck_assert_int_eq(causal_parse_uint(" 5", 0, 10, &v), -1);
	/* overflow must not wrap into range */
	ck_assert_int_eq(causal_parse_uint("99999999999999999999", 0,
					   100, &v), -1);
}
END_TEST

START_TEST(overlong_log_dir_is_refused)
{
	struct causal_config cfg;
	char problems[512], dir[2000];

	memset(dir, 'a', sizeof(dir) - 1);
	dir[sizeof(dir) - 1] = '\0';
	set_env(0, "CAUSAL_LOG_DIR", dir);
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)), 1);
	ck_assert_str_eq(cfg.log_dir, "logs");
}
END_TEST

START_TEST(log_dir_trust_is_0_or_1)
{
	static const struct {
		const char *value;
		int trust, problems;
	} cases[] = {{"1", 1, 0}, {"0", 0, 0}, {"yes", 0, 1}, {"2", 0, 1},
		     {"", 0, 1}};
	struct causal_config cfg;
	char problems[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		set_env(0, "CAUSAL_LOG_DIR_TRUST", cases[i].value);
		ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
						    sizeof(problems)),
				 cases[i].problems);
		ck_assert_int_eq(cfg.log_dir_trust, cases[i].trust);
		if (cases[i].problems)
			ck_assert_ptr_nonnull(
				strstr(problems, "causal: ignoring "
						 "CAUSAL_LOG_DIR_TRUST="));
	}
}
END_TEST

START_TEST(cpu_clock_is_auto_bpf_or_syscall)
{
	static const struct {
		const char *value;
		int clock, problems;
	} cases[] = { { "auto", CAUSAL_CPU_CLOCK_AUTO, 0 },
		      { "bpf", CAUSAL_CPU_CLOCK_WANT_BPF, 0 },
		      { "syscall", CAUSAL_CPU_CLOCK_WANT_SYSCALL, 0 },
		      { "BPF", CAUSAL_CPU_CLOCK_AUTO, 1 },
		      { "", CAUSAL_CPU_CLOCK_AUTO, 1 },
		      { "bpf ", CAUSAL_CPU_CLOCK_AUTO, 1 } };
	struct causal_config cfg;
	char problems[512];

	env_names[0] = NULL;
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 0);
	ck_assert_int_eq(cfg.cpu_clock, CAUSAL_CPU_CLOCK_AUTO);
	ck_assert_str_eq(cfg.bpf_clock_dir, "/sys/fs/bpf/causal");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		set_env(0, "CAUSAL_CPU_CLOCK", cases[i].value);
		ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
						    sizeof(problems)),
				 cases[i].problems);
		ck_assert_int_eq(cfg.cpu_clock, cases[i].clock);
		if (cases[i].problems)
			ck_assert_ptr_nonnull(strstr(problems,
						     "causal: ignoring "
						     "CAUSAL_CPU_CLOCK="));
	}
}
END_TEST

START_TEST(bpf_clock_dir_is_read)
{
	struct causal_config cfg;
	char problems[512], dir[400];

	set_env(0, "CAUSAL_BPF_CLOCK_DIR", "/sys/fs/bpf/mine");
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 0);
	ck_assert_str_eq(cfg.bpf_clock_dir, "/sys/fs/bpf/mine");
	set_env(0, "CAUSAL_BPF_CLOCK_DIR", "");
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 1);
	ck_assert_str_eq(cfg.bpf_clock_dir, "/sys/fs/bpf/causal");
	memset(dir, 'a', sizeof(dir) - 1);
	dir[sizeof(dir) - 1] = '\0';
	set_env(0, "CAUSAL_BPF_CLOCK_DIR", dir);
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 1);
	ck_assert_str_eq(cfg.bpf_clock_dir, "/sys/fs/bpf/causal");
	ck_assert_ptr_nonnull(strstr(problems, "path too long"));
}
END_TEST

/* Tail keep: CAUSAL_KEEP_SLOWER_THAN a duration or p99; the window and
 * the ring; bad values said, defaults kept (issue 37 item 3). */
START_TEST(keep_values_are_parsed)
{
	static const struct {
		const char *text;
		uint64_t ns; /* 0: refused */
	} durations[] = {
		{ "250ms", 250000000ull },
		{ "2s", 2000000000ull },
		{ "800us", 800000ull },
		{ "3600s", 3600000000000ull },
		{ "3601s", 0 },
		{ "0ms", 0 },
		{ "10", 0 },
		{ "ms", 0 },
		{ "1.5s", 0 },
		{ "5m", 0 },
		{ "", 0 },
		{ "-1s", 0 },
	};
	struct causal_config cfg;
	char problems[1024];
	uint64_t ns;

	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		ns = 7;
		ck_assert_int_eq(causal_parse_duration(durations[i].text, &ns),
				 durations[i].ns ? 0 : -1);
		ck_assert_uint_eq(ns, durations[i].ns ? durations[i].ns : 7);
	}
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 0);
	ck_assert_uint_eq(cfg.keep_slower_ns, 0);
	ck_assert_uint_eq(cfg.keep_window_ns, 10000000000ull);
	ck_assert_uint_eq(cfg.keep_ring_kb, 4096);
	set_env(0, "CAUSAL_KEEP_SLOWER_THAN", "p99");
	set_env(1, "CAUSAL_KEEP_WINDOW", "500ms");
	set_env(2, "CAUSAL_KEEP_RING_KB", "64");
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 0);
	ck_assert_uint_eq(cfg.keep_slower_ns, CAUSAL_KEEP_P99);
	ck_assert_uint_eq(cfg.keep_window_ns, 500000000ull);
	ck_assert_uint_eq(cfg.keep_ring_kb, 64);
	set_env(0, "CAUSAL_KEEP_SLOWER_THAN", "slow");
	set_env(1, "CAUSAL_KEEP_WINDOW", "0s");
	set_env(2, "CAUSAL_KEEP_RING_KB", "63");
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 3);
	ck_assert_uint_eq(cfg.keep_slower_ns, 0);
	ck_assert_uint_eq(cfg.keep_window_ns, 10000000000ull);
	ck_assert_uint_eq(cfg.keep_ring_kb, 4096);
	ck_assert_ptr_nonnull(strstr(problems, "tail keep is off"));
}
END_TEST

/* CAUSAL_MONITOR: a list of types, all, none; default all. */
START_TEST(monitor_types_are_parsed)
{
	struct causal_config cfg;
	char problems[512];
	uint32_t t;

	env_names[0] = NULL;
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 0);
	ck_assert_uint_eq(cfg.monitor, 0xf);
	ck_assert_str_eq(cfg.coordinator, "");
	ck_assert_int_eq(causal_parse_monitor("cpu,latency", &t), 0);
	ck_assert_uint_eq(t, 4 | 2);
	ck_assert_int_eq(causal_parse_monitor("none", &t), 0);
	ck_assert_uint_eq(t, 0);
	ck_assert_int_eq(causal_parse_monitor("semantics,memory", &t), 0);
	ck_assert_uint_eq(t, 1 | 8);
	ck_assert_int_eq(causal_parse_monitor("all", &t), 0);
	ck_assert_uint_eq(t, 0xf);
	/* locks: named alone, not part of all */
	ck_assert_int_eq(causal_parse_monitor("all,locks", &t), 0);
	ck_assert_uint_eq(t, CAUSAL_MON_ALL | CAUSAL_MON_LOCKS);
	ck_assert_int_eq(causal_parse_monitor("locks", &t), 0);
	ck_assert_uint_eq(t, CAUSAL_MON_LOCKS);
	ck_assert_uint_eq(CAUSAL_MON_ALL & CAUSAL_MON_LOCKS, 0);
	ck_assert_int_eq(causal_parse_monitor("cpu,", &t), -1);
	ck_assert_int_eq(causal_parse_monitor(",cpu", &t), -1);
	ck_assert_int_eq(causal_parse_monitor("CPU", &t), -1);
	ck_assert_int_eq(causal_parse_monitor("", &t), -1);
	ck_assert_int_eq(causal_parse_monitor("cpu latency", &t), -1);

	set_env(0, "CAUSAL_MONITOR", "latency,bogus");
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 1);
	ck_assert_uint_eq(cfg.monitor, 0xf);
	ck_assert_ptr_nonnull(strstr(
		problems, "causal: ignoring CAUSAL_MONITOR='latency,bogus'"));
	set_env(0, "CAUSAL_MONITOR", "latency");
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 0);
	ck_assert_uint_eq(cfg.monitor, 2);
}
END_TEST

/* CAUSAL_COORDINATOR: HOST[:PORT], [IPv6]:PORT; a bad one is ignored. */
START_TEST(coordinator_is_parsed)
{
	struct causal_config cfg;
	char problems[512], host[64];
	uint16_t port;

	set_env(0, "CAUSAL_COORDINATOR", "ctl.example:7000");
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 0);
	ck_assert_str_eq(cfg.coordinator, "ctl.example");
	ck_assert_uint_eq(cfg.coordinator_port, 7000);
	ck_assert_int_eq(causal_parse_hostport("10.0.0.1", host, sizeof(host),
					       7350, &port),
			 0);
	ck_assert_str_eq(host, "10.0.0.1");
	ck_assert_uint_eq(port, 7350);
	ck_assert_int_eq(causal_parse_hostport("[::1]:99", host, sizeof(host),
					       7350, &port),
			 0);
	ck_assert_str_eq(host, "::1");
	ck_assert_uint_eq(port, 99);
	ck_assert_int_eq(
		causal_parse_hostport("::1", host, sizeof(host), 1, &port), -1);
	ck_assert_int_eq(
		causal_parse_hostport("h:0", host, sizeof(host), 1, &port), -1);
	ck_assert_int_eq(
		causal_parse_hostport("h:65536", host, sizeof(host), 1, &port),
		-1);
	ck_assert_int_eq(
		causal_parse_hostport(":80", host, sizeof(host), 1, &port), -1);
	ck_assert_int_eq(
		causal_parse_hostport("[::1", host, sizeof(host), 1, &port),
		-1);
	set_env(0, "CAUSAL_COORDINATOR", "h:x");
	ck_assert_int_eq(causal_config_load(&cfg, fake_getenv, problems,
					    sizeof(problems)),
			 1);
	ck_assert_str_eq(cfg.coordinator, "");
}
END_TEST

Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("env");

	tcase_add_test(tc, defaults_when_unset);
	tcase_add_test(tc, values_are_read_and_buffer_rounded_to_power_of_two);
	tcase_add_test(tc, bad_values_fall_back_and_are_reported);
	tcase_add_test(tc, parse_uint_bounds);
	tcase_add_test(tc, overlong_log_dir_is_refused);
	tcase_add_test(tc, log_dir_trust_is_0_or_1);
	tcase_add_test(tc, cpu_clock_is_auto_bpf_or_syscall);
	tcase_add_test(tc, bpf_clock_dir_is_read);
	tcase_add_test(tc, monitor_types_are_parsed);
	tcase_add_test(tc, coordinator_is_parsed);
	tcase_add_test(tc, keep_values_are_parsed);
	suite_add_tcase(s, tc);
	return s;
}
