/*
 * check-ccsg-align.c - the exports' clock alignment (export/align.c) on
 * small made traces whose hosts share one clock (every true offset 0):
 *
 *   gave_up   calls the client gave up on while the server went on
 *             (RPC_TIMEDOUT, 125 ms), a failed send, a server killed
 *             mid-call (no skeleton end): they constrain nothing; every
 *             offset within its bound of 0 and the bound under 50 us, no
 *             call clamped, each host's calls used and set aside in the
 *             chrome export's metadata (issue 34, item 4)
 *   outlier   a replied call whose interval cannot hold the offset the
 *             others agree on: set aside as an outlier, the offsets still
 *             right, that one call moved inside its stub
 *   cycle     three hosts whose pairs' segments a spanning tree cannot
 *             all meet: the offsets solve every pair at once, none clamped
 */
#include <stdlib.h>

#include "ccsg-fixture.h"
#include "export/export.h"
#include "json-read.h"

struct loaded {
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	struct idl_names nm;
	struct export_ctx x;
	struct export_source src;
};

static void load(struct loaded *l, const char *path)
{
	idl_names_init(&l->nm);
	ck_assert_int_eq(ccsg_trace_load(&l->t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&l->d, &l->t), 0);
	ck_assert_int_eq(ccsg_dims_hosts(&l->dims, &l->t), 0);
	ck_assert_int_eq(ccsg_graph_build(&l->g, &l->d, &l->dims, 0), 0);
	ck_assert_int_eq(ccsg_graph_name(&l->g, &l->nm), 0);
	ck_assert_int_eq(export_ctx_init(&l->x, &l->t, &l->g, &l->nm), 0);
	export_source_loaded(&l->src, &l->g);
	ck_assert_int_eq(export_align(&l->x, &l->src, NULL, NULL), 0);
	ck_assert_int_eq(export_bounds(&l->x, &l->src), 0);
}

static void unload(struct loaded *l, const char *path)
{
	export_ctx_release(&l->x);
	ccsg_graph_release(&l->g);
	ccsg_dims_release(&l->dims);
	ccsg_dscg_release(&l->d);
	ccsg_trace_release(&l->t);
	idl_names_release(&l->nm);
	unlink(path);
}

static int host_index(const struct ccsg_trace *t, const char *name)
{
	for (size_t h = 0; h < t->nhosts; h++)
		if (!strcmp(t->hosts[h], name))
			return (int)h;
	ck_abort_msg("no host %s", name);
	return -1;
}

/* Hosts A, B, C, D, each a process (1 to 4) with a thread. */
static void four_hosts(void)
{
	fx_open();
	for (int h = 1; h <= 4; h++) {
		char name[2] = { (char)('A' + h - 1), 0 };

		fx_host(h, name);
		fx_proc(h, h);
		fx_thread(h, 1, 0, 100, -1);
	}
}

enum outcome { REPLIED, GAVE_UP, FAILED, KILLED };

/*
 * A call of its own chain from process cp to process sp at time at (us,
 * one clock): the stub start probe from at to at + 2, the skeleton's
 * from at + before to at + before + 1, its end from at + before + run to
 * + 1 (none when the server was killed), the stub end's from there +
 * after to + 2.  Its interval of B's offset from A: [2 - before, after
 * - 1].
 */
static void call(int cp, int sp, long long at, long long before, long long run,
		 long long after, enum outcome how)
{
	static int chain;
	static const long long cpu[4] = { NUL, NUL, NUL, NUL };
	static const char *const status[] = {
		[REPLIED] = "status = 0, status_name = 'RPC_SUCCESS', reply = "
			    "'success', reply_tag = 'ok'",
		/* the stub end skips the server's events */
		[GAVE_UP] = "status = 5, status_name = 'RPC_TIMEDOUT', reply = "
			    "'success', reply_tag = 'absent', stub_end_event = "
			    "1000",
		[FAILED] =
			"status = 4, status_name = 'RPC_CANTRECV', reply_tag = "
			"'absent'",
		[KILLED] =
			"status = 4, status_name = 'RPC_CANTRECV', reply_tag = "
			"'absent', reply = NULL, skel_end_ns = NULL, "
			"skel_end_exit_ns = NULL",
	};
	long long s1 = at + before + run, c1 = s1 + after;
	char id[41], sql[1024];

	snprintf(id, sizeof(id), "%040x", 0xa1000 + ++chain);
	fx_call(id, 7, 1, "one_1", cp, 1, sp, 1, chain,
		(const long long[4]){ 0, 1, how == KILLED ? NUL : 2, 3 }, cpu);
	snprintf(sql, sizeof(sql),
		 "stub_start_ns = %lld, stub_start_exit_ns = %lld, "
		 "skel_start_ns = %lld, skel_start_exit_ns = %lld, "
		 "skel_end_ns = %lld, skel_end_exit_ns = %lld, "
		 "stub_end_ns = %lld, stub_end_exit_ns = %lld",
		 at * US, (at + 2) * US, (at + before) * US,
		 (at + before + 1) * US, s1 * US, (s1 + 1) * US, c1 * US,
		 (c1 + 2) * US);
	fx_set(sql);
	fx_set(status[how]);
}

/* |offset| within its bound and within 50 us, every host. */
static void assert_near_zero(const struct export_ctx *x)
{
	for (size_t h = 0; h < x->t->nhosts; h++) {
		const struct export_host *e = &x->hosts[h];

		ck_assert_msg(llabs((long long)e->offset_ns) <= e->error_ns &&
				      e->error_ns <= 50 * US,
			      "host %s: offset %lld ns, bound %lld ns",
			      x->t->hosts[h], (long long)e->offset_ns,
			      (long long)e->error_ns);
	}
}

START_TEST(test_gave_up)
{
	struct loaded l;
	const char *path;
	int a, b, c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct jval *doc;
	const struct jval *hosts;

	four_hosts();
	/* A -> B, A -> C, B -> C: replied calls, 30-60 us each way */
	for (int i = 0; i < 10; i++) {
		call(1, 2, 1000 * i, 30 + i, 200, 40 + 2 * i, REPLIED);
		call(1, 3, 1000 * i + 300, 45, 100, 30 + i, REPLIED);
		call(2, 3, 1000 * i + 600, 35 + i, 50, 35, REPLIED);
	}
	/* A gave up on B after 1 ms; B went on for 125 ms */
	call(1, 2, 20000, 30, 125000, -124000, GAVE_UP);
	call(1, 3, 20100, 30, 99000, -98500, GAVE_UP);
	/* B's call to C never got an answer: C was killed mid-call */
	call(2, 3, 30000, 30, 0, 500, KILLED);
	/* a call that failed, its times alike the replied ones' */
	call(1, 2, 40000, 30, 10, 40, FAILED);
	path = fx_close();
	load(&l, path);
	a = host_index(&l.t, "A");
	b = host_index(&l.t, "B");
	c = host_index(&l.t, "C");
	assert_near_zero(&l.x);
	ck_assert_int_eq(l.x.clamped, 0);
	ck_assert_int_eq(l.x.hosts[a].calls_used, 20);
	ck_assert_int_eq(l.x.hosts[a].calls_set_aside, 3);
	ck_assert_int_eq(l.x.hosts[b].calls_used, 20);
	ck_assert_int_eq(l.x.hosts[b].calls_set_aside, 3);
	ck_assert_int_eq(l.x.hosts[c].calls_used, 20);
	ck_assert_int_eq(l.x.hosts[c].calls_set_aside, 2);
	for (int h = 0; h < 3; h++) {
		ck_assert_int_eq(l.x.hosts[h].outliers, 0);
		ck_assert(!l.x.hosts[h].inconsistent);
	}

	f = open_memstream(&buf, &len);
	ck_assert_int_eq(export_chrome(f, &l.x, &l.src), 0);
	fclose(f);
	doc = json_parse(buf, "chrome");
	hosts = json_need(json_need(doc, "metadata", J_OBJ, "chrome"), "hosts",
			  J_ARR, "metadata");
	for (int i = 0; i < hosts->n; i++) {
		const struct jval *e = &hosts->item[i];
		const char *name = json_need(e, "host", J_STR, "host")->str;
		int h = host_index(&l.t, name);

		ck_assert(json_need(e, "offset_ns", J_NUM, "host")->num ==
			  (double)l.x.hosts[h].offset_ns);
		ck_assert(json_need(e, "error_ns", J_NUM, "host")->num ==
			  (double)l.x.hosts[h].error_ns);
		ck_assert(json_need(e, "calls_used", J_NUM, "host")->num ==
			  (double)l.x.hosts[h].calls_used);
		ck_assert(json_need(e, "calls_set_aside", J_NUM, "host")->num ==
			  (double)l.x.hosts[h].calls_set_aside);
		ck_assert(json_need(e, "outliers", J_NUM, "host")->num == 0);
	}
	ck_assert(json_need(json_need(doc, "metadata", J_OBJ, "chrome"),
			    "clamped_calls", J_NUM, "metadata")
			  ->num == 0);
	json_free(doc);
	free(buf);
	unload(&l, path);
}
END_TEST

START_TEST(test_outlier)
{
	struct loaded l;
	const char *path;
	int a, b;

	four_hosts();
	for (int i = 0; i < 5; i++)
		call(1, 2, 1000 * i, 30, 200, 40, REPLIED);
	/* replied, yet its skeleton sits 5 ms late (a retransmitted
	 * request served twice, say): its interval holds no offset near 0 */
	call(1, 2, 10000, 5000, 100, -4900, REPLIED);
	path = fx_close();
	load(&l, path);
	a = host_index(&l.t, "A");
	b = host_index(&l.t, "B");
	assert_near_zero(&l.x);
	ck_assert_int_eq(l.x.hosts[b].calls_used, 5);
	ck_assert_int_eq(l.x.hosts[b].outliers, 1);
	ck_assert_int_eq(l.x.hosts[a].calls_set_aside, 1);
	ck_assert(l.x.hosts[a].inconsistent && l.x.hosts[b].inconsistent);
	ck_assert_int_eq(l.x.clamped, 1);
	unload(&l, path);
}
END_TEST

/*
 * True offsets A 0, B -8 us, C +13 us.  The pairs' segments: B - A in
 * [-10, 10], C - A in [-40, 15], C - B in [20, 24].  A tree of the
 * pairs, least error first, sets B at 0 (A's pair) and C 22 us from B
 * (B's), which A's calls to C cannot hold; the constraints solved at
 * once hold them all.
 */
START_TEST(test_cycle)
{
	struct loaded l;
	const char *path;
	int h[3];
	int64_t ba, ca, cb;

	four_hosts();
	/* before = 2 + (its lower margin) - d, after = 1 + (upper) + d */
	for (int i = 0; i < 4; i++) {
		call(1, 2, 1000 * (i + 1), 4 + 8, 100, 19 - 8, REPLIED);
		call(1, 3, 1000 * (i + 1) + 300, 55 - 13, 100, 3 + 13, REPLIED);
		call(2, 3, 1000 * (i + 1) + 600, 3 - 21, 10, 4 + 21, REPLIED);
	}
	path = fx_close();
	load(&l, path);
	h[0] = host_index(&l.t, "A");
	h[1] = host_index(&l.t, "B");
	h[2] = host_index(&l.t, "C");
	ba = l.x.hosts[h[1]].offset_ns - l.x.hosts[h[0]].offset_ns;
	ca = l.x.hosts[h[2]].offset_ns - l.x.hosts[h[0]].offset_ns;
	cb = l.x.hosts[h[2]].offset_ns - l.x.hosts[h[1]].offset_ns;
	ck_assert_msg(ba >= -10 * US && ba <= 10 * US && ca >= -40 * US &&
			      ca <= 15 * US && cb >= 20 * US && cb <= 24 * US,
		      "B - A %lld, C - A %lld, C - B %lld ns", (long long)ba,
		      (long long)ca, (long long)cb);
	ck_assert_int_eq(l.x.clamped, 0);
	for (int i = 0; i < 3; i++)
		ck_assert(!l.x.hosts[h[i]].inconsistent);
	unload(&l, path);
}
END_TEST

Suite *ccsg_align_suite(void)
{
	Suite *s = suite_create("ccsg-align");
	TCase *tc = tcase_create("align");

	tcase_add_test(tc, test_gave_up);
	tcase_add_test(tc, test_outlier);
	tcase_add_test(tc, test_cycle);
	suite_add_tcase(s, tc);
	return s;
}
