/*
 * check-read-file.c - the files the library reads on the program's behalf
 * (preload/read-file.c): a regular file is read to its bound; a FIFO, a
 * device, a directory or a symbolic link is refused at once, never read.
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

#include "read-file.h"
#include "test-tmp.h"

static char dir[PATH_MAX];

static const char *in_dir(const char *name)
{
	static char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void setup(void)
{
	test_tmp_name(dir, sizeof(dir), "causal-readfile-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(in_dir(name), "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(a_regular_file_is_read_to_its_bound)
{
	char buf[8];

	put("seven", "1234567");
	ck_assert_int_eq(causal_file_read(in_dir("seven"), buf, sizeof(buf), 1),
			 7);
	ck_assert_str_eq(buf, "1234567");
	put("eight", "12345678");
	ck_assert_int_eq(causal_file_read(in_dir("eight"), buf, sizeof(buf), 1),
			 -EFBIG);
	/* not whole: the first size - 1 bytes, as of a long /proc file */
	ck_assert_int_eq(causal_file_read(in_dir("eight"), buf, sizeof(buf), 0),
			 7);
	ck_assert_str_eq(buf, "1234567");
	ck_assert_int_gt(
		causal_file_read("/proc/self/status", buf, sizeof(buf), 0), 0);
	ck_assert_int_eq(causal_file_read(in_dir("none"), buf, sizeof(buf), 1),
			 -ENOENT);
}
END_TEST

/* A FIFO with no writer would block open() or read(): refused at once. */
START_TEST(a_fifo_a_device_a_directory_are_refused)
{
	char buf[64];

	ck_assert_int_eq(mkfifo(in_dir("fifo"), 0600), 0);
	ck_assert_int_eq(causal_file_read(in_dir("fifo"), buf, sizeof(buf), 1),
			 -EINVAL);
	ck_assert_int_eq(causal_file_read("/dev/zero", buf, sizeof(buf), 1),
			 -EINVAL);
	ck_assert_int_eq(causal_file_read(dir, buf, sizeof(buf), 1), -EINVAL);
	ck_assert_int_eq(causal_file_open(in_dir("fifo")), -EINVAL);
	ck_assert_str_eq(causal_file_strerror(EINVAL), "is not a regular file");
}
END_TEST

START_TEST(a_symbolic_link_is_refused)
{
	char buf[64], target[PATH_MAX + 64];

	put("target", "cpu>50%\n");
	snprintf(target, sizeof(target), "%s", in_dir("target"));
	ck_assert_int_eq(symlink(target, in_dir("link")), 0);
	ck_assert_int_eq(causal_file_read(in_dir("link"), buf, sizeof(buf), 1),
			 -ELOOP);
	ck_assert_str_eq(causal_file_strerror(ELOOP), "is a symbolic link");
}
END_TEST

/* Nothing is left open, and what is opened is close-on-exec. */
START_TEST(nothing_stays_open)
{
	char buf[64];
	int fd, next;

	put("file", "x");
	fd = causal_file_open(in_dir("file"));
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
	ck_assert_int_eq(causal_file_read(in_dir("file"), buf, sizeof(buf), 1),
			 1);
	ck_assert_int_eq(mkfifo(in_dir("fifo"), 0600), 0);
	ck_assert_int_lt(causal_file_read(in_dir("fifo"), buf, sizeof(buf), 1),
			 0);
	next = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(next, fd); /* the lowest number is free again */
	close(next);
}
END_TEST

Suite *read_file_suite(void)
{
	Suite *s = suite_create("read_file");
	TCase *tc = tcase_create("read");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_regular_file_is_read_to_its_bound);
	tcase_add_test(tc, a_fifo_a_device_a_directory_are_refused);
	tcase_add_test(tc, a_symbolic_link_is_refused);
	tcase_add_test(tc, nothing_stays_open);
	suite_add_tcase(s, tc);
	return s;
}
