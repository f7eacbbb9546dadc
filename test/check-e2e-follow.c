/*
 * check-e2e-follow.c - end to end: `tracedump merge --follow DIR --db DB`
 * (docs/tracedump.md "Following a log directory").
 *
 *   follow   a traced demo-server and two demo-clients making null calls
 *            into 1 MiB segments while the loader follows; the loader is
 *            killed with SIGKILL after its first segments and started
 *            again; SIGTERM ends it with exit 0.  Every closed segment
 *            is in loaded_segments once, rpc_calls has each call the
 *            clients made once, both sides paired (across segments and
 *            loads), and ccsg report of the followed database says what
 *            it says of a one-shot merge of the same directory.
 *   clickhouse  the same into a private clickhouse-server
 *            (clickhouse://): each closed segment one load; the loader
 *            killed with SIGKILL after its first segment and started
 *            again, the server killed mid-way and started again (the
 *            loader says so once and loses nothing).  Every closed
 *            segment is in loaded_segments of a finished load once, and
 *            ccsg report of the store says what it says of a one-shot
 *            SQLite merge of the same directory, every call's sides
 *            joined.
 *            `ccsg serve --db DB --follow --refresh 0.5` reads DB as it
 *            is written: its generation rises and the root's CPU grows.
 *   bad      DIR missing, --follow without --db, a database not made by
 *            --follow: one line, exit 1 or 2; a corrupt closed segment
 *            is named once, recorded, and the loader goes on.
 */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "clickhouse.h"
#include "e2e-rpc.h"
#include "json-read.h"
#include "serve-run.h"
#include "store-url.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
/* null calls of each client: a few segments of the server's log */
#define CALLS1 "60000"
#define CALLS2 "80000"
/* each bench reads the server's CPU before and after: 2 calls more */
#define CALLS (atoll(CALLS1) + atoll(CALLS2) + 2 * 2)

/* Start the loader following t->logs into db, env added; its pid. */
static pid_t follower_start_env(struct e2e *t, const char *db, const char *tag,
				const char *const env[])
{
	char td[PATH_MAX], out[PATH_MAX], err[PATH_MAX];
	const char *argv[] = { td,     "merge", "--follow", t->logs,
			       "--db", db,	NULL };

	e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/follow-%s.out", t->dir, tag);
	e2e_fmt(err, sizeof(err), "%s/follow-%s.err", t->dir, tag);
	return e2e_spawn(argv, env, out, err);
}

static pid_t follower_start(struct e2e *t, const char *db, const char *tag)
{
	return follower_start_env(t, db, tag, NULL);
}

/* Rows of loaded_segments (0 while the database is not there yet). */
static long long loaded(const char *db)
{
	sqlite3 *sql;
	sqlite3_stmt *st;
	long long n = 0;

	if (sqlite3_open_v2(db, &sql, SQLITE_OPEN_READONLY, NULL) ==
		    SQLITE_OK &&
	    sqlite3_prepare_v2(sql, "SELECT count(*) FROM loaded_segments", -1,
			       &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(sql);
	return n;
}

/* Closed segments (a number before .clog) in dir. */
static long long closed_segments(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	long long n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		n += len > 12 && !strcmp(de->d_name + len - 5, ".clog") &&
		     de->d_name[len - 12] == '.' &&
		     strspn(de->d_name + len - 11, "0123456789") == 6;
	}
	closedir(d);
	return n;
}

/* Wait (up to 60 s) until db has at least n segments loaded. */
static void wait_loaded(const char *db, long long n, pid_t loader)
{
	for (int i = 0; i < 1200 && loaded(db) < n; i++) {
		ck_assert_int_eq(waitpid(loader, NULL, WNOHANG), 0);
		e2e_sleep_ms(50);
	}
	ck_assert_int_ge(loaded(db), n);
}

/* `ccsg report --format=json --db db`: its stdout. */
static char *report(struct e2e *t, const char *db, const char *tag)
{
	char ccsg[PATH_MAX], out[PATH_MAX], err[PATH_MAX];
	const char *argv[] = {
		ccsg, "report", "--format=json", "--db", db, NULL
	};
	int status;

	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/report-%s.json", t->dir, tag);
	e2e_fmt(err, sizeof(err), "%s/report-%s.err", t->dir, tag);
	status = e2e_run_plain(argv, out, err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "ccsg report %s: status 0x%x: %s", db, status,
		      e2e_slurp(err, NULL));
	return e2e_slurp(out, NULL);
}

/* The text of s from after "from" up to "to" (in a static buffer k). */
static const char *between(const char *s, const char *from, const char *to,
			   int k)
{
	static char buf[2][4096];
	const char *b = strstr(s, from), *e;

	ck_assert_msg(b, "no %s in %.200s", from, s);
	b += strlen(from);
	e = strstr(b, to);
	ck_assert_msg(e, "no %s after %s", to, from);
	e2e_fmt(buf[k], sizeof(buf[k]), "%.*s", (int)(e - b), b);
	return buf[k];
}

/*
 * Two reports of one run say the same: the summary's counts, the CPU in
 * all, each node (function, thread group: calls and CPU).  The
 * nodes' ids may differ: a followed database numbers the processes in the
 * order their segments came, not by name.
 */
static void assert_reports_agree(struct e2e *t, const char *a, const char *b)
{
	const char *line;

	ck_assert_str_eq(between(a, "\"summary\": ", ", \"monitoring\"", 0),
			 between(b, "\"summary\": ", ", \"monitoring\"", 1));
	ck_assert_str_eq(between(a, "\"total_cpu_us\"", "\n", 0),
			 between(b, "\"total_cpu_us\"", "\n", 1));
	for (line = strstr(a, "\"kind\": "); line;
	     line = strstr(line + 1, "\"kind\": ")) {
		const char *node = between(line, "", "}", 0);

		ck_assert_msg(strstr(b, node), "%s/report-one.json has no %s",
			      t->dir, node);
	}
}

/* ---- into a ClickHouse store ------------------------------------------ */

#define CH_URL "clickhouse://127.0.0.1:8123/follow"
/* a client first, whose log is the first segment loaded */
#define CALLS0 "10"
#define CH_CALLS (CALLS + atoll(CALLS0) + 2)

/* A private clickhouse-server (test/clickhouse/server.sh) in t's
 * directory: its pid, once it answers. */
static pid_t chs_start(struct e2e *t)
{
	char script[PATH_MAX], dir[PATH_MAX];
	const char *src = getenv("CAUSAL_SRC");
	const char *argv[] = { "/bin/bash", script, "run", dir, "8123", NULL };
	const char *curl[] = { "/usr/bin/curl", "-sf",
			       "http://127.0.0.1:8123/?query=SELECT%201",
			       NULL };
	pid_t pid;

	e2e_fmt(script, sizeof(script), "%s/test/clickhouse/server.sh",
		src && *src ? src : ".");
	e2e_fmt(dir, sizeof(dir), "%s/clickhouse", t->dir);
	pid = e2e_spawn(argv, NULL, NULL, NULL);
	for (int i = 0; e2e_run_plain(curl, "/dev/null", "/dev/null"); i++) {
		ck_assert_msg(waitpid(pid, NULL, WNOHANG) == 0,
			      "clickhouse-server ended: see %s/stdout", dir);
		ck_assert_msg(i < 1200, "clickhouse-server did not answer");
		e2e_sleep_ms(50);
	}
	return pid;
}

/* Segments in loaded_segments of the store's finished loads (0 while
 * there is no store, -1 while the server is away). */
static long long ch_loaded(void)
{
	struct store_url u;
	struct ch_client *c;
	char why[256], *text;
	long long n = -1;

	ck_assert_int_eq(store_url_parse(CH_URL, &u, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(c = ch_open(&u));
	text = ch_select_text(c, "SELECT count(), uniqExact(name) FROM "
				 "loaded_segments WHERE load_id IN (SELECT "
				 "load_id FROM loads WHERE state = 'finished') "
				 "FORMAT TabSeparated");
	if (text) {
		const char *names = strchr(text, '\t');

		/* each once */
		ck_assert_msg(names && atoll(names + 1) == atoll(text),
			      "segments loaded twice: %s", text);
		n = atoll(text);
	} else if (strstr(ch_error(c), "loaded_segments")) {
		n = 0;
	}
	free(text);
	ch_close(c);
	return n;
}

/* The number sql's answer starts with. */
static long long ch_count(const char *sql)
{
	struct store_url u;
	struct ch_client *c;
	char why[256], *text;
	long long n;

	ck_assert_int_eq(store_url_parse(CH_URL, &u, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(c = ch_open(&u));
	text = ch_select_text(c, sql);
	ck_assert_msg(text, "%s", ch_error(c));
	n = atoll(text);
	free(text);
	ch_close(c);
	return n;
}

/* Wait (up to 60 s) until path exists. */
static void wait_file(const char *path, pid_t loader)
{
	for (int i = 0; i < 1200 && access(path, F_OK); i++) {
		ck_assert_int_eq(waitpid(loader, NULL, WNOHANG), 0);
		e2e_sleep_ms(50);
	}
	ck_assert_msg(access(path, F_OK) == 0, "no %s", path);
}

static void ch_wait_loaded(long long n, pid_t loader)
{
	for (int i = 0; i < 1200 && ch_loaded() < n; i++) {
		ck_assert_int_eq(waitpid(loader, NULL, WNOHANG), 0);
		e2e_sleep_ms(50);
	}
	ck_assert_int_ge(ch_loaded(), n);
}

/* Times what occurs in the file at path. */
static int occurrences(const char *path, const char *what)
{
	char *text = e2e_slurp(path, NULL), *p = text;
	int n = 0;

	while ((p = strstr(p, what))) {
		n++;
		p++;
	}
	free(text);
	return n;
}

START_TEST(test_clickhouse)
{
	char one[PATH_MAX], td[PATH_MAX], err2[PATH_MAX], pause[PATH_MAX];
	char pause_env[PATH_MAX + 32];
	struct rpc_server s;
	char *a, *b;
	long long n;
	struct e2e t;
	pid_t loader, server;
	sqlite3 *sql;

	if (system("bash test/clickhouse/server.sh have") != 0) {
		printf("e2e-follow: clickhouse: skipped: no clickhouse-server "
		       "(bash scripts/setup.sh)\n");
		return;
	}
	rpc_isolate();
	e2e_init(&t);
	ck_assert_int_eq(mkdir(t.logs, 0700), 0);
	setenv("CAUSAL_LOG_SEGMENT_MB", "1", 1);
	server = chs_start(&t);
	/* each load of the first loader waits at the pause file */
	e2e_fmt(pause, sizeof(pause), "%s/pause", t.dir);
	e2e_fmt(pause_env, sizeof(pause_env), "CAUSAL_TEST_LOAD_PAUSE=%s",
		pause);
	loader = follower_start_env(&t, CH_URL, "ch1",
				    (const char *const[]){ pause_env, NULL });
	rpc_server_start(&t, &s, "server", 1, NULL, NULL);
	rpc_client(&t, "c0", 1,
		   ARGS("-P", rpc_port(s.tcp), "bench", "null", CALLS0), 0,
		   NULL);
	wait_file(pause, loader);
	unlink(pause);
	ch_wait_loaded(1, loader);
	rpc_client(&t, "c1", 1,
		   ARGS("-P", rpc_port(s.tcp), "bench", "null", CALLS1), 0,
		   NULL);
	/* killed after its first segment, in the middle of its second
	 * load: a load not finished is not read, and the next loader loads
	 * that segment again */
	wait_file(pause, loader);
	kill(loader, SIGKILL);
	e2e_wait(loader);
	loader = follower_start(&t, CH_URL, "ch2");
	/* the server away mid-way: the loader says so once and waits */
	kill(server, SIGKILL);
	e2e_wait(server);
	rpc_client(&t, "c2", 1,
		   ARGS("-P", rpc_port(s.tcp), "bench", "null", CALLS2), 0,
		   NULL);
	rpc_server_stop(&s);
	e2e_fmt(err2, sizeof(err2), "%s/follow-ch2.err", t.dir);
	for (int i = 0; i < 1200 && !occurrences(err2, "retrying"); i++)
		e2e_sleep_ms(50);
	server = chs_start(&t);
	n = closed_segments(t.logs);
	ck_assert_int_ge(n, 5);
	ch_wait_loaded(n, loader);
	kill(loader, SIGTERM);
	e2e_assert_exit(e2e_wait(loader), 0, "tracedump merge --follow");
	ck_assert_int_eq(ch_loaded(), n);
	ck_assert_int_eq(occurrences(err2, "retrying"), 1);
	ck_assert_int_eq(ch_count("SELECT countIf(state = 'started') - "
				  "countIf(state = 'finished') FROM loads"),
			 1);

	/* a one-shot merge of the same directory: every call once, both
	 * sides; the store says the same of it */
	e2e_fmt(one, sizeof(one), "%s/one.db", t.dir);
	e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
	e2e_assert_exit(e2e_run_plain(ARGS(td, "merge", t.logs, "-o", one),
				      "/dev/null", "/dev/null"),
			0, "tracedump merge");
	ck_assert_int_eq(sqlite3_open_v2(one, &sql, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(e2e_query_int(sql, "SELECT count(*) FROM rpc_calls "
					    "WHERE missing IS NULL"),
			 CH_CALLS);
	sqlite3_close(sql);
	a = report(&t, CH_URL, "ch");
	b = report(&t, one, "one");
	ck_assert_msg(
		strstr(a, rpc_q("\"calls\": %lld, ", (long long)CH_CALLS)) &&
			strstr(a, "\"calls_without_server\": 0, "
				  "\"calls_without_client\": 0, "
				  "\"incomplete_calls\": 0,"),
		"%.400s", a);
	assert_reports_agree(&t, a, b);
	free(a);
	free(b);
	kill(server, SIGKILL);
	e2e_wait(server);
	e2e_release(&t);
}
END_TEST

/* serve --follow's generation (/api/info) and the CCSG root's total. */
static void serve_state(const struct server *sv, double *generation,
			double *total)
{
	struct jval *info = http_json(sv->port, "GET", "/api/info", 200);
	struct jval *root =
		http_json(sv->port, "GET", "/api/node?tree=ccsg&id=n0", 200);
	const struct jval *f = json_need(info, "follow", J_OBJ, "/api/info");

	*generation = json_need(f, "generation", J_NUM, "follow")->num;
	*total = json_need(root, "total", J_NUM, "/api/node")->num;
	json_free(info);
	json_free(root);
}

START_TEST(test_follow)
{
	char db[PATH_MAX], one[PATH_MAX], td[PATH_MAX];
	double gen0, total0, gen = 0, total = 0;
	struct server sv;
	struct rpc_server s;
	char *a, *b;
	long long n;
	struct e2e t;
	pid_t loader;
	sqlite3 *sql;

	rpc_isolate();
	e2e_init(&t);
	ck_assert_int_eq(mkdir(t.logs, 0700), 0);
	setenv("CAUSAL_LOG_SEGMENT_MB", "1", 1);
	e2e_fmt(db, sizeof(db), "%s/follow.db", t.dir);
	loader = follower_start(&t, db, "1");
	rpc_server_start(&t, &s, "server", 1, NULL, NULL);
	rpc_client(&t, "c1", 1,
		   ARGS("-P", rpc_port(s.tcp), "bench", "null", CALLS1), 0,
		   NULL);
	/* killed mid-way: what it committed stays, the rest is loaded by
	 * the next one, once */
	wait_loaded(db, 1, loader);
	/* the reader of the other half, refreshing as segments load */
	serve_start_with(
		&sv, db,
		(const char *const[]){ "--follow", "--refresh", "0.5", NULL });
	serve_state(&sv, &gen0, &total0);
	kill(loader, SIGKILL);
	e2e_wait(loader);
	loader = follower_start(&t, db, "2");
	rpc_client(&t, "c2", 1,
		   ARGS("-P", rpc_port(s.tcp), "bench", "null", CALLS2), 0,
		   NULL);
	rpc_server_stop(&s);
	n = closed_segments(t.logs);
	ck_assert_int_ge(n, 5);
	wait_loaded(db, n, loader);
	kill(loader, SIGTERM);
	e2e_assert_exit(e2e_wait(loader), 0, "tracedump merge --follow");
	ck_assert_int_eq(loaded(db), n);
	/* serve saw the commits (WAL: PRAGMA data_version) */
	for (int i = 0; i < 600; i++) {
		serve_state(&sv, &gen, &total);
		if (gen > gen0 && total > total0)
			break;
		e2e_sleep_ms(100);
	}
	ck_assert_msg(gen > gen0 && total > total0,
		      "serve --follow: generation %g -> %g, total %g -> %g",
		      gen0, gen, total0, total);
	ck_assert_int_eq(serve_stop(&sv, SIGTERM), 0);

	ck_assert_int_eq(sqlite3_open_v2(db, &sql, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	/* every call once, both sides: none missed, none twice */
	ck_assert_int_eq(e2e_query_int(sql, "SELECT count(*) FROM rpc_calls"),
			 CALLS);
	ck_assert_int_eq(e2e_query_int(sql, "SELECT count(*) FROM rpc_calls "
					    "WHERE missing IS NULL AND "
					    "stub_end_event IS NOT NULL AND "
					    "skel_end_event IS NOT NULL"),
			 CALLS);
	/* the server's log came in several segments */
	ck_assert_int_ge(e2e_query_int(sql, "SELECT max(segments) FROM "
					    "processes"),
			 2);
	ck_assert_int_eq(e2e_query_int(sql, "SELECT count(*) FROM processes"),
			 3);
	ck_assert_int_eq(e2e_query_int(sql, "SELECT count(*) FROM processes "
					    "WHERE complete = 1"),
			 3);
	sqlite3_close(sql);

	/* a one-shot merge of the same directory says the same */
	e2e_fmt(one, sizeof(one), "%s/one.db", t.dir);
	e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
	e2e_assert_exit(e2e_run_plain(ARGS(td, "merge", t.logs, "-o", one),
				      "/dev/null", "/dev/null"),
			0, "tracedump merge");
	a = report(&t, db, "follow");
	b = report(&t, one, "one");
	assert_reports_agree(&t, a, b);
	free(a);
	free(b);
	e2e_release(&t);
}
END_TEST

/* tracedump with argv (after its name): exit status; stderr in *err. */
static int tracedump(struct e2e *t, const char *const args[], char **err)
{
	char td[PATH_MAX], out[PATH_MAX], errf[PATH_MAX];
	const char *argv[16] = { td };
	int status;

	for (int i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/td.out", t->dir);
	e2e_fmt(errf, sizeof(errf), "%s/td.err", t->dir);
	status = e2e_run_plain(argv, out, errf);
	*err = e2e_slurp(errf, NULL);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* One line on stderr, holding what. */
static void assert_one_line(char *err, const char *what)
{
	ck_assert_msg(strstr(err, what) && strchr(err, '\n') &&
			      !strchr(err, '\n')[1],
		      "stderr: %s", err);
	free(err);
}

START_TEST(test_bad)
{
	char db[PATH_MAX], one[PATH_MAX], bad[PATH_MAX], missing[PATH_MAX];
	const char *argv[] = { e2e_prog("locks"), "1000", NULL };
	const char *env[] = { "CAUSAL_LOG_SEGMENT_MB=1", NULL };
	char *err, *out;
	struct e2e t;
	pid_t loader;

	e2e_init(&t);
	e2e_fmt(db, sizeof(db), "%s/follow.db", t.dir);
	e2e_fmt(missing, sizeof(missing), "%s/nothing", t.dir);
	ck_assert_int_eq(
		tracedump(&t, ARGS("merge", "--follow", missing, "--db", db),
			  &err),
		1);
	assert_one_line(err, "does not exist");
	ck_assert_int_eq(tracedump(&t, ARGS("merge", "--follow", t.dir), &err),
			 2);
	ck_assert_ptr_nonnull(strstr(err, "--follow needs --db"));
	free(err);
	ck_assert_int_eq(tracedump(&t,
				   ARGS("merge", "--follow", t.dir, "--db",
					"clickhouse://localhost/no-such-name"),
				   &err),
			 1);
	assert_one_line(err, "no-such-name");

	/* a closed segment, and a damaged one beside it */
	e2e_assert_exit(e2e_run_traced(&t, argv, env, "/dev/null", "/dev/null"),
			0, "locks");
	ck_assert_int_eq(closed_segments(t.logs), 1);
	e2e_fmt(bad, sizeof(bad),
		"%s/vm.1.0123456789abcdef0123456789abcdef.000001.clog", t.logs);
	ck_assert_int_eq(system(rpc_q("echo not a log > '%s'", bad)), 0);
	e2e_fmt(one, sizeof(one), "%s/one.db", t.dir);
	ck_assert_int_eq(tracedump(&t, ARGS("merge", t.logs, "-o", one), &err),
			 0);
	free(err);
	/* a database --follow did not make is not added to */
	ck_assert_int_eq(
		tracedump(&t, ARGS("merge", "--follow", t.logs, "--db", one),
			  &err),
		1);
	assert_one_line(err, "not made by tracedump merge --follow");

	loader = follower_start(&t, db, "bad");
	wait_loaded(db, 2, loader);
	kill(loader, SIGTERM);
	e2e_assert_exit(e2e_wait(loader), 0, "tracedump merge --follow");
	err = e2e_slurp(rpc_q("%s/follow-bad.err", t.dir), NULL);
	assert_one_line(err, "vm.1.0123456789abcdef0123456789abcdef.000001."
			     "clog' is corrupt");
	out = e2e_slurp(rpc_q("%s/follow-bad.out", t.dir), NULL);
	ck_assert_msg(strstr(out, "segments loaded: 2 (1 damaged)"), "%s", out);
	free(out);
	e2e_release(&t);
}
END_TEST

Suite *e2e_follow_suite(void)
{
	Suite *s = suite_create("e2e-follow");
	TCase *tc = tcase_create("follow");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_follow);
	tcase_add_test(tc, test_clickhouse);
	tcase_add_test(tc, test_bad);
	suite_add_tcase(s, tc);
	return s;
}
