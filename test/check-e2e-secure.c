/*
 * check-e2e-secure.c - secure-execution mode (AT_SECURE).
 *
 * In a setuid program ld.so preloads only a library named without a slash,
 * found in a trusted system directory, with its own setuid bit set.  So the
 * fixture installs a copy of libcausal.so there (and always removes it),
 * and the test runs a setuid-root copy of a test program as `nobody`: the
 * library must say so in one line and let the program run untraced.
 */
#include <dlfcn.h>
#include <libgen.h>

#include "e2e.h"

static char secure_lib[PATH_MAX];	/* the installed copy, for teardown */

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char cmd[3 * PATH_MAX + 64];
	int n = snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod %o '%s'",
			 from, to, (unsigned)mode, to);

	if (n < 0 || (size_t)n >= sizeof(cmd) || system(cmd))
		fprintf(stderr, "e2e-secure: cannot install '%s'\n", to);
}

static void secure_setup(void)
{
	Dl_info info;
	char libc[PATH_MAX], src[PATH_MAX];
	const char *build = getenv("CAUSAL_BUILD");

	e2e_case_setup();
	/* `nobody` must reach the program inside the test directories */
	if (e2e_root[0])
		chmod(e2e_root, 0711);
	/* the directory libc came from is a trusted one */
	if (!build || !dladdr((void *)printf, &info) || !info.dli_fname)
		return;
	snprintf(libc, sizeof(libc), "%s", info.dli_fname);
	snprintf(secure_lib, sizeof(secure_lib),
		 "%s/libcausal-e2e-secure-%d.so", dirname(libc), (int)getpid());
	snprintf(src, sizeof(src), "%s/libcausal.so", build);
	copy_file(src, secure_lib, 04755);
}

static void secure_teardown(void)
{
	if (secure_lib[0])
		unlink(secure_lib);
	secure_lib[0] = '\0';
	e2e_case_teardown();
}

/* Run prog as nobody with env; stdout/stderr to files; return status. */
static int run_as_nobody(const char *prog, const char *const env[],
			 const char *out, const char *err)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		const char *argv[] = { prog, NULL };
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 ||
		    setgid(65534) || setuid(65534))
			_exit(127);
		execve(prog, (char *const *)argv, (char *const *)env);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

START_TEST(test_setuid_program_runs_untraced_with_one_line)
{
	char prog[PATH_MAX], preload[PATH_MAX + 16], logdir[PATH_MAX + 32];
	char out0[PATH_MAX], err0[PATH_MAX], out1[PATH_MAX], err1[PATH_MAX];
	const char *plain_env[] = { "PATH=/usr/bin:/bin", NULL };
	const char *traced_env[] = { preload, logdir, "PATH=/usr/bin:/bin",
				     NULL };
	char *o0, *o1, *e1, *line;
	size_t l0, l1, le;
	struct e2e t;
	int st0, st1;

	e2e_init(&t);
	ck_assert_msg(secure_lib[0] && access(secure_lib, R_OK) == 0,
		      "could not install the library in a trusted directory");
	ck_assert_int_eq(chmod(t.dir, 0777), 0);
	e2e_fmt(prog, sizeof(prog), "%s/output-setuid", t.dir);
	copy_file(e2e_prog("output"), prog, 04755);
	e2e_fmt(preload, sizeof(preload), "LD_PRELOAD=%s",
		strrchr(secure_lib, '/') + 1);
	e2e_fmt(logdir, sizeof(logdir), "CAUSAL_LOG_DIR=%s", t.logs);
	e2e_fmt(out0, sizeof(out0), "%s/out0", t.dir);
	e2e_fmt(err0, sizeof(err0), "%s/err0", t.dir);
	e2e_fmt(out1, sizeof(out1), "%s/out1", t.dir);
	e2e_fmt(err1, sizeof(err1), "%s/err1", t.dir);

	st0 = run_as_nobody(prog, plain_env, out0, err0);
	st1 = run_as_nobody(prog, traced_env, out1, err1);
	e2e_assert_exit(st0, 3, "setuid output untraced");
	ck_assert_int_eq(st1, st0);

	o0 = e2e_slurp(out0, &l0);
	o1 = e2e_slurp(out1, &l1);
	ck_assert_msg(l0 > 1000 && l0 == l1 && !memcmp(o0, o1, l0),
		      "stdout differs when preloaded in secure mode");
	e1 = e2e_slurp(err1, &le);
	line = strstr(e1, "causal: secure-execution mode");
	ck_assert_msg(line, "no secure-mode line on stderr: %s", e1);
	ck_assert_msg(!strstr(line + 1, "causal: ") && strstr(e1, "causal: ") ==
			      line,
		      "more than one causal line: %s", e1);
	/* nothing was traced: no log directory at all */
	ck_assert_int_ne(access(t.logs, F_OK), 0);
	free(o0);
	free(o1);
	free(e1);
	e2e_release(&t);
}
END_TEST

Suite *e2e_secure_suite(void)
{
	Suite *s = suite_create("e2e_secure");
	TCase *tc = tcase_create("at_secure");

	tcase_add_unchecked_fixture(tc, secure_setup, secure_teardown);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_setuid_program_runs_untraced_with_one_line);
	suite_add_tcase(s, tc);
	return s;
}
