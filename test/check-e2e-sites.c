/*
 * check-e2e-sites.c - end to end: call sites numbered on the call path
 * and named off it (issue 34 item 3), and the calls libtirpc itself
 * makes named by their protocol (issue 35 item 3).
 *
 * The first call of a site is checked by what it does, not by how long it
 * takes: site-calls (test/rpc/) makes calls from eight sites of its own
 * under strace, marking each site's first call, and counts the address
 * look-ups (dladdr, dl_iterate_phdr) made inside its calls; the writer
 * names the sites all the same.
 */
#include "e2e-rpc.h"
#include "tool-run.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define SITES 8

/*
 * The system calls strace saw between the marks of each first call, in
 * the marking thread: "name name ..." (clock_gettime excepted: the CPU
 * clock, the one a probe may read), into bad; how many windows closed.
 */
static int first_call_syscalls(const char *trace, char *bad, size_t size)
{
	char *text = e2e_slurp(trace, NULL), *line, *save = NULL;
	long in = 0; /* the thread inside a window, 0: none */
	int windows = 0;
	size_t used = 0;

	bad[0] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end, name[64];
		long tid = strtol(line, &end, 10);

		while (*end == ' ')
			end++;
		if (strstr(end, "write(-1, \"begin ")) {
			in = tid;
			continue;
		}
		if (tid != in || !strncmp(end, "---", 3) ||
		    !strncmp(end, "+++", 3))
			continue;
		if (strstr(end, "write(-1, \"end ")) {
			in = 0;
			windows++;
			continue;
		}
		/* "<... name resumed>": a call begun before, already seen */
		if (!strncmp(end, "<... ", 5))
			continue;
		if (sscanf(end, "%63[a-z0-9_]", name) != 1 ||
		    !strcmp(name, "clock_gettime"))
			continue;
		used += (size_t)snprintf(bad + used, size - used, "%s ", name);
		if (used >= size)
			used = size - 1;
	}
	free(text);
	return windows;
}

/*
 * 34.3: no symbol looked up, no file read, no system call but the CPU
 * clock's, in the first call of a site (here all four probes of each
 * call run in the calling thread: clnt_raw to svc_raw); the sites are
 * named all the same, by the writer.
 */
START_TEST(test_first_call_looks_nothing_up)
{
	char trace[PATH_MAX], out[PATH_MAX], err[PATH_MAX], bad[4096];
	char pre[PATH_MAX + 16], logs[PATH_MAX + 20], n[8], *text;
	long long proc;
	struct e2e t;
	int windows;

	e2e_init(&t);
	ck_assert_msg(access("/usr/bin/strace", X_OK) == 0,
		      "strace is not installed (scripts/setup.sh)");
	e2e_fmt(trace, sizeof(trace), "%s/strace.txt", t.dir);
	e2e_fmt(out, sizeof(out), "%s/site-calls.out", t.dir);
	e2e_fmt(err, sizeof(err), "%s/site-calls.err", t.dir);
	e2e_fmt(pre, sizeof(pre), "LD_PRELOAD=%s/libcausal.so", e2e_build());
	e2e_fmt(logs, sizeof(logs), "CAUSAL_LOG_DIR=%s", t.logs);
	e2e_fmt(n, sizeof(n), "%d", SITES);
	/* the environment for the traced program only, not strace */
	e2e_assert_exit(e2e_run_plain(ARGS("/usr/bin/strace", "-f", "-qq", "-o",
					   trace, "-E", pre, "-E", logs,
					   rpc_prog("site-calls"), "-m", "-n",
					   n, "-r", "3"),
				      out, err),
			0, "site-calls under strace");
	text = e2e_slurp(out, NULL);
	ck_assert_msg(strstr(text, "lookups 0\n"),
		      "addresses looked up inside the calls: %s", text);
	free(text);
	windows = first_call_syscalls(trace, bad, sizeof(bad));
	ck_assert_int_eq(windows, SITES);
	ck_assert_msg(!bad[0], "system calls in the first calls: %s", bad);

	/* named off the call path: every site, its function and file */
	e2e_merge(&t);
	text = e2e_query_text(t.sql, "SELECT exe FROM processes");
	proc = e2e_query_int(t.sql, "SELECT proc_id FROM processes");
	for (int s = 0; s < SITES; s++) {
		ck_assert_int_eq(e2e_query_int(t.sql,
					       "SELECT count(*) FROM rpc_sites "
					       "WHERE proc_id = %lld AND symbol"
					       " = 'site%d_call' AND module = "
					       "'%s'",
					       proc, s, text),
				 1);
		ck_assert_int_eq(
			e2e_query_int(t.sql,
				      "SELECT count(*) FROM rpc_calls "
				      "WHERE client_proc_id = %lld AND"
				      " site_symbol = 'site%d_call' "
				      "AND status_name = 'RPC_SUCCESS'",
				      proc, s),
			3);
	}
	free(text);
	e2e_release(&t);
}
END_TEST

/*
 * A fork child's log names the sites it inherited: its calls from sites
 * its parent named have their symbol too.
 */
START_TEST(test_fork_child_names_inherited_sites)
{
	char out[PATH_MAX], *text;
	struct e2e t;
	pid_t pid;

	e2e_init(&t);
	e2e_fmt(out, sizeof(out), "%s/site-calls.out", t.dir);
	pid = e2e_spawn_traced(
		&t, ARGS(rpc_prog("site-calls"), "-n", "4", "-r", "2", "-f"),
		NULL, out, NULL);
	e2e_assert_exit(e2e_wait(pid), 0, "site-calls -f");
	text = e2e_slurp(out, NULL);
	ck_assert_msg(strstr(text, "child status 0\n"), "%s", text);
	free(text);
	e2e_merge(&t);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes"),
			 2);
	/* the parent's 8 calls, the child's 4, each from a named site */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_calls c JOIN "
				       "processes p ON p.proc_id = "
				       "c.client_proc_id WHERE p.pid = %d AND "
				       "c.site_symbol GLOB 'site[0-3]_call'",
				       pid),
			 8);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_calls c JOIN "
				       "processes p ON p.proc_id = "
				       "c.client_proc_id WHERE p.pid <> %d AND "
				       "c.site_symbol GLOB 'site[0-3]_call'",
				       pid),
			 4);
	e2e_release(&t);
}
END_TEST

/*
 * 35.3: the rpcbind look-up clnt_create makes inside libtirpc (GETADDR,
 * to a real rpcbind in the test's namespace) has no stub symbol of its
 * own: not the nearest one before its site (rpcb_unset), none; ccsg
 * names it by the protocol, rpcbind::GETADDR.
 */
START_TEST(test_libtirpc_calls_named_by_protocol)
{
	const char *argv[] = { tool_path("ccsg"), "dscg", "--db", NULL, NULL };
	struct tool_out r;
	struct rpc_server s;
	struct e2e t;
	pid_t rb, c;
	long long proc;
	char *out;

	rpc_isolate();
	e2e_init(&t);
	rb = rpc_rpcbind_start(&t, 0);
	rpc_server_start(&t, &s, "server", 1, NULL,
			 ARGS("-m", "svc_register_pmap"));
	c = rpc_client(&t, "client", 1, ARGS("-c", "clnt_create", "say", "41"),
		       0, &out);
	ck_assert_str_eq(rpc_head(out, "say"),
			 "say 41 = 42 status RPC_SUCCESS");
	free(out);
	rpc_server_stop(&s);
	rpc_rpcbind_stop(rb);
	e2e_merge(&t);
	proc = e2e_proc(&t, c);
	/* GETADDR of rpcbind's version 4 or 3, made from inside libtirpc,
	 * whose function there has no symbol (a stripped library) */
	rpc_assert_calls(
		&t, rpc_q("client_proc_id = %lld AND prog = 100000", proc),
		"proc = 3 AND vers IN (3, 4) AND site_symbol IS NULL", -1);
	ck_assert_int_ge(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_sites WHERE "
				       "proc_id = %lld AND symbol IS NULL AND "
				       "module LIKE '%%/libtirpc.so%%'",
				       proc),
			 1);
	argv[3] = t.db;
	r = tool_run(argv);
	e2e_assert_exit(r.status, 0, "ccsg dscg");
	ck_assert_msg(strstr(r.out, "rpcbind::GETADDR"), "%s", r.out);
	ck_assert_msg(!strstr(r.out, "rpcb_unset") && !strstr(r.out, "proc3"),
		      "%s", r.out);
	ck_assert_msg(strstr(r.out, "::say_it"), "%s", r.out);
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

Suite *e2e_sites_suite(void)
{
	Suite *s = suite_create("e2e-sites");
	TCase *tc = tcase_create("sites");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_first_call_looks_nothing_up);
	tcase_add_test(tc, test_fork_child_names_inherited_sites);
	tcase_add_test(tc, test_libtirpc_calls_named_by_protocol);
	suite_add_tcase(s, tc);
	return s;
}
