/*
 * check-e2e-loss.c - end to end: a full disk.
 *
 * The log directory is a 1 MiB tmpfs of the test's own (a private mount
 * namespace, so root is needed, as for the RPC suites), most of it taken
 * by a filler file.  A busy program that fills the rest must run exactly
 * as untraced; the library says so once on stderr, every record it could
 * not write is counted (by type, in the log's loss slot), and the merge
 * tells the file from a crashed one: status 'disk_full', the loss in
 * processes.dropped.  A disk full from the start leaves no empty log.
 */
#include <sched.h>
#include <sys/mount.h>

#include "e2e.h"
#include "log-record.h"

#define TYPES 64 /* record types are below (log-format.h) */

/* Path of a file in the test's directory (valid for 8 more calls). */
static const char *in_dir(struct e2e *t, const char *name)
{
	static char paths[8][PATH_MAX];
	static int next;
	char *p = paths[next++ % 8];

	e2e_fmt(p, PATH_MAX, "%s/%s", t->dir, name);
	return p;
}

/*
 * Mount a 1 MiB tmpfs on dir/full in a mount namespace of this test
 * process (and of what it starts) and fill it but for `leave` bytes.
 */
static void full_disk(const char *full, long leave)
{
	static char zeros[4096];
	char filler[PATH_MAX];
	long left;
	int fd;

	ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS): %s "
		      "(root needed)", strerror(errno));
	ck_assert_msg(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0,
		      "mount --make-rprivate /: %s", strerror(errno));
	ck_assert_int_eq(mkdir(full, 0700), 0);
	ck_assert_msg(mount("tmpfs", full, "tmpfs", 0, "size=1m,mode=0700") ==
			  0,
		      "mount tmpfs: %s", strerror(errno));
	e2e_fmt(filler, sizeof(filler), "%s/filler", full);
	fd = open(filler, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	left = 1 << 20;
	while (left > leave) {
		ssize_t n = write(fd, zeros,
				  left - leave < (long)sizeof(zeros)
					  ? (size_t)(left - leave)
					  : sizeof(zeros));

		if (n <= 0)
			break; /* full already: leave is 0 */
		left -= n;
	}
	ck_assert_int_eq(close(fd), 0);
}

/* Lines of err starting with "causal: "; *line gets the first. */
static int causal_lines(const char *err, const char **line)
{
	int n = 0;

	*line = NULL;
	for (const char *p = err; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, "causal: ", 8)) {
			if (!n)
				*line = p;
			n++;
		}
	return n;
}

/* Copy every *.clog of from into to (the merge cannot write on a full
 * disk, and need not). */
static void copy_logs(const char *from, const char *to)
{
	char cmd[3 * PATH_MAX];

	e2e_fmt(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s'/*.clog '%s'/", to,
		from, to);
	ck_assert_int_eq(system(cmd), 0);
}

/* LOSS counts of the one LOSS record in the database, by type. */
static uint64_t lost_of(struct e2e *t, uint64_t by_type[TYPES])
{
	sqlite3_stmt *st;
	msgpack_unpacked up;
	struct record r;
	uint64_t type, count;
	size_t off = 0;
	uint64_t lost;

	ck_assert_int_eq(e2e_query_int(t->sql, "SELECT count(*) FROM records "
					       "WHERE type = %d",
				       CAUSAL_REC_LOSS),
			 1);
	ck_assert_int_eq(sqlite3_prepare_v2(t->sql,
					    "SELECT data FROM records WHERE "
					    "type = 10",
					    -1, &st, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	msgpack_unpacked_init(&up);
	ck_assert_int_eq(msgpack_unpack_next(&up, sqlite3_column_blob(st, 0),
					     sqlite3_column_bytes(st, 0), &off),
			 MSGPACK_UNPACK_SUCCESS);
	ck_assert_int_eq(record_decode(&up.data, &r), 0);
	ck_assert_int_eq(r.loss.err, ENOSPC);
	memset(by_type, 0, sizeof(uint64_t) * TYPES);
	for (uint32_t i = 0; record_loss_pair(&r, i, &type, &count); i++) {
		ck_assert_uint_lt(type, TYPES);
		by_type[type] = count;
	}
	lost = r.loss.lost;
	msgpack_unpacked_destroy(&up);
	sqlite3_finalize(st);
	return lost;
}

/* Records of this type loaded, plus those the LOSS record counts. */
static long long emitted(struct e2e *t, const uint64_t *lost, int type)
{
	return e2e_query_int(t->sql,
			     "SELECT count(*) FROM records WHERE type = %d",
			     type) +
	       (long long)lost[type];
}

/*
 * 64 threads make 150 short threads each: some 29,000 records, more than
 * the 160 KiB left take.  What the program prints and returns is what it
 * does untraced; every record is in the log or counted lost, by type.
 */
START_TEST(test_disk_fills_up)
{
	const char *argv[] = {e2e_prog("many-records"), "150", "64", NULL};
	const int threads = 64 + 64 * 150;
	char full[PATH_MAX], logs[PATH_MAX], env0[PATH_MAX + 32];
	const char *env[] = {env0, "CAUSAL_BUFFER_KB=1024", NULL};
	uint64_t by_type[TYPES], lost;
	char *out, *out0, *err, *merge_out, *status, *name, *line_end;
	const char *line;
	char expect[64];
	struct e2e t;

	e2e_init(&t);
	e2e_fmt(full, sizeof(full), "%s/full", t.dir);
	e2e_fmt(logs, sizeof(logs), "%s/logs", full);
	full_disk(full, 160 << 10);
	e2e_fmt(env0, sizeof(env0), "CAUSAL_LOG_DIR=%s", logs);

	e2e_assert_exit(e2e_run_plain(argv, in_dir(&t, "out0"), NULL), 0,
			"many-records untraced");
	e2e_assert_exit(e2e_run_traced(&t, argv, env, in_dir(&t, "out"),
				       in_dir(&t, "err")),
			0, "many-records traced");
	out = e2e_slurp(in_dir(&t, "out"), NULL);
	snprintf(expect, sizeof(expect), "threads %d\n", threads);
	ck_assert_str_eq(out, expect);
	out0 = e2e_slurp(in_dir(&t, "out0"), NULL);
	ck_assert_str_eq(out0, expect);

	/* said once, naming the file */
	err = e2e_slurp(in_dir(&t, "err"), NULL);
	ck_assert_msg(causal_lines(err, &line) == 1,
		      "expected one \"causal: \" line: %s", err);
	ck_assert_msg(!strncmp(line, "causal: cannot write log '", 26) &&
			      strstr(line, logs) &&
			      strstr(line, "No space left on device"),
		      "unexpected: %s", line);
	ck_assert_int_eq(e2e_count_logs(logs), 1);

	copy_logs(logs, t.logs);
	e2e_merge(&t);
	name = e2e_query_text(t.sql, "SELECT name FROM files");
	ck_assert_msg((line_end = strchr(line, '\'')) &&
			      strstr(line_end, name),
		      "the line names '%s': %s", name, line);
	status = e2e_query_text(t.sql, "SELECT status FROM files");
	ck_assert_str_eq(status, "disk_full");
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT error LIKE 'disk full "
					      "(No space left on device): %%' "
					      "FROM files"),
			 1);
	merge_out = e2e_slurp(in_dir(&t, "merge.out"), NULL);
	ck_assert_msg(strstr(merge_out, "failed writes:   1 files (1 disk "
					"full)"),
		      "merge summary: %s", merge_out);

	/* every record is either loaded or counted lost */
	lost = lost_of(&t, by_type);
	ck_assert_uint_gt(lost, 1000);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT sum(dropped) FROM "
					      "threads"),
			 0); /* no full buffer: all the loss is the disk's */
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT dropped FROM processes"),
			 (long long)lost);
	ck_assert_int_eq(emitted(&t, by_type, CAUSAL_REC_HEADER), 1);
	ck_assert_int_eq(emitted(&t, by_type, CAUSAL_REC_THREAD_START),
			 threads + 1);
	ck_assert_int_eq(emitted(&t, by_type, CAUSAL_REC_THREAD_END),
			 threads + 1);
	ck_assert_int_eq(emitted(&t, by_type, CAUSAL_REC_THREAD_SPAWN),
			 threads);
	ck_assert_uint_eq(by_type[CAUSAL_REC_THREAD_START] +
				  by_type[CAUSAL_REC_THREAD_END] +
				  by_type[CAUSAL_REC_THREAD_SPAWN] +
				  by_type[CAUSAL_REC_DROPS],
			  lost);
	/* and the end of the process is known: it exited, lost records */
	ck_assert_int_eq(emitted(&t, by_type, CAUSAL_REC_PROCESS_END), 1);
	ck_assert_int_eq(by_type[CAUSAL_REC_PROCESS_END], 0);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT end_reason = 'exit' AND "
					      "complete = 0 FROM processes"),
			 1);
	free(out);
	free(out0);
	free(err);
	free(merge_out);
	free(status);
	free(name);
	e2e_release(&t);
}
END_TEST

/* No room even for the file header: no log, one line, the same run. */
START_TEST(test_disk_full_from_start)
{
	const char *argv[] = {e2e_prog("many-records"), "3", "4", NULL};
	char full[PATH_MAX], logs[PATH_MAX], env0[PATH_MAX + 32];
	const char *env[] = {env0, NULL};
	char *out, *out0, *err;
	const char *line;
	struct e2e t;

	e2e_init(&t);
	e2e_fmt(full, sizeof(full), "%s/full", t.dir);
	e2e_fmt(logs, sizeof(logs), "%s/logs", full);
	full_disk(full, 0);
	e2e_fmt(env0, sizeof(env0), "CAUSAL_LOG_DIR=%s", logs);

	e2e_assert_exit(e2e_run_plain(argv, in_dir(&t, "out0"), NULL), 0,
			"many-records untraced");
	e2e_assert_exit(e2e_run_traced(&t, argv, env, in_dir(&t, "out"),
				       in_dir(&t, "err")),
			0, "many-records traced");
	out0 = e2e_slurp(in_dir(&t, "out0"), NULL);
	out = e2e_slurp(in_dir(&t, "out"), NULL);
	ck_assert_str_eq(out, out0);
	err = e2e_slurp(in_dir(&t, "err"), NULL);
	ck_assert_msg(causal_lines(err, &line) == 1,
		      "expected one \"causal: \" line: %s", err);
	ck_assert_msg(strstr(line, "No space left on device") &&
			      strstr(line, "running untraced"),
		      "unexpected: %s", line);
	ck_assert_int_eq(e2e_count_logs(logs), 0);
	free(out);
	free(out0);
	free(err);
	e2e_release(&t);
}
END_TEST

Suite *e2e_loss_suite(void)
{
	Suite *s = suite_create("e2e-loss");
	TCase *tc = tcase_create("disk-full");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_disk_fills_up);
	tcase_add_test(tc, test_disk_full_from_start);
	suite_add_tcase(s, tc);
	return s;
}
