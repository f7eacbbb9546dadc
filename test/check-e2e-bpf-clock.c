/*
 * check-e2e-bpf-clock.c - the bpf clock end to end: `causalctl bpf-clock
 * start` loads it, traced RPC servers and clients read their threads' CPU
 * clocks from it, and the trace agrees with what the threads measured
 * themselves with CLOCK_THREAD_CPUTIME_ID.
 *
 * The clock is pinned in a directory of this runner's own
 * (/sys/fs/bpf/causal-e2e-PID), never the host's, and removed by the test
 * case's teardown whatever happened.  Where BPF cannot be loaded (no BTF,
 * no right to load programs) the suite is skipped with one line.
 *
 * That the bpf clock was read, not the system call: a thread's CPU clock
 * at two moments of one time slice differs, by the bpf clock, by exactly
 * the CLOCK_MONOTONIC between them (cpu_at_in + (t - in_at)); read by the
 * system call it almost never does to the nanosecond.  The tests count
 * such pairs, and run the same calls with CAUSAL_CPU_CLOCK=syscall to show
 * the count tells the two apart.  The last test reads the clock as the
 * library does, next to the system call, in threads sharing a CPU.
 */
#include <grp.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "cpu-clock.h"
#include "e2e-rpc.h"
#include "tool-run.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static char clock_dir[64]; /* this runner's pin directory */
static int skipped;	   /* BPF cannot be loaded here */

static const char *ctl_path(void)
{
	static char p[PATH_MAX];

	e2e_fmt(p, sizeof(p), "%s/causalctl", e2e_build());
	return p;
}

/*
 * The exit status of `causalctl bpf-clock --dir clock_dir ACTION`, in the
 * runner or a test, by the shell: ACTION may go on with a pipe (the
 * status is then the pipe's).  Its output is dropped unless piped.
 */
static int ctl_status_quiet(const char *action)
{
	char cmd[PATH_MAX + 160];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "'%s' bpf-clock --dir %s %s >/dev/null 2>/dev/null",
		 ctl_path(), clock_dir, action);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void case_setup(void)
{
	e2e_case_setup();
	/* nobody must reach the programs and logs inside */
	if (e2e_root[0])
		chmod(e2e_root, 0711);
	snprintf(clock_dir, sizeof(clock_dir), "/sys/fs/bpf/causal-e2e-%d",
		 (int)getpid());
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		skipped = 1;
		printf("e2e_bpf_clock: skipped: no kernel BTF "
		       "(/sys/kernel/btf/vmlinux): the bpf clock cannot be "
		       "loaded here\n");
		return;
	}
	/* root without the right to load BPF (a container) or a kernel
	 * without the bpf() system call: skipped too; any other failure to
	 * start (the verifier refusing the program) is the tests' to report */
	if (getenv("CAUSAL_BUILD") && ctl_status_quiet("start") &&
	    ctl_status_quiet("start 2>&1 | grep -q 'Operation not permitted\\|"
			     "Function not implemented'") == 0) {
		skipped = 1;
		printf("e2e_bpf_clock: skipped: this process may not load BPF "
		       "programs (not permitted, or no bpf() here)\n");
	}
	ctl_status_quiet("stop");
}

static void case_teardown(void)
{
	/* a failed test may leave the clock running */
	if (!skipped && getenv("CAUSAL_BUILD"))
		ctl_status_quiet("stop");
	e2e_case_teardown();
}

static struct tool_out ctl(const char *action)
{
	return tool_run((const char *[]){ ctl_path(), "bpf-clock", action,
					  "--dir", clock_dir, NULL });
}

/* A clock of its own for the test: an earlier test that failed may have
 * left its clock behind. */
static void ctl_start(void)
{
	struct tool_out r;

	ck_assert_int_eq(ctl_status_quiet("stop"), 0);
	r = ctl("start");
	e2e_assert_exit(r.status, 0, "causalctl bpf-clock start");
	ck_assert_msg(strstr(r.out, "bpf clock started in") &&
			      strstr(r.out, "state:    live"),
		      "causalctl bpf-clock start said: %s%s", r.out, r.err);
	tool_out_release(&r);
}

/* The id of the clock's link, from `status`. */
static unsigned link_id(void)
{
	struct tool_out r = ctl("status");
	const char *p = strstr(r.out, "link id ");
	unsigned id = p ? (unsigned)atoi(p + 8) : 0;

	e2e_assert_exit(r.status, 0, "causalctl bpf-clock status");
	ck_assert_msg(id, "no link id in: %s", r.out);
	tool_out_release(&r);
	return id;
}

static int link_exists(unsigned id)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.link_id = id;
	fd = (int)syscall(SYS_bpf, BPF_LINK_GET_FD_BY_ID, &a, sizeof(a));
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Everything on CPU 0 (inherited by what the test starts), and an
 * untraced program burning it: the traced threads are switched out and
 * in again while they burn, so a clock that missed a switch would count
 * the time they waited. */
static void share_one_cpu_without_hog(void);

static pid_t share_one_cpu(void)
{
	share_one_cpu_without_hog();
	return e2e_spawn(ARGS(e2e_prog("cpu-burn"), "1", "600000"), NULL, NULL,
			 NULL);
}

static void share_one_cpu_without_hog(void)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
}

static void stop_hog(pid_t hog)
{
	kill(hog, SIGKILL);
	e2e_wait(hog);
}

/* The environment of a traced program that reads clock (auto, bpf or
 * syscall) from this runner's pin directory, never estimating. */
static const char *const *clock_env(const char *clock)
{
	static char dir[4][128], want[4][64];
	static const char *env[4][4];
	static int next;
	int i = next++ % 4;

	e2e_fmt(dir[i], sizeof(dir[i]), "CAUSAL_BPF_CLOCK_DIR=%s", clock_dir);
	e2e_fmt(want[i], sizeof(want[i]), "CAUSAL_CPU_CLOCK=%s", clock);
	env[i][0] = dir[i];
	env[i][1] = want[i];
	env[i][2] = "CAUSAL_CPU_EXACT_US=0";
	env[i][3] = NULL;
	return env[i];
}

/* demo-server NAME, traced with env, serving; like rpc_server_start(). */
static void server_start(struct e2e *t, struct rpc_server *s, const char *name,
			 const char *const env[])
{
	char *text;

	memset(s, 0, sizeof(*s));
	e2e_fmt(s->name, sizeof(s->name), "%s", name);
	e2e_fmt(s->out, sizeof(s->out), "%s/%s.out", t->dir, name);
	e2e_fmt(s->err, sizeof(s->err), "%s/%s.err", t->dir, name);
	e2e_fmt(s->ready, sizeof(s->ready), "%s/%s.ready", t->dir, name);
	/* -y: each BURN's skeleton ends just after a switch-in, so that
	 * both of its CPU readings are the bpf clock's (a slot is read only
	 * in the 100 us after its thread's switch-in) */
	s->pid = e2e_spawn_traced(
		t, ARGS(rpc_prog("demo-server"), "-y", "-r", s->ready), env,
		s->out, s->err);
	rpc_wait_file(s->ready, s->pid);
	text = e2e_slurp(s->ready, NULL);
	ck_assert_msg(sscanf(text, "pid %d tcp %d udp %d", &s->server_pid,
			     &s->tcp, &s->udp) == 3,
		      "%s: bad ready file: %s", name, text);
	free(text);
}

/* demo-client args, traced with env, started (not waited for). */
static pid_t client_spawn(struct e2e *t, const char *name,
			  const char *const env[], const char *const args[])
{
	char out[PATH_MAX], err[PATH_MAX];
	const char *argv[16];
	int n = 0;

	argv[n++] = rpc_prog("demo-client");
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, name);
	e2e_fmt(err, sizeof(err), "%s/%s.err", t->dir, name);
	return e2e_spawn_traced(t, argv, env, out, err);
}

static void client_wait(struct e2e *t, const char *name, pid_t pid)
{
	char err[PATH_MAX];
	int st = e2e_wait(pid);

	e2e_fmt(err, sizeof(err), "%s/%s.err", t->dir, name);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char *e = e2e_slurp(err, NULL);

		ck_abort_msg("client %s: status 0x%x: %s", name, st, e);
	}
}

/* No "causal: " line in what the program printed on stderr. */
static void assert_silent(const char *err_path)
{
	char *e = e2e_slurp(err_path, NULL);

	ck_assert_msg(!strstr(e, "causal: "), "'%s' says: %s", err_path, e);
	free(e);
}

static int count_lines(const char *text, const char *prefix);

/* The one "causal: " line of a process reading the bpf clock in
 * clock_dir, once, whatever else it printed. */
static void assert_says_bpf(const char *err_path)
{
	char *e = e2e_slurp(err_path, NULL), want[160];

	e2e_fmt(want, sizeof(want),
		"causal: reading the cpu clock from the bpf clock '%s/clock'\n",
		clock_dir);
	ck_assert_msg(count_lines(e, "causal: ") == 1 && strstr(e, want),
		      "'%s' says: %s", err_path, e);
	free(e);
}

/* The one "causal: " line of a process that found the clock in clock_dir
 * stale. */
static void assert_says_stale(const char *err_path)
{
	char *e = e2e_slurp(err_path, NULL), want[300];

	e2e_fmt(want, sizeof(want),
		"causal: cannot use the bpf clock '%s/clock': the clock is "
		"stale (no program keeps it: restart it with causalctl "
		"bpf-clock start); reading the cpu clock with a system call\n",
		clock_dir);
	ck_assert_msg(count_lines(e, "causal: ") == 1 && strstr(e, want),
		      "'%s' says: %s", err_path, e);
	free(e);
}

/*
 * Every BURN call the server printed: its skeleton's CPU by the trace
 * (skel_end_cpu - skel_start_cpu, the bpf clock unless it fell back)
 * against what the serving thread measured around its burn, within 1%.
 * The k-th line a thread printed is the k-th call its skeletons served.
 * Returns how many calls took 30% more time than CPU (the thread waited
 * while it burned: the test had teeth).
 */
static int assert_burns_agree(struct e2e *t, struct rpc_server *s, int calls)
{
	char *printed = e2e_slurp(s->out, NULL), *line = printed;
	long long tids[16];
	int served[16], threads = 0, n = 0, waited = 0;

	rpc_server_proc(t, s);
	while ((line = strstr(line, "burn tid "))) {
		long long tid, us, cpu0, cpu1, id, bpf, start, wall;
		int k;

		ck_assert_int_eq(sscanf(line,
					"burn tid %lld us %lld cpu0 %lld "
					"cpu1 %lld",
					&tid, &us, &cpu0, &cpu1),
				 4);
		line++;
		/* its thread's how-many-th call */
		for (k = 0; k < threads && tids[k] != tid; k++)
			;
		if (k == threads) {
			ck_assert_int_lt(threads, 16);
			tids[threads] = tid;
			served[threads++] = 0;
		}
		id = e2e_query_int(t->sql,
				   "SELECT call_id FROM rpc_calls WHERE "
				   "server_proc_id = %lld AND proc = %d AND "
				   "server_tid = %lld ORDER BY skel_start_ns "
				   "LIMIT 1 OFFSET %d",
				   s->proc, P_BURN, e2e_tid(t, s->proc, tid),
				   served[k]++);
		bpf = rpc_col(t, id, "skel_end_cpu_ns - skel_start_cpu_ns");
		start = rpc_col(t, id, "skel_start_cpu_ns");
		wall = rpc_col(t, id, "skel_end_ns - skel_start_exit_ns");
		ck_assert_msg(llabs(bpf - (cpu1 - cpu0)) <= (cpu1 - cpu0) / 100,
			      "%s call %lld: skeleton CPU %lld ns, the thread "
			      "measured %lld ns (wall %lld ns)",
			      s->name, id, bpf, cpu1 - cpu0, wall);
		ck_assert_msg(llabs(start - cpu0) <= (cpu1 - cpu0) / 100,
			      "%s call %lld: CPU %lld ns at the skeleton "
			      "start, %lld ns when the thread began",
			      s->name, id, start, cpu0);
		waited += wall > (cpu1 - cpu0) * 13 / 10;
		n++;
	}
	ck_assert_int_eq(n, calls);
	free(printed);
	return waited;
}

/*
 * Of the server's DEMO_NULL calls, how many (in %) have a skeleton whose
 * CPU and time are equal to the nanosecond: read by the bpf clock within
 * one time slice.
 */
static long long exact_share(struct e2e *t, struct rpc_server *s)
{
	rpc_server_proc(t, s);
	return e2e_query_int(
		t->sql,
		"SELECT 100 * sum(skel_end_cpu_ns - skel_start_cpu_ns = "
		"skel_end_ns - skel_start_exit_ns) / count(*) FROM rpc_calls "
		"WHERE server_proc_id = %lld AND proc = %d",
		s->proc, P_NULL);
}

/* processes.cpu_clock of proc is want. */
static void assert_clock(struct e2e *t, long long proc, const char *want)
{
	char *got = e2e_query_text(
		t->sql, "SELECT cpu_clock FROM processes WHERE proc_id = %lld",
		proc);

	ck_assert_msg(got && !strcmp(got, want),
		      "process %lld: cpu_clock %s, expected %s", proc,
		      got ? got : "NULL", want);
	free(got);
}

/* Lines of text starting with prefix. */
static int count_lines(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		n += !strncmp(p, prefix, strlen(prefix));
	}
	return n;
}

/*
 * CPU-bound serving threads sharing one CPU with a burning program: the
 * skeletons' CPU read by the bpf clock agrees with what the threads
 * measured themselves within 1%; the clock was read (exact pairs), the
 * logs and the database say so, and stderr once.  The same
 * null calls by the system call clock show no such pairs.
 */
START_TEST(test_bpf_clock_agrees_with_the_thread_clock)
{
	struct rpc_server bpf, sys;
	struct tool_out r;
	pid_t hog, c[2];
	struct e2e t;
	int waited;

	if (skipped)
		return;
	rpc_isolate();
	e2e_init(&t);
	ctl_start();
	hog = share_one_cpu();
	server_start(&t, &bpf, "server", clock_env("bpf"));
	server_start(&t, &sys, "server-syscall", clock_env("syscall"));
	/* two serving threads (TCP and UDP) burning 50 ms each at once:
	 * 1% is 500 us, room for what the skeleton does besides (decoding,
	 * printing, the reply's send, which runs the loopback's receive) */
	for (int round = 0; round < 3; round++) {
		c[0] = client_spawn(
			&t, "burn-tcp", clock_env("bpf"),
			ARGS("-P", rpc_port(bpf.tcp), "burn", "50000"));
		c[1] = client_spawn(&t, "burn-udp", clock_env("bpf"),
				    ARGS("-p", "udp", "-P", rpc_port(bpf.udp),
					 "burn", "50000"));
		client_wait(&t, "burn-tcp", c[0]);
		client_wait(&t, "burn-udp", c[1]);
	}
	client_wait(&t, "null",
		    client_spawn(&t, "null", clock_env("bpf"),
				 ARGS("-P", rpc_port(bpf.tcp), "bench", "null",
				      "300")));
	client_wait(&t, "null-syscall",
		    client_spawn(&t, "null-syscall", clock_env("syscall"),
				 ARGS("-P", rpc_port(sys.tcp), "bench", "null",
				      "300")));
	rpc_server_stop(&bpf);
	rpc_server_stop(&sys);
	stop_hog(hog);
	assert_says_bpf(bpf.err);
	assert_silent(sys.err);
	e2e_merge(&t);

	waited = assert_burns_agree(&t, &bpf, 6);
	ck_assert_msg(waited >= 1, "no serving thread waited while it burned: "
				   "the clocks were not put to the test");
	ck_assert_msg(exact_share(&t, &bpf) >= 50,
		      "%lld%% of the null calls were read by the bpf clock",
		      exact_share(&t, &bpf));
	ck_assert_msg(exact_share(&t, &sys) < 30,
		      "%lld%% of the system call clock's readings look exact",
		      exact_share(&t, &sys));
	assert_clock(&t, bpf.proc, "bpf");
	assert_clock(&t, sys.proc, "syscall");
	/* the server, six burning clients and the null one */
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes "
					      "WHERE cpu_clock = 'bpf'"),
			 1 + 6 + 1);

	r = ctl("stop");
	e2e_assert_exit(r.status, 0, "causalctl bpf-clock stop");
	tool_out_release(&r);
	ck_assert_int_ne(access(clock_dir, F_OK), 0);
	e2e_release(&t);
}
END_TEST

/*
 * Stopped while a traced server runs: the server's threads read the
 * system call from then on, never the slots nobody updates any more
 * (which would count the time since as CPU); the program is detached; a
 * process started without a clock reads the system call, silently unless
 * it asked for the bpf clock.
 */
START_TEST(test_bpf_clock_stopped_while_running)
{
	struct rpc_server s;
	struct tool_out r;
	unsigned id;
	struct e2e t;
	char err[PATH_MAX], *e;
	pid_t hog;

	if (skipped)
		return;
	rpc_isolate();
	e2e_init(&t);
	ctl_start();
	id = link_id();
	ck_assert(link_exists(id));
	hog = share_one_cpu();
	server_start(&t, &s, "server", clock_env("bpf"));
	client_wait(&t, "before",
		    client_spawn(&t, "before", clock_env("auto"),
				 ARGS("-P", rpc_port(s.tcp), "burn", "50000")));

	r = ctl("stop");
	e2e_assert_exit(r.status, 0, "causalctl bpf-clock stop");
	ck_assert_msg(strstr(r.out, "bpf clock stopped in"), "stop said: %s",
		      r.out);
	tool_out_release(&r);
	ck_assert_msg(!link_exists(id), "link %u still exists after stop", id);
	r = ctl("status");
	e2e_assert_exit(r.status, 3, "causalctl bpf-clock status, stopped");
	ck_assert_msg(strstr(r.out, "not running"), "status said: %s", r.out);
	tool_out_release(&r);
	r = ctl("stop"); /* nothing left: still fine */
	e2e_assert_exit(r.status, 0, "causalctl bpf-clock stop, again");
	ck_assert_msg(strstr(r.out, "no bpf clock in"), "stop said: %s", r.out);
	tool_out_release(&r);

	/* the server still maps the stopped clock */
	for (int i = 0; i < 3; i++)
		client_wait(&t, "after",
			    client_spawn(&t, "after", clock_env("auto"),
					 ARGS("-P", rpc_port(s.tcp), "burn",
					      "50000")));
	client_wait(&t, "want-bpf",
		    client_spawn(&t, "want-bpf", clock_env("bpf"),
				 ARGS("-P", rpc_port(s.tcp), "say", "1")));
	rpc_server_stop(&s);
	stop_hog(hog);
	assert_says_bpf(s.err); /* once: nothing more when it stopped */
	e2e_fmt(err, sizeof(err), "%s/after.err", t.dir);
	assert_silent(err); /* auto, no clock: nothing to say */
	e2e_fmt(err, sizeof(err), "%s/want-bpf.err", t.dir);
	e = e2e_slurp(err, NULL);
	ck_assert_msg(count_lines(e, "causal: ") == 1 &&
			      strstr(e, "causal: cannot use the bpf clock '") &&
			      strstr(e, "/clock': No such file or directory; "
					"reading the cpu clock with a system "
					"call\n"),
		      "want-bpf said: %s", e);
	free(e);
	e2e_merge(&t);
	assert_burns_agree(&t, &s, 4);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes "
					      "WHERE cpu_clock = 'bpf'"),
			 2); /* the server and the client before */
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes "
					      "WHERE cpu_clock = 'syscall'"),
			 4);
	e2e_release(&t);
}
END_TEST

/*
 * Of a client's consecutive calls, how many (in %) have the CPU and the
 * time from one call's stub end to the next's stub start equal to the
 * nanosecond: read by the bpf clock within one time slice.
 */
static long long client_exact_share(struct e2e *t, long long proc)
{
	return e2e_query_int(
		t->sql,
		"SELECT 100 * sum(d_cpu = d_ns) / count(*) FROM (SELECT "
		"stub_start_cpu_ns - lag(stub_end_cpu_ns) OVER w AS d_cpu, "
		"stub_start_ns - lag(stub_end_exit_ns) OVER w AS d_ns FROM "
		"rpc_calls WHERE client_proc_id = %lld AND proc = %d WINDOW w "
		"AS (PARTITION BY client_tid ORDER BY stub_start_ns)) WHERE "
		"d_cpu IS NOT NULL",
		proc, P_NULL);
}

/* proc_id of the k-th demo-client to start (0 the first). */
static long long client_nth(struct e2e *t, int k)
{
	return e2e_query_int(t->sql,
			     "SELECT proc_id FROM processes WHERE exe LIKE "
			     "'%%/demo-client' ORDER BY start_mono_ns LIMIT 1 "
			     "OFFSET %d",
			     k);
}

/* argv traced with env as user nobody, waited for; must exit 0.  The
 * program and the library run from copies nobody can reach. */
static void run_as_nobody(struct e2e *t, const char *name,
			  const char *const argv[], const char *const extra[])
{
	char out[PATH_MAX], err[PATH_MAX], preload[PATH_MAX + 16];
	const char *env[32], *prog = e2e_reachable(t, argv[0]);
	size_t n;
	pid_t pid;
	int st;

	e2e_traced_env(t, env, extra);
	e2e_fmt(preload, sizeof(preload), "LD_PRELOAD=%s",
		e2e_reachable(t, tool_path("libcausal.so")));
	for (n = 0; env[n]; n++)
		if (!strncmp(env[n], "LD_PRELOAD=", 11))
			env[n] = preload;
	env[n++] = "PATH=/usr/bin:/bin";
	env[n] = NULL;
	e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, name);
	e2e_fmt(err, sizeof(err), "%s/%s.err", t->dir, name);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 ||
		    chdir(t->dir) || setgroups(0, NULL) || setgid(65534) ||
		    setuid(65534))
			_exit(126);
		execve(prog, (char *const *)argv, (char *const *)env);
		_exit(127);
	}
	st = e2e_wait(pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char *e = e2e_slurp(err, NULL);

		ck_abort_msg("%s as nobody: status 0x%x: %s", name, st, e);
	}
}

/*
 * Who can read the clock: a process of another user than root (the map
 * is opened without privilege, which kernel.unprivileged_bpf_disabled
 * allows), one in a pid namespace of its own (slots are keyed by
 * namespace and the thread id in it); not one whose CLOCK_MONOTONIC a
 * time namespace offsets, which says so and reads the system call.
 */
START_TEST(test_bpf_clock_users_and_namespaces)
{
	char port[16], *e, err[PATH_MAX], nobody_logs[PATH_MAX + 16];
	const char *nobody_env[5] = { NULL };
	struct rpc_server s;
	struct e2e t;
	long long p;

	if (skipped)
		return;
	rpc_isolate();
	e2e_init(&t);
	ctl_start();
	rpc_server_start(&t, &s, "server", 0, NULL, NULL);
	snprintf(port, sizeof(port), "%d", s.tcp);
	/* nobody reaches the programs and writes its own logs, in a
	 * directory of its own that the merge finds */
	ck_assert_int_eq(chmod(t.dir, 0711), 0);
	ck_assert_int_eq(mkdir(t.logs, 0711), 0);
	e2e_fmt(nobody_logs, sizeof(nobody_logs), "CAUSAL_LOG_DIR=%s/nobody",
		t.logs);
	ck_assert_int_eq(mkdir(nobody_logs + 15, 0700), 0);
	ck_assert_int_eq(chown(nobody_logs + 15, 65534, 65534), 0);
	nobody_env[0] = nobody_logs;
	for (int i = 0; i < 3; i++)
		nobody_env[i + 1] = clock_env("bpf")[i];
	run_as_nobody(&t, "nobody",
		      ARGS(rpc_prog("demo-client"), "-P", port, "bench", "null",
			   "200"),
		      nobody_env);
	e2e_fmt(err, sizeof(err), "%s/nobody.err", t.dir);
	assert_says_bpf(err);
	client_wait(
		&t, "pidns",
		e2e_spawn_traced(&t,
				 ARGS("/usr/bin/unshare", "--pid", "--fork",
				      "--mount-proc", rpc_prog("demo-client"),
				      "-P", port, "bench", "null", "200"),
				 clock_env("bpf"), NULL, NULL));
	client_wait(&t, "timens",
		    e2e_spawn_traced(&t,
				     ARGS("/usr/bin/unshare", "--fork",
					  "--time", "--monotonic", "1000",
					  rpc_prog("demo-client"), "-P", port,
					  "say", "1"),
				     clock_env("auto"), NULL, err));
	rpc_server_stop(&s);
	e = e2e_slurp(err, NULL);
	ck_assert_msg(strstr(e, "causal: cannot use the bpf clock '") &&
			      strstr(e, "/clock': this process's "
					"CLOCK_MONOTONIC is not the host's (a "
					"time namespace); reading the cpu "
					"clock with a system call\n"),
		      "in a time namespace, the client said: %s", e);
	free(e);
	e2e_merge(&t);

	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM processes "
				       "WHERE exe LIKE '%%/demo-client'"),
			 3);
	/* as nobody */
	p = client_nth(&t, 0);
	assert_clock(&t, p, "bpf");
	ck_assert_msg(client_exact_share(&t, p) >= 50,
		      "nobody's client: %lld%% of its calls read by the bpf "
		      "clock",
		      client_exact_share(&t, p));
	/* in its own pid namespace: pid 1 there */
	p = client_nth(&t, 1);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT pid FROM processes "
				       "WHERE proc_id = %lld",
				       p),
			 1);
	assert_clock(&t, p, "bpf");
	ck_assert_msg(client_exact_share(&t, p) >= 50,
		      "client in a pid namespace: %lld%% of its calls read by "
		      "the bpf clock",
		      client_exact_share(&t, p));
	/* in a time namespace */
	assert_clock(&t, client_nth(&t, 2), "syscall");
	e2e_release(&t);
}
END_TEST

/*
 * The reader itself (preload/cpu-clock.h) on the live clock: threads
 * sharing one CPU burn 2 ms, sleep (switched out and in), and read their
 * CPU clock by the bpf clock, then by the system call.  What holds on any
 * machine, however loaded: no bpf reading is ahead of the system call's
 * (read after it) by more than the bound (it counts as CPU at most the
 * CAUSAL_CPU_MAX_AGE_NS since the switch-in, of which a busy hypervisor
 * may have stolen some; a slot written at the wrong switch, or of the
 * wrong thread, is off by milliseconds); the CPU from the first reading to
 * the last agrees within 1%; the median reading within 10 us, nine in ten
 * within 50 us.  Behind, it may be: the kernel charges a thread from its
 * scheduler's clock update, before the switch the program sees, and
 * under load that can be tens of microseconds (a new-idle balance, the
 * vCPU preempted in between); each switch-in anchors the clock afresh,
 * so that never adds up.
 */
#define READS 300

struct reader {
	struct causal_cpu_clock *clk;
	int ok;		      /* readings by the bpf clock */
	long long err[READS]; /* system call - bpf, at each of them */
	uint64_t first_bpf, first_sys, last_bpf, last_sys;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *read_while_burning(void *arg)
{
	struct reader *r = arg;
	uint32_t tid = (uint32_t)gettid();
	volatile unsigned x = 1;

	for (int i = 0; i < READS; i++) {
		uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + 2000000, now,
			 bpf, sys;

		while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
			for (int k = 0; k < 1000; k++)
				x = x * 1103515245u + 12345u;
		usleep(1); /* switched out and in: a fresh slot */
		now = clock_ns(CLOCK_MONOTONIC);
		if (causal_cpu_clock_read(r->clk, tid, now, &bpf) !=
		    CAUSAL_CPU_READ_OK)
			continue;
		sys = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		r->err[r->ok++] = (long long)(sys - bpf);
		if (!r->first_bpf) {
			r->first_bpf = bpf;
			r->first_sys = sys;
		}
		r->last_bpf = bpf;
		r->last_sys = sys;
	}
	return NULL;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

START_TEST(test_bpf_clock_reads_agree_with_the_system_call)
{
	struct causal_cpu_clock clk;
	struct reader r[3];
	pthread_t th[3];
	char path[128], why[512];
	struct e2e t;

	if (skipped)
		return;
	e2e_init(&t);
	ctl_start();
	share_one_cpu_without_hog();
	e2e_fmt(path, sizeof(path), "%s/clock", clock_dir);
	ck_assert_msg(!causal_cpu_clock_open(&clk, path, why, sizeof(why)),
		      "cannot map the clock: %s", why);
	for (int i = 0; i < 3; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].clk = &clk;
		ck_assert_int_eq(
			pthread_create(&th[i], NULL, read_while_burning, &r[i]),
			0);
	}
	for (int i = 0; i < 3; i++) {
		long long median, sys, bpf;

		pthread_join(th[i], NULL);
		ck_assert_msg(r[i].ok >= READS / 2,
			      "thread %d: %d of %d readings by the bpf clock",
			      i, r[i].ok, READS);
		qsort(r[i].err, (size_t)r[i].ok, sizeof(r[i].err[0]), cmp_ll);
		median = r[i].err[r[i].ok / 2];
		/* the system call comes later: it may be a few us ahead */
		ck_assert_msg(llabs(median) <= 10000,
			      "thread %d: the bpf clock is %lld ns off the "
			      "system call's (median of %d)",
			      i, median, r[i].ok);
		ck_assert_msg(r[i].err[0] >= -(CAUSAL_CPU_MAX_AGE_NS + 10000),
			      "thread %d: a bpf reading %lld ns ahead of the "
			      "system call's (at most %d expected)",
			      i, -r[i].err[0], CAUSAL_CPU_MAX_AGE_NS + 10000);
		ck_assert_msg(r[i].err[r[i].ok * 9 / 10] <= 50000,
			      "thread %d: one bpf reading in ten %lld ns or "
			      "more behind the system call's",
			      i, r[i].err[r[i].ok * 9 / 10]);
		sys = (long long)(r[i].last_sys - r[i].first_sys);
		bpf = (long long)(r[i].last_bpf - r[i].first_bpf);
		ck_assert_msg(
			llabs(bpf - sys) <= sys / 100,
			"thread %d: %lld ns of CPU by the bpf clock, %lld "
			"ns by the system call",
			i, bpf, sys);
	}
	causal_cpu_clock_close(&clk);
	e2e_release(&t);
}
END_TEST

/* cpu-burn traced with clock_env(clock), waited for: its stderr path in
 * err (PATH_MAX). */
static void burn_traced(struct e2e *t, const char *name, const char *clock,
			char *err)
{
	e2e_fmt(err, PATH_MAX, "%s/%s.err", t->dir, name);
	e2e_assert_exit(e2e_run_traced(t, ARGS(e2e_prog("cpu-burn"), "1", "5"),
				       clock_env(clock), NULL, err),
			0, name);
}

/* processes.cpu_clock of the k-th cpu-burn to start (0 the first). */
static char *burn_clock(struct e2e *t, int k)
{
	return e2e_query_text(t->sql,
			      "SELECT cpu_clock FROM processes WHERE exe LIKE "
			      "'%%/cpu-burn' ORDER BY start_mono_ns LIMIT 1 "
			      "OFFSET %d",
			      k);
}

static void assert_burn_clock(struct e2e *t, int k, const char *want)
{
	char *got = burn_clock(t, k);

	ck_assert_msg(got && !strcmp(got, want),
		      "cpu-burn %d: cpu_clock %s, expected %s", k,
		      got ? got : "NULL", want);
	free(got);
}

/*
 * A stale clock: its link unpinned by hand (not `stop`), so the program
 * is detached while the map stays pinned and says LIVE.  A process
 * started then finds no program updating it, says so and reads the
 * system call (the log says syscall); `status` calls it stale, exit 1;
 * `start` replaces it and processes read the bpf clock again.
 */
START_TEST(test_bpf_clock_stale_link)
{
	char path[PATH_MAX], err[PATH_MAX];
	struct tool_out r;
	struct e2e t;
	unsigned id;

	if (skipped)
		return;
	e2e_init(&t);
	ctl_start();
	id = link_id();
	e2e_fmt(path, sizeof(path), "%s/link", clock_dir);
	ck_assert_int_eq(unlink(path), 0);
	/* the last reference gone, the kernel releases the link */
	for (int i = 0; i < 2000 && link_exists(id); i++)
		usleep(5000);
	ck_assert_msg(!link_exists(id), "link %u outlived its pin", id);

	burn_traced(&t, "stale", "auto", err);
	assert_says_stale(err);
	r = ctl("status");
	e2e_assert_exit(r.status, 1, "causalctl bpf-clock status, stale");
	ck_assert_msg(strstr(r.out, "state:    live") &&
			      strstr(r.out, "program:  detached") &&
			      strstr(r.err, "is stale: its program is "
					    "detached"),
		      "status said: %s%s", r.out, r.err);
	tool_out_release(&r);

	r = ctl("start");
	e2e_assert_exit(r.status, 0, "causalctl bpf-clock start, stale");
	ck_assert_msg(strstr(r.out, "bpf clock started in") &&
			      strstr(r.out, "attached to sched_switch"),
		      "start said: %s%s", r.out, r.err);
	tool_out_release(&r);
	burn_traced(&t, "restarted", "auto", err);
	assert_says_bpf(err);

	e2e_merge(&t);
	assert_burn_clock(&t, 0, "syscall");
	assert_burn_clock(&t, 1, "bpf");
	e2e_release(&t);
}
END_TEST

/* A map laid out as a bpf clock, pinned at clock_dir/clock, LIVE, that no
 * program writes: what a stale pin or a map of another boot looks like.
 * Its mapping, writable, into *len bytes. */
static struct causal_bpf_clock_slot *forge_clock(size_t *len)
{
	struct causal_bpf_clock_slot *map;
	struct causal_bpf_clock_head *h;
	char path[PATH_MAX];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = sizeof(*map);
	a.max_entries = CAUSAL_BPF_CLOCK_SLOTS + 1;
	a.map_flags = BPF_F_MMAPABLE;
	fd = (int)syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
	ck_assert_msg(fd >= 0, "cannot create a map: %s", strerror(errno));
	*len = ((size_t)a.max_entries * sizeof(*map) + 4095) & ~(size_t)4095;
	map = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert(map != MAP_FAILED);
	h = (struct causal_bpf_clock_head *)(void *)map;
	h->magic = CAUSAL_BPF_CLOCK_MAGIC;
	h->version = CAUSAL_BPF_CLOCK_VERSION;
	h->nslots = CAUSAL_BPF_CLOCK_SLOTS;
	h->started_ns = 1;
	h->state = CAUSAL_BPF_CLOCK_LIVE;
	ck_assert_int_eq(mkdir(clock_dir, 0755), 0);
	e2e_fmt(path, sizeof(path), "%s/clock", clock_dir);
	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(uintptr_t)path;
	a.bpf_fd = (uint32_t)fd;
	ck_assert_msg(!syscall(SYS_bpf, BPF_OBJ_PIN, &a, sizeof(a)),
		      "cannot pin '%s': %s", path, strerror(errno));
	ck_assert_int_eq(chmod(path, 0666), 0);
	close(fd);
	return map;
}

/* What this thread's slot in a forged map must hold to pass for its own,
 * switched in at `at`. */
static void forge_own_slot(struct causal_bpf_clock_slot *map, uint64_t at)
{
	struct stat ns;
	uint32_t tid = (uint32_t)gettid(), k;

	ck_assert_int_eq(stat("/proc/self/ns/pid", &ns), 0);
	k = causal_bpf_clock_index((uint32_t)ns.st_ino, tid,
				   CAUSAL_BPF_CLOCK_SLOTS - 1);
	map[k].seq += 2;
	map[k].tid = tid;
	map[k].ns = (uint32_t)ns.st_ino;
	map[k].cpu_at_in = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	map[k].in_at = at;
}

/*
 * A map that says LIVE, of the right layout and version, whose slots no
 * program writes (a stale pin; a map of another boot, whose times are
 * another CLOCK_MONOTONIC's), even one whose slot for the opening thread
 * holds that thread, switched in a moment ago or "later": the library
 * does not take it (it would count whatever time passed as CPU), says
 * why, and the log says syscall.
 */
START_TEST(test_bpf_clock_forged_or_other_boot)
{
	struct causal_bpf_clock_slot *map;
	struct causal_cpu_clock clk;
	char path[PATH_MAX], err[PATH_MAX], why[512];
	uint64_t cpu, now;
	struct stat st;
	struct e2e t;
	size_t len;

	if (skipped)
		return;
	e2e_init(&t);
	ck_assert_int_eq(ctl_status_quiet("stop"), 0);
	map = forge_clock(&len);
	e2e_fmt(path, sizeof(path), "%s/clock", clock_dir);

	/* switched in 20 us ago, as far as the map says: a reader that
	 * trusted the head would take it */
	now = clock_ns(CLOCK_MONOTONIC);
	forge_own_slot(map, now - 20000);
	ck_assert_int_eq(stat("/proc/self/ns/pid", &st), 0);
	clk.slots = map;
	clk.mask = CAUSAL_BPF_CLOCK_SLOTS - 1;
	clk.ns = (uint32_t)st.st_ino;
	ck_assert_int_eq(
		causal_cpu_clock_read(&clk, (uint32_t)gettid(), now, &cpu),
		CAUSAL_CPU_READ_OK);
	ck_assert_int_eq(causal_cpu_clock_open(&clk, path, why, sizeof(why)),
			 -ESTALE);
	ck_assert_msg(strstr(why, "the clock is stale"), "why: %s", why);
	ck_assert_ptr_null(clk.slots);

	/* another boot that ran longer: switch-ins in this one's future */
	forge_own_slot(map, clock_ns(CLOCK_MONOTONIC) + 3600000000000ull);
	ck_assert_int_eq(causal_cpu_clock_open(&clk, path, why, sizeof(why)),
			 -ESTALE);

	burn_traced(&t, "forged", "auto", err);
	assert_says_stale(err);
	munmap(map, len);
	e2e_merge(&t);
	assert_burn_clock(&t, 0, "syscall");
	e2e_release(&t);
}
END_TEST

/*
 * No bpf filesystem on /sys/fs/bpf (a mount namespace of its own where it
 * is unmounted): `start` mounts one and says so; a directory elsewhere is
 * refused with what to do.
 */
START_TEST(test_bpf_clock_mounts_bpffs)
{
	char cmd[PATH_MAX * 2 + 512];
	struct tool_out r;
	struct e2e t;
	int st;

	if (skipped)
		return;
	e2e_init(&t);
	snprintf(cmd, sizeof(cmd),
		 "exec unshare --mount --propagation private sh -c '"
		 "while mountpoint -q /sys/fs/bpf; do umount /sys/fs/bpf || "
		 "exit 9; done; "
		 "\"%s\" bpf-clock start --dir %s-mnt || exit 1; "
		 "mountpoint -q /sys/fs/bpf || exit 8; "
		 "\"%s\" bpf-clock stop --dir %s-mnt >/dev/null || exit 7' "
		 "| grep -q \"^mounted a bpf filesystem on '/sys/fs/bpf'$\"",
		 ctl_path(), clock_dir, ctl_path(), clock_dir);
	st = system(cmd);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "start without a bpf filesystem: status 0x%x", st);

	r = tool_run((const char *[]){ ctl_path(), "bpf-clock", "start",
				       "--dir", "/tmp/causal-bpf-clock",
				       NULL });
	e2e_assert_exit(r.status, 1, "causalctl bpf-clock start --dir /tmp/..");
	ck_assert_msg(strstr(r.err, "'/tmp' is not a directory on a bpf "
				    "filesystem: pin the clock under "
				    "'/sys/fs/bpf'"),
		      "start in /tmp said: %s", r.err);
	tool_out_release(&r);
	ck_assert_int_ne(access("/tmp/causal-bpf-clock", F_OK), 0);
	e2e_release(&t);
}
END_TEST

Suite *e2e_bpf_clock_suite(void)
{
	Suite *s = suite_create("e2e_bpf_clock");
	TCase *tc = tcase_create("bpf_clock");

	tcase_add_unchecked_fixture(tc, case_setup, case_teardown);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_bpf_clock_agrees_with_the_thread_clock);
	tcase_add_test(tc, test_bpf_clock_stopped_while_running);
	tcase_add_test(tc, test_bpf_clock_users_and_namespaces);
	tcase_add_test(tc, test_bpf_clock_reads_agree_with_the_system_call);
	tcase_add_test(tc, test_bpf_clock_stale_link);
	tcase_add_test(tc, test_bpf_clock_forged_or_other_boot);
	tcase_add_test(tc, test_bpf_clock_mounts_bpffs);
	suite_add_tcase(s, tc);
	return s;
}
