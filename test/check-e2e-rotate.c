/*
 * check-e2e-rotate.c - end to end: a log rotated under a cap
 * (CAUSAL_LOG_SEGMENT_MB, CAUSAL_LOG_MAX_MB; docs/tracing.md "Log files").
 *
 *   cap      test/progs/locks takes a mutex 2,000,000 times with the
 *            locks recorded, in 1 MiB segments under a 3 MiB cap: the
 *            directory never holds more than the cap while it runs, the
 *            oldest segments are deleted, and every record the library
 *            wrote is either merged or counted deleted (the segments'
 *            HEADERs); the merge says so, and the process is one.
 *   bad      a malformed cap is said once on stderr, and tracing goes on
 *            with one log, as without it.
 *   corrupt  a damaged segment is named in the merge's one-line warning,
 *            and the rest of the log is loaded.
 */
#include <dirent.h>
#include <sys/wait.h>

#include "e2e.h"
#include "log-record.h"

#define PAIRS "2000000"

/* Bytes of the *.clog files in dir, and how many there are. */
static long long logs_bytes(const char *dir, int *files)
{
	char path[2 * PATH_MAX];
	struct dirent *de;
	long long sum = 0;
	struct stat st;
	DIR *d = opendir(dir);

	*files = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n < 5 || strcmp(de->d_name + n - 5, ".clog"))
			continue;
		e2e_fmt(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0) {
			sum += st.st_size;
			++*files;
		}
	}
	closedir(d);
	return sum;
}

/* PROCESS_END's count of the records the library wrote. */
static uint64_t records_written(struct e2e *t)
{
	sqlite3_stmt *st;
	msgpack_unpacked up;
	struct record r;
	size_t off = 0;
	uint64_t n;

	ck_assert_int_eq(sqlite3_prepare_v2(t->sql,
					    "SELECT data FROM records WHERE "
					    "type = 8",
					    -1, &st, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	msgpack_unpacked_init(&up);
	ck_assert_int_eq(msgpack_unpack_next(&up, sqlite3_column_blob(st, 0),
					     sqlite3_column_bytes(st, 0), &off),
			 MSGPACK_UNPACK_SUCCESS);
	ck_assert_int_eq(record_decode(&up.data, &r), 0);
	n = r.process_end.records;
	msgpack_unpacked_destroy(&up);
	sqlite3_finalize(st);
	return n;
}

/* locks PAIRS under the cap, the directory's size watched meanwhile;
 * the largest it was. */
static long long run_capped(struct e2e *t, const char *extra_env)
{
	const char *argv[] = { e2e_prog("locks"), PAIRS, NULL };
	const char *env[] = { "CAUSAL_MONITOR=all,locks",
			      "CAUSAL_LOG_SEGMENT_MB=1",
			      "CAUSAL_LOG_MAX_MB=3",
			      "CAUSAL_BUFFER_KB=4096",
			      extra_env,
			      NULL };
	char out[PATH_MAX], err[PATH_MAX];
	long long most = 0, now;
	int status, files;
	pid_t pid;

	e2e_fmt(out, sizeof(out), "%s/out", t->dir);
	e2e_fmt(err, sizeof(err), "%s/err", t->dir);
	pid = e2e_spawn_traced(t, argv, env, out, err);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		now = logs_bytes(t->logs, &files);
		most = now > most ? now : most;
	}
	e2e_assert_exit(status, 0, "locks");
	now = logs_bytes(t->logs, &files);
	return now > most ? now : most;
}

START_TEST(test_cap)
{
	long long most, merged, deleted, segments;
	char cmd[2 * PATH_MAX], path[PATH_MAX], *merge_out;
	uint64_t written;
	struct e2e t;
	int files;

	e2e_init(&t);
	most = run_capped(&t, NULL);
	ck_assert_msg(most <= 3 << 20, "the logs took %lld bytes", most);
	logs_bytes(t.logs, &files);
	ck_assert_int_ge(files, 2);
	/* closed, every one: numbered (the process ended) */
	e2e_fmt(cmd, sizeof(cmd),
		"ls '%s' | grep '[.]clog$' | grep -qv "
		"'[.][0-9]\\{6\\}[.]clog$'",
		t.logs);
	ck_assert_int_ne(system(cmd), 0);
	e2e_merge(&t);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes"),
			 1);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM files "
					      "WHERE status = 'ok'"),
			 1);
	merged = e2e_query_int(t.sql, "SELECT records FROM processes");
	deleted = e2e_query_int(t.sql, "SELECT deleted_records FROM processes");
	segments = e2e_query_int(t.sql, "SELECT segments FROM processes");
	ck_assert_int_eq(segments, files);
	ck_assert_int_gt(e2e_query_int(t.sql, "SELECT deleted_segments "
					      "FROM processes"),
			 0);
	ck_assert_int_gt(deleted, 0);
	written = records_written(&t);
	/* the PROCESS_END is not in its own count */
	ck_assert_int_eq(merged + deleted, (long long)written + 1);
	/* and the program's pairs are all there, written or dropped */
	ck_assert_int_ge((long long)written +
				 e2e_query_int(t.sql, "SELECT dropped FROM "
						      "processes"),
			 atoll(PAIRS));
	e2e_fmt(path, sizeof(path), "%s/merge.out", t.dir);
	merge_out = e2e_slurp(path, NULL);
	ck_assert_msg(strstr(merge_out, "deleted by cap:  "),
		      "merge summary: %s", merge_out);
	free(merge_out);
	e2e_release(&t);
}
END_TEST

START_TEST(test_bad_cap)
{
	const char *argv[] = { e2e_prog("locks"), "1000", NULL };
	const char *env[] = { "CAUSAL_LOG_MAX_MB=3MB",
			      "CAUSAL_LOG_SEGMENT_MB=0", NULL };
	char out[PATH_MAX], err[PATH_MAX], *text;
	struct e2e t;

	e2e_init(&t);
	e2e_fmt(out, sizeof(out), "%s/out", t.dir);
	e2e_fmt(err, sizeof(err), "%s/err", t.dir);
	e2e_assert_exit(e2e_run_traced(&t, argv, env, out, err), 0, "locks");
	text = e2e_slurp(err, NULL);
	ck_assert_msg(strstr(text, "causal: ignoring CAUSAL_LOG_MAX_MB='3MB': "
				   "expected a number of MiB") &&
			      strstr(text, "causal: ignoring "
					   "CAUSAL_LOG_SEGMENT_MB='0': "),
		      "stderr: %s", text);
	ck_assert_ptr_null(strstr(strstr(text, "CAUSAL_LOG_MAX_MB") + 1,
				  "CAUSAL_LOG_MAX_MB"));
	/* traced as without the variables: one log, not rotated */
	ck_assert_int_eq(e2e_count_logs(t.logs), 1);
	e2e_merge(&t);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT segments FROM processes"),
			 1);
	free(text);
	e2e_release(&t);
}
END_TEST

START_TEST(test_corrupt_segment)
{
	char cmd[4 * PATH_MAX], path[PATH_MAX], *err;
	struct e2e t;

	e2e_init(&t);
	run_capped(&t, NULL);
	/* the second segment left: bytes in the middle of its frames */
	e2e_fmt(cmd, sizeof(cmd),
		"f=$(ls '%s'/*.clog | sed -n 2p) && "
		"printf 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' | "
		"dd of=\"$f\" bs=1 seek=300000 conv=notrunc status=none",
		t.logs);
	ck_assert_int_eq(system(cmd), 0);
	e2e_merge(&t);
	e2e_fmt(path, sizeof(path), "%s/merge.err", t.dir);
	err = e2e_slurp(path, NULL);
	ck_assert_msg(strstr(err, "is corrupt: ") && strstr(err, ".clog: ") &&
			      !strchr(strchr(err, '\n') + 1, '\n'),
		      "merge stderr: %s", err);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes"),
			 1);
	ck_assert_int_gt(e2e_query_int(t.sql, "SELECT records FROM processes"),
			 1000);
	free(err);
	e2e_release(&t);
}
END_TEST

Suite *e2e_rotate_suite(void)
{
	Suite *s = suite_create("e2e-rotate");
	TCase *tc = tcase_create("rotate");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cap);
	tcase_add_test(tc, test_bad_cap);
	tcase_add_test(tc, test_corrupt_segment);
	suite_add_tcase(s, tc);
	return s;
}
