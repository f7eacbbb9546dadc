/*
 * check-ccsg-memory.c - the memory summarization graph (`ccsg report
 * --resource=memory`) on small traces: Equations 1 to 4 of the CPU paper
 * with heap bytes, figures that are absent (memory accounting off) and a
 * database merged before the heap columns existed.
 *
 * The trace: main (client, proc 1 on host A) calls P on proc 2 (host B),
 * whose implementation calls C on proc 3 (host A).  Heap bytes allocated
 * / freed: P's stub 100 / 50, P's skeleton 1000 / 400, C's stub (in P's
 * skeleton) 70 / 30, C's skeleton 500 / 200.  Threads: the client's main
 * 2000 / 100, P's server 5000 / 1500, C's server unknown.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "ccsg-stream-compare.h"
#include "ccsg.h"
#include "json-valid.h"
#include "names.h"
#include "output.h"

#define CHAIN "00000000000000000000000000000000000000bb"

static const char *trace(int skel_c_known)
{
	/* events: P 0 1 .. 6 7 around C 2 3 4 5; CPU (us): P's skeleton 90,
	 * C's stub 30 */
	static const long long ep[4] = { 0, 1, 6, 7 }, ec[4] = { 2, 3, 4, 5 };
	static const long long cp[4] = { 0, 10, 100, 110 },
			       cc[4] = { 20, 30, 40, 50 };
	char sql[256];

	fx_open();
	fx_host(1, "A");
	fx_host(2, "B");
	fx_proc(1, 1);
	fx_proc(2, 2);
	fx_proc(3, 1);
	fx_thread(1, 1, 0, 100, NUL);
	fx_thread(2, 1, 0, 100, NUL);
	fx_thread(3, 1, 0, 100, NUL);
	fx_exec("UPDATE threads SET alloc_bytes = 2000, freed_bytes = 100 "
		"WHERE proc_id = 1");
	fx_exec("UPDATE threads SET alloc_bytes = 5000, freed_bytes = 1500 "
		"WHERE proc_id = 2");
	fx_exec("UPDATE processes SET peak_heap_bytes = 123456 WHERE proc_id = "
		"2");
	fx_call(CHAIN, 0x20000003, 1, "p_1", 1, 1, 2, 1, 11, ep, cp);
	fx_set("stub_alloc_bytes = 100, stub_freed_bytes = 50,"
	       " skel_alloc_bytes = 1000, skel_freed_bytes = 400");
	/* C: its stub in P's server thread */
	fx_call(CHAIN, 0x20000003, 2, "c_1", 2, 1, 3, 1, 21, ec, cc);
	snprintf(sql, sizeof(sql),
		 "stub_alloc_bytes = 70, stub_freed_bytes = 30, "
		 "skel_alloc_bytes = %s,"
		 " skel_freed_bytes = %s",
		 skel_c_known ? "500" : "NULL", skel_c_known ? "200" : "NULL");
	fx_set(sql);
	return fx_close();
}

struct loaded {
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph a, f;
	struct idl_names nm;
};

static void load(struct loaded *l, const char *path)
{
	ck_assert_int_eq(ccsg_trace_load(&l->t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&l->d, &l->t), 0);
	ck_assert_int_eq(ccsg_dims_hosts(&l->dims, &l->t), 0);
	ck_assert_int_eq(
		ccsg_graph_build_res(&l->a, &l->d, &l->dims, 0, CCSG_RES_ALLOC),
		0);
	ck_assert_int_eq(
		ccsg_graph_build_res(&l->f, &l->d, &l->dims, 0, CCSG_RES_FREED),
		0);
	idl_names_init(&l->nm);
	ck_assert_int_eq(ccsg_graph_name(&l->a, &l->nm), 0);
	ck_assert_int_eq(ccsg_graph_name(&l->f, &l->nm), 0);
	/* `ccsg report --resource=memory` streams: the same graphs */
	sc_compare(path, &l->a, NULL);
	sc_compare(path, &l->f, NULL);
}

static void unload(struct loaded *l, const char *path)
{
	ccsg_graph_release(&l->a);
	ccsg_graph_release(&l->f);
	ccsg_dims_release(&l->dims);
	ccsg_dscg_release(&l->d);
	ccsg_trace_release(&l->t);
	idl_names_release(&l->nm);
	unlink(path);
}

/* The function node of procedure proc. */
static int fn(const struct ccsg_graph *g, unsigned proc)
{
	for (size_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].kind == CCSG_FUNCTION &&
		    g->nodes[i].proc == proc)
			return (int)i;
	ck_abort_msg("no function node of procedure %u", proc);
	return -1;
}

static void assert_vec2(const int64_t *v, long long a, long long b,
			const char *what)
{
	ck_assert_msg(v[0] == a && v[1] == b,
		      "%s: [%lld, %lld], want [%lld, %lld]", what,
		      (long long)v[0], (long long)v[1], a, b);
}

/* Equations 1-4 with bytes, allocated and freed, per host (A, B). */
START_TEST(test_equations_with_bytes)
{
	const char *path = trace(1);
	struct loaded l;
	int p, c;

	load(&l, path);
	ck_assert(l.t.has_heap);
	p = fn(&l.a, 1);
	c = fn(&l.a, 2);
	/* Equation 1: P's skeleton less C's stub, on B */
	assert_vec2(l.a.nodes[p].self, 0, 1000 - 70, "P self alloc");
	assert_vec2(l.f.nodes[p].self, 0, 400 - 30, "P self freed");
	/* Equation 3: C under P, on A */
	assert_vec2(l.a.nodes[p].desc, 500, 0, "P desc alloc");
	assert_vec2(l.f.nodes[p].desc, 200, 0, "P desc freed");
	assert_vec2(l.a.nodes[c].self, 500, 0, "C self alloc");
	assert_vec2(l.a.nodes[c].desc, 0, 0, "C desc alloc");
	/* Equation 2: the client's main less the stub of the chain it
	 * started; P's server less the skeleton it ran; C's server unknown */
	ck_assert_int_eq(l.a.thread_self[0], 2000 - 100);
	ck_assert_int_eq(l.f.thread_self[0], 100 - 50);
	ck_assert_int_eq(l.a.thread_self[1], 5000 - 1000);
	ck_assert_int_eq(l.f.thread_self[1], 1500 - 400);
	ck_assert_int_eq(l.a.thread_self[2], 0);
	ck_assert_int_eq(l.a.unmeasured_threads, 1);
	ck_assert_int_eq(l.a.unmeasured_calls, 0);
	/* Equation 4 up to main: the whole system's */
	assert_vec2(l.a.total, 2000 - 100 + 500, 930 + 4000, "total alloc");
	/* the CPU graph of the same trace is untouched by all this */
	{
		struct ccsg_graph cpu;

		ck_assert_int_eq(ccsg_graph_build(&cpu, &l.d, &l.dims, 0), 0);
		ck_assert_int_eq(cpu.resource, CCSG_RES_CPU);
		assert_vec2(cpu.nodes[fn(&cpu, 1)].self, 0, 90 * US - 30 * US,
			    "P self cpu");
		ccsg_graph_release(&cpu);
	}
	ck_assert_int_eq(l.t.procs[2].peak_heap, 123456);
	ck_assert_int_eq(l.t.procs[1].peak_heap, CCSG_NONE);
	unload(&l, path);
}
END_TEST

/* C's skeleton without heap figures: 0, counted, and P unchanged. */
START_TEST(test_absent_figures)
{
	const char *path = trace(0);
	struct loaded l;
	int p, c;

	load(&l, path);
	p = fn(&l.a, 1);
	c = fn(&l.a, 2);
	assert_vec2(l.a.nodes[p].self, 0, 930, "P self alloc");
	assert_vec2(l.a.nodes[c].self, 0, 0, "C self alloc");
	assert_vec2(l.a.nodes[p].desc, 0, 0, "P desc alloc");
	ck_assert_int_eq(l.a.unmeasured_calls, 1);
	unload(&l, path);
}
END_TEST

/* Every format; JSON valid, with the contract's names and the peaks. */
START_TEST(test_formats)
{
	static const char *const want[] = { "self_alloc_bytes=\"0 930\"",
					    "\"self_alloc_bytes\": [0, 930]",
					    "alloc self 930 B", "930" };
	static const int formats[] = { CCSG_XML, CCSG_JSON, CCSG_DOT,
				       CCSG_TEXT };
	const char *path = trace(1);
	struct loaded l;

	load(&l, path);
	for (int i = 0; i < 4; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		ck_assert_int_eq(ccsg_memory_print(f, &l.a, &l.f, formats[i]),
				 0);
		fclose(f);
		ck_assert_msg(strstr(buf, want[i]),
			      "format %d: no '%s' in:\n%s", formats[i], want[i],
			      buf);
		if (formats[i] == CCSG_JSON) {
			struct jv v;
			const char *bad = json_invalid(buf, &v);

			ck_assert_msg(!bad, "invalid JSON (%s):\n%s", bad, buf);
			ck_assert_ptr_nonnull(
				strstr(buf, "\"desc_freed_bytes\": [200, 0]"));
			ck_assert_ptr_nonnull(
				strstr(buf, "\"self_freed_bytes\": [0, 370]"));
			ck_assert_ptr_nonnull(
				strstr(buf, "\"host\": \"B\", \"pid\": 1002,"
					    " \"exe\": \"/bin/p2\","
					    " \"peak_heap_bytes\": 123456}"));
			ck_assert_ptr_nonnull(strstr(
				buf, "\"pid\": 1001, \"exe\": \"/bin/p1\","
				     " \"peak_heap_bytes\": null}"));
			ck_assert_ptr_nonnull(
				strstr(buf, "\"resource\": \"memory\""));
		}
		free(buf);
	}
	unload(&l, path);
}
END_TEST

/* A database of version 3, before the heap columns: read, all absent. */
START_TEST(test_database_without_heap_columns)
{
	const char *path = trace(1);
	struct loaded l;
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db,
				      "UPDATE meta SET value = '3' WHERE key = "
				      "'schema_version'",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	load(&l, path);
	ck_assert(!l.t.has_heap);
	assert_vec2(l.a.nodes[fn(&l.a, 1)].self, 0, 0, "P self alloc");
	ck_assert_int_eq(l.a.unmeasured_calls, 2);
	ck_assert_int_eq(l.a.unmeasured_threads, 3);
	ck_assert_int_eq(l.t.procs[2].peak_heap, CCSG_NONE);
	unload(&l, path);
}
END_TEST

Suite *ccsg_memory_suite(void)
{
	Suite *s = suite_create("ccsg-memory");
	TCase *tc = tcase_create("memory");

	tcase_add_test(tc, test_equations_with_bytes);
	tcase_add_test(tc, test_absent_figures);
	tcase_add_test(tc, test_formats);
	tcase_add_test(tc, test_database_without_heap_columns);
	suite_add_tcase(s, tc);
	return s;
}
