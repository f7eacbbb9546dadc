/* check-log-file.c - creating logs safely and writing independent frames */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "causal/log-format.h"
#include "log-dir.h"
#include "log-file.h"
#include "test-root.h"
#include "test-tmp.h"

static char tmp[PATH_MAX];

static void make_tmp(void)
{
	test_tmp_name(tmp, sizeof(tmp), "causal-logfile-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void rm_tmp(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(1 << 24);

	ck_assert_ptr_nonnull(f);
	*len = fread(buf, 1, 1 << 24, f);
	fclose(f);
	return buf;
}

/* Open a log in dir as the library does: the directory checked first. */
static int open_in(struct causal_log_file *lf, const char *dir,
		   const char *host, pid_t pid, const char *uuid,
		   const char **what)
{
	struct causal_log_dir d;
	char why[1024];
	int fd, ret;

	ck_assert_int_eq(causal_log_dir_resolve(&d, dir, 0), 0);
	fd = causal_log_dir_open(&d, why, sizeof(why));
	ck_assert_msg(fd >= 0, "%s", why);
	ret = causal_log_file_open(lf, fd, d.path, host, pid, uuid, what);
	close(fd);
	return ret;
}

/* Write `frames` frames of `per_frame` small msgpack ints each. */
static void write_frames(struct causal_log_file *lf, int frames, int per_frame)
{
	int i, j;

	for (i = 0; i < frames; i++) {
		for (j = 0; j < per_frame; j++) {
			causal_log_file_reserve(lf, 16);
			msgpack_pack_int(&lf->pk, i * 1000 + j);
			lf->frame_records++;
		}
		ck_assert_int_eq(causal_log_file_flush(lf), 0);
	}
}

/* Count data frames that decode, from the start; stops at the first bad.
 * Skippable frames (the loss slot) are not data frames. */
static int count_good_frames(const uint8_t *buf, size_t len, int *bad_tail)
{
	size_t off = 8 + CAUSAL_FILE_MAGIC_LEN + 4;
	static uint8_t out[1 << 20];
	int good = 0;

	*bad_tail = 0;
	while (off < len) {
		size_t n = ZSTD_findFrameCompressedSize(buf + off, len - off);
		uint32_t magic;

		memcpy(&magic, buf + off, 4);
		if (!ZSTD_isError(n) && (magic & 0xFFFFFFF0u) == 0x184D2A50u) {
			off += n;
			continue;
		}

		if (ZSTD_isError(n) ||
		    ZSTD_isError(ZSTD_decompress(out, sizeof(out), buf + off, n))) {
			*bad_tail = 1;
			break;
		}
		good++;
		off += n;
	}
	return good;
}

START_TEST(creates_private_dir_and_file_with_magic)
{
	struct causal_log_file lf;
	const char *what;
	char dir[PATH_MAX + 32];
	struct stat st;
	uint8_t *buf;
	size_t len;
	uint32_t v;

	make_tmp();
	snprintf(dir, sizeof(dir), "%s/logs", tmp);
	ck_assert_int_eq(open_in(&lf, dir, "my host/x", 42,
					      "00112233445566778899aabbccddeeff",
					      &what), 0);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0700);
	/* unsafe characters of the hostname never reach the file name */
	ck_assert_str_eq(strrchr(lf.path, '/') + 1,
			 "my_host_x.42.00112233445566778899aabbccddeeff.clog");
	ck_assert_int_eq(stat(lf.path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_ge(lf.fd, 3);

	write_frames(&lf, 1, 3);
	causal_log_file_close(&lf);
	causal_log_file_release(&lf);
	buf = slurp(lf.path, &len);
	memcpy(&v, buf, 4);
	ck_assert_uint_eq(v, CAUSAL_SKIPPABLE_MAGIC);
	ck_assert_int_eq(memcmp(buf + 8, CAUSAL_FILE_MAGIC, 8), 0);
	memcpy(&v, buf + 16, 4);
	ck_assert_uint_eq(v, CAUSAL_FORMAT_VERSION);
	/* zstd itself sees a 20-byte frame it may skip */
	ck_assert_uint_eq(ZSTD_findFrameCompressedSize(buf, len), 20);
	/* then the loss slot, empty: its length word is 0 */
	memcpy(&v, buf + CAUSAL_SLOT_OFFSET, 4);
	ck_assert_uint_eq(v, CAUSAL_SLOT_MAGIC);
	memcpy(&v, buf + CAUSAL_SLOT_OFFSET + 4, 4);
	ck_assert_uint_eq(v, CAUSAL_SLOT_SIZE);
	memcpy(&v, buf + CAUSAL_SLOT_OFFSET + 8, 4);
	ck_assert_uint_eq(v, 0);
	free(buf);
	rm_tmp();
}
END_TEST

START_TEST(never_follows_a_symlink_or_reuses_a_file)
{
	struct causal_log_file lf;
	const char *what;
	char victim[PATH_MAX + 32], link[PATH_MAX + 64];

	make_tmp();
	snprintf(victim, sizeof(victim), "%s/victim", tmp);
	close(open(victim, O_CREAT | O_WRONLY, 0600));
	snprintf(link, sizeof(link), "%s/h.1.%032d.clog", tmp, 0);
	ck_assert_int_eq(symlink(victim, link), 0);
	ck_assert_int_lt(open_in(&lf, tmp, "h", 1,
					      "00000000000000000000000000000000",
					      &what), 0);
	ck_assert_str_eq(what, "create log file");
	rm_tmp();
}
END_TEST

/*
 * The log goes into the directory that was checked, even if the path
 * names another one (a symbolic link to /etc, say) by the time the file
 * is created.
 */
START_TEST(creates_in_the_directory_checked)
{
	struct causal_log_file lf;
	struct causal_log_dir d;
	const char *what;
	char dir[PATH_MAX + 32], moved[PATH_MAX + 32], elsewhere[PATH_MAX + 32];
	char why[PATH_MAX + 128];
	int fd;

	make_tmp();
	snprintf(dir, sizeof(dir), "%s/logs", tmp);
	snprintf(moved, sizeof(moved), "%s/moved", tmp);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", tmp);
	ck_assert_int_eq(mkdir(elsewhere, 0700), 0);
	ck_assert_int_eq(causal_log_dir_resolve(&d, dir, 0), 0);
	fd = causal_log_dir_open(&d, why, sizeof(why));
	ck_assert_msg(fd >= 0, "%s", why);
	ck_assert_int_eq(rename(dir, moved), 0);
	ck_assert_int_eq(symlink(elsewhere, dir), 0);
	ck_assert_int_eq(causal_log_file_open(&lf, fd, d.path, "h", 5,
					      "0123456789abcdef0123456789abcdef",
					      &what), 0);
	close(fd);
	causal_log_file_close(&lf);
	causal_log_file_release(&lf);
	snprintf(why, sizeof(why), "%s/h.5.0123456789abcdef0123456789abcdef"
		 ".clog", moved);
	ck_assert_int_eq(access(why, F_OK), 0);
	snprintf(why, sizeof(why), "%s/h.5.0123456789abcdef0123456789abcdef"
		 ".clog", elsewhere);
	ck_assert_int_ne(access(why, F_OK), 0);
	rm_tmp();
}
END_TEST

START_TEST(truncated_last_frame_keeps_earlier_frames)
{
	struct causal_log_file lf;
	const char *what;
	uint8_t *buf;
	size_t len;
	int bad;

	make_tmp();
	ck_assert_int_eq(open_in(&lf, tmp, "h", 2,
					      "0123456789abcdef0123456789abcdef",
					      &what), 0);
	write_frames(&lf, 5, 200);
	ck_assert_uint_eq(lf.records_written, 1000);
	causal_log_file_close(&lf);
	causal_log_file_release(&lf);
	buf = slurp(lf.path, &len);
	ck_assert_int_eq(count_good_frames(buf, len, &bad), 5);
	ck_assert_int_eq(bad, 0);
	/* as if killed in the middle of writing the last frame */
	ck_assert_int_eq(count_good_frames(buf, len - 7, &bad), 4);
	ck_assert_int_eq(bad, 1);
	free(buf);
	rm_tmp();
}
END_TEST

START_TEST(a_closed_descriptor_is_reopened_not_misused)
{
	struct causal_log_file lf;
	const char *what;
	char other[PATH_MAX + 32];
	uint8_t *buf;
	size_t len;
	struct stat st;
	struct rlimit rl;
	int fd, bad;

	make_tmp();
	ck_assert_int_eq(open_in(&lf, tmp, "h", 3,
					      "0123456789abcdef0123456789abcdef",
					      &what), 0);
	write_frames(&lf, 1, 10);
	/* the program closes every descriptor and opens its own file, which
	 * lands on our old number: above its limit, after raising it */
	snprintf(other, sizeof(other), "%s/program-file", tmp);
	fd = lf.fd;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur <= (rlim_t)fd) {
		rl.rlim_cur = rl.rlim_max;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	close(fd);
	ck_assert_int_ge(open(other, O_CREAT | O_WRONLY, 0600), 0);
	ck_assert_int_eq(dup2(3, fd), fd);
	write_frames(&lf, 2, 10);
	causal_log_file_close(&lf);
	causal_log_file_release(&lf);
	ck_assert_int_eq(stat(other, &st), 0);
	ck_assert_int_eq(st.st_size, 0); /* nothing of ours in its file */
	buf = slurp(lf.path, &len);
	ck_assert_int_eq(count_good_frames(buf, len, &bad), 3);
	free(buf);
	close(3);
	rm_tmp();
}
END_TEST

/*
 * Under a low soft limit the log's descriptor goes at the limit, above
 * every number the program may open: the program gets all of them.
 */
START_TEST(the_descriptor_stays_above_the_program)
{
	struct rlimit was, low;
	struct causal_log_file lf;
	const char *what;
	int fd, last = -1, opened = 0, free_before = 0, mine[32];

	make_tmp();
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &was), 0);
	low = was;
	low.rlim_cur = 32;
	ck_assert_int_le(low.rlim_cur, low.rlim_max);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	for (fd = 0; fd < 32; fd++)
		free_before += fcntl(fd, F_GETFD) < 0;
	ck_assert_int_eq(open_in(&lf, tmp, "h", 4,
				 "0123456789abcdef0123456789abcdef", &what),
			 0);
	/* a hard limit below 48 may not leave room above: the highest then */
	ck_assert_int_eq(lf.fd, lf.fd_in_range ? 31 : 32);
	ck_assert(!lf.fd_in_range || was.rlim_max < 32 + 16);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &low), 0);
	ck_assert_int_eq(low.rlim_cur, 32); /* set back */
	while ((fd = open("/dev/null", O_RDONLY)) >= 0 && opened < 32) {
		mine[opened++] = fd;
		last = fd;
	}
	ck_assert_int_eq(opened, free_before - lf.fd_in_range);
	ck_assert_int_eq(last, 31 - lf.fd_in_range);
	write_frames(&lf, 1, 10);
	ck_assert_int_eq(lf.failed, 0);
	while (opened)
		close(mine[--opened]);
	causal_log_file_close(&lf);
	causal_log_file_release(&lf);
	setrlimit(RLIMIT_NOFILE, &was);
	rm_tmp();
}
END_TEST

/* One frame of n records of type 5 (any type will do), sealed. */
static int queue_frame(struct causal_log_file *lf, int n, int first)
{
	for (int j = 0; j < n; j++) {
		if (causal_log_file_room(lf, 16))
			return -1;
		msgpack_pack_int(&lf->pk, first + j);
		causal_log_file_count(lf, 5);
	}
	causal_log_file_seal(lf);
	return 0;
}

/*
 * The filler seals frames into the queue and never writes; the writer
 * takes them oldest first.  A full queue refuses, nothing is lost.
 */
START_TEST(frames_queue_until_written)
{
	struct causal_log_file lf;
	const char *what;
	struct stat st;
	uint8_t *buf;
	size_t len;
	int frames = 0, bad, written = 0;

	make_tmp();
	ck_assert_int_eq(open_in(&lf, tmp, "h", 4,
				 "0123456789abcdef0123456789abcdef",
				 &what), 0);
	while (queue_frame(&lf, 2000, frames * 2000) == 0)
		frames++;
	ck_assert_int_gt(frames, 10);
	ck_assert_int_eq(causal_log_file_room(&lf, 16), -ENOBUFS);
	ck_assert_int_eq(stat(lf.path, &st), 0);
	ck_assert_int_eq(st.st_size, lf.size); /* nothing written yet */
	while (causal_log_file_write_one(&lf))
		written++;
	ck_assert_int_eq(written, frames);
	ck_assert_uint_eq(lf.records_written, (uint64_t)frames * 2000);
	ck_assert_int_eq(causal_log_file_room(&lf, 16), 0);
	msgpack_pack_int(&lf.pk, -1);
	causal_log_file_count(&lf, 5);
	ck_assert_int_eq(causal_log_file_flush(&lf), 0);
	ck_assert_uint_eq(lf.records_written, (uint64_t)frames * 2000 + 1);
	causal_log_file_close(&lf);
	causal_log_file_release(&lf);
	buf = slurp(lf.path, &len);
	ck_assert_int_eq(count_good_frames(buf, len, &bad), frames + 1);
	ck_assert_int_eq(bad, 0);
	free(buf);
	rm_tmp();
}
END_TEST

/*
 * On a full disk (a 64 KiB tmpfs of this test's own: root needed) the
 * first failed frame is cut off whole and counted lost, by type, like
 * every later one; the loss slot can still be written.
 */
START_TEST(a_full_disk_counts_what_it_loses)
{
	struct causal_log_file lf;
	const char *what;
	static uint8_t noise[8192];
	uint8_t *buf;
	size_t len;
	uint64_t tried = 0;
	uint32_t v;
	int bad, frames = 0, ret = 0;

	if (!test_as_root("log_file: a full disk (a tmpfs mounted in a mount "
			  "namespace)"))
		return;
	make_tmp();
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	ck_assert_int_eq(mount("tmpfs", tmp, "tmpfs", 0, "size=64k,mode=0700"),
			 0);
	ck_assert_int_eq(open_in(&lf, tmp, "h", 5,
				 "0123456789abcdef0123456789abcdef",
				 &what), 0);
	srand(7);
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (uint8_t)rand(); /* zstd cannot shrink it */
	while (ret == 0 && frames < 100) {
		for (int j = 0; j < 4; j++) {
			causal_log_file_reserve(&lf, sizeof(noise) + 16);
			msgpack_pack_bin(&lf.pk, sizeof(noise));
			msgpack_pack_bin_body(&lf.pk, noise, sizeof(noise));
			causal_log_file_count(&lf, j ? 6 : 7);
		}
		tried += 4;
		ret = causal_log_file_flush(&lf);
		frames++;
	}
	ck_assert_int_eq(ret, -ENOSPC);
	ck_assert_int_eq(lf.failed, 1);
	ck_assert_int_eq(lf.error, ENOSPC);
	/* later frames are counted too, never written */
	causal_log_file_reserve(&lf, 16);
	msgpack_pack_int(&lf.pk, 1);
	causal_log_file_count(&lf, 7);
	ck_assert_int_eq(causal_log_file_flush(&lf), -ENOSPC);
	tried++;
	ck_assert_uint_eq(lf.lost + lf.records_written, tried);
	ck_assert_uint_eq(lf.lost, 4 + 1);
	ck_assert_uint_eq(lf.lost_types[6], 3);
	ck_assert_uint_eq(lf.lost_types[7], 2);
	/* the slot takes no new space */
	causal_log_file_slot_begin(&lf);
	msgpack_pack_int(&lf.slot_pk, 42);
	ck_assert_int_eq(causal_log_file_slot_write(&lf), 0);
	causal_log_file_close(&lf);
	causal_log_file_release(&lf);
	buf = slurp(lf.path, &len);
	ck_assert_uint_eq(len, lf.size); /* the failed frame cut off */
	ck_assert_int_eq(count_good_frames(buf, len, &bad),
			 (int)(lf.records_written / 4));
	ck_assert_int_eq(bad, 0);
	memcpy(&v, buf + CAUSAL_SLOT_OFFSET + 8, 4);
	ck_assert_uint_eq(v, 1); /* the slot holds one byte: 42 */
	ck_assert_uint_eq(buf[CAUSAL_SLOT_OFFSET + 12], 42);
	free(buf);
	umount(tmp);
	rm_tmp();
}
END_TEST

Suite *log_file_suite(void)
{
	Suite *s = suite_create("log_file");
	TCase *tc = tcase_create("frames");

	tcase_add_test(tc, creates_private_dir_and_file_with_magic);
	tcase_add_test(tc, never_follows_a_symlink_or_reuses_a_file);
	tcase_add_test(tc, creates_in_the_directory_checked);
	tcase_add_test(tc, truncated_last_frame_keeps_earlier_frames);
	tcase_add_test(tc, a_closed_descriptor_is_reopened_not_misused);
	tcase_add_test(tc, the_descriptor_stays_above_the_program);
	tcase_add_test(tc, frames_queue_until_written);
	tcase_add_test(tc, a_full_disk_counts_what_it_loses);
	suite_add_tcase(s, tc);
	return s;
}
