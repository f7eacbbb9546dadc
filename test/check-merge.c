/*
 * check-merge.c - unit tests of `tracedump merge` (merge_run) on log
 * directories written here by log-fixture.h.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "log-fixture.h"
#include "test-sql.h"
#include "test-root.h"
#include "test-tmpdir.h"
#include "causal/db-schema.h"
#include "merge.h"
#include "log-record.h"

static const uint8_t uuid_a[16] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff };
static const uint8_t uuid_b[16] = { 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff };

static void setup(void)
{
	tmpdir_make("check-merge");
}

static void teardown(void)
{
	tmpdir_remove();
}

/* Process A (complete, 9 records) and B (its fork child, no end). */
static void write_two(void)
{
	long ends[3];

	ck_assert_int_eq(fixture_log_sample(tmp_path("logs/hostA.42.aa.clog"),
					    uuid_a, "hostA", 42, NULL, 1, ends), 9);
	ck_assert_int_eq(fixture_log_sample(tmp_path("logs/sub/hostB.43.bb.clog"),
					    uuid_b, "hostB", 43, uuid_a, 0, ends), 7);
	/* Not logs: ignored. */
	FILE *f = fopen(tmp_path("logs/notes.txt"), "w");
	fputs("hello\n", f);
	fclose(f);
}

static int merge(const char *dir, const char *out, struct merge_stats *s)
{
	/* the suite reads the records table too */
	struct merge_opts o = { .dir = dir, .output = out, .raw = true };

	return merge_run(&o, s);
}

static int n_entries(const char *dir)
{
	char cmd[PATH_MAX + 128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	fscanf(p, "%d", &n);
	pclose(p);
	return n;
}

START_TEST(test_merge_two_processes)
{
	struct merge_stats s;
	sqlite3 *db;

	mkdir(tmp_path("logs"), 0777);
	mkdir(tmp_path("logs/sub"), 0777);
	write_two();
	ck_assert_int_eq(merge(tmp_path("logs"), NULL, &s), 0);
	ck_assert_uint_eq(s.files, 2);
	ck_assert_uint_eq(s.hosts, 2);
	ck_assert_uint_eq(s.processes, 2);
	ck_assert_uint_eq(s.threads, 4);
	ck_assert_uint_eq(s.records, 16);
	ck_assert_uint_eq(s.dropped, 7 + 5);
	ck_assert_uint_eq(s.truncated + s.corrupt, 0);

	db = q_open(tmp_path("logs/trace.db"));
	ck_assert_str_eq(
		q_text(db, "SELECT value FROM meta WHERE key='schema_version'"),
		DB_STR(DB_SCHEMA_VERSION));
	ck_assert_str_eq(
		q_text(db, "SELECT value FROM meta WHERE key='format_version'"),
		DB_STR(CAUSAL_FORMAT_VERSION));
	ck_assert_str_eq(q_text(db, "SELECT group_concat(name, ',') FROM files"),
			 "hostA.42.aa.clog,sub/hostB.43.bb.clog");
	ck_assert_int_eq(q_int(db, "SELECT frames FROM files WHERE file_id=1"), 3);
	ck_assert_str_eq(q_text(db, "SELECT status FROM files WHERE file_id=2"), "ok");
	ck_assert_str_eq(q_text(db, "SELECT error FROM files WHERE file_id=2"), "<null>");

	/* Process A: complete; dropped = max(PROCESS_END 7, DROPS 5). */
	ck_assert_str_eq(q_text(db, "SELECT uuid FROM processes WHERE proc_id=1"),
			 "aa0102030405060708090a0b0c0d0eff");
	ck_assert_str_eq(q_text(db, "SELECT h.name FROM processes p JOIN hosts h USING(host_id) WHERE proc_id=1"), "hostA");
	ck_assert_int_eq(q_int(db, "SELECT pid FROM processes WHERE proc_id=1"), 42);
	ck_assert_str_eq(q_text(db, "SELECT argv FROM processes WHERE proc_id=1"),
			 "[\"prog\",\"-x\",\"a \\\"q\\\"\"]");
	ck_assert_str_eq(q_text(db, "SELECT exe FROM processes WHERE proc_id=1"), "/bin/prog");
	ck_assert_str_eq(q_text(db, "SELECT parent_uuid FROM processes WHERE proc_id=1"), "<null>");
	ck_assert_str_eq(q_text(db, "SELECT end_reason FROM processes WHERE proc_id=1"), "exit");
	ck_assert_int_eq(q_int(db, "SELECT end_mono_ns FROM processes WHERE proc_id=1"), 1008);
	ck_assert_int_eq(q_int(db, "SELECT records FROM processes WHERE proc_id=1"), 9);
	ck_assert_int_eq(q_int(db, "SELECT dropped FROM processes WHERE proc_id=1"), 7);
	ck_assert_int_eq(q_int(db, "SELECT complete FROM processes WHERE proc_id=1"), 1);
	ck_assert_int_eq(q_int(db, "SELECT buffer_kb FROM processes WHERE proc_id=1"), 64);

	/* Process B: forked from A, no PROCESS_END: dropped from DROPS. */
	ck_assert_str_eq(q_text(db, "SELECT parent_uuid FROM processes WHERE proc_id=2"),
			 "aa0102030405060708090a0b0c0d0eff");
	ck_assert_int_eq(q_int(db, "SELECT complete FROM processes WHERE proc_id=2"), 0);
	ck_assert_str_eq(q_text(db, "SELECT end_reason FROM processes WHERE proc_id=2"), "<null>");
	ck_assert_int_eq(q_int(db, "SELECT dropped FROM processes WHERE proc_id=2"), 5);
	ck_assert_int_eq(q_int(db, "SELECT records FROM processes WHERE proc_id=2"), 7);
	ck_assert_int_eq(q_int(db, "SELECT file_id FROM processes WHERE proc_id=2"), 2);

	/* Threads. */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM threads"), 4);
	ck_assert_int_eq(q_int(db, "SELECT parent_tid FROM threads WHERE proc_id=1 AND tid=2"), 1);
	ck_assert_str_eq(q_text(db, "SELECT marker FROM threads WHERE proc_id=1 AND tid=2"), "infra");
	ck_assert_int_eq(q_int(db, "SELECT spawn_mono_ns FROM threads WHERE proc_id=1 AND tid=2"), 1002);
	ck_assert_int_eq(q_int(db, "SELECT start_mono_ns FROM threads WHERE proc_id=1 AND tid=2"), 1003);
	ck_assert_int_eq(q_int(db, "SELECT cpu_ns FROM threads WHERE proc_id=1 AND tid=2"), 50);
	ck_assert_str_eq(q_text(db, "SELECT end_how FROM threads WHERE proc_id=1 AND tid=2"), "returned");
	/* the chain id's 20 bytes */
	ck_assert_str_eq(q_text(db, "SELECT typeof(ctx_chain) || ' ' ||"
				    " lower(hex(ctx_chain))"
				    " FROM threads WHERE proc_id=1 AND tid=2"),
			 "blob c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3");
	ck_assert_int_eq(q_int(db, "SELECT ctx_event FROM threads WHERE proc_id=1 AND tid=2"), 3);
	ck_assert_int_eq(q_int(db, "SELECT ctx_function FROM threads WHERE proc_id=1 AND tid=2"), 4);
	ck_assert_int_eq(q_int(db, "SELECT dropped FROM threads WHERE proc_id=1 AND tid=2"), 5);
	ck_assert_str_eq(q_text(db, "SELECT ctx_chain FROM threads WHERE proc_id=1 AND tid=1"), "<null>");
	ck_assert_str_eq(q_text(db, "SELECT end_how FROM threads WHERE proc_id=1 AND tid=1"), "at_exit");
	ck_assert_str_eq(q_text(db, "SELECT end_how FROM threads WHERE proc_id=2 AND tid=1"), "<null>");
	ck_assert_int_eq(q_int(db, "SELECT cpu_ns FROM threads WHERE proc_id=2 AND tid=1"), -1);

	/* Records: every one, in log order, with its msgpack bytes. */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM records WHERE proc_id=1"), 9);
	ck_assert_int_eq(q_int(db, "SELECT max(seq) FROM records WHERE proc_id=2"), 6);
	ck_assert_int_eq(q_int(db, "SELECT type FROM records WHERE proc_id=1 AND seq=0"), 1);
	ck_assert_int_eq(q_int(db, "SELECT type FROM records WHERE proc_id=1 AND seq=6"), FIXTURE_UNKNOWN_TYPE);
	ck_assert_int_eq(q_int(db, "SELECT mono_ns FROM records WHERE proc_id=1 AND seq=8"), 1008);
	/* [4, 2, 1004, 5] */
	ck_assert_str_eq(q_text(db, "SELECT hex(data) FROM records WHERE proc_id=1 AND seq=4"),
			 "940402CD03EC05");
	/* indexed: threads by parent, processes by host; none over
	 * rpc_calls (each costs a scan and a sort of it) */
	ck_assert_int_eq(
		q_int(db,
		      "SELECT count(*) FROM sqlite_schema WHERE type='index'"
		      " AND name IN ('threads_parent', 'processes_host')"),
		2);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE"
				   " type='index' AND tbl_name='rpc_calls'"),
			 0);
	sqlite3_close(db);
}
END_TEST

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*n = ftell(f);
	rewind(f);
	buf = malloc(*n + 1);
	ck_assert_uint_eq(fread(buf, 1, *n, f), *n);
	fclose(f);
	return buf;
}

START_TEST(test_merge_deterministic)
{
	struct merge_stats s;
	size_t n1, n2;
	char *a, *b;

	mkdir(tmp_path("logs"), 0777);
	mkdir(tmp_path("logs/sub"), 0777);
	write_two();
	ck_assert_int_eq(merge(tmp_path("logs"), tmp_path("one.db"), &s), 0);
	ck_assert_int_eq(merge(tmp_path("logs"), tmp_path("two.db"), &s), 0);
	a = slurp(tmp_path("one.db"), &n1);
	b = slurp(tmp_path("two.db"), &n2);
	ck_assert_uint_eq(n1, n2);
	ck_assert(memcmp(a, b, n1) == 0);
	free(a);
	free(b);
	/* Merging over an existing database replaces it, identically. */
	ck_assert_int_eq(merge(tmp_path("logs"), tmp_path("one.db"), &s), 0);
	a = slurp(tmp_path("one.db"), &n1);
	ck_assert_uint_eq(n1, n2);
	free(a);
	/* Only the two outputs besides logs/: no temporary left. */
	ck_assert_int_eq(n_entries(tmpdir_path), 3);
}
END_TEST

START_TEST(test_merge_damaged)
{
	struct merge_stats s;
	long ends[3];
	sqlite3 *db;
	FILE *f;

	mkdir(tmp_path("logs"), 0777);
	fixture_log_sample(tmp_path("logs/a.clog"), uuid_a, "h", 42, NULL, 1, ends);
	ck_assert_int_eq(truncate(tmp_path("logs/a.clog"), ends[2] - 3), 0);
	fixture_log_sample(tmp_path("logs/b.clog"), uuid_b, "h", 43, NULL, 1, ends);
	f = fopen(tmp_path("logs/b.clog"), "r+b");
	fseek(f, (ends[0] + ends[1]) / 2, SEEK_SET);
	fputc(0x77, f);
	fclose(f);
	fixture_log_sample(tmp_path("logs/c-dup.clog"), uuid_a, "h", 44, NULL, 1, ends);
	f = fopen(tmp_path("logs/d-foreign.clog"), "w");
	fputs("not a log at all\n", f);
	fclose(f);

	ck_assert_int_eq(merge(tmp_path("logs"), NULL, &s), 0);
	ck_assert_uint_eq(s.processes, 2);
	ck_assert_uint_eq(s.truncated, 1);
	ck_assert_uint_eq(s.corrupt, 3);
	db = q_open(tmp_path("logs/trace.db"));
	ck_assert_str_eq(q_text(db, "SELECT status FROM files WHERE name='a.clog'"), "truncated");
	ck_assert_int_eq(q_int(db, "SELECT frames FROM files WHERE name='a.clog'"), 2);
	ck_assert_int_eq(q_int(db, "SELECT records FROM processes WHERE proc_id=1"), 7);
	ck_assert_int_eq(q_int(db, "SELECT complete FROM processes WHERE proc_id=1"), 0);
	ck_assert_str_eq(q_text(db, "SELECT status FROM files WHERE name='b.clog'"), "corrupt");
	ck_assert_int_eq(q_int(db, "SELECT records FROM processes WHERE proc_id=2"), 6);
	ck_assert_int_eq(q_int(db, "SELECT complete FROM processes WHERE proc_id=2"), 0);
	/* PROCESS_END survived the corrupt frame. */
	ck_assert_str_eq(q_text(db, "SELECT end_reason FROM processes WHERE proc_id=2"), "exit");
	ck_assert_str_eq(q_text(db, "SELECT error FROM files WHERE name='c-dup.clog'"),
			 "duplicate process uuid");
	ck_assert_int_eq(q_int(db, "SELECT records FROM files WHERE name='c-dup.clog'"), 0);
	ck_assert_str_eq(q_text(db, "SELECT status FROM files WHERE name='d-foreign.clog'"), "corrupt");
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM records"), 13);
	sqlite3_close(db);
}
END_TEST

START_TEST(test_merge_errors_leave_nothing)
{
	struct merge_stats s;
	struct fixture_log fl;
	FILE *f;

	ck_assert_int_eq(merge(tmp_path("missing"), NULL, &s), -1);
	ck_assert_int_eq(access(tmp_path("missing"), F_OK), -1);

	mkdir(tmp_path("empty"), 0777);
	ck_assert_int_eq(merge(tmp_path("empty"), NULL, &s), -1);
	ck_assert_int_eq(n_entries(tmp_path("empty")), 0);

	f = fopen(tmp_path("plain"), "w");
	fclose(f);
	ck_assert_int_eq(merge(tmp_path("plain"), NULL, &s), -1);

	/* Only unreadable logs: a foreign file and a newer format. */
	mkdir(tmp_path("bad"), 0777);
	f = fopen(tmp_path("bad/x.clog"), "w");
	fputs("garbage", f);
	fclose(f);
	ck_assert_int_eq(fixture_log_open(&fl, tmp_path("bad/y.clog"), CAUSAL_FORMAT_VERSION + 1), 0);
	fixture_log_drops(&fl, 1, 1, 1);
	fixture_log_close(&fl);
	ck_assert_int_eq(merge(tmp_path("bad"), NULL, &s), -1);
	ck_assert_uint_eq(s.corrupt, 2);
	ck_assert_int_eq(n_entries(tmp_path("bad")), 2);

	/* Unwritable output. */
	ck_assert_int_eq(merge(tmp_path("bad"), "/nonexistent/dir/out.db", &s), -1);
}
END_TEST

/* Entries of dir whose name contains ".tmp.": temporaries left behind. */
static int n_temps(const char *dir)
{
	char cmd[PATH_MAX + 128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '\\.tmp\\.'", dir);
	p = popen(cmd, "r");
	fscanf(p, "%d", &n);
	pclose(p);
	return n;
}

/*
 * An output that is not a regular file is refused before any work and
 * left as it was: rename() used to put the database in its place (as
 * root, -o /dev/full replaced the device).
 */
START_TEST(test_merge_output_not_regular)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct merge_stats s;
	struct stat st;
	int sock;

	if (!test_as_root("merge: a device as the output (mknod)"))
		return;
	mkdir(tmp_path("logs"), 0777);
	mkdir(tmp_path("logs/sub"), 0777);
	write_two();

	/* A character device like /dev/null (1, 3): the tests run as root. */
	ck_assert_int_eq(mknod(tmp_path("null"), S_IFCHR | 0666, makedev(1, 3)), 0);
	ck_assert_int_eq(merge(tmp_path("logs"), tmp_path("null"), &s), -1);
	ck_assert_int_eq(lstat(tmp_path("null"), &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_uint_eq(st.st_rdev, makedev(1, 3));
	/* Refused before reading a log. */
	ck_assert_uint_eq(s.records, 0);

	/* A FIFO: refused, not opened (which would block), still a FIFO. */
	ck_assert_int_eq(mkfifo(tmp_path("fifo"), 0600), 0);
	ck_assert_int_eq(merge(tmp_path("logs"), tmp_path("fifo"), &s), -1);
	ck_assert_int_eq(lstat(tmp_path("fifo"), &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));

	/* A socket, a directory. */
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", tmp_path("sock"));
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(sock, (struct sockaddr *)&sun, sizeof(sun)), 0);
	ck_assert_int_eq(merge(tmp_path("logs"), tmp_path("sock"), &s), -1);
	ck_assert_int_eq(lstat(tmp_path("sock"), &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	close(sock);
	mkdir(tmp_path("dir"), 0700);
	ck_assert_int_eq(merge(tmp_path("logs"), tmp_path("dir"), &s), -1);

	/* A symbolic link is refused too: neither it nor its target changes. */
	ck_assert_int_eq(symlink("target.db", tmp_path("link")), 0);
	ck_assert_int_eq(merge(tmp_path("logs"), tmp_path("link"), &s), -1);
	ck_assert_int_eq(lstat(tmp_path("link"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(access(tmp_path("target.db"), F_OK), -1);

	/* The default output, DIR/trace.db, likewise. */
	ck_assert_int_eq(mkfifo(tmp_path("logs/trace.db"), 0600), 0);
	ck_assert_int_eq(merge(tmp_path("logs"), NULL, &s), -1);
	ck_assert_int_eq(lstat(tmp_path("logs/trace.db"), &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));

	/* No temporary left anywhere; a regular file is still replaced. */
	ck_assert_int_eq(n_temps(tmpdir_path), 0);
	ck_assert_int_eq(n_temps(tmp_path("logs")), 0);
	fclose(fopen(tmp_path("old.db"), "w"));
	ck_assert_int_eq(merge(tmp_path("logs"), tmp_path("old.db"), &s), 0);
	ck_assert_uint_eq(s.processes, 2);
}
END_TEST

/* The database holds argv and addresses: 0600 like the logs, whatever
 * the umask (it followed it: 0644, and 0666 under umask 000). */
START_TEST(test_merge_db_mode)
{
	static const mode_t masks[] = { 0, 022, 077 };
	struct merge_stats s;
	struct stat st;

	mkdir(tmp_path("logs"), 0777);
	mkdir(tmp_path("logs/sub"), 0777);
	write_two();
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		mode_t old = umask(masks[i]);
		int rc = merge(tmp_path("logs"), tmp_path("out.db"), &s);

		umask(old);
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(stat(tmp_path("out.db"), &st), 0);
		ck_assert_msg((st.st_mode & 07777) == 0600,
			      "umask %03o: database mode %04o, not 0600",
			      (unsigned)masks[i], (unsigned)(st.st_mode & 07777));
	}
}
END_TEST

/*
 * A FIFO or a device named *.clog is never opened (a FIFO blocked the
 * read until a writer came), and is marked, not skipped in silence: the
 * other logs are merged.  Check's per-test timeout catches a hang.
 */
START_TEST(test_merge_fifo_log)
{
	struct merge_stats s;
	sqlite3 *db;

	if (!test_as_root("merge: a device named *.clog (mknod)"))
		return;
	mkdir(tmp_path("logs"), 0777);
	mkdir(tmp_path("logs/sub"), 0777);
	write_two();
	ck_assert_int_eq(mkfifo(tmp_path("logs/fifo.clog"), 0600), 0);
	ck_assert_int_eq(mknod(tmp_path("logs/sub/dev.clog"), S_IFCHR | 0600,
			       makedev(1, 5)), 0);	/* like /dev/zero */
	alarm(20);
	ck_assert_int_eq(merge(tmp_path("logs"), NULL, &s), 0);
	alarm(0);
	ck_assert_uint_eq(s.files, 4);
	ck_assert_uint_eq(s.processes, 2);
	ck_assert_uint_eq(s.corrupt, 2);
	db = q_open(tmp_path("logs/trace.db"));
	ck_assert_str_eq(q_text(db, "SELECT status || ': ' || error FROM files"
				" WHERE name='fifo.clog'"),
			 "corrupt: not a causal log (not a regular file)");
	ck_assert_str_eq(q_text(db, "SELECT status FROM files WHERE name='sub/dev.clog'"),
			 "corrupt");
	sqlite3_close(db);
}
END_TEST

static const uint8_t uuid_s[16] = { 0x55, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff };

static void open_rpc_log(struct fixture_log *fl, const char *name,
			 const uint8_t *uuid, int64_t pid)
{
	static const char *const argv0[] = { "prog" };

	ck_assert_int_eq(fixture_log_open(fl, tmp_path(name), CAUSAL_FORMAT_VERSION), 0);
	fixture_log_header(fl, 100, uuid, "host", pid, 1, "/bin/prog", 1, argv0,
			   1700000000000000000ull, NULL, 64, 100);
	fixture_log_thread_start(fl, 1, 101, 0, pid, CAUSAL_MARKER_USER, 0,
				 NULL, 0, 0);
}

/*
 * A server whose callers were all untraced or sent bad tags (no client
 * side, no RPC_SITE record anywhere: rpc-calls.c sorted a NULL array of
 * sites, which UBSan reports), and a client whose servers were untraced
 * but whose replies carried tags: the summary counts both columns.
 */
START_TEST(test_merge_tag_counts)
{
	static const unsigned server_tags[] = {
		CAUSAL_TAG_ABSENT, CAUSAL_TAG_MALFORMED, CAUSAL_TAG_OK,
		CAUSAL_TAG_STALE, CAUSAL_TAG_ABSENT,
	};
	static const unsigned reply_tags[] = {
		CAUSAL_TAG_STALE, CAUSAL_TAG_OK, CAUSAL_TAG_OK,
	};
	uint8_t chain[CAUSAL_CHAIN_ID_LEN] = { 0 };
	struct merge_stats s;
	struct fixture_log fl;
	struct fixture_rpc p;
	uint64_t t = 200;

	mkdir(tmp_path("logs"), 0777);
	open_rpc_log(&fl, "logs/server.clog", uuid_s, 10);
	for (size_t i = 0; i < sizeof(server_tags) / sizeof(server_tags[0]); i++) {
		chain[19] = (uint8_t)(i + 1);	/* a chain of its own each */
		p = (struct fixture_rpc){ 1, t, t + 1, t, chain, 1, i + 1 };
		fixture_log_skel_start(&fl, &p, 0x20000099, 1, 1,
				       CAUSAL_TRANSPORT_TCP, NULL, 0, 1, 100 + i,
				       16, server_tags[i]);
		p = (struct fixture_rpc){ 1, t + 5, t + 6, t + 5, chain, 2, i + 1 };
		fixture_log_skel_end(&fl, &p, CAUSAL_REPLY_SUCCESS, 8);
		t += 10;
	}
	ck_assert_int_eq(fixture_log_close(&fl), 0);
	open_rpc_log(&fl, "logs/client.clog", uuid_b, 11);
	for (size_t i = 0; i < sizeof(reply_tags) / sizeof(reply_tags[0]); i++) {
		chain[19] = (uint8_t)(100 + i);
		p = (struct fixture_rpc){ 1, t, t + 1, t, chain, 1, i + 1 };
		fixture_log_stub_start(&fl, &p, 0x20000099, 1, 1,
				       CAUSAL_TRANSPORT_TCP, NULL, 0, 1, 200 + i,
				       CAUSAL_RPC_TAG_SENT);
		p = (struct fixture_rpc){ 1, t + 5, t + 6, t + 5, chain, 2, i + 1 };
		fixture_log_stub_end(&fl, &p, 0, 16, 8, reply_tags[i]);
		t += 10;
	}
	ck_assert_int_eq(fixture_log_close(&fl), 0);

	ck_assert_int_eq(merge(tmp_path("logs"), NULL, &s), 0);
	ck_assert_uint_eq(s.rpc_calls, 8);
	ck_assert_uint_eq(s.rpc_no_client, 5);
	ck_assert_uint_eq(s.rpc_no_server, 3);
	/* Every value present, 'ok' first, then by name. */
	ck_assert_uint_eq(s.n_tags, 4);
	ck_assert_str_eq(s.tags[0].value, "ok");
	ck_assert_uint_eq(s.tags[0].n, 1);
	ck_assert_str_eq(s.tags[1].value, "absent");
	ck_assert_uint_eq(s.tags[1].n, 2);
	ck_assert_str_eq(s.tags[2].value, "malformed");
	ck_assert_uint_eq(s.tags[2].n, 1);
	ck_assert_str_eq(s.tags[3].value, "stale");
	ck_assert_uint_eq(s.tags[3].n, 1);
	ck_assert_uint_eq(s.n_reply_tags, 2);
	ck_assert_str_eq(s.reply_tags[0].value, "ok");
	ck_assert_uint_eq(s.reply_tags[0].n, 2);
	ck_assert_str_eq(s.reply_tags[1].value, "stale");
	ck_assert_uint_eq(s.reply_tags[1].n, 1);
}
END_TEST

/*
 * Which CPU clock each process read: HEADER's cpu_clock by name in
 * processes.cpu_clock; a header written before the field was added is a
 * process that read the system call.
 */
START_TEST(test_merge_cpu_clock)
{
	static const char *const argv0[] = { "prog" };
	static const int clocks[] = { CAUSAL_CPU_CLOCK_BPF,
				      CAUSAL_CPU_CLOCK_SYSCALL, -1, 7 };
	static const char *const names[] = { "a", "b", "c", "d" };
	struct merge_stats s;
	struct fixture_log fl;
	char path[64];
	uint8_t uuid[16];
	sqlite3 *db;

	mkdir(tmp_path("logs"), 0777);
	for (int i = 0; i < 4; i++) {
		memcpy(uuid, uuid_a, sizeof(uuid));
		uuid[1] = (uint8_t)(0x10 + i);
		snprintf(path, sizeof(path), "logs/%s.clog", names[i]);
		ck_assert_int_eq(fixture_log_open(&fl, tmp_path(path),
						  CAUSAL_FORMAT_VERSION),
				 0);
		fixture_log_header_clock(&fl, 100, uuid, "host", 10 + i, 1,
					 "/bin/prog", 1, argv0, 1000, NULL, 64,
					 100, clocks[i]);
		ck_assert_int_eq(fixture_log_close(&fl), 0);
	}
	ck_assert_int_eq(merge(tmp_path("logs"), NULL, &s), 0);
	db = q_open(tmp_path("logs/trace.db"));
	/* an unknown value is NULL, like every enum out of range */
	ck_assert_str_eq(q_text(db, "SELECT group_concat(ifnull(cpu_clock, "
				    "'<null>'), ',') FROM (SELECT cpu_clock "
				    "FROM processes ORDER BY pid)"),
			 "bpf,syscall,syscall,<null>");
	sqlite3_close(db);
}
END_TEST

Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("merge");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_merge_two_processes);
	tcase_add_test(tc, test_merge_deterministic);
	tcase_add_test(tc, test_merge_damaged);
	tcase_add_test(tc, test_merge_errors_leave_nothing);
	tcase_add_test(tc, test_merge_output_not_regular);
	tcase_add_test(tc, test_merge_db_mode);
	tcase_add_test(tc, test_merge_fifo_log);
	tcase_add_test(tc, test_merge_tag_counts);
	tcase_add_test(tc, test_merge_cpu_clock);
	suite_add_tcase(s, tc);
	return s;
}
