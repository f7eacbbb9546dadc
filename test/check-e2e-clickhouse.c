/*
 * check-e2e-clickhouse.c - end to end: traces loaded into a real
 * clickhouse-server (Debian's, started by the test in its own network
 * namespace, port 8123 there, its data in the test's directory, stopped
 * by PID) by `tracedump merge DIR --db clickhouse://...`, then read back
 * by ccsg.  The store must give what one SQLite merge of the same logs
 * gives: the outputs of `ccsg report`, `latency`, `impact`, `dscg` and `export`
 * are compared byte for byte (the trace's name aside), which compares
 * the call graph node by node.
 *
 *   figure1     Figure 1 on four hosts, its logs loaded by two loaders
 *               at the same time, each on a simulated host of its own
 *               (unshare --uts; hosts A+B, hosts C+D): the calls
 *               between them are joined when the store is read; loading
 *               the same logs again adds nothing
 *   two_hosts   the same programs in two server processes, one loader
 *               per host
 *   interrupted a load stopped after rpc_calls by killing the server:
 *               nothing of it is read; the load again: all of it, once
 *   scale       50,000 synthetic calls (bench-scale's generator: 4 hosts,
 *               8 processes, thread spawns) loaded host by host
 *   cluster     two servers, two shards of a cluster, the tables of
 *               `tracedump schema --cluster` on both: 20,000 synthetic
 *               calls loaded through one, on both shards (a chain on
 *               one), loaded again (nothing added), and `ccsg report
 *               --workers 1, 2, 3` through the other equal to SQLite's
 *   every_table the dining philosophers with locks on and spike-matmul
 *               under a CPU policy: every table's rows in the store, and
 *               `ccsg spikes` and `ccsg pes` of a thread equal SQLite's
 *   errors      no server, an unknown scheme, a wrong password, a
 *               database that is not a causal store or is of another
 *               schema, a refused insert (a read-only user), a store
 *               without a finished load: one line, a non-zero exit
 *
 * Without clickhouse-server (scripts/setup.sh installs it) each test
 * says so in one line and passes.
 */

#include "clickhouse.h"
#include "cpu-first.h"
#include "e2e-figure1.h"

#define CH_PORT 8123
#define CH_URL(db) "clickhouse://127.0.0.1:8123/" db

struct chs {
	char dir[PATH_MAX];
	pid_t pid;
	int port; /* HTTP; 0: CH_PORT */
};

static const char *src_dir(void)
{
	const char *s = getenv("CAUSAL_SRC");

	return s && *s ? s : ".";
}

static int ch_installed(void)
{
	if (access("/usr/bin/clickhouse-server", X_OK) == 0 ||
	    access("/usr/sbin/clickhouse-server", X_OK) == 0 ||
	    access("/usr/bin/clickhouse", X_OK) == 0)
		return 1;
	printf("e2e-clickhouse: skipped: clickhouse-server is not installed "
	       "(bash scripts/setup.sh)\n");
	fflush(stdout);
	return 0;
}

/* Run sql on the server at port (database db; NULL: none needed). */
static char *ch_sql_at(int port, const char *db, const char *sql)
{
	struct store_url u;
	struct ch_client *c;
	char why[256], url[128], *text;

	e2e_fmt(url, sizeof(url), "clickhouse://127.0.0.1:%d/%s", port,
		db ? db : "default");
	ck_assert_msg(store_url_parse(url, &u, why, sizeof(why)) == 0, "%s",
		      why);
	c = ch_open(&u);
	ck_assert(c);
	text = ch_select_text(c, sql);
	ck_assert_msg(text, "%s: %s", sql, ch_error(c));
	ch_close(c);
	return text;
}

/* ... on the test's server. */
static char *ch_sql(const char *db, const char *sql)
{
	return ch_sql_at(CH_PORT, db, sql);
}

static long long ch_count_at(int port, const char *db, const char *sql)
{
	char *text = ch_sql_at(port, db, sql);
	long long n = atoll(text);

	free(text);
	return n;
}

static long long ch_count(const char *db, const char *sql)
{
	char *text = ch_sql(db, sql);
	long long n = atoll(text);

	free(text);
	return n;
}

/* Start the server (again: its data stays in dir) and wait for it. */
static void chs_start(struct e2e *t, struct chs *s)
{
	char script[PATH_MAX], port[16];
	const char *argv[] = { "/bin/bash", script, "run", s->dir, port, NULL };

	char ping[64];

	if (!s->dir[0])
		e2e_fmt(s->dir, sizeof(s->dir), "%s/clickhouse", t->dir);
	if (!s->port)
		s->port = CH_PORT;
	e2e_fmt(script, sizeof(script), "%s/test/clickhouse/server.sh",
		src_dir());
	e2e_fmt(port, sizeof(port), "%d", s->port);
	e2e_fmt(ping, sizeof(ping), "http://127.0.0.1:%d/?query=SELECT%%201",
		s->port);
	s->pid = e2e_spawn(argv, NULL, NULL, NULL);
	for (int i = 0;; i++) {
		char out[PATH_MAX];
		const char *curl[] = { "/usr/bin/curl", "-sf", ping, NULL };
		int status;

		e2e_fmt(out, sizeof(out), "%s/curl.out", t->dir);
		if (e2e_run_plain(curl, out, NULL) == 0)
			return;
		ck_assert_msg(waitpid(s->pid, &status, WNOHANG) == 0,
			      "clickhouse-server ended (status 0x%x): see "
			      "%s/stdout",
			      status, s->dir);
		ck_assert_msg(i < 1200, "clickhouse-server did not answer "
					"in 60 s");
		e2e_sleep_ms(50);
	}
}

static void chs_stop(struct chs *s)
{
	if (s->pid <= 0)
		return;
	kill(s->pid, SIGKILL);
	e2e_wait(s->pid);
	s->pid = 0;
}

/* ---- running the tools -------------------------------------------------- */

struct run {
	int status;
	char *out, *err;
};

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

static struct run run_tool(struct e2e *t, const char *tool,
			   const char *const args[], const char *const env[])
{
	static int n;
	char path[PATH_MAX], out[PATH_MAX], err[PATH_MAX];
	const char *argv[24];
	struct run r;
	int k = 0;

	e2e_fmt(path, sizeof(path), "%s/%s", e2e_build(), tool);
	argv[k++] = path;
	for (int i = 0; args[i] && k < 23; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	e2e_fmt(out, sizeof(out), "%s/run%d.out", t->dir, n);
	e2e_fmt(err, sizeof(err), "%s/run%d.err", t->dir, n++);
	r.status = e2e_wait(e2e_spawn(argv, env, out, err));
	r.out = e2e_slurp(out, NULL);
	r.err = e2e_slurp(err, NULL);
	return r;
}

/* `tracedump merge dir --db url` must succeed; its stdout. */
static char *load(struct e2e *t, const char *dir, const char *url)
{
	const char *args[] = { "merge", dir, "--db", url, NULL };
	struct run r = run_tool(t, "tracedump", args, NULL);

	ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		      "tracedump merge %s --db %s: status 0x%x: %s", dir, url,
		      r.status, r.err);
	free(r.err);
	return r.out;
}

/* The tool must fail with one line on stderr holding each of want[]. */
static void assert_refused(struct e2e *t, const char *tool,
			   const char *const args[], const char *const want[])
{
	struct run r = run_tool(t, tool, args, NULL);
	char *nl = strchr(r.err, '\n');

	ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0,
		      "%s %s %s: should fail, status 0x%x", tool, args[0],
		      args[1], r.status);
	ck_assert_msg(nl && !nl[1], "%s %s: one line of error expected: '%s'",
		      tool, args[0], r.err);
	for (int i = 0; want[i]; i++) {
		int found = 0;

		for (const char *p = r.err; *p && !found; p++)
			found = !strncasecmp(p, want[i], strlen(want[i]));
		ck_assert_msg(found, "%s %s: '%s' should say '%s'", tool,
			      args[0], r.err, want[i]);
	}
	printf("e2e-clickhouse: %s %s refused: %s", tool, args[0], r.err);
	fflush(stdout);
	run_free(&r);
}

/* Every occurrence of name in text replaced by "<trace>" (in place). */
static void unname(char *text, const char *name)
{
	size_t n = strlen(name);
	char *p;

	while ((p = strstr(text, name))) {
		memcpy(p, "<trace>", 7);
		memmove(p + 7, p + n, strlen(p + n) + 1);
	}
}

/*
 * ccsg cmd on the SQLite database and cmd_store (cmd when NULL) on the
 * store: the same output, the trace's name aside.
 */
static void assert_same_as(struct e2e *t, const char *db, const char *url,
			   const char *const cmd[],
			   const char *const cmd_store[])
{
	const char *args[12];
	struct run r[2];

	for (int side = 0; side < 2; side++) {
		const char *const *c = side && cmd_store ? cmd_store : cmd;
		int k = 0;

		for (int i = 0; c[i] && k < 9; i++)
			args[k++] = c[i];
		args[k++] = "--db";
		args[k++] = side ? url : db;
		args[k] = NULL;
		r[side] = run_tool(t, "ccsg", args, NULL);
		ck_assert_msg(WIFEXITED(r[side].status) &&
				      WEXITSTATUS(r[side].status) == 0,
			      "ccsg %s --db %s: %s", c[0], side ? url : db,
			      r[side].err);
		unname(r[side].out, side ? url : db);
	}
	ck_assert_msg(strlen(r[0].out) > 100, "ccsg %s: little output: %s",
		      cmd[0], r[0].out);
	if (strcmp(r[0].out, r[1].out)) {
		size_t i = 0;

		while (r[0].out[i] == r[1].out[i])
			i++;
		ck_abort_msg("ccsg %s %s: the store's output differs from "
			     "SQLite's at byte %zu: '%.80s' vs '%.80s'",
			     cmd[0], cmd[1] ? cmd[1] : "", i, r[0].out + i,
			     r[1].out + i);
	}
	run_free(&r[0]);
	run_free(&r[1]);
}

static void assert_same(struct e2e *t, const char *db, const char *url,
			const char *const cmd[])
{
	assert_same_as(t, db, url, cmd, NULL);
}

static void assert_all_same(struct e2e *t, const char *db, const char *url)
{
	static const char *const cmds[][6] = {
		{ "report", "--format=json", NULL },
		{ "impact", "--change",
		  "reduction on all by 20% to function { *::* }",
		  "--format=json", NULL },
		{ "report", "--format=text", NULL },
		{ "report", "--resource=memory", "--format=json", NULL },
		{ "latency", "--format=json", NULL },
		{ "dscg", "--format=json", NULL },
		{ "export", "--format=folded", NULL },
		{ "export", "--format=folded", "--weight=latency", NULL },
		{ "export", "--format=otlp", NULL },
		{ "export", "--format=chrome", NULL },
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(*cmds); i++)
		assert_same(t, db, url, cmds[i]);
}

/*
 * Link the logs of t->logs whose host (the name's first field) is one
 * of hosts (space-separated) into dir; returns how many.
 */
static int split_logs(const char *from, const char *dir, const char *hosts)
{
	DIR *d = opendir(from);
	struct dirent *e;
	int n = 0;

	ck_assert_msg(d, "cannot open '%s'", from);
	ck_assert_msg(mkdir(dir, 0755) == 0 || errno == EEXIST, "mkdir %s",
		      dir);
	while ((e = readdir(d))) {
		char host[128], a[PATH_MAX], b[PATH_MAX], key[130];
		const char *dot = strchr(e->d_name, '.');

		if (!dot || !strstr(e->d_name, CAUSAL_LOG_SUFFIX) ||
		    (size_t)(dot - e->d_name) >= sizeof(host))
			continue;
		memcpy(host, e->d_name, (size_t)(dot - e->d_name));
		host[dot - e->d_name] = '\0';
		e2e_fmt(key, sizeof(key), " %s ", host);
		{
			char list[256];

			e2e_fmt(list, sizeof(list), " %s ", hosts);
			if (!strstr(list, key))
				continue;
		}
		e2e_fmt(a, sizeof(a), "%s/%s", from, e->d_name);
		e2e_fmt(b, sizeof(b), "%s/%s", dir, e->d_name);
		ck_assert_msg(link(a, b) == 0, "link %s: %s", b,
			      strerror(errno));
		n++;
	}
	closedir(d);
	return n;
}

/* Load the groups of hosts from t->logs, each by its own loader, all at
 * once; returns when all are done. */
static void load_groups(struct e2e *t, const char *url,
			const char *const groups[], int n)
{
	pid_t pids[8];
	char dirs[8][PATH_MAX], outs[8][PATH_MAX], errs[8][PATH_MAX];
	char scripts[8][PATH_MAX + 64], hosts[8][32], td[PATH_MAX];

	e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
	for (int i = 0; i < n; i++) {
		/* each loader on a simulated host of its own */
		const char *argv[] = { "/usr/bin/unshare", "--uts",
				       "/bin/sh",	   "-c",
				       scripts[i],	   NULL };

		e2e_fmt(dirs[i], PATH_MAX, "%s/load%d", t->dir, i);
		e2e_fmt(outs[i], PATH_MAX, "%s/load%d.out", t->dir, i);
		e2e_fmt(errs[i], PATH_MAX, "%s/load%d.err", t->dir, i);
		e2e_fmt(hosts[i], sizeof(hosts[i]), "loader%d", i);
		e2e_fmt(scripts[i], sizeof(scripts[i]),
			"hostname %s && exec %s merge %s --db %s", hosts[i], td,
			dirs[i], url);
		ck_assert_msg(split_logs(t->logs, dirs[i], groups[i]) > 0,
			      "no logs of %s", groups[i]);
		pids[i] = e2e_spawn(argv, NULL, outs[i], errs[i]);
	}
	for (int i = 0; i < n; i++) {
		int status = e2e_wait(pids[i]);
		char *out = e2e_slurp(outs[i], NULL);

		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "loader of %s: status 0x%x: %s", groups[i],
			      status, e2e_slurp(errs[i], NULL));
		ck_assert_msg(strstr(out, "\nload:            ") &&
				      !strstr(out, "load:            none"),
			      "loader of %s loaded nothing: %s", groups[i],
			      out);
		free(out);
	}
	/* the loads say where they ran */
	for (int i = 0; i < n; i++) {
		char sql[160], *db = strrchr(url, '/') + 1;

		e2e_fmt(sql, sizeof(sql),
			"SELECT count() FROM loads WHERE state = 'finished' "
			"AND loader_host = '%s'",
			hosts[i]);
		ck_assert_int_eq(ch_count(db, sql), 1);
	}
}

/* Every table's rows in the store, summed. */
static long long store_rows(const char *db)
{
	return ch_count(db, "SELECT (SELECT count() FROM rpc_calls) + "
			    "(SELECT count() FROM threads) + (SELECT count() "
			    "FROM processes) + (SELECT count() FROM files)");
}

/*
 * Deployment d of Figure 1 run and merged into t, a server started, and
 * its logs loaded into url by one loader per group of hosts at once.
 */
static void fig1_in_store(struct e2e *t, struct fig1_deploy *d, struct chs *s,
			  const char *url, const char *const groups[], int n)
{
	rpc_isolate();
	e2e_init(t);
	fig1_run(t, d);
	chs_start(t, s);
	load_groups(t, url, groups, n);
}

/* ---- the tests ---------------------------------------------------------- */

START_TEST(test_figure1)
{
	static const char *const groups[] = { "hostA hostB", "hostC hostD" };
	struct fig1_deploy d = fig1_four_hosts;
	struct chs s = { 0 };
	struct e2e t;
	long long rows;

	if (!ch_installed())
		return;
	fig1_in_store(&t, &d, &s, CH_URL("fig1"), groups, 2);
	ck_assert_int_eq(ch_count("fig1", "SELECT count() FROM loads WHERE "
					  "state = 'finished'"),
			 2);
	/* the calls from A to C and D have their sides in two loads */
	ck_assert_int_ge(ch_count("fig1", "SELECT count() FROM rpc_calls "
					  "WHERE missing = 'server'"),
			 4);
	assert_all_same(&t, t.db, CH_URL("fig1"));

	/* the same logs again, by one loader: nothing added */
	rows = store_rows("fig1");
	{
		char dir[PATH_MAX], *out;

		e2e_fmt(dir, sizeof(dir), "%s/load0", t.dir);
		out = load(&t, dir, CH_URL("fig1"));
		ck_assert_msg(strstr(out, "load:            none"),
			      "a second load of the same logs: %s", out);
		free(out);
		out = load(&t, t.logs, CH_URL("fig1"));
		ck_assert_msg(strstr(out, "load:            none"),
			      "all the logs again: %s", out);
		free(out);
	}
	ck_assert_int_eq(store_rows("fig1"), rows);
	ck_assert_int_eq(ch_count("fig1", "SELECT count() FROM loads WHERE "
					  "state = 'finished'"),
			 2);
	assert_same(&t, t.db, CH_URL("fig1"),
		    (const char *const[]){ "report", "--format=json", NULL });
	chs_stop(&s);
	e2e_release(&t);
}
END_TEST

START_TEST(test_two_hosts)
{
	static const char *const groups[] = { "hostAB", "hostCD" };
	struct fig1_deploy d = fig1_two_hosts;
	struct chs s = { 0 };
	struct e2e t;

	if (!ch_installed())
		return;
	fig1_in_store(&t, &d, &s, CH_URL("two"), groups, 2);
	assert_all_same(&t, t.db, CH_URL("two"));
	chs_stop(&s);
	e2e_release(&t);
}
END_TEST

START_TEST(test_interrupted)
{
	struct fig1_deploy d = fig1_two_hosts;
	struct chs s = { 0 };
	char pause[PATH_MAX], env_pause[PATH_MAX + 32], td[PATH_MAX];
	char out[PATH_MAX], err[PATH_MAX], *text;
	struct e2e t;
	int status;
	pid_t loader;

	if (!ch_installed())
		return;
	rpc_isolate();
	e2e_init(&t);
	fig1_run(&t, &d);
	chs_start(&t, &s);

	e2e_fmt(pause, sizeof(pause), "%s/paused", t.dir);
	e2e_fmt(env_pause, sizeof(env_pause), "CAUSAL_TEST_LOAD_PAUSE=%s",
		pause);
	e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/cut.out", t.dir);
	e2e_fmt(err, sizeof(err), "%s/cut.err", t.dir);
	{
		const char *argv[] = { td,     "merge",	      t.logs,
				       "--db", CH_URL("cut"), NULL };
		const char *env[] = { env_pause, NULL };

		loader = e2e_spawn(argv, env, out, err);
	}
	/* rpc_calls is in; the server dies before the load finishes */
	rpc_wait_file(pause, loader);
	ck_assert_int_gt(ch_count("cut", "SELECT count() FROM rpc_calls"), 0);
	chs_stop(&s);
	unlink(pause);
	status = e2e_wait(loader);
	text = e2e_slurp(err, NULL);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1 &&
			      strstr(text, CH_URL("cut")) &&
			      strchr(text, '\n') == text + strlen(text) - 1,
		      "a load whose server died: status 0x%x, '%s'", status,
		      text);
	printf("e2e-clickhouse: the load cut short: %s", text);
	free(text);

	chs_start(&t, &s);
	/* what it wrote is there, and is not read */
	ck_assert_int_gt(ch_count("cut", "SELECT count() FROM rpc_calls"), 0);
	assert_refused(
		&t, "ccsg",
		(const char *const[]){ "report", "--db", CH_URL("cut"), NULL },
		(const char *const[]){ CH_URL("cut"), "no finished load",
				       NULL });
	/* again: everything, once */
	free(load(&t, t.logs, CH_URL("cut")));
	ck_assert_int_eq(ch_count("cut", "SELECT count() FROM loads WHERE "
					 "state = 'finished'"),
			 1);
	ck_assert_int_eq(
		ch_count("cut", "SELECT count() FROM rpc_calls WHERE "
				"load_id IN (SELECT load_id FROM "
				"loads WHERE state = 'finished')"),
		e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls"));
	assert_all_same(&t, t.db, CH_URL("cut"));
	chs_stop(&s);
	e2e_release(&t);
}
END_TEST

/* Synthetic logs of calls calls on 4 hosts into t->logs. */
static void gen_logs(struct e2e *t, const char *calls)
{
	char gen[PATH_MAX], out[PATH_MAX];
	const char *argv[] = { gen, t->logs, calls, NULL };

	e2e_fmt(gen, sizeof(gen), "%s/bench/gen-rpc-logs", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/gen.out", t->dir);
	ck_assert_msg(e2e_run_plain(argv, out, NULL) == 0, "gen-rpc-logs");
}

START_TEST(test_scale)
{
	static const char *const groups[] = { "host0 host1", "host2", "host3" };
	struct chs s = { 0 };
	struct e2e t;
	char td[PATH_MAX];

	if (!ch_installed())
		return;
	rpc_isolate();
	e2e_init(&t);
	gen_logs(&t, "50000");
	{
		const char *argv[] = { td, "merge", t.logs, NULL };

		e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
		ck_assert_int_eq(e2e_run_plain(argv, NULL, NULL), 0);
	}
	chs_start(&t, &s);
	load_groups(&t, CH_URL("scale"), groups, 3);
	assert_same(&t, t.db, CH_URL("scale"),
		    (const char *const[]){ "report", "--format=json", NULL });
	assert_same(&t, t.db, CH_URL("scale"),
		    (const char *const[]){ "export", "--format=folded", NULL });
	/* some 130 MB of spans: past the spill's budget */
	assert_same(&t, t.db, CH_URL("scale"),
		    (const char *const[]){ "export", "--format=otlp", NULL });
	assert_same(&t, t.db, CH_URL("scale"),
		    (const char *const[]){ "latency", "--format=json", NULL });
	assert_same(&t, t.db, CH_URL("scale"),
		    (const char *const[]){
			    "impact", "--change",
			    "reduction on all by 20% to function { *::* }",
			    "--change",
			    "increase on processor { host1 } by 50% to "
			    "function { *::* }",
			    "--format=json", NULL });
	{
		/* the streamed reader, 512 sides a range (each chain, of
		 * some 3,000, cut in ranges), two chains a page: the same
		 * report */
		const char *env[] = { "CAUSAL_TEST_STORE_BATCH=512",
				      "CAUSAL_TEST_STORE_PAGE=2", NULL };
		const char *args[] = { "report", "--format=json", "--db",
				       CH_URL("scale"), NULL };
		struct run one = run_tool(&t, "ccsg", args, env);
		struct run all = run_tool(&t, "ccsg", args, NULL);

		ck_assert_msg(WIFEXITED(one.status) &&
				      WEXITSTATUS(one.status) == 0,
			      "%s", one.err);
		ck_assert_str_eq(one.out, all.out);
		run_free(&one);
		run_free(&all);
	}
	/*
	 * monitoring switched while the calls ran (a cut in each client
	 * loop, the 4th call served without cpu), in both: the store's
	 * report names the same cut calls as SQLite's, read one chain a
	 * range (the copy's last range is not where the cuts are) and by
	 * two workers
	 */
	{
		static const char update[] =
			"server_mon = 'semantics|latency' WHERE "
			"skel_start_event = 11";
		const char *env[] = { "CAUSAL_TEST_STORE_BATCH=512", NULL };
		const char *args[] = { "report", "--db", CH_URL("scale"),
				       NULL };
		struct run r;
		char sql[160];
		int i;

		e2e_fmt(sql, sizeof(sql), "ALTER TABLE rpc_calls UPDATE %s",
			update);
		free(ch_sql("scale", sql));
		for (i = 0; ch_count("scale", "SELECT count() FROM "
					      "system.mutations WHERE "
					      "database = 'scale' AND "
					      "is_done = 0") > 0;
		     i++) {
			ck_assert_msg(i < 600,
				      "the update did not end in 60 s");
			e2e_sleep_ms(100);
		}
		ck_assert_int_eq(ch_count("scale", "SELECT count() FROM "
						   "rpc_calls WHERE server_mon "
						   "= 'semantics|latency'"),
				 32);
		ck_assert_int_eq(sqlite3_open(t.db, &t.sql), SQLITE_OK);
		e2e_fmt(sql, sizeof(sql), "UPDATE rpc_calls SET %s", update);
		ck_assert_int_eq(sqlite3_exec(t.sql, sql, NULL, NULL, NULL),
				 SQLITE_OK);
		r = run_tool(&t, "ccsg", args, env);
		ck_assert_msg(strstr(r.out, "chains cut by a switch: 32"), "%s",
			      r.out);
		run_free(&r);
		assert_same(&t, t.db, CH_URL("scale"),
			    (const char *const[]){ "report", NULL });
		assert_same_as(&t, t.db, CH_URL("scale"),
			       (const char *const[]){ "report", "--format=json",
						      NULL },
			       (const char *const[]){ "report", "--format=json",
						      "--workers", "2", NULL });
		{
			/* 512 sides a range: the same cuts */
			const char *rargs[] = { "report", "--format=json",
						"--db", CH_URL("scale"), NULL };
			struct run one = run_tool(&t, "ccsg", rargs, env);
			struct run all = run_tool(&t, "ccsg", rargs, NULL);

			ck_assert_str_eq(one.out, all.out);
			run_free(&one);
			run_free(&all);
		}
	}
	chs_stop(&s);
	e2e_release(&t);
}
END_TEST

/* The second server of the cluster test: HTTP, then native (+1). */
#define CH_PORT2 9123
#define CH_CLUSTER "causal_test"

/* Servers a and b, two shards of the cluster CH_CLUSTER, started. */
static void cluster_start(struct e2e *t, struct chs *a, struct chs *b)
{
	struct chs *s[] = { a, b };

	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX + 32];
		FILE *f;

		e2e_fmt(s[i]->dir, sizeof(s[i]->dir), "%s/clickhouse-%c",
			t->dir, 'a' + i);
		ck_assert(mkdir(s[i]->dir, 0755) == 0);
		e2e_fmt(path, sizeof(path), "%s/remote_servers.xml", s[i]->dir);
		f = fopen(path, "w");
		ck_assert(f);
		fprintf(f,
			"<remote_servers><" CH_CLUSTER ">\n"
			"<shard><replica><host>127.0.0.1</host><port>%d</port>"
			"</replica></shard>\n"
			"<shard><replica><host>127.0.0.1</host><port>%d</port>"
			"</replica></shard>\n"
			"</" CH_CLUSTER "></remote_servers>\n",
			CH_PORT + 1, CH_PORT2 + 1);
		ck_assert(fclose(f) == 0);
		s[i]->port = i ? CH_PORT2 : CH_PORT;
		chs_start(t, s[i]);
	}
}

/* `tracedump schema --cluster` run on server port, statement by
 * statement (the HTTP interface takes one a request). */
static void cluster_schema(const char *schema, int port)
{
	char *copy = strdup(schema), *save = NULL;

	ck_assert(copy);
	for (char *st = strtok_r(copy, ";", &save); st;
	     st = strtok_r(NULL, ";", &save)) {
		while (*st == '\n')
			st++;
		if (*st)
			free(ch_sql_at(port, NULL, st));
	}
	free(copy);
}

/*
 * A store on a two-shard cluster: two servers, each a shard, the cluster
 * in both configurations, and what `tracedump schema --cluster` prints run
 * on both.  Synthetic calls are loaded host by host through one server
 * and read through the other: the rows are on both shards, each chain on
 * one, a second load adds nothing, and `ccsg report --workers N` gives
 * SQLite's report for 1, 2 and 3 workers.
 */
START_TEST(test_cluster)
{
	static const char *const groups[] = { "host0 host1", "host2", "host3" };
	static const char *const workers[] = { "1", "2", "3" };
	const char *schema_args[] = { "schema", "--cluster", CH_CLUSTER,
				      "traces", NULL };
	char front[64], back[64], td[PATH_MAX], *out;
	struct chs a = { 0 }, b = { 0 };
	long long rows[2], chains[2];
	struct run schema;
	struct e2e t;

	if (!ch_installed())
		return;
	rpc_isolate();
	e2e_init(&t);
	gen_logs(&t, "20000");
	{
		const char *argv[] = { td, "merge", t.logs, NULL };

		e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
		ck_assert_int_eq(e2e_run_plain(argv, NULL, NULL), 0);
	}
	cluster_start(&t, &a, &b);
	schema = run_tool(&t, "tracedump", schema_args, NULL);
	ck_assert_msg(WIFEXITED(schema.status) && !WEXITSTATUS(schema.status),
		      "%s", schema.err);
	ck_assert(strstr(schema.out, "ENGINE = Distributed(" CH_CLUSTER
				     ", traces_shard, rpc_calls, "
				     "cityHash64(chain))"));
	cluster_schema(schema.out, CH_PORT);
	cluster_schema(schema.out, CH_PORT2);
	run_free(&schema);
	e2e_fmt(front, sizeof(front), "clickhouse://127.0.0.1:%d/traces",
		CH_PORT);
	e2e_fmt(back, sizeof(back), "clickhouse://127.0.0.1:%d/traces",
		CH_PORT2);
	load_groups(&t, front, groups, 3);
	/* spread over the shards, a chain on one */
	for (int i = 0; i < 2; i++) {
		int port = i ? CH_PORT2 : CH_PORT;

		rows[i] = ch_count_at(port, "traces_shard",
				      "SELECT count() FROM rpc_calls");
		chains[i] =
			ch_count_at(port, "traces_shard",
				    "SELECT uniqExact(chain) FROM rpc_calls");
		ck_assert_msg(rows[i] > 1000, "shard %d has %lld rows", i,
			      rows[i]);
	}
	ck_assert_int_eq(rows[0] + rows[1],
			 ch_count_at(CH_PORT2, "traces",
				     "SELECT count() FROM rpc_calls"));
	ck_assert_int_eq(chains[0] + chains[1],
			 ch_count_at(CH_PORT2, "traces",
				     "SELECT uniqExact(chain) FROM rpc_calls"));
	/* the same logs again, through the other server: nothing added */
	out = load(&t, t.logs, back);
	ck_assert_msg(strstr(out, "load:            none"), "%s", out);
	free(out);
	ck_assert_int_eq(rows[0] + rows[1],
			 ch_count_at(CH_PORT, "traces",
				     "SELECT count() FROM rpc_calls"));
	/* N workers on the store, one on SQLite */
	for (size_t i = 0; i < sizeof(workers) / sizeof(*workers); i++) {
		assert_same_as(&t, t.db, back,
			       (const char *const[]){ "report", "--format=json",
						      NULL },
			       (const char *const[]){ "report", "--format=json",
						      "--workers", workers[i],
						      NULL });
		assert_same_as(
			&t, t.db, back,
			(const char *const[]){ "report", "--by=object", NULL },
			(const char *const[]){ "report", "--by=object",
					       "--workers", workers[i], NULL });
	}
	assert_same(&t, t.db, back,
		    (const char *const[]){
			    "impact", "--change",
			    "reduction on all by 20% to function { *::* }",
			    "--format=json", NULL });
	assert_same_as(&t, t.db, back,
		       (const char *const[]){ "report", "--resource=memory",
					      "--format=json", NULL },
		       (const char *const[]){ "report", "--resource=memory",
					      "--format=json", "--workers", "2",
					      NULL });
	chs_stop(&a);
	chs_stop(&b);
	e2e_release(&t);
}
END_TEST

/* The rows of table in the SQLite database and in the store's one load. */
static void assert_rows_equal(struct e2e *t, const char *db, const char *table)
{
	char sql[128];
	long long want;

	want = e2e_query_int(t->sql, "SELECT count(*) FROM %s", table);
	e2e_fmt(sql, sizeof(sql), "SELECT count() FROM %s", table);
	ck_assert_msg(ch_count(db, sql) == want,
		      "table %s: %lld rows in the store, %lld in SQLite", table,
		      ch_count(db, sql), want);
}

/*
 * Every table through the store: a philosophers run with locks on
 * (lock_events, monitor_switches) and spike-matmul under a CPU policy
 * (the spike_* tables) in one log directory, loaded, then the commands
 * that read those tables compared with SQLite's.
 */
START_TEST(test_every_table)
{
	static const char *const tables[] = {
		"processes",
		"threads",
		"files",
		"hosts",
		"rpc_sites",
		"rpc_objects",
		"monitor_switches",
		"lock_events",
		"spike_breaches",
		"spike_samples",
		"spike_maps",
		"spike_profile",
		"spike_samplers",
	};
	const char *phil[] = { e2e_prog("../../examples/philosophers"),
			       "-n",
			       "3",
			       "-x",
			       "500",
			       "-e",
			       "1000",
			       "-m",
			       "50",
			       NULL };
	/* a CPU whenever it wants one: its breach must not need an idle
	 * machine */
	const char *const *spikes = cpu_first((const char *const[]){
		e2e_prog("spike-matmul"), "300", "1", "200", NULL });
	const char *locks_env[] = { "CAUSAL_MONITOR=all,locks", NULL };
	const char *policy_env[] = {
		"CAUSAL_POLICY=cpu>50%/100ms, n=25, period=50ms", NULL
	};
	struct chs s = { 0 };
	struct e2e t;
	char thread[48];

	if (!ch_installed())
		return;
	rpc_isolate();
	e2e_init(&t);
	e2e_assert_exit(e2e_run_traced(&t, phil, locks_env, NULL, NULL), 0,
			"philosophers");
	e2e_assert_exit(e2e_run_traced(&t, spikes, policy_env, NULL, NULL), 0,
			"spike-matmul");
	e2e_merge(&t);
	ck_assert_int_gt(e2e_query_int(t.sql, "SELECT count(*) FROM "
					      "lock_events"),
			 0);
	ck_assert_int_gt(e2e_query_int(t.sql, "SELECT count(*) FROM "
					      "spike_samples"),
			 0);
	chs_start(&t, &s);
	free(load(&t, t.logs, CH_URL("every")));
	for (size_t i = 0; i < sizeof(tables) / sizeof(*tables); i++)
		assert_rows_equal(&t, "every", tables[i]);
	/* what reads them: spikes, a philosopher's PES from its lock events */
	assert_same(&t, t.db, CH_URL("every"),
		    (const char *const[]){ "spikes", "--format=json", NULL });
	{
		char *text = e2e_query_text(
			t.sql, "SELECT proc_id || ':' || tid FROM lock_events "
			       "ORDER BY proc_id, tid DESC LIMIT 1");

		e2e_fmt(thread, sizeof(thread), "%s", text);
		free(text);
	}
	assert_same(&t, t.db, CH_URL("every"),
		    (const char *const[]){ "pes", "--thread", thread,
					   "--format=pes", NULL });
	assert_same(&t, t.db, CH_URL("every"),
		    (const char *const[]){ "report", "--format=json", NULL });
	chs_stop(&s);
	e2e_release(&t);
}
END_TEST

START_TEST(test_errors)
{
	struct chs s = { 0 };
	struct e2e t;

	if (!ch_installed())
		return;
	rpc_isolate();
	e2e_init(&t);
	gen_logs(&t, "100");

	/* no server at all */
	assert_refused(
		&t, "tracedump",
		(const char *const[]){ "merge", t.logs, "--db", CH_URL("x"),
				       NULL },
		(const char *const[]){ CH_URL("x"), "cannot connect", NULL });
	assert_refused(
		&t, "ccsg",
		(const char *const[]){ "report", "--db", CH_URL("x"), NULL },
		(const char *const[]){ CH_URL("x"), "cannot connect", NULL });
	/* a scheme nobody knows, a URL without a database */
	assert_refused(&t, "tracedump",
		       (const char *const[]){ "merge", t.logs, "--db",
					      "postgres://h/db", NULL },
		       (const char *const[]){ "unknown store URL scheme "
					      "'postgres'",
					      NULL });
	assert_refused(&t, "ccsg",
		       (const char *const[]){ "report", "--db",
					      "clickhouse://127.0.0.1:8123",
					      NULL },
		       (const char *const[]){ "no /DATABASE", NULL });

	chs_start(&t, &s);
	assert_refused(&t, "tracedump",
		       (const char *const[]){
			       "merge", t.logs, "--db",
			       "clickhouse://causal:wrong@127.0.0.1:8123/x",
			       NULL },
		       (const char *const[]){ "clickhouse://causal@127.0.0.1:"
					      "8123/x",
					      "password", NULL });
	/* a database of someone else's */
	free(ch_sql(NULL, "CREATE DATABASE other"));
	free(ch_sql("other", "CREATE TABLE t (a Int64) ENGINE = "
			     "MergeTree ORDER BY a"));
	assert_refused(&t, "tracedump",
		       (const char *const[]){ "merge", t.logs, "--db",
					      CH_URL("other"), NULL },
		       (const char *const[]){ "not a causal store", NULL });
	assert_refused(&t, "ccsg",
		       (const char *const[]){ "report", "--db", CH_URL("other"),
					      NULL },
		       (const char *const[]){ "not a causal store", NULL });
	/* a store of another schema: its tables have other columns */
	free(ch_sql(NULL, "CREATE DATABASE old"));
	free(ch_sql("old", "CREATE TABLE loads (load_id UInt64, state "
			   "String) ENGINE = MergeTree ORDER BY load_id"));
	assert_refused(&t, "tracedump",
		       (const char *const[]){ "merge", t.logs, "--db",
					      CH_URL("old"), NULL },
		       (const char *const[]){ "table 'loads' has other columns",
					      NULL });
	/* an empty database is not a store to read */
	free(ch_sql(NULL, "CREATE DATABASE empty"));
	assert_refused(&t, "ccsg",
		       (const char *const[]){ "report", "--db", CH_URL("empty"),
					      NULL },
		       (const char *const[]){ "no table", NULL });
	/* a user who may read only: the store exists, the insert is refused */
	free(load(&t, t.logs, CH_URL("ro")));
	{
		char more[PATH_MAX];
		struct e2e t2 = t;

		e2e_fmt(more, sizeof(more), "%s/more", t.dir);
		e2e_fmt(t2.logs, sizeof(t2.logs), "%s", more);
		gen_logs(&t2, "200"); /* other processes: something to load */
		assert_refused(&t, "tracedump",
			       (const char *const[]){
				       "merge", more, "--db",
				       "clickhouse://reader@127.0.0.1:8123/ro",
				       NULL },
			       (const char *const[]){ "readonly", NULL });
	}
	ck_assert_int_eq(ch_count("ro", "SELECT count() FROM loads WHERE "
					"state = 'finished'"),
			 1);
	chs_stop(&s);
	e2e_release(&t);
}
END_TEST

Suite *e2e_clickhouse_suite(void)
{
	Suite *s = suite_create("e2e-clickhouse");
	TCase *tc = tcase_create("clickhouse");

	tcase_set_timeout(tc, 2 * E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_figure1);
	tcase_add_test(tc, test_two_hosts);
	tcase_add_test(tc, test_interrupted);
	tcase_add_test(tc, test_scale);
	tcase_add_test(tc, test_cluster);
	tcase_add_test(tc, test_every_table);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return s;
}
