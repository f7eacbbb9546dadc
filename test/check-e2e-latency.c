/*
 * check-e2e-latency.c - end to end: latencies against what the traced
 * programs measured themselves (issue 34, item 5), and the exports'
 * clocks through timeouts and a killed server (item 4).
 *
 * lat-demo (test/rpc/lat-demo.c, lat.x) burns a known CPU time and
 * sleeps a known time in each procedure, then calls the next hop from
 * three call sites (three stubs).  Each process runs on a simulated host
 * of its own (`unshare --uts`) in the test's network namespace
 * (rpc_isolate()); they share one clock.
 *
 *   nested   the client on hostA calls hostB, which calls hostC, which
 *            calls hostD: three deep, 78 calls.  Every call's latency
 *            (latency.h: Equation 3 between the inner edges, the probes
 *            it held subtracted), the first of each call site included,
 *            is at most the wall time its client measured around the
 *            stub, and at least the wall time its server's own code
 *            measured (its burn and sleep) plus its children's
 *            latencies; `ccsg latency` per function within the same
 *            bounds; the exports' clocks aligned within 50 us of 0
 *   gave_up  the client gives up on hostB's calls (RPC_TIMEDOUT) while
 *            hostB goes on, hostB gives up on hostC's, then hostC is
 *            killed (SIGKILL) mid-call: the export's offsets stay within
 *            50 us of 0 with no call clamped, and those calls are set
 *            aside; `ccsg latency` shows no negative figure
 */
#include "e2e-latency.h"
#include "e2e-rpc.h"
#include "json-read.h"
#include "tool-run.h"

#define LAT_PROG 0x20000c62 /* test/rpc/lat.x */

/* What one program printed: its "call" and "serve" lines, in order. */
struct measured {
	struct line {
		int pid, tid;
		long long ns; /* call: wall around the stub; serve: own */
		char status[32];
	} * call, *serve;
	int ncall, nserve;
};

static void measured_add(struct measured *m, const char *path)
{
	char *text = e2e_slurp(path, NULL), *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct line l = { 0 };

		if (sscanf(line, "call pid %d tid %d ns %lld status %31s",
			   &l.pid, &l.tid, &l.ns, l.status) == 4) {
			m->call = realloc(m->call, (m->ncall + 1) * sizeof(l));
			m->call[m->ncall++] = l;
		} else if (sscanf(line, "serve pid %d tid %d own_ns %lld",
				  &l.pid, &l.tid, &l.ns) == 3) {
			m->serve =
				realloc(m->serve, (m->nserve + 1) * sizeof(l));
			m->serve[m->nserve++] = l;
		}
	}
	free(text);
}

static void measured_release(struct measured *m)
{
	free(m->call);
	free(m->serve);
}

/* The n-th (from 1) line of thread pid/tid, NULL when none. */
static const struct line *nth(const struct line *v, int nv, int pid, int tid,
			      long long n)
{
	for (int i = 0; i < nv; i++)
		if (v[i].pid == pid && v[i].tid == tid && --n == 0)
			return &v[i];
	return NULL;
}

/* Run lat-demo traced on host with args (after the program), to its
 * end, which must be exit 0; its output appended to dir/NAME.out. */
static pid_t lat_spawn(struct e2e *t, const char *host, const char *name,
		       const char *const *args)
{
	static char script[PATH_MAX * 3 + 256];
	char out[PATH_MAX];
	const char *argv[40];
	int n = 0;

	e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, name);
	e2e_fmt(script, sizeof(script),
		"hostname %s && exec env LD_PRELOAD=%s/libcausal.so "
		"CAUSAL_LOG_DIR=%s \"$@\" >> %s",
		host, e2e_build(), t->logs, out);
	argv[n++] = "/usr/bin/unshare";
	argv[n++] = "--uts";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n++] = "lat-demo"; /* $0 */
	argv[n++] = rpc_prog("lat-demo");
	for (int i = 0; args[i] && n < 39; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return e2e_spawn(argv, NULL, NULL, NULL);
}

static void lat_client(struct e2e *t, const char *host, const char *const *args)
{
	e2e_assert_exit(e2e_wait(lat_spawn(t, host, "client", args)), 0,
			"lat-demo client");
}

/* A server on host whose next hop is next (NULL: none). */
static void lat_server(struct e2e *t, struct rpc_server *s, const char *host,
		       const struct rpc_server *next)
{
	char port[16];
	const char *args[] = { "-n", port, NULL };

	snprintf(port, sizeof(port), "%d", next ? next->tcp : 0);
	rpc_server_start_prog(t, s, "lat-demo", host, 1, host,
			      next ? args : NULL);
}

/* Lines starting with prefix in file path. */
static int count_lines(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	fclose(f);
	return n;
}

/* Wait (up to 60 s) until path has n lines starting with prefix. */
static void wait_lines(const char *path, const char *prefix, int n)
{
	for (int i = 0; i < 6000 && count_lines(path, prefix) < n; i++)
		e2e_sleep_ms(10);
	ck_assert_msg(count_lines(path, prefix) >= n, "%s: fewer than %d '%s'",
		      path, n, prefix);
}

/*
 * Each LAT_PROG call of t's database against what its programs printed
 * (m): its client's wall time and its server's own; every call matched
 * by its thread and its rank on it.  Returns the calls checked.
 */
static int check_calls(struct e2e *t, const struct measured *m,
		       const struct lat_calls *lc)
{
	sqlite3_stmt *st;
	char sql[1024];
	int n = 0;

	e2e_fmt(sql, sizeof(sql),
		"SELECT c.call_id, pc.pid, tc.os_tid, row_number() OVER "
		"(PARTITION BY c.client_proc_id, c.client_tid ORDER BY "
		"c.stub_start_ns), ps.pid, ts.os_tid, row_number() OVER "
		"(PARTITION BY c.server_proc_id, c.server_tid ORDER BY "
		"c.skel_start_ns), c.status_name FROM rpc_calls c "
		"JOIN processes pc ON pc.proc_id = c.client_proc_id "
		"JOIN threads tc ON tc.proc_id = c.client_proc_id AND "
		"tc.tid = c.client_tid JOIN processes ps ON ps.proc_id "
		"= c.server_proc_id JOIN threads ts ON ts.proc_id = "
		"c.server_proc_id AND ts.tid = c.server_tid WHERE "
		"c.prog = %d ORDER BY c.call_id",
		LAT_PROG);
	ck_assert_int_eq(sqlite3_prepare_v2(t->sql, sql, -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		const struct line *wall = nth(
			m->call, m->ncall, sqlite3_column_int(st, 1),
			sqlite3_column_int(st, 2), sqlite3_column_int64(st, 3));
		const struct line *own = nth(
			m->serve, m->nserve, sqlite3_column_int(st, 4),
			sqlite3_column_int(st, 5), sqlite3_column_int64(st, 6));
		const struct ccsg_call_latency *o = lat_call(lc, id);

		ck_assert_msg(wall && own, "call %lld: no line of its programs",
			      id);
		ck_assert_str_eq(wall->status, "RPC_SUCCESS");
		ck_assert_msg(o->latency != CCSG_NONE &&
				      ccsg_call_replied(lc->call[id]),
			      "call %lld: no latency", id);
		ck_assert_msg(o->latency <= wall->ns,
			      "call %lld: latency %lld ns, its client measured "
			      "%lld ns around the stub",
			      id, (long long)o->latency, wall->ns);
		ck_assert_msg(
			o->latency >= own->ns + o->children,
			"call %lld: latency %lld ns, its server's own code "
			"measured %lld ns and its children took %lld ns",
			id, (long long)o->latency, own->ns,
			(long long)o->children);
		ck_assert(o->subtracted >= 0 && o->probes > 0 &&
			  o->uncompensated >= o->latency);
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

/* `ccsg latency --format=json` on t's database: its functions. */
static struct jval *latency_json(struct e2e *t)
{
	const char *argv[] = { tool_path("ccsg"),
			       "latency",
			       "--format=json",
			       "--db",
			       t->db,
			       NULL };
	struct tool_out r = tool_run(argv);
	struct jval *doc;

	e2e_assert_exit(r.status, 0, "ccsg latency");
	doc = json_parse(r.out, "ccsg latency --format=json");
	tool_out_release(&r);
	return doc;
}

START_TEST(test_nested)
{
	static const char *const names[] = { "hostA", "hostB", "hostC",
					     "hostD" };
	const char *args[] = { "-P",  NULL, "-c", "6",	"-b", "300", "-s",
			       "700", "-d", "2",  "-f", "3",  NULL };
	struct rpc_server s[4]; /* B, C, D */
	struct measured m = { 0 };
	struct lat_calls lc;
	struct e2e t;
	struct jval *doc;
	const struct jval *fns;
	char port[16], path[PATH_MAX];
	long long min_own = -1, max_wall = 0;

	rpc_isolate();
	e2e_init(&t);
	lat_server(&t, &s[3], names[3], NULL);
	lat_server(&t, &s[2], names[2], &s[3]);
	lat_server(&t, &s[1], names[1], &s[2]);
	snprintf(port, sizeof(port), "%d", s[1].tcp);
	args[1] = port;
	lat_client(&t, names[0], args);
	for (int i = 1; i < 4; i++)
		rpc_server_stop(&s[i]);
	e2e_merge(&t);

	for (int i = 0; i < 4; i++) {
		e2e_fmt(path, sizeof(path), "%s/%s.out", t.dir,
			i ? names[i] : "client");
		measured_add(&m, path);
	}
	/* 6 calls, 18 below them, 54 below those */
	ck_assert_int_eq(m.ncall, 78);
	lat_calls_load(&lc, t.db);
	ck_assert_int_eq(check_calls(&t, &m, &lc), 78);
	/* every process's first call of each of its call sites is there */
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(DISTINCT "
					      "client_proc_id || '/' || proc) "
					      "FROM rpc_calls"),
			 9);
	lat_calls_release(&lc);

	/* per function: within the programs' own bounds */
	for (int i = 0; i < m.ncall; i++)
		max_wall = m.call[i].ns > max_wall ? m.call[i].ns : max_wall;
	for (int i = 0; i < m.nserve; i++)
		if (min_own < 0 || m.serve[i].ns < min_own)
			min_own = m.serve[i].ns;
	doc = latency_json(&t);
	fns = json_need(doc, "functions", J_ARR, "latency");
	ck_assert_int_eq(fns->n, 3);
	for (int i = 0; i < fns->n; i++) {
		const struct jval *f = &fns->item[i];

		ck_assert(json_need(f, "max_us", J_NUM, "fn")->num * 1000 <=
			  (double)max_wall);
		ck_assert(json_need(f, "min_us", J_NUM, "fn")->num * 1000 >=
			  (double)min_own - 1);
		ck_assert(json_need(f, "uncompensated_mean_us", J_NUM, "fn")
				  ->num >=
			  json_need(f, "mean_us", J_NUM, "fn")->num);
		ck_assert(json_need(f, "subtracted_mean_us", J_NUM, "fn")->num >
			  0);
		ck_assert(json_need(f, "probes_mean_us", J_NUM, "fn")->num > 0);
	}
	json_free(doc);
	lat_assert_aligned(&t, 50 * 1000);
	measured_release(&m);
	e2e_release(&t);
}
END_TEST

START_TEST(test_gave_up)
{
	struct rpc_server b, c;
	struct e2e t;
	char port[16], cout[PATH_MAX];
	struct jval *doc;
	const struct jval *fns;
	pid_t client;

	rpc_isolate();
	e2e_init(&t);
	lat_server(&t, &c, "hostC", NULL);
	lat_server(&t, &b, "hostB", &c);
	snprintf(port, sizeof(port), "%d", b.tcp);
	e2e_fmt(cout, sizeof(cout), "%s/hostC.out", t.dir);
	/* replied calls, two of hostC's each */
	lat_client(&t, "hostA",
		   (const char *[]){ "-P", port, "-c", "12", "-b", "100", "-s",
				     "300", "-d", "1", "-f", "2", NULL });
	/* the client gives up after 50 ms, hostB sleeps 150 ms, then gives
	 * up on hostC after 30 ms, which sleeps 150 ms */
	lat_client(&t, "hostA",
		   (const char *[]){ "-P", port, "-c", "2", "-s", "150000",
				     "-d", "1", "-f", "1", "-t", "50", "-T",
				     "30", NULL });
	wait_lines(cout, "serve", 24 + 2);
	/* hostC killed in the middle of a call */
	client = lat_spawn(&t, "hostA", "client",
			   (const char *[]){ "-P", port, "-c", "1", "-s",
					     "300000", "-d", "1", "-f", "1",
					     NULL });
	wait_lines(cout, "start", 24 + 2 + 1);
	e2e_sleep_ms(50);
	rpc_server_kill(&c);
	e2e_assert_exit(e2e_wait(client), 0, "lat-demo client");
	/* more calls, hostB alone */
	lat_client(
		&t, "hostA",
		(const char *[]){ "-P", port, "-c", "6", "-b", "100", NULL });
	rpc_server_stop(&b);
	e2e_merge(&t);

	ck_assert_int_ge(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls "
					      "WHERE status_name = "
					      "'RPC_TIMEDOUT'"),
			 4);
	ck_assert_int_ge(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls "
					      "WHERE status_name = "
					      "'RPC_CANTRECV'"),
			 1);
	lat_assert_aligned(&t, 50 * 1000);
	/* hostA's and hostB's timed-out calls are set aside */
	{
		char *text;
		struct jval *chrome;
		const struct jval *hosts;
		char out[PATH_MAX + 16];

		e2e_fmt(out, sizeof(out), "%s/trace.json", t.dir);
		text = e2e_slurp(out, NULL);
		chrome = json_parse(text, "chrome");
		hosts = json_need(
			json_need(chrome, "metadata", J_OBJ, "chrome"), "hosts",
			J_ARR, "metadata");
		for (int i = 0; i < hosts->n; i++) {
			const struct jval *h = &hosts->item[i];
			const char *name =
				json_need(h, "host", J_STR, "h")->str;
			double aside =
				json_need(h, "calls_set_aside", J_NUM, "h")
					->num;

			if (!strcmp(name, "hostA"))
				ck_assert(aside >= 2);
			if (!strcmp(name, "hostB"))
				ck_assert(aside >= 4);
			ck_assert(json_need(h, "calls_used", J_NUM, "h")->num >
				  0);
		}
		json_free(chrome);
		free(text);
	}
	/* no negative or wrapped latency */
	doc = latency_json(&t);
	fns = json_need(doc, "functions", J_ARR, "latency");
	for (int i = 0; i < fns->n; i++) {
		static const char *const keys[] = { "mean_us",
						    "min_us",
						    "max_us",
						    "uncompensated_mean_us",
						    "subtracted_mean_us",
						    "probes_mean_us" };

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			double v =
				json_need(&fns->item[i], keys[k], J_NUM, "fn")
					->num;

			ck_assert_msg(v >= 0 && v < 1e9, "%s %f", keys[k], v);
		}
	}
	json_free(doc);
	e2e_release(&t);
}
END_TEST

Suite *e2e_latency_suite(void)
{
	Suite *s = suite_create("e2e-latency");
	TCase *tc = tcase_create("latency");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_nested);
	tcase_add_test(tc, test_gave_up);
	suite_add_tcase(s, tc);
	return s;
}
