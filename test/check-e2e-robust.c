/*
 * check-e2e-robust.c - end to end: tracing leaves alone what a program can
 * observe of its process (issue 40, items 3, 4, 6 and 8).
 *
 * Each program of test/progs/ runs untraced and traced under the same
 * conditions, and what it printed is compared line for line:
 *   - a policy file that is a FIFO, a device or a symbolic link is
 *     refused at once: the program reaches main (item 3);
 *   - under a memory limit (RLIMIT_AS), pthread_create() succeeds as it
 *     does untraced; the threads the library had no memory for run
 *     untraced and are counted as dropped (item 4);
 *   - under a low RLIMIT_NOFILE the program gets the same descriptors,
 *     the same numbers, first of them 3; when the limit cannot be raised
 *     the log takes the highest and the library says so once; a program
 *     that takes the log's number for its own file never finds the log's
 *     bytes in it (item 6);
 *   - a death by SIGALRM, SIGVTALRM, SIGPROF, SIGTRAP, SIGIO, SIGPWR,
 *     SIGSTKFLT or a real-time signal leaves an end record that names
 *     the signal (item 8).
 * The limits are set by util-linux's prlimit(1) between the runner and
 * the program, so the program starts under them as from a shell's ulimit.
 */
#include <sys/resource.h>

#include "e2e.h"

/* Path of a file in the test's directory (valid for 8 more calls). */
static const char *in_dir(struct e2e *t, const char *name)
{
	static char paths[8][PATH_MAX];
	static int next;
	char *p = paths[next++ % 8];

	e2e_fmt(p, PATH_MAX, "%s/%s", t->dir, name);
	return p;
}

/* Wait for pid at most ms milliseconds (then SIGKILL it): its status, or
 * -1 when it had to be killed. */
static int wait_at_most(pid_t pid, long ms)
{
	int status;

	for (long waited = 0; waited < ms; waited += 20) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		ck_assert_msg(r >= 0 || errno == EINTR, "waitpid: %s",
			      strerror(errno));
		if (r == pid)
			return status;
		e2e_sleep_ms(20);
	}
	kill(pid, SIGKILL);
	e2e_wait(pid);
	return -1;
}

/* The lines of a file starting "causal:" (stderr of a traced run). */
static int causal_lines(const char *path, const char *must_hold)
{
	char *text = e2e_slurp(path, NULL);
	int n = 0;

	for (const char *p = text; (p = strstr(p, "causal:")); p++) {
		if (p == text || p[-1] == '\n')
			n++;
		if (must_hold)
			ck_assert_msg(strstr(p, must_hold),
				      "a line without '%s': %s", must_hold,
				      text);
	}
	free(text);
	return n;
}

/* Without CAP_SYS_RESOURCE: as a container's root, or any user, is. */
static int no_cap_sys_resource;

/*
 * Run prog with its arguments under prlimit(1) (limit: "--nofile=16:64"
 * or the like), untraced (t NULL) or traced: prlimit, setpriv and env
 * run untraced, the program alone is preloaded.  Its status.
 */
static int run_limited(struct e2e *t, const char *limit,
		       const char *const prog[], const char *out,
		       const char *err)
{
	const char *argv[32], *env[8];
	size_t n = 0;

	argv[n++] = "/usr/bin/prlimit";
	argv[n++] = limit;
	argv[n++] = "--";
	if (no_cap_sys_resource) {
		/* root keeps what its bounding and inheritable sets hold */
		argv[n++] = "/usr/bin/setpriv";
		argv[n++] = "--inh-caps=-sys_resource";
		argv[n++] = "--bounding-set=-sys_resource";
	}
	if (t) {
		argv[n++] = "/usr/bin/env";
		e2e_traced_env(t, env, NULL);
		for (size_t i = 0; env[i]; i++)
			argv[n++] = env[i];
	}
	for (size_t i = 0; prog[i]; i++)
		argv[n++] = prog[i];
	argv[n] = NULL;
	return wait_at_most(e2e_spawn(argv, NULL, out, err), 90000);
}

/* The merged log of the one traced process is complete, ended so. */
static void assert_complete(struct e2e *t, const char *reason, int detail)
{
	e2e_merge(t);
	ck_assert_msg(e2e_query_int(t->sql,
				    "SELECT count(*) FROM processes WHERE "
				    "complete = 1 AND end_reason = %Q AND "
				    "coalesce(end_detail, 0) = %d",
				    reason, detail) == 1,
		      "no complete log ending '%s' %d (%lld processes, "
		      "%lld records)",
		      reason, detail,
		      e2e_query_int(t->sql, "SELECT count(*) FROM processes"),
		      e2e_query_int(t->sql, "SELECT count(*) FROM records"));
}

/* ---- item 3: the files the library reads -------------------------------- */

/*
 * CAUSAL_POLICY_FILE names a FIFO nobody writes to, a device that never
 * ends, or a symbolic link to a good policy: the program starts at once
 * and does what it does untraced, the policy refused in one line, the
 * log complete; before, the FIFO held it before main for ever.
 */
START_TEST(test_policy_file_never_waits)
{
	static const char *const kinds[] = { "fifo", "device", "link" };
	const char *argv[] = { e2e_prog("thread-limit"), "2", "64", NULL };
	char env0[PATH_MAX + 32], *out0, *out1;
	const char *env[] = { env0, NULL }, *path = "/dev/zero";
	struct e2e t;
	int st0, st1;

	e2e_init(&t);
	if (_i == 0) {
		path = in_dir(&t, "policy.fifo");
		ck_assert_int_eq(mkfifo(path, 0600), 0);
	} else if (_i == 2) {
		FILE *f = fopen(in_dir(&t, "policy"), "w");

		ck_assert_ptr_nonnull(f);
		fputs("cpu>90%/1s\n", f);
		fclose(f);
		path = in_dir(&t, "policy.link");
		ck_assert_int_eq(symlink(in_dir(&t, "policy"), path), 0);
	}
	e2e_fmt(env0, sizeof(env0), "CAUSAL_POLICY_FILE=%s", path);
	st0 = wait_at_most(e2e_spawn(argv, NULL, in_dir(&t, "out0"), NULL),
			   90000);
	st1 = wait_at_most(e2e_spawn_traced(&t, argv, env, in_dir(&t, "out1"),
					    in_dir(&t, "err1")),
			   90000);
	ck_assert_msg(st1 != -1, "%s: the traced program hung", kinds[_i]);
	e2e_assert_exit(st0, 0, "untraced");
	e2e_assert_exit(st1, 0, kinds[_i]);
	out0 = e2e_slurp(in_dir(&t, "out0"), NULL);
	out1 = e2e_slurp(in_dir(&t, "out1"), NULL);
	ck_assert_str_eq(out1, out0);
	ck_assert_int_eq(causal_lines(in_dir(&t, "err1"),
				      _i == 2 ? "is a symbolic link"
					      : "is not a regular file"),
			 1);
	assert_complete(&t, "exit", 0);
	free(out0);
	free(out1);
	e2e_release(&t);
}
END_TEST

/* ---- item 4: threads under a memory limit -------------------------------- */

/*
 * The case: 100 threads of 64 KiB stacks alive at once under
 * `ulimit -v 40000`.  Untraced all are made; traced too (before: 87,
 * then EAGAIN), the output the same; the threads the library had no
 * memory for are counted, two dropped records each, and said once.
 */
START_TEST(test_threads_under_memory_limit)
{
	const char *prog[] = { e2e_prog("thread-limit"), "100", "64", NULL };
	const char *limit = "--as=40960000"; /* 40000 KiB, in bytes */
	long long user, dropped;
	char *out0, *out1;
	struct e2e t;
	int st0, st1;

	e2e_init(&t);
	st0 = run_limited(NULL, limit, prog, in_dir(&t, "out0"), NULL);
	st1 = run_limited(&t, limit, prog, in_dir(&t, "out1"),
			  in_dir(&t, "err1"));
	out0 = e2e_slurp(in_dir(&t, "out0"), NULL);
	out1 = e2e_slurp(in_dir(&t, "out1"), NULL);
	ck_assert_msg(WIFEXITED(st0) && WEXITSTATUS(st0) == 0,
		      "untraced under the limit: %s", out0);
	ck_assert_msg(st1 == st0 && !strcmp(out1, out0),
		      "traced, status 0x%x:\n%s---untraced:\n%s", st1, out1,
		      out0);
	ck_assert_int_le(causal_lines(in_dir(&t, "err1"), "untraced"), 1);
	assert_complete(&t, "exit", 0);
	user = e2e_query_int(t.sql, "SELECT count(*) FROM threads WHERE "
				    "marker = 'user'");
	dropped = e2e_query_int(t.sql, "SELECT dropped FROM processes");
	/* main and the 100: traced, or counted */
	ck_assert_int_le(user, 101);
	ck_assert_msg(dropped >= 2 * (101 - user),
		      "%lld threads traced of 101, only %lld dropped records",
		      user, dropped);
	free(out0);
	free(out1);
	e2e_release(&t);
}
END_TEST

/* ---- item 6: the program's descriptors ----------------------------------- */

/* The value after "KEY " in out, -1 if none. */
static long value_of(const char *out, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = out; p && *p; p = strchr(p, '\n'), p += !!p)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtol(p + kl + 1, NULL, 10);
	return -1;
}

/*
 * `ulimit -Sn 16` (the hard limit above it): the program gets the same
 * descriptors traced, the same numbers, as many (before: the log took
 * the first free one, 3 where nothing else is open, and the program got
 * one fewer), and after closing them all (close_range) 3; nothing said;
 * the log complete though the program closed the library's copy.
 */
START_TEST(test_fds_under_soft_limit)
{
	const char *prog[] = { e2e_prog("fd-count"), "count", NULL };
	char *out0, *out1;
	struct e2e t;
	int st0, st1;

	e2e_init(&t);
	st0 = run_limited(NULL, "--nofile=16:64", prog, in_dir(&t, "out0"),
			  NULL);
	st1 = run_limited(&t, "--nofile=16:64", prog, in_dir(&t, "out1"),
			  in_dir(&t, "err1"));
	e2e_assert_exit(st0, 0, "untraced");
	e2e_assert_exit(st1, 0, "traced");
	out0 = e2e_slurp(in_dir(&t, "out0"), NULL);
	out1 = e2e_slurp(in_dir(&t, "out1"), NULL);
	ck_assert_int_eq(value_of(out0, "after-close"), 3);
	ck_assert_msg(!strcmp(out1, out0), "traced:\n%s---untraced:\n%s", out1,
		      out0);
	ck_assert_int_eq(causal_lines(in_dir(&t, "err1"), NULL), 0);
	assert_complete(&t, "exit", 0);
	free(out0);
	free(out1);
	e2e_release(&t);
}
END_TEST

/* The runner holds CAP_SYS_RESOURCE (24) in its effective set: root
 * outside a container does, a container's root often not. */
static int runner_has_cap_sys_resource(void)
{
	char *status = e2e_slurp("/proc/self/status", NULL);
	const char *eff = strstr(status, "CapEff:");
	unsigned long long caps = eff ? strtoull(eff + 7, NULL, 16) : 0;

	free(status);
	return (caps >> 24) & 1;
}

/*
 * `ulimit -n 16` (soft and hard): with CAP_SYS_RESOURCE (_i 0, as the
 * runner is, when it holds it) the library raises the limit for the
 * moment and the program sees what it does untraced; without it (_i 1:
 * setpriv(1) takes it away, as a container or an unprivileged user
 * lacks it) the log takes 15, the program's last, which the library
 * says once: the program still gets 3 first and every other number, one
 * file fewer.
 */
START_TEST(test_fds_under_hard_limit)
{
	const char *prog[] = { e2e_prog("fd-count"), "count", NULL };
	const char *limit = "--nofile=16:16";
	char *out0, *out1;
	struct e2e t;
	int st0, st1, said, can_raise = !_i && runner_has_cap_sys_resource();

	e2e_init(&t);
	no_cap_sys_resource = _i;
	st0 = run_limited(NULL, limit, prog, in_dir(&t, "out0"), NULL);
	st1 = run_limited(&t, limit, prog, in_dir(&t, "out1"),
			  in_dir(&t, "err1"));
	e2e_assert_exit(st0, 0, "untraced");
	e2e_assert_exit(st1, 0, "traced");
	out0 = e2e_slurp(in_dir(&t, "out0"), NULL);
	out1 = e2e_slurp(in_dir(&t, "out1"), NULL);
	said = causal_lines(in_dir(&t, "err1"), "descriptor 15");
	/* with the capability nothing to say; without it, said once */
	ck_assert_int_eq(said, !can_raise);
	ck_assert_int_eq(value_of(out1, "first"), value_of(out0, "first"));
	ck_assert_int_eq(value_of(out1, "after-close"),
			 value_of(out0, "after-close"));
	ck_assert_int_eq(value_of(out1, "limit"), 16);
	ck_assert_int_eq(value_of(out1, "count"),
			 value_of(out0, "count") - said);
	ck_assert_int_eq(value_of(out1, "last"), value_of(out0, "last") - said);
	assert_complete(&t, "exit", 0);
	free(out0);
	free(out1);
	e2e_release(&t);
}
END_TEST

/*
 * A hostile program finds the log's descriptor in /proc/self/fd, puts a
 * file of its own on that number (dup2), writes it and closes everything:
 * its file holds its own bytes alone, and the log is whole, reopened.
 */
START_TEST(test_fd_taken_by_program)
{
	const char *argv[] = { e2e_prog("fd-count"), "clobber", NULL, NULL };
	char *out, *mine;
	struct e2e t;
	size_t len;

	e2e_init(&t);
	argv[2] = in_dir(&t, "mine");
	e2e_assert_exit(e2e_run_traced(&t, argv, NULL, in_dir(&t, "out"), NULL),
			0, "clobber");
	out = e2e_slurp(in_dir(&t, "out"), NULL);
	ck_assert_str_eq(out, "found 1\n");
	mine = e2e_slurp(in_dir(&t, "mine"), &len);
	ck_assert_uint_eq(len, 5);
	ck_assert_str_eq(mine, "mine\n");
	assert_complete(&t, "exit", 0);
	free(out);
	free(mine);
	e2e_release(&t);
}
END_TEST

/* ---- item 8: deaths by every fatal signal -------------------------------- */

static const char *const signal_names[] = {
	"ALRM",	  "VTALRM",  "PROF",	"TRAP",	   "IO",      "PWR",
	"STKFLT", "RTMIN+0", "RTMIN+5", "RTMAX-3", "RTMAX-0",
};
#define N_SIGNALS (sizeof(signal_names) / sizeof(signal_names[0]))

/*
 * die-by SIG dies of SIG with its default action, as untraced (same wait
 * status, same output), and its log ends with PROCESS_END 'signal' SIG.
 */
START_TEST(test_death_by_signal)
{
	const char *argv[] = { e2e_prog("die-by"), signal_names[_i], NULL };
	char *out0, *out1;
	struct e2e t;
	int st0, st1;
	long sig;

	e2e_init(&t);
	st0 = wait_at_most(e2e_spawn(argv, NULL, in_dir(&t, "out0"), NULL),
			   90000);
	st1 = wait_at_most(
		e2e_spawn_traced(&t, argv, NULL, in_dir(&t, "out1"), NULL),
		90000);
	out0 = e2e_slurp(in_dir(&t, "out0"), NULL);
	out1 = e2e_slurp(in_dir(&t, "out1"), NULL);
	sig = value_of(out0, "signal");
	ck_assert_msg(WIFSIGNALED(st0) && WTERMSIG(st0) == sig,
		      "%s untraced: status 0x%x", argv[1], st0);
	ck_assert_msg(WIFSIGNALED(st1) && WTERMSIG(st1) == sig,
		      "%s traced: status 0x%x", argv[1], st1);
	ck_assert_str_eq(out1, out0);
	assert_complete(&t, "signal", (int)sig);
	free(out0);
	free(out1);
	e2e_release(&t);
}
END_TEST

Suite *e2e_robust_suite(void)
{
	Suite *s = suite_create("e2e-robust");
	TCase *tc = tcase_create("robust");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_loop_test(tc, test_policy_file_never_waits, 0, 3);
	tcase_add_test(tc, test_threads_under_memory_limit);
	tcase_add_test(tc, test_fds_under_soft_limit);
	tcase_add_loop_test(tc, test_fds_under_hard_limit, 0, 2);
	tcase_add_test(tc, test_fd_taken_by_program);
	tcase_add_loop_test(tc, test_death_by_signal, 0, N_SIGNALS);
	suite_add_tcase(s, tc);
	return s;
}
