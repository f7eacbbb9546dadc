/*
 * check-log-dir.c - the log directory: resolved once, walked without
 * following a symbolic link, refused when someone else could write in it.
 *
 * The tests run as root (like the whole suite): chown() gives a directory
 * to another user.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log-dir.h"
#include "test-root.h"
#include "test-tmp.h"

static char tmp[PATH_MAX];

static void make_tmp(void)
{
	test_tmp_name(tmp, sizeof(tmp), "causal-logdir-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void rm_tmp(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

/* tmp/name, in one of a few static buffers. */
static const char *at(const char *name)
{
	static char paths[8][PATH_MAX + 64];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, PATH_MAX + 64, "%s/%s", tmp, name);
	return p;
}

/* Open path as the library does; the descriptor (closed) or -errno. */
static int try_open(const char *path, int trust, char *why, size_t size)
{
	struct causal_log_dir d;
	int fd;

	ck_assert_int_eq(causal_log_dir_resolve(&d, path, trust), 0);
	why[0] = '\0';
	fd = causal_log_dir_open(&d, why, size);
	if (fd >= 0) {
		struct stat st;

		/* a directory, and not kept open by the library */
		ck_assert_int_eq(fstat(fd, &st), 0);
		ck_assert(S_ISDIR(st.st_mode));
		ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		close(fd);
		return 0;
	}
	ck_assert_msg(!strncmp(why, "causal: ", 8), "why: '%s'", why);
	ck_assert_msg(!strchr(why, '\n'), "more than a line: '%s'", why);
	return fd;
}

static void assert_refused(const char *path, const char *reason)
{
	char why[1024];

	ck_assert_int_eq(try_open(path, 0, why, sizeof(why)), -EPERM);
	ck_assert_msg(strstr(why, reason) && strstr(why, path) &&
			      strstr(why, "CAUSAL_LOG_DIR_TRUST=1"),
		      "'%s' for '%s': %s", why, path, reason);
	/* ... and taken as it is when trusted */
	ck_assert_msg(try_open(path, 1, why, sizeof(why)) == 0, "%s", why);
}

static void assert_accepted(const char *path)
{
	char why[1024];

	ck_assert_msg(try_open(path, 0, why, sizeof(why)) == 0, "%s", why);
}

START_TEST(relative_paths_are_resolved_once)
{
	struct causal_log_dir d;
	char cwd[4096], why[1024];
	struct stat st;
	int fd;

	make_tmp();
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(tmp), 0);
	ck_assert_int_eq(causal_log_dir_resolve(&d, "logs", 0), 0);
	ck_assert_str_eq(d.path, at("logs"));
	ck_assert_int_eq(causal_log_dir_resolve(&d, "a/b//", 1), 0);
	ck_assert_str_eq(d.path, at("a/b"));
	ck_assert_int_eq(d.trust, 1);
	ck_assert_int_eq(causal_log_dir_resolve(&d, "/x//y/", 0), 0);
	ck_assert_str_eq(d.path, "/x//y");
	ck_assert_int_eq(causal_log_dir_resolve(&d, "/", 0), 0);
	ck_assert_str_eq(d.path, "/");

	/* the program moves away: the directory stays where it was */
	ck_assert_int_eq(causal_log_dir_resolve(&d, "logs", 0), 0);
	ck_assert_int_eq(chdir("/"), 0);
	fd = causal_log_dir_open(&d, why, sizeof(why));
	ck_assert_msg(fd >= 0, "%s", why);
	close(fd);
	ck_assert_int_eq(stat(at("logs"), &st), 0);
	ck_assert_int_eq(chdir(cwd), 0);
	rm_tmp();
}
END_TEST

START_TEST(too_long_is_an_error)
{
	static char longer[CAUSAL_LOG_DIR_MAX + 10];
	struct causal_log_dir d;

	memset(longer, 'a', sizeof(longer) - 1);
	longer[0] = '/';
	ck_assert_int_eq(causal_log_dir_resolve(&d, longer, 0), -ENAMETOOLONG);
	ck_assert_int_eq(causal_log_dir_resolve(&d, longer + 1, 0),
			 -ENAMETOOLONG);
}
END_TEST

START_TEST(a_missing_directory_is_created_private)
{
	char why[1024];
	struct stat st;
	mode_t mask = umask(0);

	make_tmp();
	assert_accepted(at("logs"));
	umask(mask);
	ck_assert_int_eq(lstat(at("logs"), &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert_uint_eq(st.st_uid, geteuid());
	/* parents are not made */
	ck_assert_int_eq(try_open(at("no/such/logs"), 0, why, sizeof(why)),
			 -ENOENT);
	ck_assert_msg(strstr(why, "cannot open log directory"), "%s", why);
	ck_assert_int_ne(access(at("no"), F_OK), 0);
	/* a file is no directory */
	close(open(at("file"), O_CREAT | O_WRONLY, 0600));
	ck_assert_int_eq(try_open(at("file"), 0, why, sizeof(why)), -ENOTDIR);
	ck_assert_int_eq(try_open(at("file/logs"), 0, why, sizeof(why)),
			 -ENOTDIR);
	/* "." and ".." walk like the kernel would */
	ck_assert_int_eq(mkdir(at("sub"), 0700), 0);
	assert_accepted(at("sub/../dots"));
	ck_assert_int_eq(access(at("dots"), F_OK), 0);
	assert_accepted(at("sub/./../dots/."));
	rm_tmp();
}
END_TEST

START_TEST(a_symlink_is_refused)
{
	char why[1024], want[PATH_MAX + 64];

	make_tmp();
	ck_assert_int_eq(mkdir(at("real"), 0700), 0);
	ck_assert_int_eq(symlink(at("real"), at("link")), 0);
	ck_assert_int_eq(symlink("real", at("rel-link")), 0);
	ck_assert_int_eq(symlink("/etc", at("etc")), 0);
	assert_refused(at("link"), "is a symbolic link");
	assert_refused(at("rel-link"), "is a symbolic link");
	/* as root, /etc passes every other check: only this stops it */
	ck_assert_int_eq(try_open(at("etc"), 0, why, sizeof(why)), -EPERM);
	snprintf(want, sizeof(want), "'%s' is a symbolic link", at("etc"));
	ck_assert_msg(strstr(why, want), "%s", why);
	rm_tmp();
}
END_TEST

START_TEST(a_symlink_anywhere_in_the_path_is_refused)
{
	char why[1024], want[300];

	make_tmp();
	ck_assert_int_eq(mkdir(at("real"), 0700), 0);
	ck_assert_int_eq(symlink(at("real"), at("link")), 0);
	ck_assert_int_eq(try_open(at("link/logs"), 0, why, sizeof(why)),
			 -EPERM);
	/* the message names the component */
	snprintf(want, sizeof(want), "'%s' is a symbolic link", at("link"));
	ck_assert_msg(strstr(why, want), "%s", why);
	ck_assert_int_ne(access(at("real/logs"), F_OK), 0);
	/* a dangling one is no better, and nothing is made behind it */
	ck_assert_int_eq(symlink(at("nowhere"), at("dangling")), 0);
	ck_assert_int_eq(try_open(at("dangling"), 0, why, sizeof(why)),
			 -EPERM);
	ck_assert_int_ne(access(at("nowhere"), F_OK), 0);
	/* trusted: followed, and the last component made */
	ck_assert_msg(try_open(at("link/logs"), 1, why, sizeof(why)) == 0,
		      "%s", why);
	ck_assert_int_eq(access(at("real/logs"), F_OK), 0);
	rm_tmp();
}
END_TEST

START_TEST(another_users_directory_is_refused)
{
	char why[1024];

	if (!test_as_root("log_dir: a directory of another user (chown)"))
		return;
	make_tmp();
	ck_assert_int_eq(mkdir(at("theirs"), 0700), 0);
	ck_assert_msg(chown(at("theirs"), 65534, 65534) == 0,
		      "chown: %s (the suites run as root)", strerror(errno));
	assert_refused(at("theirs"), "owned by uid 65534, not by uid 0");
	/* even with a mode that would otherwise do */
	ck_assert_int_eq(chmod(at("theirs"), 0755), 0);
	ck_assert_int_eq(try_open(at("theirs"), 0, why, sizeof(why)), -EPERM);
	rm_tmp();
}
END_TEST

START_TEST(group_or_other_writable_is_refused_unless_sticky)
{
	static const struct {
		mode_t mode;
		const char *reason;	/* NULL: accepted */
	} cases[] = {
		{0770, "writable by group without the sticky bit (mode 0770)"},
		{02775, "writable by group without the sticky bit (mode 2775)"},
		{0703, "writable by others without the sticky bit"},
		{0777, "writable by group and others without the sticky bit"},
		{01777, NULL},
		{01770, NULL},
		{0755, NULL},
		{0700, NULL},
		{0500, NULL},	/* accepted; creating the file fails later */
	};

	make_tmp();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[32];
		const char *path;

		snprintf(name, sizeof(name), "d%zu", i);
		path = at(name);
		ck_assert_int_eq(mkdir(path, 0700), 0);
		ck_assert_int_eq(chmod(path, cases[i].mode), 0);
		if (cases[i].reason)
			assert_refused(path, cases[i].reason);
		else
			assert_accepted(path);
	}
	rm_tmp();
}
END_TEST

Suite *log_dir_suite(void)
{
	Suite *s = suite_create("log_dir");
	TCase *tc = tcase_create("checks");

	tcase_add_test(tc, relative_paths_are_resolved_once);
	tcase_add_test(tc, too_long_is_an_error);
	tcase_add_test(tc, a_missing_directory_is_created_private);
	tcase_add_test(tc, a_symlink_is_refused);
	tcase_add_test(tc, a_symlink_anywhere_in_the_path_is_refused);
	tcase_add_test(tc, another_users_directory_is_refused);
	tcase_add_test(tc, group_or_other_writable_is_refused_unless_sticky);
	suite_add_tcase(s, tc);
	return s;
}
