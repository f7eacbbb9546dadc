/*
 * check-e2e-sample.c - end to end: head sampling (CAUSAL_SAMPLE, issue 37
 * item 1).  The root of a chain decides, by the chain id alone; every
 * host it reaches honours the decision whatever its own setting; an
 * unsampled chain leaves no call record anywhere, yet its calls work and
 * carry the tag on; a bad value is said once and tracing goes on.
 *
 * Simulated hosts (e2e-rpc.h): the servers run under `unshare --uts`
 * with host names of their own, the clients on the test's.  Which chains
 * a client started is known without its records: chain ids are its
 * process uuid (from its log's name) and a counter from 1, and its
 * threads each start one.  So the test recomputes the decision for each
 * (include/causal/sample.h, the library's own function) and compares with the
 * chains in the merged database.
 */
#include "config.h"
#include "e2e-rpc.h"
#include "sample.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define THREADS 64 /* chains a `threads` client starts: one per thread */

/* Chain n of the process with this uuid, and its hex as SQLite shows. */
static void chain_of(const uint8_t uuid[CAUSAL_UUID_LEN], uint32_t n,
		     uint8_t chain[CAUSAL_CHAIN_ID_LEN], char *hex)
{
	memcpy(chain, uuid, CAUSAL_UUID_LEN);
	for (int i = 0; i < 4; i++)
		chain[CAUSAL_UUID_LEN + i] = (uint8_t)(n >> (24 - 8 * i));
	for (int i = 0; i < CAUSAL_CHAIN_ID_LEN; i++)
		sprintf(hex + 2 * i, "%02X", chain[i]);
}

struct root {
	char name[32];
	uint8_t uuid[CAUSAL_UUID_LEN];
	int chains; /* it started chains 1 .. chains */
	int calls;  /* calls each chain makes, on every host */
};

/*
 * The database holds exactly the chains the root sampled, each whole
 * (every call seen by both sides, linked), and nothing of the others on
 * any host.  Returns how many it sampled.
 */
static int assert_root_decided(struct e2e *t, const struct root *r,
			       uint64_t threshold)
{
	char uuid_hex[2 * CAUSAL_CHAIN_ID_LEN + 1];
	int kept = 0;

	for (int n = 1; n <= r->chains; n++) {
		uint8_t chain[CAUSAL_CHAIN_ID_LEN];
		char hex[2 * CAUSAL_CHAIN_ID_LEN + 1];
		int keep;

		chain_of(r->uuid, (uint32_t)n, chain, hex);
		keep = causal_sample_keep(chain, threshold);
		rpc_assert_calls(t, rpc_q("hex(chain) = '%s'", hex), RPC_LINKED,
				 keep ? r->calls : 0);
		kept += keep;
	}
	/* and no chain of its beyond those */
	chain_of(r->uuid, 0, (uint8_t[CAUSAL_CHAIN_ID_LEN]){ 0 }, uuid_hex);
	uuid_hex[2 * CAUSAL_UUID_LEN] = '\0';
	ck_assert_int_eq(e2e_query_int(t->sql,
				       "SELECT count(*) FROM rpc_calls WHERE "
				       "substr(hex(chain), 1, 32) = '%s'",
				       uuid_hex),
			 (long long)kept * r->calls);
	return kept;
}

/* Start demo-server NAME on host HOST with CAUSAL_SAMPLE=sample. */
static void server_at(struct e2e *t, struct rpc_server *s, const char *name,
		      const char *host, const char *sample,
		      const char *const args[])
{
	setenv("CAUSAL_SAMPLE", sample, 1);
	rpc_server_start(t, s, name, 1, host, args);
	unsetenv("CAUSAL_SAMPLE");
}

/*
 * A client at 1/4 calls a server at 1 and a server at 0 (one chain per
 * thread, 64 each), and a chain of hops through both (client -> the
 * server at 1 -> the one at 0), run until the root has sampled one such
 * chain and left another out: each server records a chain exactly when
 * its root sampled it.
 */
START_TEST(test_root_decides_on_every_host)
{
	static const char *const quarter[] = { "CAUSAL_SAMPLE=1/4", NULL };
	struct rpc_server all, none;
	struct root roots[2 + 40];
	int nroots = 0, hop_kept = 0, hop_left = 0;
	uint64_t t4 = 0;
	struct e2e t;
	char port[16];

	ck_assert_int_eq(causal_parse_sample("1/4", &t4), 0);
	e2e_init(&t);
	rpc_isolate();
	server_at(&t, &none, "none", "hostZero", "0", NULL);
	e2e_fmt(port, sizeof(port), "%d", none.tcp);
	server_at(&t, &all, "all", "hostAll", "1", ARGS("-n", port));

	for (int i = 0; i < 2; i++) {
		struct rpc_server *s = i ? &none : &all;
		struct root *r = &roots[nroots++];
		pid_t pid;

		e2e_fmt(r->name, sizeof(r->name), "threads-%s", s->name);
		pid = rpc_client_env(
			&t, r->name, 1, quarter,
			ARGS("-P", rpc_port(s->tcp), "threads", "64", "2"), 0,
			NULL);
		e2e_log_uuid(&t, pid, r->uuid);
		r->chains = THREADS;
		r->calls = 2;
	}
	/* the hops: one chain per client, which the test can tell at once */
	while (nroots < (int)(sizeof(roots) / sizeof(roots[0])) &&
	       !(hop_kept && hop_left)) {
		struct root *r = &roots[nroots++];
		uint8_t chain[CAUSAL_CHAIN_ID_LEN];
		char hex[2 * CAUSAL_CHAIN_ID_LEN + 1];
		pid_t pid;

		e2e_fmt(r->name, sizeof(r->name), "burn-%d", nroots);
		pid = rpc_client_env(
			&t, r->name, 1, quarter,
			ARGS("-P", rpc_port(all.tcp), "burn", "50"), 0, NULL);
		e2e_log_uuid(&t, pid, r->uuid);
		r->chains = 1;
		r->calls = 2; /* client -> all, all -> none */
		chain_of(r->uuid, 1, chain, hex);
		if (causal_sample_keep(chain, t4))
			hop_kept++;
		else
			hop_left++;
	}
	ck_assert_msg(hop_kept && hop_left,
		      "%d hop chains, %d sampled: 1/4 of what?", nroots - 2,
		      hop_kept);
	rpc_server_stop(&all);
	rpc_server_stop(&none);
	e2e_merge(&t);

	for (int i = 0; i < nroots; i++) {
		int kept = assert_root_decided(&t, &roots[i], t4);

		/* 64 chains at 1/4: none or all sampled is a 1e-8 chance */
		if (i < 2)
			ck_assert_msg(kept > 0 && kept < THREADS,
				      "%s: %d of %d chains sampled",
				      roots[i].name, kept, THREADS);
	}
	/* the server at 0 recorded the sampled chains it was given, the
	 * hops' included; the server at 1 none of the others */
	ck_assert_int_gt(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_calls WHERE "
				       "server_proc_id = %lld",
				       rpc_server_proc(&t, &none)),
			 0);
	e2e_release(&t);
}
END_TEST

/*
 * An untraced server is unaffected: a client at 1/4 gets every answer
 * right (demo-client checks each), and records its sampled chains alone.
 */
START_TEST(test_untraced_server_unaffected)
{
	static const char *const quarter[] = { "CAUSAL_SAMPLE=1/4", NULL };
	struct rpc_server plain;
	uint64_t t4 = 0;
	struct e2e t;
	struct root r = { .name = "threads-plain", .chains = 16, .calls = 3 };
	pid_t pid;
	int kept = 0;

	ck_assert_int_eq(causal_parse_sample("1/4", &t4), 0);
	e2e_init(&t);
	rpc_isolate();
	rpc_server_start(&t, &plain, "plain", 0, "hostPlain", NULL);
	pid = rpc_client_env(
		&t, r.name, 1, quarter,
		ARGS("-P", rpc_port(plain.tcp), "threads", "16", "3"), 0, NULL);
	e2e_log_uuid(&t, pid, r.uuid);
	rpc_server_stop(&plain);
	e2e_merge(&t);
	for (int n = 1; n <= r.chains; n++) {
		uint8_t chain[CAUSAL_CHAIN_ID_LEN];
		char hex[2 * CAUSAL_CHAIN_ID_LEN + 1];
		int keep;

		chain_of(r.uuid, (uint32_t)n, chain, hex);
		keep = causal_sample_keep(chain, t4);
		rpc_assert_calls(
			&t, rpc_q("hex(chain) = '%s'", hex),
			"(server_proc_id IS NULL AND status_name = "
			"'RPC_SUCCESS' AND stub_start_event IS NOT NULL AND "
			"stub_end_event IS NOT NULL)",
			keep ? r.calls : 0);
		kept += keep;
	}
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls"),
			 kept * r.calls);
	e2e_release(&t);
}
END_TEST

/* Lines of text holding needle. */
static int lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/*
 * A malformed CAUSAL_SAMPLE is said once on stderr, by the client and by
 * the server, and tracing goes on with the default: every chain recorded.
 */
START_TEST(test_malformed_value_said_once)
{
	static const char *const bad[] = { "CAUSAL_SAMPLE=1/0", NULL };
	struct rpc_server s;
	char errp[PATH_MAX], *err;
	struct e2e t;

	e2e_init(&t);
	rpc_isolate();
	server_at(&t, &s, "server", "hostOften", "often", NULL);
	rpc_client_env(&t, "client", 1, bad,
		       ARGS("-P", rpc_port(s.tcp), "threads", "8", "2"), 0,
		       NULL);
	rpc_server_stop(&s);
	e2e_fmt(errp, sizeof(errp), "%s/client.err", t.dir);
	err = e2e_slurp(errp, NULL);
	ck_assert_str_eq(err, "causal: ignoring CAUSAL_SAMPLE='1/0': expected "
			      "a probability such as 1/100, 0.01, 0 or 1; "
			      "every chain is recorded\n");
	free(err);
	err = e2e_slurp(s.err, NULL);
	ck_assert_msg(lines_with(err, "causal:") == 1 &&
			      lines_with(err, "CAUSAL_SAMPLE='often'") == 1,
		      "server stderr: %s", err);
	free(err);
	e2e_merge(&t);
	rpc_assert_calls(&t, rpc_q("prog = %d", DEMO_PROG), RPC_LINKED, 16);
	e2e_release(&t);
}
END_TEST

Suite *e2e_sample_suite(void)
{
	Suite *s = suite_create("e2e-sample");
	TCase *tc = tcase_create("sample");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT * 2);
	tcase_add_test(tc, test_root_decides_on_every_host);
	tcase_add_test(tc, test_untraced_server_unaffected);
	tcase_add_test(tc, test_malformed_value_said_once);
	suite_add_tcase(s, tc);
	return s;
}
