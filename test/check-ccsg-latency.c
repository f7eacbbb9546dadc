/*
 * check-ccsg-latency.c - latency.h on small made traces whose four probes
 * have both their edges:
 *
 *   inner      Equation 3 between the stub probes' inner edges, the
 *              server time between the skeleton probes', the probes' own
 *              time apart (issue 34, item 1)
 *   nested     a call three deep on three hosts: each call's latency less
 *              its skeleton's probes and every probe of the calls nested in
 *              it; the mean subtracted and the uncompensated figure per
 *              function, in text and JSON (item 2)
 *   gave_up    a nested call the client gave up on: its stub probes are
 *              subtracted from its parent, not its skeleton, which ran on
 *   bad        probes out of order or missing: the call is counted and
 *              left out, never a negative or wrapped figure
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "ccsg-stream-compare.h"
#include "ccsg.h"
#include "json-read.h"
#include "latency.h"
#include "names.h"
#include "output.h"

#define CHAIN "00000000000000000000000000000000000000c1"
#define PROG 0x20000c61

struct loaded {
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	struct idl_names nm;
	struct ccsg_latency *lat;
	size_t n;
};

static void load(struct loaded *l, const char *path)
{
	ck_assert_int_eq(ccsg_trace_load(&l->t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&l->d, &l->t), 0);
	ck_assert_int_eq(ccsg_dims_hosts(&l->dims, &l->t), 0);
	ck_assert_int_eq(ccsg_graph_build(&l->g, &l->d, &l->dims, 0), 0);
	idl_names_init(&l->nm);
	ck_assert_int_eq(ccsg_graph_name(&l->g, &l->nm), 0);
	ck_assert_int_eq(ccsg_latency_build(&l->g, &l->lat, &l->n), 0);
	/* `ccsg latency` streams: the same table */
	sc_compare(path, &l->g, NULL);
}

static void unload(struct loaded *l, const char *path)
{
	free(l->lat);
	ccsg_graph_release(&l->g);
	ccsg_dims_release(&l->dims);
	ccsg_dscg_release(&l->d);
	ccsg_trace_release(&l->t);
	idl_names_release(&l->nm);
	unlink(path);
}

/* The entry of procedure proc. */
static const struct ccsg_latency *entry(const struct loaded *l, unsigned proc)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->g.nodes[l->lat[i].node].proc == proc)
			return &l->lat[i];
	ck_abort_msg("no latency entry for procedure %u", proc);
	return NULL;
}

/*
 * The last call's eight times, us: the stub start probe's entry and
 * exit, the skeleton start's, the skeleton end's, the stub end's
 * (NUL: NULL).
 */
static void edges(const long long t[8])
{
	static const char *const col[8] = {
		"stub_start_ns",      "stub_start_exit_ns", "skel_start_ns",
		"skel_start_exit_ns", "skel_end_ns",	    "skel_end_exit_ns",
		"stub_end_ns",	      "stub_end_exit_ns"
	};
	char sql[1024];
	size_t len = 0;

	for (int i = 0; i < 8; i++) {
		char v[32];

		if (t[i] == NUL)
			snprintf(v, sizeof(v), "NULL");
		else
			snprintf(v, sizeof(v), "%lld", t[i] * US);
		len += (size_t)snprintf(sql + len, sizeof(sql) - len,
					"%s%s = %s", i ? ", " : "", col[i], v);
	}
	fx_set(sql);
}

static void replied(void)
{
	fx_set("status = 0, status_name = 'RPC_SUCCESS', reply = 'success', "
	       "tag = 'ok', reply_tag = 'ok'");
}

/*
 * One call 1 (A -> B) whose probes each take time: stub start 0-10,
 * skeleton start 20-25, skeleton end 80-84, stub end 100-107 (us).
 */
START_TEST(test_inner)
{
	static const long long ev[4] = { 0, 1, 2, 3 }, cpu[4] = { 0, 0, 0, 0 };
	struct loaded l;
	const char *path;
	const struct ccsg_latency *L;

	fx_open();
	fx_two_procs();
	fx_call(CHAIN, PROG, 1, "one_1", 1, 1, 2, 1, 1, ev, cpu);
	edges((const long long[8]){ 0, 10, 20, 25, 80, 84, 100, 107 });
	replied();
	path = fx_close();
	load(&l, path);
	ck_assert_uint_eq(l.n, 1);
	L = entry(&l, 1);
	ck_assert_int_eq(L->calls, 1);
	/* 100 - 10 less its skeleton's probes (5 + 4); the outer edges
	 * (107 - 0) were 107 */
	ck_assert_int_eq(L->max, (90 - 9) * US);
	ck_assert(L->uncomp_mean == 90 * US);
	ck_assert(L->subtracted == 9 * US);
	ck_assert(L->probes == (10 + 5 + 4 + 7) * US);
	/* server 80 - 25 = 55 of 81; network the rest */
	ck_assert(fabs(L->server_share - 55.0 / 81) < 1e-9);
	ck_assert(fabs(L->network_share - 26.0 / 81) < 1e-9);
	ck_assert_int_eq(L->bounded, 0);
	unload(&l, path);
}
END_TEST

/*
 * A (proc 1) calls B's procedure 1, which calls C's procedure 2 twice,
 * whose first call calls D's procedure 3: three deep, four hosts.  Every
 * probe takes 1 us (entry to exit) but the stub ends, 2 us.
 */
static const char *nested(int gave_up)
{
	static const long long cpu[4] = { 0, 0, 0, 0 };

	fx_open();
	for (int h = 1; h <= 4; h++) {
		char name[2] = { (char)('A' + h - 1), 0 };

		fx_host(h, name);
		fx_proc(h, h);
		fx_thread(h, 1, 0, 100, -1);
	}
	fx_call(CHAIN, PROG, 1, "one_1", 1, 1, 2, 1, 1,
		(const long long[4]){ 0, 1, 14, 15 }, cpu);
	edges((const long long[8]){ 0, 1, 10, 11, 900, 901, 1000, 1002 });
	replied();
	fx_call(CHAIN, PROG, 2, "two_1", 2, 1, 3, 1, 2,
		(const long long[4]){ 2, 3, 8, 9 }, cpu);
	edges((const long long[8]){ 100, 101, 110, 111, 490, 491, 500, 502 });
	replied();
	fx_call(CHAIN, PROG, 3, "three_1", 3, 1, 4, 1, 3,
		(const long long[4]){ 4, 5, 6, 7 }, cpu);
	edges((const long long[8]){ 200, 201, 210, 211, 290, 291, 300, 302 });
	replied();
	fx_call(CHAIN, PROG, 2, "two_1", 2, 1, 3, 1, 4,
		(const long long[4]){ 10, 11, 12, 13 }, cpu);
	edges((const long long[8]){ 600, 601, 610, 611, 690, 691, 700, 702 });
	replied();
	if (gave_up)
		fx_set("status = 5, status_name = 'RPC_TIMEDOUT', reply_tag = "
		       "'absent', skel_end_ns = 800000, skel_end_exit_ns = "
		       "801000");
	return fx_close();
}

START_TEST(test_nested)
{
	const char *path = nested(0);
	const struct ccsg_latency *L1, *L2, *L3;
	struct ccsg_call_latency out[4];
	struct loaded l;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct jval *doc;
	const struct jval *fns;

	load(&l, path);
	ck_assert_uint_eq(l.t.nchains, 1);
	ccsg_latency_calls(&l.t, &l.t.chains[0], out);
	/* three: 300 - 201 less its skeleton's probes 2 */
	ck_assert_int_eq(out[2].uncompensated, 99 * US);
	ck_assert_int_eq(out[2].subtracted, 2 * US);
	ck_assert_int_eq(out[2].latency, 97 * US);
	ck_assert_int_eq(out[2].probes, 5 * US);
	/* the first two: its skeleton's 2 and three's 5 */
	ck_assert_int_eq(out[1].uncompensated, 399 * US);
	ck_assert_int_eq(out[1].subtracted, 7 * US);
	ck_assert_int_eq(out[1].children, 97 * US);
	/* one: its skeleton's 2, each two's 5, three's 5 */
	ck_assert_int_eq(out[0].uncompensated, 999 * US);
	ck_assert_int_eq(out[0].subtracted, 17 * US);
	ck_assert_int_eq(out[0].latency, 982 * US);
	ck_assert_int_eq(out[0].children, (392 + 97) * US);

	L1 = entry(&l, 1);
	L2 = entry(&l, 2);
	L3 = entry(&l, 3);
	ck_assert_int_eq(L1->max, 982 * US);
	ck_assert(L2->uncomp_mean == (399 + 99) * US / 2.0);
	ck_assert(L2->subtracted == (7 + 2) * US / 2.0);
	ck_assert(L2->mean == (392 + 97) * US / 2.0);
	ck_assert_int_eq(L3->min, 97 * US);
	/* one's server time 900 - 11 less the nested probes 15: 874, of
	 * which the children's 489, network 982 - 874 */
	ck_assert(fabs(L1->children_share - 489.0 / 982) < 1e-9);
	ck_assert(fabs(L1->server_share - (874.0 - 489) / 982) < 1e-9);
	ck_assert(fabs(L1->network_share - (982.0 - 874) / 982) < 1e-9);
	ck_assert_int_eq(L1->bounded, 0);

	/* JSON: the compensated figures, the uncompensated one, the mean
	 * subtracted and the calls' own probes */
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(ccsg_latency_print(f, &l.g, l.lat, l.n, CCSG_JSON), 0);
	fclose(f);
	doc = json_parse(buf, "latency");
	fns = json_need(doc, "functions", J_ARR, "latency");
	for (int i = 0; i < fns->n; i++) {
		const struct jval *fn = &fns->item[i];

		if (json_need(fn, "procedure", J_NUM, "fn")->num != 2)
			continue;
		ck_assert(json_need(fn, "mean_us", J_NUM, "fn")->num == 244.5);
		ck_assert(json_need(fn, "uncompensated_mean_us", J_NUM, "fn")
				  ->num == 249);
		ck_assert(
			json_need(fn, "subtracted_mean_us", J_NUM, "fn")->num ==
			4.5);
		ck_assert(json_need(fn, "probes_mean_us", J_NUM, "fn")->num ==
			  5);
		ck_assert(
			json_need(fn, "uncompensated_sd_us", J_NUM, "fn")->num >
			0);
	}
	json_free(doc);
	free(buf);
	/* the text names the columns */
	buf = NULL;
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(ccsg_latency_print(f, &l.g, l.lat, l.n, CCSG_TEXT), 0);
	fclose(f);
	ck_assert_msg(strstr(buf, "uncomp") && strstr(buf, "subtr") &&
			      strstr(buf, "probes"),
		      "%s", buf);
	free(buf);
	unload(&l, path);
}
END_TEST

/*
 * The nested trace, the second call to C given up on by B
 * (RPC_TIMEDOUT): its skeleton ran on after B's stub ended, so only its
 * stub probes (3 us) are taken from one; it is not compensated itself.
 */
START_TEST(test_gave_up)
{
	const char *path;
	struct ccsg_call_latency out[4];
	struct loaded l;

	path = nested(1);
	load(&l, path);
	ccsg_latency_calls(&l.t, &l.t.chains[0], out);
	ck_assert(!ccsg_call_replied(&l.t.calls[3]));
	ck_assert_int_eq(out[3].subtracted, 0);
	ck_assert_int_eq(out[3].latency, 99 * US);
	/* one: its skeleton's 2, the first two's 3 + 7, the second's 3 */
	ck_assert_int_eq(out[0].subtracted, 15 * US);
	unload(&l, path);
}
END_TEST

/*
 * Probes out of order, or missing: the call has no latency (counted in
 * without_latency), never a negative or wrapped one; a probe whose exit
 * precedes its entry is no probe time.
 */
START_TEST(test_bad)
{
	static const long long ev[4] = { 0, 1, 2, 3 }, cpu[4] = { 0, 0, 0, 0 };
	struct loaded l;
	const char *path;
	const struct ccsg_latency *L;

	fx_open();
	fx_two_procs();
	/* the stub end's entry before the start's exit */
	fx_call(CHAIN, PROG, 1, "one_1", 1, 1, 2, 1, 1, ev, cpu);
	edges((const long long[8]){ 0, 50, 20, 25, 30, 31, 40, 60 });
	replied();
	/* the stub end missing */
	fx_call("00000000000000000000000000000000000000c2", PROG, 1, "one_1", 1,
		1, 2, 1, 2, (const long long[4]){ 0, 1, 2, NUL }, cpu);
	edges((const long long[8]){ 0, 1, 2, 3, 4, 5, NUL, NUL });
	/* a stub start probe whose exit precedes its entry: unknown */
	fx_call("00000000000000000000000000000000000000c3", PROG, 1, "one_1", 1,
		1, 2, 1, 3, ev, cpu);
	edges((const long long[8]){ 10, 5, 20, 21, 30, 31, 40, 41 });
	replied();
	/* a good one */
	fx_call("00000000000000000000000000000000000000c4", PROG, 1, "one_1", 1,
		1, 2, 1, 4, ev, cpu);
	edges((const long long[8]){ 0, 1, 2, 3, 4, 5, 6, 7 });
	replied();
	path = fx_close();
	load(&l, path);
	L = entry(&l, 1);
	ck_assert_int_eq(L->calls, 1);
	ck_assert_int_eq(L->skipped, 3);
	ck_assert_int_eq(L->min, 3 * US);
	ck_assert_int_eq(L->max, 3 * US);
	unload(&l, path);
}
END_TEST

Suite *ccsg_latency_suite(void)
{
	Suite *s = suite_create("ccsg-latency");
	TCase *tc = tcase_create("latency");

	tcase_add_test(tc, test_inner);
	tcase_add_test(tc, test_nested);
	tcase_add_test(tc, test_gave_up);
	tcase_add_test(tc, test_bad);
	suite_add_tcase(s, tc);
	return s;
}
