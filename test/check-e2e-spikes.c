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
 *
 * The sampler (issues 35 and 40): the rate asked is the rate obtained,
 * counted against the CPU time the threads burned and the steal time
 * (spike-rate), and with
 * the default settings the window of a one-second spike holds the spike
 * (spike-duty); where perf events are refused it falls back to its timer
 * and says so (spike-noperf); its signal never reaches the program, nor
 * does its descriptor take one of the program's (spike-signals).
 *
 * The programs whose CPU a policy measures run cpu_first() (cpu-first.h):
 * a CPU whenever they want one, whatever the machine's load.
 */
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cpu-first.h"
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
	 * foo's phases take a tenth of a CPU at most, the bursts a whole
	 * one (cpu_first()).  The threshold is far from both; a burst (300
	 * samples at 1 kHz) outlasts a window of 2 x 25 however late the
	 * breach is seen, so the windows hold matmul, not foo.
	 */
	run(&t, "cpu>50%/100ms, n=25, period=50ms",
	    cpu_first(ARGS(e2e_prog("spike-matmul"), "1000", "2", "300")), &out,
	    NULL);
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
	/* a CPU whenever it wants one: a CPU policy must not depend on the
	 * machine's load */
	e2e_fmt(script, sizeof(script),
		"hostname %s && exec %s env "
		"LD_PRELOAD=%s/libcausal.so "
		"CAUSAL_LOG_DIR=%s %s \"$@\"",
		host, cpu_first_shell(), e2e_build(), t->logs, env);
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

/* ---- the sampler ----------------------------------------------------------
 */

/* The last spike_samplers row of the process whose exe ends in name. */
struct sampler_row {
	char source[16];
	long long signal, rate_hz, samples, cpu_ns, fallback, lost;
};

static void sampler_of(struct e2e *t, const char *name, struct sampler_row *r)
{
	const char *where = "FROM spike_samplers s JOIN processes p"
			    " USING(proc_id) WHERE p.exe LIKE '%%/%q'"
			    " ORDER BY s.proc_id DESC, s.seq DESC LIMIT 1";
	char sql[512], *text;

	memset(r, 0, sizeof(*r));
	e2e_fmt(sql, sizeof(sql), "SELECT source %s", where);
	text = e2e_query_text(t->sql, sql, name);
	e2e_fmt(r->source, sizeof(r->source), "%s", text ? text : "");
	free(text);
#define COL(c)                                                                 \
	e2e_fmt(sql, sizeof(sql), "SELECT " #c " %s", where);                  \
	r->c = e2e_query_int(t->sql, sql, name)
	COL(signal);
	COL(rate_hz);
	COL(samples);
	COL(cpu_ns);
	COL(fallback);
	COL(lost);
#undef COL
}

/* May this process open a perf cpu-clock event counting the kernel's
 * time too (else the sampler is not "perf", and its rate another)? */
static int perf_allowed(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/*
 * The time the hypervisor took from this machine's CPUs so far, all of
 * them (/proc/stat's steal, in ns; 0 where it is not said).  The perf
 * cpu-clock event times its period on a high-resolution timer while the
 * thread is on its CPU, so a period stolen by the hypervisor counts
 * there, but not in the thread's CPU clock (CONFIG_PARAVIRT_TIME_ACCOUNTING
 * takes it out): on a guest whose host is busy a thread gets more
 * samples per second of its CPU time than asked, by what was stolen.
 */
static double steal_ns(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");
	int n = 0;

	if (f) {
		n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7]);
		fclose(f);
	}
	return n == 8 ? (double)v[7] * 1e9 / (double)sysconf(_SC_CLK_TCK) : 0;
}

START_TEST(rate_asked_is_rate_obtained)
{
	static const char *const rates[] = { "1000", "2000", "5000", "10000" };
	struct e2e t;
	char policy[64], *out;
	long long cpu_ns = 0;
	struct sampler_row r;

	if (!perf_allowed()) {
		printf("rate_asked_is_rate_obtained: skipped, perf events "
		       "need root here\n");
		return;
	}
	for (size_t i = 0; i < sizeof(rates) / sizeof(*rates); i++) {
		double want, got, stolen;

		e2e_init(&t);
		e2e_fmt(policy, sizeof(policy), "cpu>10000%%, rate=%s",
			rates[i]);
		/* two threads, 400 ms of CPU each: counted in CPU time, so
		 * the figure holds however loaded the machine is; the time
		 * stolen from every CPU meanwhile bounds what the threads'
		 * timers counted beyond their CPU clocks (steal_ns()) */
		stolen = -steal_ns();
		run(&t, policy, ARGS(e2e_prog("spike-rate"), "400", "2"), &out,
		    NULL);
		stolen += steal_ns();
		ck_assert_int_eq(sscanf(out, "cpu_ns=%lld", &cpu_ns), 1);
		sampler_of(&t, "spike-rate", &r);
		ck_assert_str_eq(r.source, "perf");
		ck_assert_int_eq(r.rate_hz, atoll(rates[i]));
		ck_assert_int_eq(r.fallback, 0);
		ck_assert_int_eq(r.lost, 0);
		/* the samples against the CPU of exactly the intervals the
		 * library sampled (r.cpu_ns), and that against the program's
		 * own figure below: a failure says which one is off */
		want = (double)r.rate_hz * (double)r.cpu_ns / 1e9;
		got = (double)r.samples;
		printf("rate %s: %.0f samples in %.3f s of CPU sampled (%.0f "
		       "Hz), %.3f s burned, %.3f s stolen by the hypervisor "
		       "meanwhile\n",
		       rates[i], got, r.cpu_ns / 1e9, got * 1e9 / r.cpu_ns,
		       cpu_ns / 1e9, stolen / 1e9);
		ck_assert_msg(
			got > want * 0.9 &&
				got < (want + r.rate_hz * stolen / 1e9) * 1.1,
			"rate %s: %.0f samples in %.3f s of CPU sampled "
			"(%.0f Hz), %.0f asked, %.3f s stolen meanwhile",
			rates[i], got, r.cpu_ns / 1e9, got * 1e9 / r.cpu_ns,
			(double)r.rate_hz, stolen / 1e9);
		/* the library's CPU figure is the program's, within 10% */
		ck_assert_msg(
			r.cpu_ns > cpu_ns * 0.9 && r.cpu_ns < cpu_ns * 1.1,
			"cpu_ns %lld sampled, %lld burned", r.cpu_ns, cpu_ns);
		free(out);
		e2e_release(&t);
	}
}
END_TEST

START_TEST(no_perf_falls_back_to_the_timer_and_says_so)
{
	struct e2e t;
	struct sampler_row r;
	struct tool_out o;
	struct jval *doc;
	const struct jval *samplers, *mine = NULL;
	char *out, want[160];
	long long cpu_ns = 0;

	e2e_init(&t);
	run(&t, "cpu>10000%, rate=1000",
	    ARGS(e2e_prog("spike-noperf"), e2e_prog("spike-rate"), "400", "1"),
	    &out, NULL);
	ck_assert_int_eq(sscanf(out, "cpu_ns=%lld", &cpu_ns), 1);
	sampler_of(&t, "spike-rate", &r);
	ck_assert_str_eq(r.source, "timer");
	ck_assert_int_gt(r.samples, 0);
	/* ccsg spikes says which, and the rate obtained, not the one asked */
	o = tool_run(ARGS(tool_path("ccsg"), "spikes", "--db", t.db));
	e2e_assert_exit(o.status, 0, "ccsg spikes");
	e2e_fmt(want, sizeof(want),
		"timer, signal %lld, 1000 Hz asked, %.0f Hz "
		"obtained",
		r.signal, (double)r.samples * 1e9 / (double)r.cpu_ns);
	ck_assert_msg(strstr(o.out, want), "no '%s' in:\n%s", want, o.out);
	tool_out_release(&o);
	doc = spikes_json(&t);
	samplers = json_need(doc, "samplers", J_ARR, "spikes");
	for (int i = 0; i < samplers->n; i++)
		if (strstr(json_need(&samplers->item[i], "exe", J_STR, "s")
				   ->str,
			   "spike-rate"))
			mine = &samplers->item[i];
	ck_assert_ptr_nonnull(mine);
	ck_assert_str_eq(json_need(mine, "source", J_STR, "s")->str, "timer");
	ck_assert(json_need(mine, "rate_hz", J_NUM, "s")->num == 1000);
	ck_assert(json_need(mine, "samples", J_NUM, "s")->num == r.samples);
	json_free(doc);
	free(out);
	e2e_release(&t);
	/* asked for by the policy: the same, and said the same way */
	e2e_init(&t);
	run(&t, "cpu>10000%, sampler=timer",
	    ARGS(e2e_prog("spike-rate"), "200", "1"), &out, NULL);
	sampler_of(&t, "spike-rate", &r);
	ck_assert_str_eq(r.source, "timer");
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * Issue 35's program: 30% of a CPU, a one-second spike to 100%, the
 * policy cpu>75%/1s and every setting at its default (1 kHz, n=500):
 * the window holds the spike, the whole run the background.
 */
START_TEST(defaults_put_the_spike_first)
{
	struct e2e t;
	const struct jval *br, *win, *runp;
	struct jval *doc;
	char *out;
	long bg_ms = 0, spike_ms = 0, share = 0;

	e2e_init(&t);
	run(&t, "cpu>75%/1s", cpu_first(ARGS(e2e_prog("spike-duty"))), &out,
	    NULL);
	ck_assert_int_eq(sscanf(out,
				"background_cpu_ms=%ld spike_cpu_ms=%ld "
				"spike_share=%ld",
				&bg_ms, &spike_ms, &share),
			 3);
	/* what the program measured makes the claims true */
	ck_assert_msg(bg_ms > spike_ms, "background %ld ms, spike %ld ms",
		      bg_ms, spike_ms);
	ck_assert_msg(share > 75, "the spike had %ld%% of a CPU", share);
	doc = spikes_json(&t);
	br = json_need(doc, "breaches", J_ARR, "spikes");
	win = json_need(doc, "window_profile", J_ARR, "spikes");
	runp = json_need(doc, "run_profile", J_ARR, "spikes");
	ck_assert_int_ge(br->n, 1);
	ck_assert_str_eq(fn_at(win, 0), "spike_work");
	ck_assert_ptr_nonnull(strstr(fn_at(runp, 0), "background_work"));
	for (int i = 0; i < br->n; i++) {
		const struct jval *b = &br->item[i];

		ck_assert_str_eq(json_need(b, "sampler", J_STR, "b")->str,
				 "perf");
		ck_assert(json_need(b, "rate_obtained_hz", J_NUM, "b")->num >
			  900);
		/* 500 samples at 1 kHz of one thread: half a second */
		ck_assert(json_need(b, "span_before_ms", J_NUM, "b")->num >
			  400);
	}
	json_free(doc);
	free(out);
	e2e_release(&t);
}
END_TEST

/* Run spike-signals MODE traced at 10 kHz and untraced. */
static void signals_run(struct e2e *t, const char *mode, char **out, char **err,
			char **plain, int *status, int *plain_status)
{
	char o[PATH_MAX], e[PATH_MAX], env[128];
	const char *argv[] = { e2e_prog("spike-signals"), mode, "150", NULL };
	const char *extra[] = { env, NULL };

	e2e_fmt(env, sizeof(env), "CAUSAL_POLICY=cpu>10000%%, rate=10000");
	e2e_fmt(o, sizeof(o), "%s/%s.plain", t->dir, mode);
	*plain_status = e2e_run_plain(argv, o, NULL);
	*plain = e2e_slurp(o, NULL);
	e2e_fmt(o, sizeof(o), "%s/%s.out", t->dir, mode);
	e2e_fmt(e, sizeof(e), "%s/%s.err", t->dir, mode);
	*status = e2e_run_traced(t, argv, extra, o, e);
	*out = e2e_slurp(o, NULL);
	*err = e2e_slurp(e, NULL);
}

START_TEST(sampler_signal_never_reaches_the_program)
{
	static struct {
		const char *mode, *out;
		char said[200];
	} cases[] = {
		/* a signalfd of every signal reads only what was sent */
		{ "signalfd", "read=10\n",
		  "causal: policy: a thread blocks every real-time signal the "
		  "sampler could use: it is not sampled while it does\n" },
		/* SIGRTMAX-3 is SIG_DFL, then the program's, called once */
		{ "handler", "dfl=1\ncalls=1\nmine=1\n", "" },
		/* blocked: nothing of ours pending, the program's own comes */
		{ "block", "pending=0\nwaited=1\ncode_queue=1\n", "" },
		/* every real-time signal the program's: sampling stops */
		{ "every", NULL,
		  "causal: policy: the program uses every real-time signal: "
		  "sampling stops\n" },
		/* sent without a handler: it dies of it, as untraced */
		{ "kill", NULL, "" },
	};
	struct e2e t;

	e2e_fmt(cases[1].said, sizeof(cases[1].said),
		"causal: policy: the program set a disposition for signal %d, "
		"the sampler's: sampling moved to signal %d\n",
		SIGRTMAX - 3, SIGRTMAX - 4);
	e2e_fmt(cases[2].said, sizeof(cases[2].said),
		"causal: policy: the program blocks signal %d, the sampler's: "
		"sampling moved to signal %d\n",
		SIGRTMAX - 3, SIGRTMAX - 4);
	e2e_init(&t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *out, *err, *plain;
		int status, plain_status;

		signals_run(&t, cases[i].mode, &out, &err, &plain, &status,
			    &plain_status);
		ck_assert_msg(status == plain_status,
			      "%s: status %#x traced, %#x untraced",
			      cases[i].mode, status, plain_status);
		ck_assert_msg(!strcmp(out, plain),
			      "%s: traced '%s', untraced "
			      "'%s'",
			      cases[i].mode, out, plain);
		if (cases[i].out)
			ck_assert_str_eq(out, cases[i].out);
		ck_assert_msg(strstr(err, cases[i].said), "%s: stderr '%s'",
			      cases[i].mode, err);
		/* said once, however many threads and samples met it */
		ck_assert_msg(!cases[i].said[0] ||
				      !strstr(strstr(err, cases[i].said) + 1,
					      cases[i].said),
			      "%s: said twice: '%s'", cases[i].mode, err);
		free(out);
		free(err);
		free(plain);
	}
	e2e_release(&t);
}
END_TEST

/* A death by the sampler's signal, or by one it moved off, sent by the
 * program: the log ends as without a policy (PROCESS_END, the signal). */
START_TEST(a_death_by_the_sampler_signal_is_recorded)
{
	static const char *const modes[] = { "kill", "movekill" };
	struct e2e t;

	for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++) {
		char *out, *err, *plain;
		int status, plain_status;

		e2e_init(&t);
		signals_run(&t, modes[i], &out, &err, &plain, &status,
			    &plain_status);
		ck_assert_msg(WIFSIGNALED(status) &&
				      WTERMSIG(status) == SIGRTMAX - 3 &&
				      status == plain_status,
			      "%s: status %#x traced, %#x untraced", modes[i],
			      status, plain_status);
		e2e_merge(&t);
		ck_assert_msg(e2e_query_int(t.sql,
					    "SELECT count(*) FROM processes "
					    "WHERE end_reason = 'signal' AND "
					    "end_detail = %d",
					    SIGRTMAX - 3) == 1,
			      "%s: no end record of signal %d", modes[i],
			      SIGRTMAX - 3);
		free(out);
		free(err);
		free(plain);
		e2e_release(&t);
	}
}
END_TEST

START_TEST(sampling_goes_on_after_a_move)
{
	struct e2e t;
	struct sampler_row r;
	char *out, *err, *plain, *notes, moved[64];
	int status, plain_status;

	e2e_init(&t);
	signals_run(&t, "handler", &out, &err, &plain, &status, &plain_status);
	e2e_assert_exit(status, 0, "spike-signals handler");
	e2e_merge(&t);
	sampler_of(&t, "spike-signals", &r);
	ck_assert_int_eq(r.signal, SIGRTMAX - 4);
	if (!perf_allowed()) {
		ck_assert_int_gt(r.samples, 0);
		r.samples =
			r.cpu_ns / 100000; /* the timer's rate is not 10 kHz */
	}
	/* 3 x 150 ms of CPU at 10 kHz, before and after the move alike */
	ck_assert_msg(r.samples > r.cpu_ns * 9 / 1000000 &&
			      r.samples < r.cpu_ns * 11 / 1000000,
		      "%lld samples in %lld ns of CPU", r.samples, r.cpu_ns);
	notes = e2e_query_text(t.sql, "SELECT group_concat(note) FROM "
				      "spike_samplers");
	e2e_fmt(moved, sizeof(moved), "moved to signal %d", SIGRTMAX - 4);
	ck_assert_msg(notes && strstr(notes, moved), "notes: %s", notes);
	free(notes);
	free(out);
	free(err);
	free(plain);
	e2e_release(&t);
}
END_TEST

/* A vfork child runs on its parent's memory: what it does with its own
 * mask and dispositions before it exits must leave the parent's sampler
 * as it was. */
START_TEST(a_vfork_child_changes_nothing)
{
	struct e2e t;
	struct sampler_row r;
	char *out, *err;

	e2e_init(&t);
	run(&t, "cpu>10000%, rate=10000",
	    ARGS(e2e_prog("spike-signals"), "vfork", "200"), &out, &err);
	ck_assert_str_eq(out, "vforked=1\n");
	ck_assert_str_eq(err, "");
	sampler_of(&t, "spike-signals", &r);
	ck_assert_int_eq(r.signal, SIGRTMAX - 3);
	if (perf_allowed())
		ck_assert_msg(r.samples > r.cpu_ns * 9 / 1000000,
			      "%lld samples in %lld ns of CPU", r.samples,
			      r.cpu_ns);
	free(out);
	free(err);
	e2e_release(&t);
}
END_TEST

START_TEST(exec_under_a_policy_lives)
{
	struct e2e t;
	const char *argv[] = { e2e_prog("spike-signals"), "exec", "20", NULL };
	const char *extra[] = { "CAUSAL_POLICY=cpu>10000%, rate=10000", NULL };

	e2e_init(&t);
	/* a sample pending across an exec would kill the new image */
	for (int i = 0; i < 20; i++)
		e2e_assert_exit(e2e_run_traced(&t, argv, extra, NULL, NULL), 0,
				"spike-signals exec");
	e2e_release(&t);
}
END_TEST

START_TEST(sampler_descriptors_stay_above_the_program)
{
	struct e2e t;
	struct rlimit rl;
	struct sampler_row r;
	char *out, *err, plain[PATH_MAX];
	int low = 0, perf = 0, perf_low = 0, child = 0, plain_low = -1;
	long hi = 2048;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < (rlim_t)hi)
		hi = (long)rl.rlim_cur;
	e2e_init(&t);
	e2e_fmt(plain, sizeof(plain), "%s/plain.out", t.dir);
	e2e_assert_exit(
		e2e_run_plain(ARGS(e2e_prog("spike-signals"), "fds", "20"),
			      plain, NULL),
		0, "spike-signals fds");
	out = e2e_slurp(plain, NULL);
	ck_assert_int_eq(sscanf(out, "low=%d", &plain_low), 1);
	free(out);
	run(&t, "cpu>10000%", ARGS(e2e_prog("spike-signals"), "fds", "200"),
	    &out, &err);
	ck_assert_int_eq(sscanf(out,
				"low=%d\nperf=%d\nperf_low=%d\nchild_perf=%d",
				&low, &perf, &perf_low, &child),
			 4);
	/* the program's first free number is the same as untraced */
	ck_assert_int_eq(low, plain_low);
	if (hi >= 256) {
		ck_assert_int_eq(perf, 4); /* main and 3 threads */
		ck_assert_int_ge(perf_low, hi - hi / 8);
	}
	/* the fork child holds its own event, none of its parent's */
	ck_assert_int_eq(child, hi >= 256 ? 1 : 0);
	free(out);
	free(err);
	e2e_release(&t);
	/* a daemon closes every descriptor: the thread goes on sampled by
	 * a timer, and that is said */
	e2e_init(&t);
	run(&t, "cpu>10000%, period=10ms",
	    ARGS(e2e_prog("spike-signals"), "closeall", "300"), &out, &err);
	ck_assert_str_eq(out, "closed\n");
	ck_assert_str_eq(err, "causal: policy: the program closed the "
			      "descriptor of a thread's sampling event: that "
			      "thread is sampled by a timer from now on\n");
	sampler_of(&t, "spike-signals", &r);
	ck_assert_int_eq(r.fallback, 1);
	ck_assert_int_gt(r.samples, 0);
	free(out);
	free(err);
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
	tcase_add_test(tc, rate_asked_is_rate_obtained);
	tcase_add_test(tc, no_perf_falls_back_to_the_timer_and_says_so);
	tcase_add_test(tc, defaults_put_the_spike_first);
	tcase_add_test(tc, sampler_signal_never_reaches_the_program);
	tcase_add_test(tc, a_death_by_the_sampler_signal_is_recorded);
	tcase_add_test(tc, sampling_goes_on_after_a_move);
	tcase_add_test(tc, a_vfork_child_changes_nothing);
	tcase_add_test(tc, exec_under_a_policy_lives);
	tcase_add_test(tc, sampler_descriptors_stay_above_the_program);
	suite_add_tcase(s, tc);
	return s;
}
