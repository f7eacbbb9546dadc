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
 */
#include "config.h"
#include "e2e-rpc.h"
#include "sample.h"

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

Suite *e2e_keep_suite(void)
{
	Suite *s = suite_create("e2e-keep");
	TCase *tc = tcase_create("keep");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT * 2);
	tcase_add_test(tc, test_slow_and_failed_kept_whole);
	tcase_add_test(tc, test_ring_overflow_counted);
	tcase_add_test(tc, test_bad_values_said_once);
	suite_add_tcase(s, tc);
	return s;
}
