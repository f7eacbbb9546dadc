/*
 * check-e2e-stream.c - end to end: `ccsg report` folds the trace chain by
 * chain (stream.h) and never holds the calls; its graph must be the one
 * the loaded trace gives, node by node, on real runs and on synthetic
 * traces with spawned threads: read in the merge's order (meta.calls_order:
 * call_id follows the chains), and sorted by SQLite when a database lacks
 * that order.  A database whose rows break the order it claims is one
 * error line.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ccsg-export-compare.h"
#include "ccsg-stream-compare.h"
#include "e2e-figure1.h"

/* The loaded graph of db (of resource, by object or not), then the
 * streamed one compared with it. */
static void assert_stream_equal(const char *db, int by_object, int resource)
{
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	struct idl_names nm;

	ck_assert_int_eq(ccsg_trace_load(&t, db), 0);
	ck_assert_int_eq(ccsg_dscg_build(&d, &t), 0);
	ck_assert_int_eq(ccsg_dims_hosts(&dims, &t), 0);
	ck_assert_int_eq(
		ccsg_graph_build_res(&g, &d, &dims, by_object, resource), 0);
	idl_names_init(&nm);
	ck_assert_int_eq(ccsg_graph_name(&g, &nm), 0);
	sc_compare(db, &g, NULL);
	if (!by_object && resource == CCSG_RES_CPU)
		xc_compare(db, &g);
	ccsg_graph_release(&g);
	ccsg_dims_release(&dims);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	idl_names_release(&nm);
}

static void assert_all_equal(const char *db)
{
	for (int by_object = 0; by_object < 2; by_object++)
		assert_stream_equal(db, by_object, CCSG_RES_CPU);
	assert_stream_equal(db, 0, CCSG_RES_ALLOC);
	assert_stream_equal(db, 0, CCSG_RES_FREED);
}

/* Rows whose call_id is not their rank in chain order: 0 after a merge. */
static long long out_of_chain_order(sqlite3 *db)
{
	return e2e_query_int(
		db,
		"SELECT count(*) FROM (SELECT call_id, row_number() OVER "
		"(ORDER BY chain, coalesce(stub_start_event, skel_start_event, "
		"skel_end_event, stub_end_event), call_id) AS r FROM "
		"rpc_calls) "
		"WHERE r != call_id");
}

static void run_ccsg(struct e2e *t, const char *db, const char *out,
		     const char *err, int code)
{
	char ccsg[PATH_MAX];
	const char *argv[] = {
		ccsg, "report", "--format=json", "--db", db, NULL
	};

	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	(void)t;
	e2e_assert_exit(e2e_run_plain(argv, out, err), code, "ccsg report");
}

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *text = e2e_slurp(from, &len);
	FILE *f = fopen(to, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
	free(text);
}

START_TEST(test_figure1_streamed)
{
	struct fig1_deploy d = fig1_four_hosts;
	struct e2e t;

	rpc_isolate();
	e2e_init(&t);
	fig1_run(&t, &d);
	if (!t.sql) /* the run's merge may have opened it */
		ck_assert_int_eq(sqlite3_open(t.db, &t.sql), SQLITE_OK);
	ck_assert_int_eq(out_of_chain_order(t.sql), 0);
	/* what_to_say's spawned threads, and four hosts */
	ck_assert_int_gt(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "ctx_function IS NOT NULL"),
			 0);
	assert_all_equal(t.db);
	e2e_release(&t);
}
END_TEST

START_TEST(test_synthetic_both_orders)
{
	char gen[PATH_MAX], td[PATH_MAX], sorted[PATH_MAX], out[2][PATH_MAX],
		err[PATH_MAX];
	struct e2e t;
	sqlite3 *db;
	char *a, *b;

	e2e_init(&t);
	e2e_fmt(gen, sizeof(gen), "%s/bench/gen-rpc-logs", e2e_build());
	e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
	{
		/* 20,000 calls in long chains (a client loop is one), a thread
		 * spawned in every 10th tree of calls */
		const char *gen_argv[] = { gen, t.logs, "20000", NULL };
		const char *merge_argv[] = { td, "merge", t.logs, NULL };

		ck_assert_int_eq(e2e_run_plain(gen_argv, NULL, NULL), 0);
		ck_assert_int_eq(e2e_run_plain(merge_argv, NULL, NULL), 0);
	}
	ck_assert_int_eq(sqlite3_open(t.db, &t.sql), SQLITE_OK);
	ck_assert_int_eq(out_of_chain_order(t.sql), 0);
	a = e2e_query_text(t.sql,
			   "SELECT value FROM meta WHERE key = 'calls_order'");
	ck_assert_str_eq(a, "chain");
	free(a);
	ck_assert_int_ge(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "ctx_function IS NOT NULL"),
			 400);
	assert_all_equal(t.db);

	/* without the order (an older merge): SQLite sorts, same graph */
	e2e_fmt(sorted, sizeof(sorted), "%s/unordered.db", t.dir);
	copy_file(t.db, sorted);
	ck_assert_int_eq(sqlite3_open(sorted, &db), SQLITE_OK);
	ck_assert_int_eq(
		sqlite3_exec(db,
			     "DELETE FROM meta WHERE key = 'calls_order';"
			     /* reverse the call ids: no help from the table's
				order */
			     "UPDATE rpc_calls SET call_id = -call_id;",
			     NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(db);
	assert_all_equal(sorted);
	e2e_fmt(out[0], sizeof(out[0]), "%s/ordered.json", t.dir);
	e2e_fmt(out[1], sizeof(out[1]), "%s/sorted.json", t.dir);
	run_ccsg(&t, t.db, out[0], NULL, 0);
	run_ccsg(&t, sorted, out[1], NULL, 0);
	a = e2e_slurp(out[0], NULL);
	b = e2e_slurp(out[1], NULL);
	/* the JSON names its database first: compare from the summary on */
	ck_assert_str_eq(strstr(a, "\"summary\""), strstr(b, "\"summary\""));
	free(a);
	free(b);

	/*
	 * monitoring switched while it ran: the 4th call of each of the 32
	 * client loops served without cpu, a cut in every chain, found the
	 * same by the loaded trace, the stream and the workers' shares (an
	 * SQLite share looks for the cuts of its own chains)
	 */
	{
		char cut[PATH_MAX];

		e2e_fmt(cut, sizeof(cut), "%s/cut.db", t.dir);
		copy_file(t.db, cut);
		ck_assert_int_eq(sqlite3_open(cut, &db), SQLITE_OK);
		ck_assert_int_eq(sqlite3_exec(db,
					      "UPDATE rpc_calls SET server_mon "
					      "= 'semantics|latency' WHERE "
					      "skel_start_event = 11",
					      NULL, NULL, NULL),
				 SQLITE_OK);
		ck_assert_int_eq(e2e_query_int(db, "SELECT count(DISTINCT "
						   "chain) FROM rpc_calls "
						   "WHERE skel_start_event = "
						   "11"),
				 32);
		sqlite3_close(db);
		assert_stream_equal(cut, 0, CCSG_RES_CPU);
		run_ccsg(&t, cut, out[0], NULL, 0);
		a = e2e_slurp(out[0], NULL);
		ck_assert_msg(strstr(a, "\"cut_chains\": [{\"chain\": "), "%s",
			      a);
		{
			size_t n = 0;

			for (const char *p = a; (p = strstr(p, "\"lost\": "));
			     p++)
				n++;
			ck_assert_uint_eq(n, 32);
		}
		free(a);
	}

	/* the order claimed but broken: one line, exit 1 */
	ck_assert_int_eq(sqlite3_open(sorted, &db), SQLITE_OK);
	ck_assert_int_eq(
		sqlite3_exec(db,
			     "INSERT INTO meta VALUES('calls_order', 'chain')",
			     NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(db);
	e2e_fmt(err, sizeof(err), "%s/broken.err", t.dir);
	run_ccsg(&t, sorted, out[1], err, 1);
	a = e2e_slurp(err, NULL);
	ck_assert_msg(strstr(a, "not in chain order") &&
			      strchr(a, '\n') == a + strlen(a) - 1,
		      "%s", a);
	free(a);
	e2e_release(&t);
}
END_TEST

Suite *e2e_stream_suite(void)
{
	Suite *s = suite_create("e2e-stream");
	TCase *tc = tcase_create("stream");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_figure1_streamed);
	tcase_add_test(tc, test_synthetic_both_orders);
	suite_add_tcase(s, tc);
	return s;
}
