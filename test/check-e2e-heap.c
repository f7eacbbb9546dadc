/*
 * check-e2e-heap.c - end to end: heap memory per thread (issue 12, item
 * 4), from the allocation wrappers through the merge to `ccsg report
 * --resource=memory`.
 *
 * heap-demo (test/rpc/heap.x) runs on three simulated hosts: a client on
 * hc calls WORK on a server on ha, whose implementation allocates and
 * frees known amounts with every allocation function (realloc growth,
 * posix_memalign, a block freed by another thread, one allocated by
 * another thread) and calls CHILD on a server on hb, which allocates in
 * turn.  Each implementation reports what it did as malloc_usable_size()
 * measures it; ccsg must find exactly that, to the byte: a call's own
 * (Equation 1 with bytes: its skeleton less its child's stub), its
 * descendants' (Equation 3), per host.  The other thread of the frees
 * (the server's reaper) has its own counts (Equation 2), and every
 * process its peak heap.  With memory accounting off in one server, its
 * figures are absent, not zero.  heap-early allocates before main
 * (.preinit_array, before the tracer's constructor) and in a
 * constructor, and must run as it does untraced.
 */
#include "e2e-rpc.h"
#include "json-read.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define PORT_A 7301
#define PORT_B 7302

/*
 * What the tracer counts of a block of n bytes: its usable size as
 * heap-demo's allocator gives it (this suite's own may be ASan's).
 */
static long long usable(size_t n)
{
	const char *argv[] = { rpc_prog("heap-demo"), "usable", NULL, NULL };
	char arg[32], out[PATH_MAX], *text;
	long long u = -1;

	e2e_fmt(arg, sizeof(arg), "%zu", n);
	argv[2] = arg;
	e2e_fmt(out, sizeof(out), "%s/usable.out", e2e_current->dir);
	e2e_assert_exit(e2e_run_plain(argv, out, NULL), 0, "heap-demo usable");
	text = e2e_slurp(out, NULL);
	ck_assert_int_eq(sscanf(text, "%lld", &u), 1);
	free(text);
	return u;
}

/*
 * Run heap-demo with args on simulated host `host` (unshare --uts),
 * traced, with the extra environment `env` ("" or "NAME=value"); stdout
 * and stderr into dir/NAME.out and .err.  serve: wait for its ready file.
 */
static pid_t heap_demo(struct e2e *t, const char *name, const char *host,
		       const char *env, const char *const args[], int serve)
{
	static char script[PATH_MAX * 3 + 256];
	char out[PATH_MAX], err[PATH_MAX], ready[PATH_MAX];
	const char *argv[40];
	int n = 0;
	pid_t pid;

	e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, name);
	e2e_fmt(err, sizeof(err), "%s/%s.err", t->dir, name);
	e2e_fmt(ready, sizeof(ready), "%s/%s.ready", t->dir, name);
	e2e_fmt(script, sizeof(script),
		"hostname %s && exec env %s LD_PRELOAD=%s/libcausal.so "
		"CAUSAL_LOG_DIR=%s \"$@\"",
		host, env, e2e_build(), t->logs);
	argv[n++] = "/usr/bin/unshare";
	argv[n++] = "--uts";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n++] = "heap-demo";
	argv[n++] = rpc_prog("heap-demo");
	for (int i = 0; args[i] && n < 36; i++)
		argv[n++] = args[i];
	if (serve) {
		argv[n++] = "-r";
		argv[n++] = ready;
	}
	argv[n] = NULL;
	pid = e2e_spawn(argv, NULL, out, err);
	if (serve)
		rpc_wait_file(ready, pid);
	return pid;
}

static void stop(pid_t pid, const char *what)
{
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	e2e_assert_exit(e2e_wait(pid), 0, what);
}

/* `ccsg report --resource=memory --format=FORMAT` (exit 0): its stdout. */
static char *memory_report(struct e2e *t, const char *format)
{
	char ccsg[PATH_MAX], out[PATH_MAX], err[PATH_MAX], fmt[32];
	const char *argv[] = { ccsg, "report", "--resource=memory",
			       fmt,  "--db",   t->db,
			       NULL };
	int status;

	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	e2e_fmt(fmt, sizeof(fmt), "--format=%s", format);
	e2e_fmt(out, sizeof(out), "%s/memory.%s", t->dir, format);
	e2e_fmt(err, sizeof(err), "%s/memory.%s.err", t->dir, format);
	status = e2e_run_plain(argv, out, err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "ccsg report --resource=memory %s: status 0x%x: %s", fmt,
		      status, e2e_slurp(err, NULL));
	return e2e_slurp(out, NULL);
}

/* The index of host in the report's "hosts". */
static int host_index(const struct jval *doc, const char *host)
{
	const struct jval *hosts = json_need(doc, "hosts", J_ARR, "report");

	for (int i = 0; i < hosts->n; i++)
		if (hosts->item[i].type == J_STR &&
		    !strcmp(hosts->item[i].str, host))
			return i;
	ck_abort_msg("no host '%s' in the report", host);
	return -1;
}

/* The function node of HEAP_PROG's procedure proc. */
static const struct jval *function_node(const struct jval *doc, int proc)
{
	const struct jval *nodes = json_need(doc, "nodes", J_ARR, "report");

	for (int i = 0; i < nodes->n; i++) {
		const struct jval *x = &nodes->item[i];
		const struct jval *kind = json_get(x, "kind");

		if (kind && kind->type == J_STR &&
		    !strcmp(kind->str, "function") &&
		    json_need(x, "program", J_NUM, "node")->num == 0x20000c61 &&
		    json_need(x, "procedure", J_NUM, "node")->num == proc)
			return x;
	}
	ck_abort_msg("no node of HEAP_PROG procedure %d", proc);
	return NULL;
}

/* Entry i of the vector key of node x, which has n entries. */
static long long vec(const struct jval *x, const char *key, int i, int n)
{
	const struct jval *v = json_need(x, key, J_ARR, key);

	ck_assert_int_eq(v->n, n);
	return (long long)v->item[i].num;
}

/* Every entry of vector key of x is 0 but entry i, which is want. */
static void assert_vec(const struct jval *x, const char *key, int i, int n,
		       long long want)
{
	for (int j = 0; j < n; j++)
		ck_assert_msg(vec(x, key, j, n) == (j == i ? want : 0),
			      "%s: %s[%d] = %lld, expected %lld",
			      json_need(x, "name", J_STR, "name")->str, key, j,
			      vec(x, key, j, n), j == i ? want : 0);
}

/* The "processes" entry of pid. */
static const struct jval *process_of(const struct jval *doc, long pid)
{
	const struct jval *ps = json_need(doc, "processes", J_ARR, "report");

	for (int i = 0; i < ps->n; i++)
		if (json_need(&ps->item[i], "pid", J_NUM, "process")->num ==
		    pid)
			return &ps->item[i];
	ck_abort_msg("no process %ld in \"processes\"", pid);
	return NULL;
}

struct run {
	pid_t a, b, c;
	long long work_alloc, work_freed, child_alloc, child_freed, big;
};

/*
 * The three hosts: WORK on ha calls CHILD on hb for the client on hc.
 * env: the environment of all three ("" or "NAME=value ..."), b_env
 * server b's besides; ports: PORT_A and PORT_B plus port_off.
 */
static void run_three_env(struct e2e *t, struct run *r, const char *env,
			  const char *b_env, int port_off)
{
	char port_a[16], port_b[16], child[32], benv[256], *out;
	int status;

	e2e_fmt(port_a, sizeof(port_a), "%d", PORT_A + port_off);
	e2e_fmt(port_b, sizeof(port_b), "%d", PORT_B + port_off);
	e2e_fmt(child, sizeof(child), "%d:4444", PORT_B + port_off);
	e2e_fmt(benv, sizeof(benv), "%s %s", env, b_env);
	r->b = heap_demo(t, "b", "hb", benv, ARGS("serve", "-p", port_b), 1);
	r->a = heap_demo(t, "a", "ha", env,
			 ARGS("serve", "-p", port_a, "-n", port_b), 1);
	r->c = heap_demo(t, "c", "hc", env,
			 ARGS("call", "-P", port_a, "-a", "1000", "-g",
			      "100:5000", "-m", "256:3000", "-G", "777", "-T",
			      "999", "-o", "-c", child, "-b", "8000000"),
			 0);
	status = e2e_wait(r->c);
	out = e2e_slurp(rpc_q("%s/c.out", t->dir), NULL);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "client: status 0x%x: %s %s", status, out,
		      e2e_slurp(rpc_q("%s/c.err", t->dir), NULL));
	stop(r->a, "server a");
	stop(r->b, "server b");
	ck_assert_int_eq(sscanf(rpc_line(out, "work"),
				"work alloc %lld freed %lld child_alloc %lld "
				"child_freed %lld",
				&r->work_alloc, &r->work_freed, &r->child_alloc,
				&r->child_freed),
			 4);
	r->big = rpc_fact(out, "big", "usable");
	free(out);
	e2e_merge(t);
}

static void run_three(struct e2e *t, struct run *r, const char *b_env)
{
	run_three_env(t, r, "", b_env, 0);
}

/* Every figure to the byte, in every format. */
START_TEST(test_memory_to_the_byte)
{
	const char *formats[] = { "text", "xml", "dot" };
	const struct jval *work, *child, *proc;
	struct jval *doc;
	struct run r;
	struct e2e t;
	char *json, *text;
	int ha, hb, n;
	long long a, reaper;

	rpc_isolate();
	e2e_init(&t);
	run_three(&t, &r, "");
	/* what the implementations did: their own blocks, nothing hidden */
	ck_assert_int_eq(r.child_alloc, usable(4444));
	ck_assert_int_eq(r.child_freed, usable(4444));
	ck_assert_int_gt(r.work_alloc,
			 usable(5000) + usable(3000) + usable(777));

	json = memory_report(&t, "json");
	doc = json_parse(json, "ccsg report --resource=memory --format=json");
	ha = host_index(doc, "ha");
	hb = host_index(doc, "hb");
	n = json_need(doc, "hosts", J_ARR, "report")->n;
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(json_need(doc, "resource", J_STR, "report")->str,
			 "memory");
	/* WORK: its own (Equation 1 with bytes), CHILD's under it (Equation 3)
	 */
	work = function_node(doc, 1);
	assert_vec(work, "self_alloc_bytes", ha, n, r.work_alloc);
	assert_vec(work, "self_freed_bytes", ha, n, r.work_freed);
	assert_vec(work, "desc_alloc_bytes", hb, n, r.child_alloc);
	assert_vec(work, "desc_freed_bytes", hb, n, r.child_freed);
	child = function_node(doc, 2);
	assert_vec(child, "self_alloc_bytes", hb, n, r.child_alloc);
	assert_vec(child, "self_freed_bytes", hb, n, r.child_freed);
	assert_vec(child, "desc_alloc_bytes", hb, n, 0);
	ck_assert_int_eq(json_need(work, "calls", J_NUM, "calls")->num, 1);
	ck_assert_int_eq(
		json_need(doc, "unmeasured_calls", J_NUM, "report")->num, 0);
	/* the client's peak: its big block, and not much more */
	proc = process_of(doc, r.c);
	ck_assert_str_eq(json_need(proc, "host", J_STR, "host")->str, "hc");
	ck_assert_int_ge(json_need(proc, "peak_heap_bytes", J_NUM, "peak")->num,
			 r.big);
	ck_assert_int_lt(json_need(proc, "peak_heap_bytes", J_NUM, "peak")->num,
			 r.big + 2 * 1024 * 1024);
	/* the servers' peaks: their own few buffers; the tracer's (its
	 * frame queue alone is 4 MiB, zstd's context more) are not counted */
	for (int i = 0; i < 2; i++) {
		double peak = json_need(process_of(doc, i ? r.b : r.a),
					"peak_heap_bytes", J_NUM, "peak")
				      ->num;

		ck_assert_msg(peak > 0 && peak < 2 * 1024 * 1024,
			      "server %c: peak %.0f bytes", i ? 'b' : 'a',
			      peak);
	}

	/* The reaper of server a (Equation 2): it allocated the block WORK
	 * took, and freed the one WORK gave; the main thread's live
	 * bytes went down by what it freed of the reaper's. */
	a = e2e_proc(&t, r.a);
	reaper =
		e2e_query_int(t.sql,
			      "SELECT tid FROM threads WHERE proc_id = %lld AND"
			      " parent_tid = 1 AND marker = 'user'",
			      a);
	ck_assert_int_eq(
		e2e_query_int(
			t.sql,
			"SELECT alloc_bytes FROM threads WHERE proc_id = %lld"
			" AND tid = %lld",
			a, reaper),
		usable(999));
	ck_assert_int_eq(
		e2e_query_int(
			t.sql,
			"SELECT freed_bytes FROM threads WHERE proc_id = %lld"
			" AND tid = %lld",
			a, reaper),
		usable(777));
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT allocs * 10 + frees FROM threads WHERE"
			      " proc_id = %lld AND tid = %lld",
			      a, reaper),
		11);
	/* the database: one call each way, counted on both sides */
	ck_assert_int_eq(
		e2e_query_int(
			t.sql,
			"SELECT count(*) FROM rpc_calls WHERE prog = %d AND"
			" stub_alloc_bytes IS NOT NULL AND skel_alloc_bytes"
			" IS NOT NULL AND skel_freed_bytes IS NOT NULL",
			0x20000c61),
		2);
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT skel_alloc_bytes FROM rpc_calls WHERE"
			      " prog = %d AND proc = 2",
			      0x20000c61),
		r.child_alloc);

	/* the other formats say the same */
	for (int i = 0; i < 3; i++) {
		char want[128] = "";

		if (i == 0) {
			e2e_fmt(want, sizeof(want), " %lld ", r.work_alloc);
		} else if (i == 1) {
			/* xml: the vector in host order */
			e2e_fmt(want, sizeof(want), "self_alloc_bytes=\"");
			for (int j = 0; j < n; j++)
				e2e_fmt(want + strlen(want),
					sizeof(want) - strlen(want), "%s%lld",
					j ? " " : "",
					j == ha ? r.work_alloc : 0);
		} else {
			e2e_fmt(want, sizeof(want), "alloc self %lld B",
				r.work_alloc);
		}
		text = memory_report(&t, formats[i]);
		ck_assert_msg(strstr(text, want),
			      "ccsg --format=%s: no '%s' in:\n%s", formats[i],
			      want, text);
		free(text);
	}
	json_free(doc);
	free(json);
	e2e_release(&t);
}
END_TEST

/* Memory accounting off in server b: its figures absent, a's still exact. */
START_TEST(test_memory_off)
{
	const struct jval *work, *child;
	struct jval *doc;
	struct run r;
	struct e2e t;
	char *json;
	int ha, hb, n;
	long long b;

	rpc_isolate();
	e2e_init(&t);
	run_three(&t, &r, "CAUSAL_MONITOR=semantics,latency,cpu");
	json = memory_report(&t, "json");
	doc = json_parse(json, "ccsg report --resource=memory --format=json");
	ha = host_index(doc, "ha");
	hb = host_index(doc, "hb");
	n = json_need(doc, "hosts", J_ARR, "report")->n;
	/* WORK's own bytes do not depend on b: the child's stub is a's */
	work = function_node(doc, 1);
	assert_vec(work, "self_alloc_bytes", ha, n, r.work_alloc);
	assert_vec(work, "self_freed_bytes", ha, n, r.work_freed);
	child = function_node(doc, 2);
	assert_vec(child, "self_alloc_bytes", hb, n, 0);
	ck_assert_int_eq(
		json_need(doc, "unmeasured_calls", J_NUM, "report")->num, 1);
	ck_assert_ptr_nonnull(
		json_get(process_of(doc, r.b), "peak_heap_bytes"));
	ck_assert_int_eq(
		json_get(process_of(doc, r.b), "peak_heap_bytes")->type,
		J_NULL);
	b = e2e_proc(&t, r.b);
	ck_assert_int_eq(
		e2e_query_int(
			t.sql,
			"SELECT count(*) FROM rpc_calls WHERE prog = %d AND"
			" proc = 2 AND skel_alloc_bytes IS NULL AND"
			" skel_freed_bytes IS NULL AND stub_alloc_bytes IS NOT "
			"NULL",
			0x20000c61),
		1);
	ck_assert_int_eq(
		e2e_query_int(
			t.sql,
			"SELECT count(*) FROM threads WHERE proc_id = %lld"
			" AND alloc_bytes IS NOT NULL",
			b),
		0);
	ck_assert_int_eq(
		e2e_query_int(
			t.sql,
			"SELECT count(*) FROM processes WHERE proc_id = %lld"
			" AND peak_heap_bytes IS NULL",
			b),
		1);
	json_free(doc);
	free(json);
	e2e_release(&t);
}
END_TEST

/*
 * What the memory report says of WORK and CHILD: for each function node,
 * its self and desc alloc and freed bytes on ha, hb and hc in that order.
 */
static void memory_figures(struct e2e *t, long long f[2][4][3])
{
	static const char *const keys[] = { "self_alloc_bytes",
					    "self_freed_bytes",
					    "desc_alloc_bytes",
					    "desc_freed_bytes" };
	static const char *const hosts[] = { "ha", "hb", "hc" };
	char *json = memory_report(t, "json");
	struct jval *doc =
		json_parse(json, "ccsg report --resource=memory --format=json");
	int n = json_need(doc, "hosts", J_ARR, "report")->n;

	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(
		json_need(doc, "unmeasured_calls", J_NUM, "report")->num, 0);
	for (int fn = 0; fn < 2; fn++)
		for (int k = 0; k < 4; k++)
			for (int h = 0; h < 3; h++)
				f[fn][k][h] =
					vec(function_node(doc, fn + 1), keys[k],
					    host_index(doc, hosts[h]), n);
	json_free(doc);
	free(json);
}

/*
 * Memory the only type on (CAUSAL_MONITOR=memory in all three): the
 * probes write the causality and the heap counters, so each call's own
 * bytes are the same as with every type on, to the byte; no clock was
 * read (latency and CPU NULL) and nothing of semantics recorded.
 */
START_TEST(test_memory_alone)
{
	long long all[2][4][3], alone[2][4][3];
	struct run r, r2;
	struct e2e t, t2;

	rpc_isolate();
	e2e_init(&t);
	run_three(&t, &r, "");
	memory_figures(&t, all);
	ck_assert_int_eq(all[0][0][0], r.work_alloc);
	e2e_release(&t);

	e2e_init(&t2);
	run_three_env(&t2, &r2, "CAUSAL_MONITOR=memory", "", 10);
	memory_figures(&t2, alone);
	/* each report says what its programs measured, to the byte */
	ck_assert_int_eq(alone[0][0][0], r2.work_alloc);
	ck_assert_int_eq(alone[0][1][0], r2.work_freed);
	ck_assert_int_eq(alone[0][2][1], r2.child_alloc);
	ck_assert_int_eq(all[0][1][0], r.work_freed);
	ck_assert_int_eq(all[0][2][1], r.child_alloc);
	/*
	 * and where the programs did the same both times (the usable sizes
	 * WORK's realloc growth gets depend on the heap's state, and may
	 * differ by a few bytes from run to run: CI saw 20,184 against
	 * 20,216), every figure is the same
	 */
	if (r2.work_alloc == r.work_alloc && r2.work_freed == r.work_freed &&
	    r2.child_alloc == r.child_alloc && r2.child_freed == r.child_freed)
		for (int fn = 0; fn < 2; fn++)
			for (int k = 0; k < 4; k++)
				for (int h = 0; h < 3; h++)
					ck_assert_msg(
						alone[fn][k][h] ==
							all[fn][k][h],
						"function %d figure %d host "
						"%d: "
						"%lld with memory alone, %lld "
						"with all types",
						fn + 1, k, h, alone[fn][k][h],
						all[fn][k][h]);
	/* both calls, both sides, heap counted; nothing of the types off */
	ck_assert_int_eq(
		e2e_query_int(
			t2.sql,
			"SELECT count(*) FROM rpc_calls WHERE prog = %d AND"
			" missing IS NULL AND stub_alloc_bytes IS NOT NULL AND"
			" skel_alloc_bytes IS NOT NULL",
			0x20000c61),
		2);
	ck_assert_int_eq(
		e2e_query_int(
			t2.sql,
			"SELECT count(*) FROM rpc_calls WHERE prog = %d AND"
			" coalesce(stub_start_ns, stub_start_exit_ns,"
			" stub_start_cpu_ns, stub_end_ns, stub_end_exit_ns,"
			" stub_end_cpu_ns, skel_start_ns, skel_start_exit_ns,"
			" skel_start_cpu_ns, skel_end_ns, skel_end_exit_ns,"
			" skel_end_cpu_ns, status, site_symbol, args_bytes,"
			" reply, tag) IS NULL AND stub_start_event IS NOT NULL"
			" AND skel_end_event IS NOT NULL",
			0x20000c61),
		2);
	e2e_release(&t2);
}
END_TEST

/* Allocation before main and in constructors: the same output, traced. */
START_TEST(test_allocation_before_main)
{
	static const char *const envs[][2] = {
		{ NULL },
		{ "CAUSAL_MONITOR=semantics,latency,cpu", NULL },
		{ "CAUSAL_MEMORY=0", NULL }
	};
	const char *argv[] = { e2e_prog("heap-early"), NULL };
	char out[PATH_MAX], err[PATH_MAX];
	char *plain, *traced, *msg;
	struct e2e t;
	long long p;

	e2e_init(&t);
	e2e_fmt(out, sizeof(out), "%s/plain.out", t.dir);
	e2e_assert_exit(e2e_run_plain(argv, out, NULL), 0,
			"heap-early untraced");
	plain = e2e_slurp(out, NULL);
	ck_assert_ptr_nonnull(strstr(plain, "usable "));
	for (int i = 0; i < 3; i++) {
		e2e_fmt(out, sizeof(out), "%s/traced%d.out", t.dir, i);
		e2e_fmt(err, sizeof(err), "%s/traced%d.err", t.dir, i);
		e2e_assert_exit(e2e_run_traced(&t, argv,
					       envs[i][0] ? envs[i] : NULL, out,
					       err),
				0, "heap-early traced");
		traced = e2e_slurp(out, NULL);
		ck_assert_str_eq(traced, plain);
		msg = e2e_slurp(err, NULL);
		/* the knob that is gone: said once, memory still on */
		ck_assert_str_eq(msg, i == 2 ? "causal: CAUSAL_MEMORY is no "
					       "longer read, not '0';"
					       " CAUSAL_MONITOR says whether "
					       "memory is on\n"
					     : "");
		free(traced);
		free(msg);
	}
	e2e_merge(&t);
	/* counted in two runs out of three (not without memory in
	 * CAUSAL_MONITOR); main's own blocks at least */
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT count(*) FROM processes WHERE complete"),
		3);
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT count(*) FROM threads WHERE tid = 1"
			      " AND alloc_bytes IS NOT NULL"),
		2);
	ck_assert_int_eq(sscanf(strstr(plain, "usable "), "usable %lld", &p),
			 1);
	ck_assert_int_eq(
		e2e_query_int(
			t.sql,
			"SELECT count(*) FROM threads WHERE tid = 1"
			" AND alloc_bytes >= %lld AND freed_bytes >= %lld",
			p, p),
		2);
	free(plain);
	e2e_release(&t);
}
END_TEST

/* A fork child's peak is its own, not the parent's before the fork. */
START_TEST(test_fork_child_peak)
{
	const char *argv[] = { rpc_prog("heap-demo"), "fork", "8000000",
			       "1000000", NULL };
	char out[PATH_MAX], *text;
	long long parent, child;
	struct e2e t;
	int pid;
	pid_t p;

	e2e_init(&t);
	e2e_fmt(out, sizeof(out), "%s/fork.out", t.dir);
	p = e2e_spawn_traced(&t, argv, NULL, out, NULL);
	e2e_assert_exit(e2e_wait(p), 0, "heap-demo fork");
	text = e2e_slurp(out, NULL);
	ck_assert_int_eq(sscanf(text, "fork child %d", &pid), 1);
	free(text);
	e2e_merge(&t);
	parent = e2e_query_int(
		t.sql, "SELECT peak_heap_bytes FROM processes WHERE pid = %d",
		(int)p);
	child = e2e_query_int(
		t.sql, "SELECT peak_heap_bytes FROM processes WHERE pid = %d",
		pid);
	ck_assert_int_ge(parent, 8000000);
	ck_assert_int_ge(child, 1000000);
	ck_assert_msg(child < 3000000,
		      "the child's peak %lld has the parent's %lld", child,
		      parent);
	e2e_release(&t);
}
END_TEST

Suite *e2e_heap_suite(void)
{
	Suite *s = suite_create("e2e-heap");
	TCase *tc = tcase_create("heap");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_memory_to_the_byte);
	tcase_add_test(tc, test_memory_off);
	tcase_add_test(tc, test_memory_alone);
	tcase_add_test(tc, test_allocation_before_main);
	tcase_add_test(tc, test_fork_child_peak);
	suite_add_tcase(s, tc);
	return s;
}
