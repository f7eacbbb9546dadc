/*
 * check-ccsg-dscg.c - the Figure 7 scan: whole chains, untraced peers and
 * broken chains (a lost server log, a lost client log, a crash) shown as
 * segments and counted.
 */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "causal/log-format.h"
#include "ccsg-fixture.h"
#include "dscg.h"
#include "output.h"

#define C1 "00000000000000000000000000000000000000c1"
#define C2 "00000000000000000000000000000000000000c2"
#define C3 "00000000000000000000000000000000000000c3"
#define C4 "00000000000000000000000000000000000000c4"

static const long long none[4] = { NUL, NUL, NUL, NUL };

static int call_with_id(const struct ccsg_trace *t, long long id)
{
	for (size_t i = 0; i < t->ncalls; i++)
		if (t->calls[i].call_id == id)
			return (int)i;
	ck_abort_msg("no call %lld", id);
	return -1;
}

START_TEST(test_broken_chains)
{
	struct ccsg_trace t;
	struct ccsg_dscg d;
	const char *path;

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_thread(1, 1, 0, 100, -1);
	/* C1: a whole chain, an untraced server's call is a normal leaf */
	{
		long long e1[4] = { 0, 1, 4, 5 }, e2[4] = { 2, NUL, NUL, 3 };

		fx_call(C1, 7, 1, "a_1", 1, 1, 2, 1, 1, e1, none);	/* call 1 */
		fx_call(C1, 7, 2, "b_1", 2, 1, 0, 0, 0, e2, none);	/* call 2 */
	}
	/* C2: the server's log was lost: a gap of two events, then a
	 * nested call seen only from its server: two segments */
	{
		long long e3[4] = { 0, NUL, NUL, 7 }, e4[4] = { NUL, 3, 4, NUL };

		fx_call(C2, 7, 1, "a_1", 1, 1, 0, 0, 0, e3, none);	/* call 3 */
		fx_call(C2, 7, 3, NULL, 0, 0, 2, 1, 2, e4, none);	/* call 4 */
	}
	/* C3: the client's log was lost: the chain starts at event 5 */
	{
		long long e5[4] = { NUL, 5, 6, NUL };

		fx_call(C3, 7, 1, NULL, 0, 0, 2, 1, 3, e5, none);	/* call 5 */
	}
	/* C4: a crash: the server never ended */
	{
		long long e6[4] = { 0, 1, NUL, NUL };

		fx_call(C4, 7, 1, "a_1", 1, 1, 2, 1, 4, e6, none);	/* call 6 */
	}
	path = fx_close();
	ck_assert_int_eq(ccsg_trace_load(&t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&d, &t), 0);
	ck_assert_int_eq(d.stats.calls, 6);
	ck_assert_int_eq(d.stats.chains, 4);
	ck_assert_int_eq(d.stats.broken_chains, 3);
	ck_assert_int_eq(d.stats.truncated_chains, 1);
	ck_assert_int_eq(d.stats.no_server, 2);
	ck_assert_int_eq(d.stats.no_client, 2);
	ck_assert_int_eq(d.stats.incomplete, 1);
	/* C1 whole: call 2 is call 1's child */
	ck_assert_int_eq(t.chains[0].segments, 0);
	ck_assert_int_eq(t.calls[call_with_id(&t, 2)].parent, call_with_id(&t, 1));
	ck_assert_int_eq(t.calls[call_with_id(&t, 2)].depth, 2);
	/* C2: two segments, call 4 a root of the second; nothing dropped */
	ck_assert_int_eq(t.chains[1].segments, 2);
	ck_assert_int_eq(t.calls[call_with_id(&t, 3)].seg, 0);
	ck_assert_int_eq(t.calls[call_with_id(&t, 4)].seg, 1);
	ck_assert_int_eq(t.calls[call_with_id(&t, 4)].parent, -1);
	ck_assert(t.calls[call_with_id(&t, 4)].abnormal);
	ck_assert_int_ge(t.chains[1].breaks, 2);
	/* C3 and C4 are segments too */
	ck_assert_int_ge(t.chains[2].segments, 1);
	ck_assert_int_ge(t.chains[3].segments, 1);
	ck_assert(t.chains[3].truncated);
	/* every call is in the tree: under a call, a thread or main */
	for (size_t i = 0; i < t.ncalls; i++)
		ck_assert_int_ge(d.parent[i], 0);
	/* the chains of thread 1/1 hang under it (thread-invoke-function) */
	ck_assert_int_eq(d.parent[call_with_id(&t, 1)], (int)t.ncalls + 0);
	ck_assert_int_eq(d.parent[call_with_id(&t, 5)], d.main);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	unlink(path);
}
END_TEST

/* A thread spawned in a skeleton starts a chain: function-spawn-thread,
 * then thread-invoke-function; its child thread is thread-spawn-thread. */
START_TEST(test_thread_links)
{
	struct ccsg_trace t;
	struct ccsg_dscg d;
	const char *path;
	int base;

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_proc(3, 1);
	{
		long long e1[4] = { 0, 1, 2, 3 }, e2[4] = { 0, 1, 2, 3 };

		fx_call(C1, 7, 5, "spawn_1", 1, 1, 2, 1, 9, e1, none);
		fx_call(C2, 7, 1, "say_1", 2, 2, 3, 1, 1, e2, none);
	}
	fx_thread(2, 1, 0, 100, -1);
	fx_thread(2, 2, 1, 100, 9);	/* spawned by the SPAWN skeleton */
	fx_thread(2, 3, 2, 100, 9);	/* its child, same context */
	path = fx_close();
	ck_assert_int_eq(ccsg_trace_load(&t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&d, &t), 0);
	base = (int)t.ncalls;
	ck_assert_int_eq(d.stats.broken_chains, 0);
	ck_assert_int_eq(d.parent[base + 1], 0);		/* thread 2/2 under call SPAWN */
	ck_assert_int_eq(d.parent[base + 2], base + 1);	/* 2/3 under 2/2 */
	ck_assert_int_eq(d.parent[1], base + 1);		/* SAY under thread 2/2 */
	ck_assert_int_eq(d.parent[base + 0], d.main);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	unlink(path);
}
END_TEST

/*
 * Dropped records: a gap in the event numbers, and calls whose start
 * probe was dropped (only their end is known, not their function), on
 * the client and on the server side.  Each is an abnormal transition
 * that starts a segment, counted; the lost calls are roots of their
 * segments, and a thread spawned inside one is not hung under it.
 */
START_TEST(test_dropped_probes)
{
	struct ccsg_trace t;
	struct ccsg_dscg d;
	const char *path;
	int a, bs, bc, c, lost_server;

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_thread(1, 1, 0, 100, -1);
	fx_thread(2, 1, 0, 100, -1);
	fx_thread(2, 5, 1, 100, 42);	/* spawned inside call 5's skeleton */
	/* C1: A whole; B's stub start (event 4) dropped: its server side
	 * stands alone, its client side is an end without a start; then C */
	{
		long long ea[4] = { 0, 1, 2, 3 }, ebs[4] = { NUL, 5, 6, NUL };
		long long ebc[4] = { NUL, NUL, NUL, 7 }, ec[4] = { 8, 9, 10, 11 };

		fx_call(C1, 7, 1, "a_1", 1, 1, 2, 1, 1, ea, none);	/* call 1 */
		fx_call(C1, 7, 2, NULL, 0, 0, 2, 1, 2, ebs, none);	/* call 2 */
		fx_call(C1, 7, 0, NULL, 1, 1, 0, 0, 0, ebc, none);	/* call 3 */
		fx_set("prog = NULL, vers = NULL, proc = NULL, site_symbol = NULL");
		fx_call(C1, 7, 3, "c_1", 1, 1, 2, 1, 3, ec, none);	/* call 4 */
	}
	/* C2: the skeleton start of a call dropped: the client side has no
	 * server, the skeleton end stands alone */
	{
		long long ec[4] = { 0, NUL, NUL, 3 }, es[4] = { NUL, NUL, 2, NUL };

		fx_call(C2, 7, 4, "d_1", 1, 1, 0, 0, 0, ec, none);	/* call 5 */
		fx_call(C2, 7, 0, NULL, 0, 0, 2, 1, 42, es, none);	/* call 6 */
		fx_set("prog = NULL, vers = NULL, proc = NULL");
	}
	/* C3: a whole call lost (server log and all): events 2 to 5 missing */
	{
		long long e1[4] = { 0, NUL, NUL, 1 }, e2[4] = { 6, NUL, NUL, 7 };

		fx_call(C3, 7, 5, "e_1", 1, 1, 0, 0, 0, e1, none);	/* call 7 */
		fx_call(C3, 7, 5, "e_1", 1, 1, 0, 0, 0, e2, none);	/* call 8 */
	}
	path = fx_close();
	ck_assert_int_eq(ccsg_trace_load(&t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&d, &t), 0);
	ck_assert_int_eq(d.stats.lost_starts, 2);
	ck_assert_int_eq(d.stats.broken_chains, 3);
	a = call_with_id(&t, 1);
	bs = call_with_id(&t, 2);
	bc = call_with_id(&t, 3);
	c = call_with_id(&t, 4);
	lost_server = call_with_id(&t, 6);
	ck_assert(t.calls[bc].lost && t.calls[lost_server].lost);
	ck_assert(!t.calls[a].lost && !t.calls[bs].lost && !t.calls[c].lost);
	/* C1: A in segment 0; B's server side and its lost client side each
	 * start a segment; C continues after the lost end */
	ck_assert_int_eq(t.calls[a].seg, 0);
	ck_assert_int_eq(t.calls[bs].seg, 1);
	ck_assert_int_eq(t.calls[bc].seg, 2);
	ck_assert_int_eq(t.calls[bc].parent, -1);
	ck_assert(t.calls[bc].abnormal && t.calls[bs].abnormal);
	ck_assert_int_ge(t.chains[t.calls[a].chain].breaks, 2);
	ck_assert_int_ge(t.chains[t.calls[a].chain].segments, 3);
	/* C2: the lost skeleton end is a segment of its own */
	ck_assert_int_eq(t.calls[lost_server].parent, -1);
	ck_assert_int_ge(t.calls[lost_server].seg, 1);
	ck_assert(t.calls[lost_server].abnormal);
	/* its thread hangs under the thread that ran it, not under it */
	{
		int th = ccsg_trace_thread(&t, 2, 5);

		ck_assert_int_eq(t.threads[th].spawn_call, -1);
		ck_assert_int_eq(t.threads[th].parent_thread, ccsg_trace_thread(&t, 2, 1));
	}
	/* C3: the gap is an abnormal transition, the chain broken */
	ck_assert_int_ge(t.chains[t.calls[call_with_id(&t, 8)].chain].breaks, 1);
	ck_assert_int_ge(t.chains[t.calls[call_with_id(&t, 8)].chain].segments, 1);
	ck_assert(t.calls[call_with_id(&t, 8)].abnormal);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	unlink(path);
}
END_TEST

static char *dscg_output(const struct ccsg_dscg *d, int format)
{
	struct idl_names nm;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	idl_names_init(&nm);
	ck_assert_int_eq(ccsg_dscg_print(f, d, &nm, format), 0);
	fclose(f);
	idl_names_release(&nm);
	return buf;
}

/* The line of out that contains key (copied into line). */
static const char *line_with(const char *out, const char *key, char *line, size_t len)
{
	const char *p = strstr(out, key), *b, *e;

	ck_assert_msg(p, "no '%s' in:\n%s", key, out);
	for (b = p; b > out && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	snprintf(line, len, "%.*s", (int)(e ? e - b : (long)strlen(b)), b);
	return line;
}

static void assert_has(const char *s, const char *what)
{
	ck_assert_msg(strstr(s, what), "no '%s' in '%s'", what, s);
}

/*
 * Every call shows its outcome (the client's status, the server's
 * reply), its sizes on both sides and its tag statuses; failed calls are
 * marked; calls whose start probe was dropped are '<start lost>', never
 * a function of program 0.  The summary counts the failures and the tags
 * by value.
 */
START_TEST(test_outcomes_shown)
{
	const char *path = fx_outcomes();
	struct ccsg_trace t;
	struct ccsg_dscg d;
	char line[1024], *out;

	ck_assert_int_eq(ccsg_trace_load(&t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&d, &t), 0);
	out = dscg_output(&d, CCSG_TEXT);
	ck_assert_msg(!strstr(out, "0::proc0"), "%s", out);
	line_with(out, "7::timedout ", line, sizeof(line));
	assert_has(line, " status RPC_TIMEDOUT reply success args 8 results 0 server_args 8 "
		   "server_results 4 tag ok reply_tag absent");
	assert_has(line, "(failed)");
	line_with(out, "7::noproc ", line, sizeof(line));
	assert_has(line, " status RPC_PROCUNAVAIL reply proc_unavail ");
	assert_has(line, "(failed)");
	line_with(out, "7::proc6 ", line, sizeof(line));	/* server only */
	assert_has(line, " reply garbage_args server_args 3 server_results 0 tag malformed");
	assert_has(line, "(no client)");
	assert_has(line, "(failed)");
	line_with(out, "7::oneway ", line, sizeof(line));
	assert_has(line, " status RPC_TIMEDOUT ");
	assert_has(line, "(one-way)");
	ck_assert_msg(!strstr(line, "(failed)"), "%s", line);
	line_with(out, "7::ok ", line, sizeof(line));
	ck_assert_msg(!strstr(line, "(failed)"), "%s", line);
	line_with(out, "7::proc13 ", line, sizeof(line));
	assert_has(line, " tag incomplete");
	/* both dropped starts, each a segment of its own */
	line_with(out, "<start lost> [call 12]", line, sizeof(line));
	assert_has(line, " status RPC_SUCCESS args 8 results 4 reply_tag ok");
	line_with(out, "<start lost> [call 14]", line, sizeof(line));
	assert_has(line, " reply system_err server_results 0");
	assert_has(line, "(failed)");
	/* the counts that head the output */
	assert_has(out, "calls whose start probe was lost: 2 ");
	assert_has(out, "failed calls: 5 (RPC_TIMEDOUT 2, RPC_PROCUNAVAIL 1, garbage_args 1, "
		   "system_err 1)");
	assert_has(out, "tags at the skeleton start: ok 6, incomplete 1, malformed 1, stale 1");
	assert_has(out, "tags in the replies: absent 4, ok 2");
	free(out);

	out = dscg_output(&d, CCSG_JSON);
	ck_assert_msg(!strstr(out, "0::proc0"), "%s", out);
	assert_has(out, "\"name\": \"7::timedout\"");
	assert_has(out, "\"status\": \"RPC_TIMEDOUT\", \"reply\": \"success\", \"failed\": true, "
		   "\"args_bytes\": 8, \"results_bytes\": 0, \"server_args_bytes\": 8, "
		   "\"server_results_bytes\": 4, \"tag\": \"ok\", \"reply_tag\": \"absent\"");
	assert_has(out, "\"status\": null, \"reply\": \"garbage_args\", \"failed\": true, "
		   "\"args_bytes\": null, \"results_bytes\": null, \"server_args_bytes\": 3, "
		   "\"server_results_bytes\": 0, \"tag\": \"malformed\", \"reply_tag\": null");
	assert_has(out, "\"name\": \"<start lost>\"");
	assert_has(out, "\"start_lost\": true, \"status\": \"RPC_SUCCESS\"");
	assert_has(out, "\"start_lost\": true, \"status\": null, \"reply\": \"system_err\"");
	assert_has(out, "\"calls_without_start\": 2, \"failed_calls\": 5, "
		   "\"failures\": {\"RPC_TIMEDOUT\": 2, \"RPC_PROCUNAVAIL\": 1, \"garbage_args\": 1, "
		   "\"system_err\": 1}, \"tags\": {\"ok\": 6, \"incomplete\": 1, \"malformed\": 1, "
		   "\"stale\": 1}, \"reply_tags\": {\"absent\": 4, \"ok\": 2}");
	free(out);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	unlink(path);
}
END_TEST


/*
 * A stub end CAUSAL_RPC_EVENT_SKIP after its stub start (the reply brought
 * no tag back: a timeout, a one-way call) is a normal transition: the
 * server's events lie below it and the client's next call follows it.
 * Any other jump is a gap.
 */
START_TEST(test_event_skip)
{
	const long long skip = (long long)CAUSAL_RPC_EVENT_SKIP;
	struct ccsg_trace t;
	struct ccsg_dscg d;
	const char *path;

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_thread(1, 1, 0, 100, -1);
	fx_thread(2, 1, 0, 100, -1);
	{
		long long e1[4] = { 0, 1, 2, skip }, e2[4] = { skip + 1, NUL, NUL, skip + 2 };
		long long e3[4] = { 0, 1, 2, skip + 1 };

		fx_call(C1, 7, 1, "a_1", 1, 1, 2, 1, 1, e1, none);	/* call 1 */
		fx_call(C1, 7, 2, "b_1", 1, 1, 0, 0, 0, e2, none);	/* call 2 */
		fx_call(C2, 7, 1, "a_1", 1, 1, 2, 1, 2, e3, none);	/* call 3 */
	}
	path = fx_close();
	ck_assert_int_eq(ccsg_trace_load(&t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&d, &t), 0);
	ck_assert_int_eq(d.stats.chains, 2);
	ck_assert_int_eq(d.stats.broken_chains, 1);
	ck_assert_int_eq(t.chains[0].breaks, 0);
	ck_assert_int_eq(t.chains[1].breaks, 1);
	/* call 2 follows call 1 in its thread: a sibling, not a child */
	ck_assert_int_eq(t.calls[call_with_id(&t, 2)].parent, -1);
	ck_assert_int_eq(t.calls[call_with_id(&t, 2)].abnormal, 0);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	unlink(path);
}
END_TEST

Suite *ccsg_dscg_suite(void)
{
	Suite *s = suite_create("ccsg-dscg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_broken_chains);
	tcase_add_test(tc, test_thread_links);
	tcase_add_test(tc, test_outcomes_shown);
	tcase_add_test(tc, test_dropped_probes);
	tcase_add_test(tc, test_event_skip);
	suite_add_tcase(s, tc);
	return s;
}
