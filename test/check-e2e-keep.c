/*
 * check-e2e-keep.c - end to end: tail keep (issue 37 item 3).  Under
 * CAUSAL_SAMPLE=1/1000 a chain that is slow (CAUSAL_KEEP_SLOWER_THAN) or
 * fails is in the merged trace whole, on every host it crossed; the fast
 * unsampled ones are not; a keep ring too small for the load counts what
 * it pushed out, and the merge shows it; a bad value is said once and
 * tracing goes on with the default.
 *
 * Three simulated hosts (e2e-rpc.h): the clients on the test's, server B
 * on hostB, whose BURN calls server C on hostC.  C sleeps 1.5 s in a BURN
 * of 1000 us or more (demo-server -d): the planted slow call, 1 s being
 * the threshold.  Which chains a client started is known from its log's
 * name (as in check-e2e-sample.c): one per client thread.
 *
 * The sibling case (issue 37 item 3, the coordinator's broadcast): a root
 * calls B fast, then C slow.  B answered before the slow call happened,
 * so no reply tag tells it; only the coordinator can.  Without one, B's
 * part is let go and ccsg reports the kept chains incomplete; with one,
 * they are complete.
 */
#include <time.h>

#include "config.h"
#include "e2e-monitor.h"
#include "e2e-rpc.h"
#include "json-read.h"
#include "sample.h"
#include "tool-run.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define HEX_LEN (2 * CAUSAL_CHAIN_ID_LEN + 1)

static const char *const keep_env[] = { "CAUSAL_SAMPLE=1/1000",
					"CAUSAL_KEEP_SLOWER_THAN=1s", NULL };

/* The hex of chain 1 (its main thread's) of the traced process pid, as
 * SQLite shows it, and whether head sampling at 1/1000 took it. */
static int chain_hex(struct e2e *t, pid_t pid, char hex[HEX_LEN])
{
	uint8_t chain[CAUSAL_CHAIN_ID_LEN] = { 0 };
	uint64_t threshold = 0;

	e2e_log_uuid(t, pid, chain);
	chain[CAUSAL_CHAIN_ID_LEN - 1] = 1;
	for (int i = 0; i < CAUSAL_CHAIN_ID_LEN; i++)
		sprintf(hex + 2 * i, "%02X", chain[i]);
	ck_assert_int_eq(causal_parse_sample("1/1000", &threshold), 0);
	return causal_sample_keep(chain, threshold);
}

static void server_at(struct e2e *t, struct rpc_server *s, const char *name,
		      const char *host, const char *const env[],
		      const char *const args[])
{
	for (int i = 0; env[i]; i++)
		putenv((char *)env[i]);
	rpc_server_start(t, s, name, 1, host, args);
	for (int i = 0; env[i]; i++) {
		char var[64];

		e2e_fmt(var, sizeof(var), "%.*s", (int)strcspn(env[i], "="),
			env[i]);
		unsetenv(var);
	}
}

/* B (-> C) and C, both traced with env; C slow on a big BURN. */
static void three_hosts(struct e2e *t, struct rpc_server *b,
			struct rpc_server *c, const char *const env[])
{
	char port[16];

	rpc_isolate();
	server_at(t, c, "C", "hostC", env, ARGS("-d", "1500"));
	e2e_fmt(port, sizeof(port), "%d", c->tcp);
	server_at(t, b, "B", "hostB", env, ARGS("-n", port));
}

/* Calls of the chain, seen by both sides (1) or not (0): how many. */
static long long calls_of(struct e2e *t, const char *hex, int linked)
{
	return e2e_query_int(
		t->sql,
		"SELECT count(*) FROM rpc_calls WHERE hex(chain) = '%s' AND %s",
		hex, linked ? RPC_LINKED : "1");
}

/*
 * At 1/1000: ten fast chains A -> B -> C and a client of 16 fast chains
 * to B leave nothing (unless sampled); the slow chain (C slow, its reply
 * tag tells B, B's tells A) is whole on the three hosts; the failed one
 * (a procedure B does not have) is kept by both sides.
 */
START_TEST(test_slow_and_failed_kept_whole)
{
	struct rpc_server b, c;
	char fast[10][HEX_LEN], slow[HEX_LEN], failed[HEX_LEN];
	int fast_sampled[10], slow_sampled, failed_sampled;
	long long procs;
	pid_t pid;
	struct e2e t;

	e2e_init(&t);
	three_hosts(&t, &b, &c, keep_env);
	for (int i = 0; i < 10; i++) {
		char name[16];

		e2e_fmt(name, sizeof(name), "fast-%d", i);
		pid = rpc_client_env(&t, name, 1, keep_env,
				     ARGS("-P", rpc_port(b.tcp), "burn", "10"),
				     0, NULL);
		fast_sampled[i] = chain_hex(&t, pid, fast[i]);
	}
	rpc_client_env(&t, "threads", 1, keep_env,
		       ARGS("-P", rpc_port(b.tcp), "threads", "16", "2"), 0,
		       NULL);
	pid = rpc_client_env(&t, "slow", 1, keep_env,
			     ARGS("-P", rpc_port(b.tcp), "burn", "1000"), 0,
			     NULL);
	slow_sampled = chain_hex(&t, pid, slow);
	pid = rpc_client_env(&t, "failed", 1, keep_env,
			     ARGS("-P", rpc_port(b.tcp), "noproc"), 0, NULL);
	failed_sampled = chain_hex(&t, pid, failed);
	rpc_server_stop(&b);
	rpc_server_stop(&c);
	e2e_merge(&t);

	/* whole: A -> B and B -> C, every probe on both sides */
	ck_assert_int_eq(calls_of(&t, slow, 1), 2);
	ck_assert_int_eq(calls_of(&t, slow, 0), 2);
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT count(*) FROM rpc_calls WHERE hex(chain) "
			      "= '%s' AND status_name = 'RPC_PROCUNAVAIL' AND "
			      "client_proc_id IS NOT NULL AND server_proc_id "
			      "IS NOT NULL",
			      failed),
		1);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(calls_of(&t, fast[i], 0),
				 fast_sampled[i] ? 2 : 0);
	/* the 16 chains of `threads`: at most a sampled one or two */
	ck_assert_int_le(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_calls "
				       "WHERE proc = %d",
				       P_SAY_IT),
			 4);
	/* each of the three hosts kept the slow chain itself */
	procs = e2e_query_int(t.sql,
			      "SELECT count(DISTINCT h.name) FROM processes p "
			      "JOIN hosts h USING (host_id) WHERE "
			      "p.keep_chains > 0 AND p.keep_written > 0");
	ck_assert_int_eq(procs, 3);
	ck_assert_msg(!slow_sampled && !failed_sampled,
		      "a 1/1000 chance: the planted chains were sampled");
	e2e_release(&t);
}
END_TEST

/*
 * A keep ring of 64 KiB on B, a load of unsampled calls far beyond it
 * within the window: what it pushed out is counted, and the merge says so.
 */
START_TEST(test_ring_overflow_counted)
{
	static const char *const small[] = { "CAUSAL_SAMPLE=0",
					     "CAUSAL_KEEP_SLOWER_THAN=1s",
					     "CAUSAL_KEEP_RING_KB=64", NULL };
	struct rpc_server b, c;
	char *out;
	struct e2e t;
	char path[PATH_MAX];

	e2e_init(&t);
	three_hosts(&t, &b, &c, small);
	rpc_client_env(&t, "threads", 1, small,
		       ARGS("-P", rpc_port(b.tcp), "threads", "32", "40"), 0,
		       NULL);
	rpc_server_stop(&b);
	rpc_server_stop(&c);
	e2e_merge(&t);
	ck_assert_int_gt(e2e_query_int(t.sql,
				       "SELECT keep_overflow FROM processes "
				       "WHERE exe LIKE '%%demo-server' AND "
				       "keep_held > 0"),
			 0);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls"),
			 0);
	e2e_fmt(path, sizeof(path), "%s/merge.out", t.dir);
	out = e2e_slurp(path, NULL);
	ck_assert_msg(strstr(out, "keep overflow:   "), "merge said: %s", out);
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * Bad values are said once each on stderr and tracing goes on with the
 * defaults: tail keep off, every chain (CAUSAL_SAMPLE's default) recorded.
 */
START_TEST(test_bad_values_said_once)
{
	static const char *const bad[] = { "CAUSAL_KEEP_SLOWER_THAN=fast",
					   "CAUSAL_KEEP_WINDOW=10",
					   "CAUSAL_KEEP_RING_KB=1", NULL };
	struct rpc_server b, c;
	char errp[PATH_MAX], *err;
	struct e2e t;

	e2e_init(&t);
	three_hosts(&t, &b, &c, bad);
	rpc_client_env(&t, "client", 1, bad,
		       ARGS("-P", rpc_port(b.tcp), "threads", "4", "2"), 0,
		       NULL);
	rpc_server_stop(&b);
	rpc_server_stop(&c);
	e2e_fmt(errp, sizeof(errp), "%s/client.err", t.dir);
	err = e2e_slurp(errp, NULL);
	ck_assert_str_eq(
		err,
		"causal: ignoring CAUSAL_KEEP_SLOWER_THAN='fast': expected a "
		"duration such as 250ms, 2s or 800us, or p99; tail keep is "
		"off\n"
		"causal: ignoring CAUSAL_KEEP_WINDOW='10': expected a duration "
		"such as 10s or 500ms; 10s\n"
		"causal: ignoring CAUSAL_KEEP_RING_KB='1': expected 64 to "
		"1048576; 4096\n");
	free(err);
	e2e_merge(&t);
	rpc_assert_calls(&t, rpc_q("proc = %d", P_SAY_IT), RPC_LINKED, 8);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes "
					      "WHERE keep_held IS NOT NULL"),
			 0);
	e2e_release(&t);
}
END_TEST

/* The sibling case: 250 ms is slow, C sleeps 300 ms in a big BURN, one
 * call at a time; a window long enough for the last of 20 (6 s). */
#define SIB_ENV                                                                \
	"CAUSAL_SAMPLE=1/1000", "CAUSAL_KEEP_SLOWER_THAN=250ms",               \
		"CAUSAL_KEEP_WINDOW=30s"
static const char *const sib_env[] = { SIB_ENV, NULL };
static const char *const sib_env_coord[] = { SIB_ENV, MON_COORD, NULL };

/* From `causalctl status`: the row of the process on host, its seconds
 * since last heard of and the KEEPs the coordinator took from it. */
static void status_of(struct e2e *t, const char *host, double *seen,
		      unsigned long long *keeps)
{
	char *text = mon_ctl(t, 0, ARGS("status")), *line;

	*seen = -1;
	*keeps = 0;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char h[64];

		if (sscanf(line, "%63s %*d %*s %*u %*u %*u %lf s %llu", h, seen,
			   keeps) == 3 &&
		    !strcmp(h, host))
			break;
		*seen = -1;
	}
	free(text);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Wait until C announced n kept chains, then until B has spoken since
 * (its consumer PINGs after reading what was waiting): it has read the
 * KEPTs the coordinator sent it before.
 */
static void wait_broadcast(struct e2e *t, unsigned long long n)
{
	unsigned long long keeps;
	double seen, since;
	int i;

	for (i = 0;; i++) {
		status_of(t, "hostC", &seen, &keeps);
		if (keeps >= n)
			break;
		ck_assert_msg(i < 300, "C announced %llu kept chains of %llu",
			      keeps, n);
		e2e_sleep_ms(100);
	}
	since = now_s();
	for (i = 0;; i++) {
		status_of(t, "hostB", &seen, &keeps);
		if (seen >= 0 && now_s() - since > seen + 0.05)
			break;
		ck_assert_msg(i < 300, "B silent since the broadcast");
		e2e_sleep_ms(100);
	}
}

/*
 * n chains root -> B (fast), then root -> C (slow), each from a thread
 * of its own, with or without a coordinator; ccsg's count of kept chains
 * into *kept and of the complete ones into *complete; the chains sampled
 * by the head decision (as the DSCG says) into *sampled.
 */
static void sibling_run(int coord, int n, long long *kept, long long *complete,
			long long *sampled)
{
	const char *const *env = coord ? sib_env_coord : sib_env;
	const char *argv[] = {
		tool_path("ccsg"), "dscg", "--format=json", "--db", NULL, NULL
	};
	const struct jval *k;
	struct rpc_server b, c;
	struct jval *doc;
	struct tool_out r;
	char count[16], cport[16];
	struct e2e t;

	e2e_init(&t);
	rpc_isolate();
	if (coord)
		mon_coord_start(&t, NULL);
	server_at(&t, &c, "C", "hostC", env, ARGS("-d", "300"));
	server_at(&t, &b, "B", "hostB", env, NULL);
	if (coord)
		mon_wait_connected(&t, 2);
	e2e_fmt(count, sizeof(count), "%d", n);
	e2e_fmt(cport, sizeof(cport), "%d", c.tcp);
	rpc_client_env(
		&t, "pair", 1, env,
		ARGS("-P", rpc_port(b.tcp), "pair", count, "1000", cport), 0,
		NULL);
	if (coord)
		wait_broadcast(&t, (unsigned long long)n -
					   (unsigned long long)n / 10);
	rpc_server_stop(&b);
	rpc_server_stop(&c);
	e2e_merge(&t);
	argv[4] = t.db;
	r = tool_run(argv);
	e2e_assert_exit(r.status, 0, "ccsg dscg");
	doc = json_parse(r.out, "ccsg dscg --format=json");
	k = json_need(json_need(doc, "summary", J_OBJ, "dscg"), "kept_chains",
		      J_OBJ, "summary");
	*kept = (long long)json_need(k, "total", J_NUM, "kept_chains")->num;
	*complete =
		(long long)json_need(k, "complete", J_NUM, "kept_chains")->num;
	ck_assert_int_eq(
		(long long)json_need(k, "incomplete", J_NUM, "kept")->num,
		*kept - *complete);
	/* every chain of the run is in the trace: kept, or sampled */
	*sampled =
		e2e_query_int(t.sql,
			      "SELECT count(DISTINCT chain) FROM rpc_calls") -
		*kept;
	ck_assert_int_eq(*kept + *sampled, n);
	json_free(doc);
	tool_out_release(&r);
	e2e_release(&t);
}

/*
 * Without a coordinator, B lets its part go: every kept chain lacks B's
 * side of its first call (the root's stub end came back with B's tag),
 * and ccsg says it is incomplete.  A chain head sampling took (one in a
 * thousand) is whole and not kept.
 */
START_TEST(test_sibling_lost_without_coordinator)
{
	long long kept, complete, sampled;

	sibling_run(0, 4, &kept, &complete, &sampled);
	ck_assert_int_eq(complete, 0);
	ck_assert_int_ge(kept, 3);
}
END_TEST

/*
 * With the coordinator, C (and the root) announce the chains they keep,
 * B is told and writes its part: every kept chain is complete.  The
 * ratio is printed (docs/tracing.md, "Tail keep", gives it).
 */
START_TEST(test_sibling_kept_through_coordinator)
{
	long long kept, complete, sampled;

	sibling_run(1, 20, &kept, &complete, &sampled);
	printf("e2e-keep: %lld of %lld kept chains complete with the "
	       "coordinator (%lld sampled)\n",
	       complete, kept, sampled);
	ck_assert_int_ge(kept, 18);
	ck_assert_int_eq(complete, kept);
}
END_TEST

/* A fake consumer on the coordinator's socket: HELLO proto as host, its
 * WELCOME checked; the connection. */
static int fake_consumer(int proto, const char *host, int n)
{
	char hello[256];
	const char *line;
	int fd = mon_socket();

	e2e_fmt(hello, sizeof(hello), "HELLO %d %032x %s %d - 0 /fake/exe\n",
		proto, n, host, n);
	mon_send(fd, hello);
	line = mon_line(fd);
	ck_assert_msg(!strncmp(line, rpc_q("WELCOME %d ", proto), 10), "%s",
		      line);
	return fd;
}

/*
 * The protocol (docs/causalctl.md): a KEEP of a protocol-3 consumer goes
 * to every other one of protocol 3 as KEPT, once a chain; a consumer of
 * protocol 2 is sent none, and its KEEP is malformed, as a KEEP with a
 * bad chain is; over the rate cap (64 at once, then 64 a second) KEEPs
 * are cut, counted in `causalctl status`.
 */
START_TEST(test_keep_protocol)
{
	const char *chain = "00112233445566778899aabbccddeeff00000001";
	unsigned long long keeps, kd, cut, malformed = 0;
	char *text, msg[128];
	const char *row;
	struct e2e t;
	int a, b, old;

	e2e_init(&t);
	rpc_isolate();
	mon_coord_start(&t, NULL);
	a = fake_consumer(3, "fakeA", 1);
	b = fake_consumer(3, "fakeB", 2);
	old = fake_consumer(2, "fakeO", 3);
	e2e_fmt(msg, sizeof(msg), "KEEP %s 0\nKEEP %s 0\n", chain, chain);
	mon_send(a, msg);
	ck_assert_str_eq(mon_line(b), rpc_q("KEPT %s", chain));
	/* the same chain again: not sent again; the next line is an event */
	free(mon_ctl(&t, 0, ARGS("on", "cpu")));
	ck_assert_str_eq(mon_line(b), "EVENT 1 on cpu");
	ck_assert_str_eq(mon_line(old), "EVENT 1 on cpu");
	/* malformed: from protocol 2, a chain in capitals, no count */
	e2e_fmt(msg, sizeof(msg), "KEEP %s 0\n", chain);
	mon_send(old, msg);
	mon_send(a, "KEEP 00112233445566778899AABBCCDDEEFF00000001 0\n"
		    "KEEP 00112233445566778899aabbccddeeff00000002\n");
	/* a burst of 100 more: 64 at once, the rest cut */
	for (int i = 0; i < 100; i++) {
		e2e_fmt(msg, sizeof(msg),
			"KEEP 00112233445566778899aabbccddeeff%08x 7\n",
			i + 16);
		mon_send(a, msg);
	}
	for (int i = 0;; i++) {
		text = mon_ctl(&t, 0, ARGS("status"));
		row = strstr(text, "fakeA ");
		ck_assert_msg(row, "%s", text);
		ck_assert(sscanf(row,
				 "%*s %*d %*s %*u %*u %*u %*f s %llu/%llu/%llu",
				 &keeps, &kd, &cut) == 3);
		ck_assert_msg(strstr(text, " published, ") &&
				      sscanf(strstr(text, " published, "),
					     " published, %llu malformed",
					     &malformed) == 1,
			      "%s", text);
		if (keeps + cut >= 102 || i > 100)
			break;
		free(text);
		e2e_sleep_ms(100);
	}
	ck_assert_msg(keeps + cut == 102 && cut >= 30 && kd == 7, "%s", text);
	ck_assert_msg(malformed == 3, "%s", text);
	ck_assert_msg(strstr(text, rpc_q("tail keep: %llu chains kept "
					 "announced, %llu cut",
					 keeps, cut)),
		      "%s", text);
	free(text);
	close(a);
	close(b);
	close(old);
	e2e_release(&t);
}
END_TEST

/*
 * A coordinator of protocol 2 (played by the test) refuses HELLO 3: the
 * process says so once, comes back with HELLO 2, takes WELCOME 2 and
 * its events, and never says KEEP to it, though it keeps a chain.
 */
START_TEST(test_old_coordinator)
{
	struct rpc_server c;
	const char *line;
	char *err;
	struct e2e t;
	int lfd, fd;

	e2e_init(&t);
	rpc_isolate();
	lfd = mon_listen(NULL);
	server_at(&t, &c, "C", "hostC", sib_env_coord, ARGS("-d", "300"));
	fd = mon_accept(lfd);
	ck_assert_msg(!strncmp(mon_line(fd), "HELLO 3 ", 8), "no HELLO 3");
	mon_send(fd, "ERR protocol 2 needed: a causal of this version\n");
	close(fd);
	fd = mon_accept(lfd);
	ck_assert_msg(!strncmp(mon_line(fd), "HELLO 2 ", 8), "no HELLO 2");
	mon_send(fd, "WELCOME 2 abc\nEVENT 1 on cpu\n");
	ck_assert_str_eq(mon_line(fd), "ACK 1");
	/* a slow chain kept at C: no KEEP follows, only the next ACK */
	rpc_client_env(&t, "slow", 1, sib_env,
		       ARGS("-P", rpc_port(c.tcp), "burn", "1000"), 0, NULL);
	e2e_sleep_ms(300);
	mon_send(fd, "EVENT 2 off cpu\n");
	line = mon_line(fd);
	ck_assert_str_eq(line, "ACK 2");
	close(fd);
	close(lfd);
	rpc_server_stop(&c);
	err = e2e_slurp(c.err, NULL);
	ck_assert_str_eq(err,
			 "causal: the coordinator speaks an older protocol "
			 "(2): the chains tail keep keeps are not "
			 "broadcast\n");
	free(err);
	e2e_release(&t);
}
END_TEST

Suite *e2e_keep_suite(void)
{
	Suite *s = suite_create("e2e-keep");
	TCase *tc = tcase_create("keep");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT * 2);
	tcase_add_test(tc, test_slow_and_failed_kept_whole);
	tcase_add_test(tc, test_ring_overflow_counted);
	tcase_add_test(tc, test_bad_values_said_once);
	tcase_add_test(tc, test_sibling_lost_without_coordinator);
	tcase_add_test(tc, test_sibling_kept_through_coordinator);
	tcase_add_test(tc, test_keep_protocol);
	tcase_add_test(tc, test_old_coordinator);
	suite_add_tcase(s, tc);
	return s;
}
