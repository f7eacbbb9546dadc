/*
 * check-e2e-rpc-fork.c - end to end: a reply streamed by a fork child
 * (issue 40 item 1, issue 35 item 9).
 *
 * Debian's NIS server forks inside YPPROC_ALL; the child streams the map
 * (an encoder that reads a database cursor as it goes) and _exits, and
 * the serving process returns without a reply.  stream-demo
 * (test/rpc/stream.x) does the same with records of its own (FORKED),
 * and streams them from the serving process too (HERE); its client
 * decodes them record by record, as libnsl's yp_all does.  Traced, the
 * server and the client must read and send what they do untraced, byte
 * for byte; the merge must tie the child's reply to its call (one row,
 * its program, reply_proc_id the child), leave the parent's return
 * without a reply what it is (a skeleton end 'handed', reply 'none'),
 * and `ccsg report` must not count lost start probes.  Several streamed
 * replies on one connection, after calls sent batched (no reply), must
 * reach the client as they do untraced too.  The same with ypserv and
 * ypcat themselves, when they are installed.
 */
#include "e2e-rpc.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

#define STREAM_PROG 0x20000c62 /* test/rpc/stream.x */
#define P_FORKED 1
#define P_HERE 2
#define COUNT 3000
#define SIZE 200
/* each record: TRUE, seq, the data's length, the data; then FALSE */
#define RESULTS_BYTES (COUNT * (4 + 4 + 4 + SIZE) + 4)
#define P_BATCHED 3
#define P_TALLY 4
/* the calls of the 'several' client: BATCHED ones, sent batched, then
 * FORKED, HERE, FORKED, HERE on the same connection, then TALLY */
#define BATCHED 5
#define SEVERAL 4

struct stream_server {
	pid_t pid;
	int server_pid, port;
	char out[PATH_MAX];
};

static void stream_start(struct e2e *t, struct stream_server *s,
			 const char *name, int traced)
{
	const char *argv[] = { rpc_prog("stream-demo"), "serve", "-r", NULL,
			       NULL };
	char ready[PATH_MAX], err[PATH_MAX], *text;

	e2e_fmt(ready, sizeof(ready), "%s/%s.ready", t->dir, name);
	e2e_fmt(s->out, sizeof(s->out), "%s/%s.out", t->dir, name);
	e2e_fmt(err, sizeof(err), "%s/%s.err", t->dir, name);
	argv[3] = ready;
	s->pid = traced ? e2e_spawn_traced(t, argv, NULL, s->out, err)
			: e2e_spawn(argv, NULL, s->out, err);
	rpc_wait_file(ready, s->pid);
	text = e2e_slurp(ready, NULL);
	ck_assert_msg(sscanf(text, "pid %d tcp %d", &s->server_pid, &s->port) ==
			      2,
		      "%s: bad ready file: %s", name, text);
	free(text);
}

static void stream_stop(struct stream_server *s)
{
	ck_assert_int_eq(kill(s->pid, SIGTERM), 0);
	e2e_assert_exit(e2e_wait(s->pid), 0, "stream-demo serve");
}

/* Run a client, traced or not, which must exit 0: its stdout (and its
 * pid into *pid). */
static char *client(struct e2e *t, const char *name, int traced,
		    const char *const argv[], pid_t *pid)
{
	char out[PATH_MAX], err[PATH_MAX];
	pid_t p;

	e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, name);
	e2e_fmt(err, sizeof(err), "%s/%s.err", t->dir, name);
	p = traced ? e2e_spawn_traced(t, argv, NULL, out, err)
		   : e2e_spawn(argv, NULL, out, err);
	e2e_assert_exit(e2e_wait(p), 0, name);
	if (pid)
		*pid = p;
	return e2e_slurp(out, NULL);
}

enum call_kind { FORKED_ONE, HERE_ONE, SEVERAL_BATCHED };

/* Call FORKED, HERE, or BATCHED then FORKED and HERE in turn, on s. */
static char *stream_call(struct e2e *t, const struct stream_server *s,
			 const char *name, int traced, enum call_kind kind,
			 pid_t *pid)
{
	char port[16], count[16], size[16], several[16], batched[16];
	const char *argv[] = { rpc_prog("stream-demo"),
			       "call",
			       "-P",
			       port,
			       "-n",
			       count,
			       "-s",
			       size,
			       "-k",
			       several,
			       "-b",
			       batched,
			       kind == HERE_ONE ? "-H" : NULL,
			       NULL };

	e2e_fmt(port, sizeof(port), "%d", s->port);
	e2e_fmt(count, sizeof(count), "%d", COUNT);
	e2e_fmt(size, sizeof(size), "%d", SIZE);
	e2e_fmt(several, sizeof(several), "%d",
		kind == SEVERAL_BATCHED ? SEVERAL : 1);
	e2e_fmt(batched, sizeof(batched), "%d",
		kind == SEVERAL_BATCHED ? BATCHED : 0);
	return client(t, name, traced, argv, pid);
}

/* Lines of text that are line. */
static int lines_equal(const char *text, const char *line)
{
	size_t n = strlen(line);
	int k = 0;

	for (const char *p = text; (p = strstr(p, line)); p += n)
		k += (p == text || p[-1] == '\n') && p[n] == '\n';
	return k;
}

/* What an untraced client reads from an untraced server: every record of
 * each of its calls' replies, and the tally of its batched calls. */
static void assert_whole(const char *out, enum call_kind kind)
{
	char want[32], line[128];
	unsigned calls;

	ck_assert_int_eq(sscanf(rpc_line(out, "expected hash"),
				"expected hash %31s", want),
			 1);
	e2e_fmt(line, sizeof(line),
		"stream records %d bytes %lld hash %s ends 1", COUNT,
		(long long)COUNT * SIZE, want);
	ck_assert_msg(lines_equal(out, line) ==
			      (kind == SEVERAL_BATCHED ? SEVERAL : 1),
		      "not every reply whole ('%s'):\n%s", line, out);
	if (kind != SEVERAL_BATCHED)
		return;
	ck_assert_int_eq(sscanf(rpc_line(out, "expected tally"),
				"expected tally calls %u hash %31s", &calls,
				want),
			 2);
	ck_assert_int_eq(calls, BATCHED);
	e2e_fmt(line, sizeof(line), "tally calls %d hash %s", BATCHED, want);
	ck_assert_msg(lines_equal(out, line) == 1, "no '%s' in:\n%s", line,
		      out);
}

/*
 * A reply streamed over many TCP fragments, by a fork child or by the
 * serving process, and several on one connection after batched calls:
 * an untraced and a traced client read from the traced server exactly
 * what an untraced client reads from the untraced one.
 */
START_TEST(test_streamed_replies_unchanged)
{
	static const char *const names[3][3] = {
		{ "ref-fork", "plain-fork", "traced-fork" },
		{ "ref-here", "plain-here", "traced-here" },
		{ "ref-several", "plain-several", "traced-several" },
	};
	struct stream_server s;
	struct e2e t;
	char *ref[3];

	rpc_isolate();
	e2e_init(&t);
	stream_start(&t, &s, "untraced", 0);
	for (int kind = 0; kind < 3; kind++) {
		ref[kind] = stream_call(&t, &s, names[kind][0], 0,
					(enum call_kind)kind, NULL);
		assert_whole(ref[kind], (enum call_kind)kind);
	}
	stream_stop(&s);
	stream_start(&t, &s, "traced", 1);
	for (int kind = 0; kind < 3; kind++)
		for (int traced = 0; traced < 2; traced++) {
			const char *name = names[kind][1 + traced];
			char *out = stream_call(&t, &s, name, traced,
						(enum call_kind)kind, NULL);

			ck_assert_msg(!strcmp(out, ref[kind]),
				      "%s read:\n%s\nuntraced, it reads:\n%s",
				      name, out, ref[kind]);
			free(out);
		}
	stream_stop(&s);
	for (int kind = 0; kind < 3; kind++)
		free(ref[kind]);
	e2e_release(&t);
}
END_TEST

/* The pids of the fork children that replied ("child PID" lines). */
static int child_pids(const char *path, long *pids, int max)
{
	char *text = e2e_slurp(path, NULL), *p = text;
	int n = 0;

	while ((p = strstr(p, "child ")) && n < max) {
		pids[n++] = atol(p + 6);
		p += 6;
	}
	free(text);
	return n;
}

/* Lines of `tracedump dump` of the logs holding every one of words. */
static int dump_lines(struct e2e *t, const char *const words[])
{
	char td[PATH_MAX], out[PATH_MAX], *text, *line;
	const char *argv[] = { td, "dump", t->logs, NULL };
	int n = 0;

	e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/dump.txt", t->dir);
	e2e_assert_exit(e2e_run_plain(argv, out, NULL), 0, "tracedump dump");
	text = e2e_slurp(out, NULL);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		int all = 1;

		for (int i = 0; words[i]; i++)
			all &= strstr(line, words[i]) != NULL;
		n += all;
	}
	free(text);
	return n;
}

/* `ccsg report` of the merged trace must not say a start probe was lost
 * (a reply without its call's start), and must count the calls of
 * untraced clients (none: no such line). */
static void assert_report_whole(struct e2e *t, int untraced_clients)
{
	char ccsg[PATH_MAX], out[PATH_MAX], want[96], *text;
	const char *argv[] = { ccsg, "report", "--db", t->db, NULL };

	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/report.txt", t->dir);
	e2e_assert_exit(e2e_run_plain(argv, out, NULL), 0, "ccsg report");
	text = e2e_slurp(out, NULL);
	ck_assert_msg(!strstr(text, "start probe was lost"), "%s", text);
	e2e_fmt(want, sizeof(want),
		"calls from an untraced or lost client: %d ", untraced_clients);
	if (untraced_clients)
		ck_assert_msg(strstr(text, want), "no '%s' in:\n%s", want,
			      text);
	else /* the line is left out */
		ck_assert_msg(!strstr(text, "untraced or lost client"), "%s",
			      text);
	free(text);
}

/*
 * The trace of FORKED: one row a call, its program and procedure, its
 * skeleton start in the serving process and its end the child's reply
 * (reply_proc_id), linked to a traced client's stub like any call; the
 * serving process's return without a reply is logged as such.
 */
START_TEST(test_fork_child_reply_tied_to_its_call)
{
	struct stream_server s;
	struct e2e t;
	long kids[4];
	long long server, kid[2], plain, traced, here;
	pid_t plain_pid, traced_pid, here_pid;
	char *out;

	rpc_isolate();
	e2e_init(&t);
	stream_start(&t, &s, "server", 1);
	out = stream_call(&t, &s, "plain", 0, FORKED_ONE, &plain_pid);
	free(out);
	out = stream_call(&t, &s, "traced", 1, FORKED_ONE, &traced_pid);
	assert_whole(out, FORKED_ONE);
	free(out);
	out = stream_call(&t, &s, "here", 1, HERE_ONE, &here_pid);
	free(out);
	stream_stop(&s);
	ck_assert_int_eq(child_pids(s.out, kids, 4), 2);
	e2e_merge(&t);
	server = e2e_proc(&t, s.server_pid);
	kid[0] = e2e_proc(&t, kids[0]);
	kid[1] = e2e_proc(&t, kids[1]);

	/* no orphan: every row has its call */
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls "
					      "WHERE prog IS NULL"),
			 0);
	/* the untraced client's call: the server side, whole */
	plain = rpc_call_id(&t, rpc_q("prog = %d AND proc = %d AND "
				      "client_proc_id IS NULL",
				      STREAM_PROG, P_FORKED));
	rpc_assert_calls(
		&t, rpc_q("call_id = %lld", plain),
		rpc_q("missing = 'client' AND tag = 'absent' AND "
		      "server_proc_id = %lld AND reply = 'success' AND "
		      "reply_proc_id IN (%lld, %lld) AND "
		      "server_results_bytes = %d AND server_args_bytes = 8 AND "
		      "skel_end_event = skel_start_event + 1 AND "
		      "skel_start_exit_ns <= skel_end_ns AND "
		      "skel_start_cpu_ns <= skel_end_cpu_ns",
		      server, kid[0], kid[1], RESULTS_BYTES),
		1);
	/* the traced client's: linked, the reply the child's */
	traced = rpc_call_id(&t, rpc_q("prog = %d AND proc = %d AND "
				       "client_proc_id = %lld",
				       STREAM_PROG, P_FORKED,
				       e2e_proc(&t, traced_pid)));
	rpc_assert_calls(&t, rpc_q("call_id = %lld", traced),
			 rpc_q(RPC_LINKED " AND reply = 'success' AND "
					  "server_proc_id = %lld AND "
					  "reply_proc_id IN (%lld, %lld) AND "
					  "reply_proc_id <> (SELECT "
					  "reply_proc_id FROM rpc_calls WHERE "
					  "call_id = %lld) AND "
					  "results_bytes = %d AND "
					  "server_results_bytes = %d AND "
					  "status_name = 'RPC_SUCCESS'",
			       server, kid[0], kid[1], plain, RESULTS_BYTES,
			       RESULTS_BYTES),
			 1);
	/* streamed by the serving process: its own reply */
	here = rpc_call_id(
		&t, rpc_q("prog = %d AND proc = %d", STREAM_PROG, P_HERE));
	rpc_assert_calls(&t, rpc_q("call_id = %lld", here),
			 rpc_q(RPC_LINKED " AND reply_proc_id IS NULL AND "
					  "client_proc_id = %lld AND "
					  "server_results_bytes = %d",
			       e2e_proc(&t, here_pid), RESULTS_BYTES),
			 1);
	/* the logs as written: the serving process returned twice without
	 * a reply, after forking; each child sent one */
	ck_assert_int_eq(dump_lines(&t, ARGS("RPC_SKEL_END", "reply=none",
					     "fork=handed")),
			 2);
	ck_assert_int_eq(dump_lines(&t, ARGS("RPC_SKEL_END", "reply=success",
					     "fork=child")),
			 2);
	assert_report_whole(&t, 1);
	e2e_release(&t);
}
END_TEST

/*
 * The trace of a traced client's batched calls and several streamed
 * replies on one connection: each call one row with its program; the
 * batched ones served, with no reply (reply 'none', never a fork's); the
 * FORKED ones each replied by a child of its own, the HERE ones by the
 * serving process; each streamed reply linked, whole on both sides.
 */
START_TEST(test_several_and_batched_traced)
{
	struct stream_server s;
	struct e2e t;
	long kids[SEVERAL];
	long long server, client_id;
	pid_t pid;
	char *out;

	rpc_isolate();
	e2e_init(&t);
	stream_start(&t, &s, "server", 1);
	out = stream_call(&t, &s, "several", 1, SEVERAL_BATCHED, &pid);
	assert_whole(out, SEVERAL_BATCHED);
	free(out);
	stream_stop(&s);
	ck_assert_int_eq(child_pids(s.out, kids, SEVERAL), SEVERAL / 2);
	e2e_merge(&t);
	server = e2e_proc(&t, s.server_pid);
	client_id = e2e_proc(&t, pid);

	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls "
					      "WHERE prog IS NULL"),
			 0);
	rpc_assert_calls(
		&t, rpc_q("prog = %d AND proc = %d", STREAM_PROG, P_BATCHED),
		rpc_q("client_proc_id = %lld AND server_proc_id = "
		      "%lld AND reply = 'none' AND "
		      "reply_proc_id IS NULL AND tag = 'ok' AND "
		      "skel_start_event = stub_start_event + 1",
		      client_id, server),
		BATCHED);
	rpc_assert_calls(
		&t, rpc_q("prog = %d AND proc = %d", STREAM_PROG, P_FORKED),
		rpc_q(RPC_LINKED " AND reply = 'success' AND "
				 "status_name = 'RPC_SUCCESS' AND "
				 "server_proc_id = %lld AND "
				 "reply_proc_id IN (%lld, %lld) AND "
				 "results_bytes = %d AND "
				 "server_results_bytes = %d",
		      server, e2e_proc(&t, kids[0]), e2e_proc(&t, kids[1]),
		      RESULTS_BYTES, RESULTS_BYTES),
		SEVERAL / 2);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(DISTINCT reply_proc_id) "
				       "FROM rpc_calls WHERE proc = %d",
				       P_FORKED),
			 SEVERAL / 2);
	rpc_assert_calls(&t,
			 rpc_q("prog = %d AND proc = %d", STREAM_PROG, P_HERE),
			 rpc_q(RPC_LINKED " AND reply = 'success' AND "
					  "server_proc_id = %lld AND "
					  "reply_proc_id IS NULL AND "
					  "results_bytes = %d AND "
					  "server_results_bytes = %d",
			       server, RESULTS_BYTES, RESULTS_BYTES),
			 SEVERAL / 2);
	rpc_assert_calls(&t,
			 rpc_q("prog = %d AND proc = %d", STREAM_PROG, P_TALLY),
			 RPC_LINKED " AND reply = 'success'", 1);
	assert_report_whole(&t, 0);
	e2e_release(&t);
}
END_TEST

/* ---- Debian's ypserv ----------------------------------------------------- */

#define YP_DOMAIN "causaltest"
#define YP_MAP "causalmap"
#define YP_ENTRIES 2000
#define YPPROG 100004
#define YPPROC_ALL 8

static int yp_installed(void)
{
	if (access("/usr/sbin/ypserv", X_OK) == 0 &&
	    access("/usr/bin/ypcat", X_OK) == 0 &&
	    access("/usr/lib/yp/makedbm", X_OK) == 0 &&
	    access("/var/yp", F_OK) == 0)
		return 1;
	printf("e2e-rpc-fork: ypserv skipped: ypserv or yp-tools is not "
	       "installed (bash scripts/setup.sh)\n");
	fflush(stdout);
	return 0;
}

/* /var/yp of the test's own (its mount namespace), one domain and map. */
static void yp_map(struct e2e *t)
{
	char src[PATH_MAX], dir[PATH_MAX], map[PATH_MAX];
	const char *argv[] = { "/usr/lib/yp/makedbm", src, map, NULL };
	FILE *f;

	ck_assert_msg(mount("tmpfs", "/var/yp", "tmpfs", 0, "mode=0755") == 0,
		      "mount tmpfs /var/yp: %s", strerror(errno));
	e2e_fmt(dir, sizeof(dir), "/var/yp/%s", YP_DOMAIN);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	e2e_fmt(map, sizeof(map), "%s/%s", dir, YP_MAP);
	e2e_fmt(src, sizeof(src), "%s/map.txt", t->dir);
	f = fopen(src, "w");
	ck_assert(f);
	for (int i = 0; i < YP_ENTRIES; i++)
		fprintf(f, "key%05d\tvalue %d of the map, %s\n", i, i,
			"a line long enough that the map takes many fragments");
	ck_assert_int_eq(fclose(f), 0);
	e2e_assert_exit(e2e_run_plain(argv, NULL, NULL), 0, "makedbm");
}

/* ypserv -d, once registered with the namespace's rpcbind. */
static pid_t yp_start(struct e2e *t, const char *name, int traced)
{
	const char *argv[] = { "/usr/sbin/ypserv", "-d", NULL };
	const char *ask[] = {
		"/usr/sbin/rpcinfo", "-t", "127.0.0.1", "ypserv", "2", NULL
	};
	char out[PATH_MAX], err[PATH_MAX];
	pid_t pid;

	e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, name);
	e2e_fmt(err, sizeof(err), "%s/%s.err", t->dir, name);
	pid = traced ? e2e_spawn_traced(t, argv, NULL, out, err)
		     : e2e_spawn(argv, NULL, out, err);
	for (int i = 0; e2e_run_plain(ask, NULL, NULL) != 0; i++) {
		int status;

		ck_assert_msg(waitpid(pid, &status, WNOHANG) == 0,
			      "ypserv ended (status 0x%x): %s", status,
			      e2e_slurp(err, NULL));
		ck_assert_msg(i < 300, "ypserv did not register");
		e2e_sleep_ms(100);
	}
	return pid;
}

static void yp_stop(pid_t pid)
{
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	e2e_wait(pid);
}

static char *ypcat(struct e2e *t, const char *name, int traced, pid_t *pid)
{
	const char *argv[] = { "/usr/bin/ypcat", "-d",	 YP_DOMAIN, "-h",
			       "localhost",	 YP_MAP, NULL };

	return client(t, name, traced, argv, pid);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* What ypcat printed is the map, as against ypserv untraced. */
static void assert_same_map(const char *out, const char *ref, const char *who)
{
	ck_assert_msg(!strcmp(out, ref),
		      "ypcat %s printed %d lines of %zu bytes, not the %d "
		      "lines of %zu bytes it prints against ypserv untraced",
		      who, count_lines(out), strlen(out), count_lines(ref),
		      strlen(ref));
}

/*
 * ypcat against ypserv traced prints the map it prints against ypserv
 * untraced, traced or not itself; each YPPROC_ALL is one row, its reply
 * sent by a fork child of the server.
 */
START_TEST(test_ypserv)
{
	struct e2e t;
	pid_t rpcbind, yp, plain_pid, traced_pid;
	long long server;
	char *ref, *out;

	if (!yp_installed())
		return;
	rpc_isolate();
	e2e_init(&t);
	yp_map(&t);
	rpcbind = rpc_rpcbind_start(&t, 0);
	yp = yp_start(&t, "ypserv-untraced", 0);
	ref = ypcat(&t, "ref", 0, NULL);
	ck_assert_int_eq(count_lines(ref), YP_ENTRIES);
	yp_stop(yp);
	yp = yp_start(&t, "ypserv", 1);
	out = ypcat(&t, "plain", 0, &plain_pid);
	assert_same_map(out, ref, "untraced");
	free(out);
	out = ypcat(&t, "traced", 1, &traced_pid);
	assert_same_map(out, ref, "traced");
	free(out);
	yp_stop(yp);
	rpc_rpcbind_stop(rpcbind);
	e2e_merge(&t);
	server = e2e_proc(&t, yp);

	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls "
					      "WHERE prog IS NULL"),
			 0);
	/* the reply of each came from a fork child of ypserv */
	rpc_assert_calls(
		&t, rpc_q("prog = %d AND proc = %d", YPPROG, YPPROC_ALL),
		rpc_q("server_proc_id = %lld AND reply = 'success' AND "
		      "reply_proc_id IN (SELECT c.proc_id FROM processes c "
		      "JOIN processes p ON c.parent_uuid = p.uuid WHERE "
		      "p.proc_id = %lld AND c.exe = '/usr/sbin/ypserv')",
		      server, server),
		2);
	rpc_assert_calls(&t,
			 rpc_q("prog = %d AND proc = %d AND client_proc_id = "
			       "%lld",
			       YPPROG, YPPROC_ALL, e2e_proc(&t, traced_pid)),
			 RPC_LINKED " AND results_bytes = server_results_bytes",
			 1);
	free(ref);
	e2e_release(&t);
}
END_TEST

Suite *e2e_rpc_fork_suite(void)
{
	Suite *s = suite_create("e2e-rpc-fork");
	TCase *tc = tcase_create("fork");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_streamed_replies_unchanged);
	tcase_add_test(tc, test_fork_child_reply_tied_to_its_call);
	tcase_add_test(tc, test_several_and_batched_traced);
	tcase_add_test(tc, test_ypserv);
	suite_add_tcase(s, tc);
	return s;
}
