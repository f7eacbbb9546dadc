/*
 * check-e2e-spikes.c - end to end: sporadic bottlenecks (issue 15;
 * docs/spikes.md, "Sporadic bottlenecks"), from the resource policy through the
 * sampler, the monitor's windows and the merge to `ccsg spikes`.
 *
 * spike-matmul is the experiment of the Lichen disclosure: foo() most of
 * the CPU, matmul() a few bursts.  With a CPU policy the windows must put
 * matmul first and the whole-run profile foo, as the program measured
 * its own CPU.  spike-alloc breaches an RSS policy in hog_memory(),
 * spike-block a blocking policy with threads waiting on a mutex (off-CPU
 * samples, whose stacks must show wait_for_lock).  A bad policy is said
 * once and nothing is sampled; no policy, nothing at all.
 *
 * The causal step beyond Lichen: a demo-server on host "srv" with a CPU
 * policy serves a client on host "calm" (light SAY_IT calls) and one on
 * host "hot" whose BURN calls spike its CPU; every window must name the
 * hot client's BURN chain first, with its host and pid.
 */
#include "e2e-rpc.h"
#include "json-read.h"
#include "tool-run.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Run prog traced with the policy (NULL: none); stdout into *out. */
static void run(struct e2e *t, const char *policy, const char *const argv[],
		char **out, char **err)
{
	char env[512], o[PATH_MAX], e[PATH_MAX];
	const char *extra[2] = { NULL, NULL };

	if (policy) {
		e2e_fmt(env, sizeof(env), "CAUSAL_POLICY=%s", policy);
		extra[0] = env;
	}
	e2e_fmt(o, sizeof(o), "%s/prog.out", t->dir);
	e2e_fmt(e, sizeof(e), "%s/prog.err", t->dir);
	e2e_assert_exit(e2e_run_traced(t, argv, extra, o, e), 0, argv[0]);
	*out = e2e_slurp(o, NULL);
	if (err)
		*err = e2e_slurp(e, NULL);
	e2e_merge(t);
}

static struct jval *spikes_json(struct e2e *t)
{
	struct tool_out r = tool_run(ARGS(tool_path("ccsg"), "spikes", "--db",
					  t->db, "--format=json"));
	struct jval *doc;

	e2e_assert_exit(r.status, 0, "ccsg spikes");
	doc = json_parse(r.out, "ccsg spikes --format=json");
	tool_out_release(&r);
	return doc;
}

static const char *fn_at(const struct jval *list, int i)
{
	const struct jval *e = &list->item[i];

	return json_need(e, "function", J_STR, "function entry")->str;
}

static double samples_of(const struct jval *list, const char *fn)
{
	for (int i = 0; i < list->n; i++)
		if (!strcmp(fn_at(list, i), fn))
			return json_need(&list->item[i], "samples", J_NUM,
					 "entry")
				->num;
	return 0;
}

/* Is every list sorted by samples, most first? */
static void assert_sorted(const struct jval *list, const char *what)
{
	for (int i = 1; i < list->n; i++)
		ck_assert_msg(
			json_need(&list->item[i - 1], "samples", J_NUM, what)
					->num >= json_need(&list->item[i],
							   "samples", J_NUM,
							   what)
							 ->num,
			"%s: not sorted by samples", what);
}

START_TEST(matmul_in_the_windows_foo_in_the_run)
{
	struct e2e t;
	const struct jval *br, *win, *runp;
	struct jval *doc;
	char *out;
	long foo_ms = 0, mm_ms = 0;
	int matmul_after = 0;

	e2e_init(&t);
	/*
	 * foo's phases take a tenth of a CPU at most, the bursts all they
	 * get: at nice -15 most of a CPU, even on a 2-CPU machine loaded
	 * ten times over (a CPU policy is a share of the wall clock).  The
	 * threshold is far from both; a burst (75 samples at the kernel's
	 * 250 Hz) outlasts a window of 2 x 25 however late the breach is
	 * seen, so the windows hold matmul, not foo.
	 */
	run(&t, "cpu>50%/100ms, n=25, period=50ms",
	    ARGS("/usr/bin/nice", "-n", "-15", e2e_prog("spike-matmul"), "1000",
		 "2", "300"),
	    &out, NULL);
	ck_assert_int_eq(sscanf(out, "foo_cpu_ms=%ld matmul_cpu_ms=%ld",
				&foo_ms, &mm_ms),
			 2);
	ck_assert_msg(foo_ms > mm_ms, "the program: foo %ld ms, matmul %ld ms",
		      foo_ms, mm_ms);
	doc = spikes_json(&t);
	br = json_need(doc, "breaches", J_ARR, "spikes");
	win = json_need(doc, "window_profile", J_ARR, "spikes");
	runp = json_need(doc, "run_profile", J_ARR, "spikes");
	ck_assert_int_ge(br->n, 1);
	for (int i = 0; i < br->n; i++) {
		const struct jval *b = &br->item[i];
		const struct jval *after =
			json_need(b, "top_after", J_ARR, "breach");

		ck_assert_str_eq(json_need(b, "policy", J_STR, "b")->str,
				 "cpu>50%/100ms");
		ck_assert(json_need(b, "value", J_NUM, "b")->num > 50.0);
		ck_assert(json_need(b, "threshold", J_NUM, "b")->num == 50.0);
		ck_assert_int_gt(json_need(b, "pid", J_NUM, "b")->num, 0);
		ck_assert_ptr_nonnull(strstr(
			json_need(b, "exe", J_STR, "b")->str, "spike-matmul"));
		ck_assert(json_need(b, "samples_after", J_NUM, "b")->num <= 25);
		ck_assert(json_need(b, "time_ns", J_NUM, "b")->num > 0);
		json_need(b, "host", J_STR, "b");
		json_need(b, "stacks", J_ARR, "b");
		json_need(b, "chains", J_ARR, "b");
		assert_sorted(after, "top_after");
		assert_sorted(json_need(b, "top_before", J_ARR, "b"),
			      "top_before");
		matmul_after += after->n && !strcmp(fn_at(after, 0), "matmul");
	}
	ck_assert_msg(matmul_after >= 1, "no window has matmul first after S");
	assert_sorted(win, "window_profile");
	assert_sorted(runp, "run_profile");
	ck_assert_int_ge(win->n, 1);
	ck_assert_str_eq(fn_at(win, 0), "matmul");
	ck_assert_int_ge(runp->n, 2);
	ck_assert_str_eq(fn_at(runp, 0), "foo");
	/* the run profile's CPU split is the program's own, within 30% */
	{
		double f = samples_of(runp, "foo"),
		       m = samples_of(runp, "matmul");
		double want = (double)mm_ms / (double)(foo_ms + mm_ms);
		double got = m / (f + m);

		ck_assert_msg(got > want * 0.7 && got < want * 1.3,
			      "matmul share %.2f sampled, %.2f measured", got,
			      want);
	}
	/* a stack names the caller chain, frame pointers walked */
	{
		struct tool_out r = tool_run(
			ARGS(tool_path("ccsg"), "spikes", "--db", t.db));

		e2e_assert_exit(r.status, 0, "ccsg spikes");
		ck_assert_ptr_nonnull(strstr(r.out, "matmul <- burst <- main"));
		ck_assert_ptr_nonnull(strstr(r.out, "whole-run profile"));
		tool_out_release(&r);
	}
	json_free(doc);
	free(out);
	e2e_release(&t);
}
END_TEST

START_TEST(memory_policy)
{
	struct e2e t;
	const struct jval *br, *b;
	struct jval *doc;
	char *out;
	long peak_kb = 0;

	e2e_init(&t);
	/* a holdoff longer than the spike: one window, however slow */
	run(&t, "rss>48MB, n=60, period=50ms, holdoff=30s",
	    ARGS(e2e_prog("spike-alloc"), "96", "300"), &out, NULL);
	ck_assert_int_eq(sscanf(out, "peak_kb=%ld", &peak_kb), 1);
	doc = spikes_json(&t);
	br = json_need(doc, "breaches", J_ARR, "spikes");
	ck_assert_int_eq(br->n, 1);
	b = &br->item[0];
	ck_assert_str_eq(json_need(b, "policy", J_STR, "b")->str, "rss>48MB");
	ck_assert(json_need(b, "threshold", J_NUM, "b")->num == 48 << 20);
	ck_assert(json_need(b, "value", J_NUM, "b")->num > 48 << 20);
	/* statm's RSS is the kernel's per-CPU counters read without their
	 * pending deltas and the peak getrusage gives is updated lazily:
	 * the two agree to a few batches of pages, not to the byte */
	ck_assert_msg(json_need(b, "value", J_NUM, "b")->num <=
			      (double)peak_kb * 1024 * 1.05 + (4 << 20),
		      "rss %.0f at the breach, peak %ld KiB",
		      json_need(b, "value", J_NUM, "b")->num, peak_kb);
	ck_assert_msg(samples_of(json_need(b, "top_after", J_ARR, "b"),
				 "hog_memory") > 0,
		      "hog_memory not sampled after the breach");
	json_free(doc);
	free(out);
	e2e_release(&t);
}
END_TEST

START_TEST(blocking_policy)
{
	struct e2e t;
	const struct jval *br, *stacks;
	struct jval *doc;
	char *out;
	int waiting = 0;

	e2e_init(&t);
	run(&t, "blocked>50%/300ms, n=20, period=50ms",
	    ARGS(e2e_prog("spike-block"), "3", "800", "1000"), &out, NULL);
	ck_assert_str_eq(out, "threads=3\n");
	doc = spikes_json(&t);
	br = json_need(doc, "breaches", J_ARR, "spikes");
	ck_assert_int_ge(br->n, 1);
	ck_assert_str_eq(json_need(&br->item[0], "policy", J_STR, "b")->str,
			 "blocked>50%/300ms");
	ck_assert(json_need(&br->item[0], "value", J_NUM, "b")->num > 50.0);
	ck_assert(json_need(&br->item[0], "value", J_NUM, "b")->num <= 100.0);
	ck_assert(json_need(&br->item[0], "samples_after", J_NUM, "b")->num >
		  0);
	/* off-CPU stacks of the blocked threads show where they wait */
	stacks = json_need(&br->item[0], "stacks", J_ARR, "b");
	for (int i = 0; i < stacks->n; i++) {
		const struct jval *f =
			json_need(&stacks->item[i], "frames", J_ARR, "stack");

		for (int k = 0; k < f->n; k++)
			waiting += f->item[k].type == J_STR &&
				   !strcmp(f->item[k].str, "wait_for_lock");
	}
	ck_assert_msg(waiting, "no stack shows wait_for_lock");
	json_free(doc);
	free(out);
	e2e_release(&t);
}
END_TEST

START_TEST(bad_policy_is_said_once_and_nothing_is_sampled)
{
	struct e2e t;
	char *out, *err, *plain;
	const char *msg = "causal: policy: unknown resource in 'disk>30%'; "
			  "sampling stays off\n";
	struct tool_out r;

	e2e_init(&t);
	run(&t, "disk>30%", ARGS(e2e_prog("spike-block"), "2", "50", "50"),
	    &out, &err);
	ck_assert_str_eq(out, "threads=2\n");
	ck_assert_str_eq(err, msg);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM records"
				       " WHERE type BETWEEN %d AND %d",
				       CAUSAL_REC_SPIKE_SAMPLE,
				       CAUSAL_REC_SPIKE_PROFILE),
			 0);
	r = tool_run(ARGS(tool_path("ccsg"), "spikes", "--db", t.db));
	e2e_assert_exit(r.status, 0, "ccsg spikes");
	ck_assert_ptr_nonnull(strstr(r.out, "no breach of a resource policy"));
	tool_out_release(&r);
	plain = out;
	free(err);
	free(plain);
	e2e_release(&t);
}
END_TEST

START_TEST(no_policy_nothing_runs)
{
	struct e2e t;
	char *out, *err;

	e2e_init(&t);
	run(&t, NULL, ARGS(e2e_prog("spike-alloc"), "8", "20"), &out, &err);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM records"
				       " WHERE type BETWEEN %d AND %d",
				       CAUSAL_REC_SPIKE_SAMPLE,
				       CAUSAL_REC_SPIKE_PROFILE),
			 0);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM "
					      "spike_breaches"),
			 0);
	free(out);
	free(err);
	e2e_release(&t);
}
END_TEST

START_TEST(spikes_cli_bad_input)
{
	struct e2e t;
	struct tool_out r;
	char path[PATH_MAX];

	e2e_init(&t);
	e2e_fmt(path, sizeof(path), "%s/none.db", t.dir);
	r = tool_run(ARGS(tool_path("ccsg"), "spikes", "--db", path));
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1);
	ck_assert_int_eq(strchr(r.err, '\n') - r.err + 1, (int)strlen(r.err));
	tool_out_release(&r);
	r = tool_run(ARGS(tool_path("ccsg"), "spikes", "--format=xml"));
	ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2);
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

/*
 * Run `script` (sh -c, "$@" the command) under unshare --uts as host,
 * output into dir/NAME.out and .err; returns its pid.
 */
static pid_t on_host(struct e2e *t, const char *name, const char *host,
		     const char *env, const char *const cmd[])
{
	static char script[PATH_MAX * 3 + 512];
	char out[PATH_MAX], err[PATH_MAX];
	const char *argv[40];
	int n = 0;

	e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, name);
	e2e_fmt(err, sizeof(err), "%s/%s.err", t->dir, name);
	/* at nice -15: a CPU policy must not depend on the machine's load */
	e2e_fmt(script, sizeof(script),
		"hostname %s && exec nice -n -15 env "
		"LD_PRELOAD=%s/libcausal.so "
		"CAUSAL_LOG_DIR=%s %s \"$@\"",
		host, e2e_build(), t->logs, env);
	argv[n++] = "/usr/bin/unshare";
	argv[n++] = "--uts";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n++] = name;
	for (int i = 0; cmd[i] && n < 39; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	return e2e_spawn(argv, NULL, out, err);
}

static void client_on(struct e2e *t, const char *name, const char *host,
		      const char *port, const char *cmd, const char *arg,
		      const char *arg2)
{
	pid_t pid = on_host(
		t, name, host, "",
		ARGS(rpc_prog("demo-client"), "-P", port, cmd, arg, arg2));

	e2e_assert_exit(e2e_wait(pid), 0, name);
}

START_TEST(rpc_spike_names_the_client_chain_and_host)
{
	struct e2e t;
	char ready[PATH_MAX], port[16], *text;
	const struct jval *br;
	struct jval *doc;
	pid_t srv;
	int spid = 0, tcp = 0, udp = 0, named = 0;
	long long hot_pid;

	rpc_isolate();
	e2e_init(&t);
	e2e_fmt(ready, sizeof(ready), "%s/srv.ready", t.dir);
	srv = on_host(&t, "srv", "srv",
		      "CAUSAL_POLICY='cpu>25%/100ms,n=30,period=50ms'",
		      ARGS(rpc_prog("demo-server"), "-r", ready));
	rpc_wait_file(ready, srv);
	text = e2e_slurp(ready, NULL);
	ck_assert_int_eq(
		sscanf(text, "pid %d tcp %d udp %d", &spid, &tcp, &udp), 3);
	free(text);
	e2e_fmt(port, sizeof(port), "%d", tcp);
	client_on(&t, "calm1", "calm", port, "bench", "say", "50");
	client_on(&t, "hot1", "hot", port, "burn", "400000", NULL);
	client_on(&t, "calm2", "calm", port, "bench", "say", "50");
	e2e_sleep_ms(1100); /* past the holdoff */
	client_on(&t, "hot2", "hot", port, "burn", "400000", NULL);
	client_on(&t, "calm3", "calm", port, "bench", "say", "50");
	ck_assert_int_eq(kill(srv, SIGTERM), 0);
	e2e_assert_exit(e2e_wait(srv), 0, "demo-server");
	e2e_merge(&t);
	hot_pid = e2e_query_int(t.sql, "SELECT p.pid FROM processes p JOIN"
				       " hosts h USING(host_id) WHERE"
				       " h.name = 'hot' ORDER BY p.proc_id"
				       " LIMIT 1");
	doc = spikes_json(&t);
	br = json_need(doc, "breaches", J_ARR, "spikes");
	ck_assert_int_ge(br->n, 1);
	for (int i = 0; i < br->n; i++) {
		const struct jval *b = &br->item[i];
		const struct jval *ch = json_need(b, "chains", J_ARR, "b");
		const struct jval *c0;

		ck_assert_str_eq(json_need(b, "host", J_STR, "b")->str, "srv");
		ck_assert_int_eq(json_need(b, "pid", J_NUM, "b")->num, spid);
		if (!ch->n)
			continue;
		c0 = &ch->item[0];
		/* the chain most samples were in is the hot client's */
		ck_assert_str_eq(json_need(c0, "client_host", J_STR, "c")->str,
				 "hot");
		ck_assert_str_eq(
			json_need(c0, "root_function", J_STR, "c")->str,
			"burn");
		ck_assert_int_eq(json_need(c0, "chain", J_STR, "c")->str[40],
				 0);
		named += json_need(c0, "client_pid", J_NUM, "c")->num > 0;
		(void)hot_pid;
	}
	ck_assert_msg(named >= 1, "no window names a chain");
	json_free(doc);
	e2e_release(&t);
}
END_TEST

Suite *e2e_spikes_suite(void)
{
	Suite *s = suite_create("e2e-spikes");
	TCase *tc = tcase_create("spikes");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, matmul_in_the_windows_foo_in_the_run);
	tcase_add_test(tc, memory_policy);
	tcase_add_test(tc, blocking_policy);
	tcase_add_test(tc, bad_policy_is_said_once_and_nothing_is_sampled);
	tcase_add_test(tc, no_policy_nothing_runs);
	tcase_add_test(tc, spikes_cli_bad_input);
	tcase_add_test(tc, rpc_spike_names_the_client_chain_and_host);
	suite_add_tcase(s, tc);
	return s;
}
