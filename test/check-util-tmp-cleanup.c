/*
 * check-util-tmp-cleanup.c - util/tmp-cleanup.h: a command ended by
 * SIGTERM, SIGINT or SIGHUP, or exiting, leaves no registered temporary
 * file behind, a directory registered before a file inside it goes too,
 * a forgotten file stays, and a signal the command handles itself is
 * left to it.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test-tmp.h"
#include "tmp-cleanup.h"

static char dir[PATH_MAX], file[PATH_MAX + 16], kept[PATH_MAX + 16];

static void make_files(void)
{
	int fd;

	snprintf(dir, sizeof(dir), "%s/tmp-cleanup.XXXXXX", test_tmp_dir());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/db", dir);
	snprintf(kept, sizeof(kept), "%s.kept", dir);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = open(kept, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

/* A child registers dir, file inside it and kept (then forgets kept),
 * and ends by sig (0: exit). */
static int child_ends_by(int sig, int handled)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		/* as a command starts (Check's runner handles these) */
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (handled)
			signal(sig, SIG_IGN); /* its own business */
		tmp_cleanup_add(NULL, dir);
		tmp_cleanup_add(file, NULL);
		tmp_cleanup_add(kept, NULL);
		tmp_cleanup_forget(kept, NULL);
		if (sig)
			raise(sig);
		exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

static void assert_gone(const char *how)
{
	ck_assert_msg(access(file, F_OK) < 0 && errno == ENOENT,
		      "%s: the file is still there", how);
	ck_assert_msg(access(dir, F_OK) < 0 && errno == ENOENT,
		      "%s: the directory is still there", how);
	ck_assert_msg(access(kept, F_OK) == 0, "%s: a forgotten file went",
		      how);
	unlink(kept);
}

START_TEST(test_signals)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
		int status;

		make_files();
		status = child_ends_by(sigs[i], 0);
		/* it still dies by the signal, as its caller expects */
		ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i]);
		assert_gone(strsignal(sigs[i]));
	}
}
END_TEST

START_TEST(test_exit)
{
	make_files();
	ck_assert_int_eq(child_ends_by(0, 0), 0);
	assert_gone("exit");
}
END_TEST

START_TEST(test_handled_signal_left_alone)
{
	int status;

	make_files();
	/* ignored by the command: it goes on, then exits, cleaning up */
	status = child_ends_by(SIGTERM, 1);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_gone("a signal the command ignores, then exit");
}
END_TEST

Suite *util_tmp_cleanup_suite(void)
{
	Suite *s = suite_create("util-tmp-cleanup");
	TCase *tc = tcase_create("tmp-cleanup");

	tcase_add_test(tc, test_signals);
	tcase_add_test(tc, test_exit);
	tcase_add_test(tc, test_handled_signal_left_alone);
	suite_add_tcase(s, tc);
	return s;
}
