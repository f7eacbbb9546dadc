/*
 * check-compact-trace.c - compaction of a trace's call trees: Figure 1 of
 * the CPU paper (main calls foo on host A; foo calls times on B,
 * what_to_say on C, which spawns two threads, and say_it three times on
 * D) as a DSCG and as a CCSG, by location (host > process > interface >
 * function) and by name (interface > version > function), through the
 * engine and through `ccsg compact --tree`.
 */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "ccsg.h"
#include "compact/compact.h"
#include "json-valid.h"
#include "names.h"
#include "tool-run.h"

struct loaded {
	struct ccsg_trace tr;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	struct idl_names nm;
	struct compact_tree t;
};

/* The trace's DSCG (tree 'd') or CCSG ('c') as a compaction tree. */
static void load(struct loaded *l, const char *path, int tree, int hierarchy)
{
	ck_assert_int_eq(ccsg_trace_load(&l->tr, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&l->d, &l->tr), 0);
	ck_assert_int_eq(ccsg_dims_hosts(&l->dims, &l->tr), 0);
	ck_assert_int_eq(
		ccsg_graph_build(&l->g, &l->d, &l->dims,
				 tree == 'c' &&
					 hierarchy == COMPACT_BY_LOCATION),
		0);
	idl_names_init(&l->nm);
	ck_assert_int_eq(ccsg_graph_name(&l->g, &l->nm), 0);
	ck_assert_int_eq(compact_tree_init(&l->t, "::"), 0);
	ck_assert_int_eq(
		tree == 'c'
			? compact_from_ccsg(&l->t, &l->g, &l->nm, hierarchy)
			: compact_from_dscg(&l->t, &l->g, &l->nm, hierarchy),
		0);
	ck_assert_int_eq(compact_tree_build(&l->t), 0);
}

static void unload(struct loaded *l)
{
	compact_tree_release(&l->t);
	ccsg_graph_release(&l->g);
	ccsg_dims_release(&l->dims);
	ccsg_dscg_release(&l->d);
	ccsg_trace_release(&l->tr);
	idl_names_release(&l->nm);
}

static char *print(struct compact_tree *t, int format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(compact_tree_print(f, t, format), 0);
	fclose(f);
	return buf;
}

static void assert_text(struct compact_tree *t, const char *want)
{
	char *got = print(t, COMPACT_TEXT);

	ck_assert_msg(!strcmp(got, want), "got:\n%s\nwanted:\n%s", got, want);
	free(got);
}

static void expand(struct compact_tree *t, const char *path)
{
	int32_t c = compact_tree_find(t, path);

	ck_assert_msg(c > 0, "%s", compact_tree_why(t));
	ck_assert_int_eq(compact_tree_expand(t, c), 0);
}

/* Which machines talk to which: the hosts, then one host opened. */
static const char by_host[] = "<main> [x20700]\n"
			      "  A [x20700]\n"
			      "    D [x7800]\n"
			      "    C [x7000]\n"
			      "    B [x2700]\n";

START_TEST(test_dscg_by_location)
{
	const char *path = fx_figure1();
	struct loaded l;
	char *json;
	struct jv v;
	const char *bad;

	load(&l, path, 'd', COMPACT_BY_LOCATION);
	assert_text(&l.t, "<main> [x20700]\n"
			  "  A::p2[1002]::0x20000001::foo [x20700]\n"
			  "    D::p5[1005]::0x20000001::say_it [x7800]\n"
			  "    C::p4[1004]::0x20000001::what_to_say [x7000]\n"
			  "      C::p4[1004]::<thread 2> [x2000]\n"
			  "      C::p4[1004]::<thread 3> [x2000]\n"
			  "    B::p3[1003]::0x20000001::times [x2700]\n");
	ck_assert_int_eq(compact_tree_level_max(&l.t, 1), 0);
	assert_text(&l.t, by_host);
	expand(&l.t, "<main>;A;D");
	expand(&l.t, "<main>;A;D::p5[1005]");
	assert_text(&l.t, "<main> [x20700]\n"
			  "  A [x20700]\n"
			  "    D::p5[1005]::0x20000001 [x7800]\n"
			  "    C [x7000]\n"
			  "    B [x2700]\n");
	/* the three calls of say_it, their CPU and their count */
	json = print(&l.t, COMPACT_JSON);
	ck_assert_msg(!(bad = json_invalid(json, &v)), "%s", bad);
	ck_assert_ptr_nonnull(strstr(
		json, "{\"name\": \"D::p5[1005]::0x20000001\", \"elements\": "
		      "[\"D\", \"p5[1005]\", \"0x20000001\"], \"self\": 7800, "
		      "\"total\": 7800, \"calls\": 3, \"nodes\": 3"));
	ck_assert_ptr_nonnull(strstr(
		json, "{\"name\": \"C\", \"elements\": [\"C\"], \"self\": "
		      "7000, \"total\": 7000, \"calls\": 1, \"nodes\": 3"));
	free(json);
	unload(&l);
	unlink(path);
}
END_TEST

START_TEST(test_dscg_by_name)
{
	const char *path = fx_figure1();
	struct loaded l;

	load(&l, path, 'd', COMPACT_BY_NAME);
	ck_assert_int_eq(compact_tree_level_max(&l.t, 1), 0);
	assert_text(&l.t, "<main> [x20700]\n"
			  "  0x20000001 [x20700]\n"
			  "    <thread> [x4000]\n");
	expand(&l.t, "<main>;0x20000001");
	expand(&l.t, "<main>;0x20000001::1");
	assert_text(&l.t, "<main> [x20700]\n"
			  "  0x20000001::1::foo [x20700]\n"
			  "    0x20000001::1::say_it [x7800]\n"
			  "    0x20000001::1::what_to_say [x7000]\n"
			  "      <thread> [x4000]\n"
			  "    0x20000001::1::times [x2700]\n");
	unload(&l);
	unlink(path);
}
END_TEST

START_TEST(test_ccsg_by_location)
{
	const char *path = fx_figure1();
	struct loaded l;

	load(&l, path, 'c', COMPACT_BY_LOCATION);
	ck_assert_int_eq(compact_tree_level_max(&l.t, 1), 0);
	assert_text(&l.t, by_host);
	/* at most 2 elements changes nothing then; at least 2 does */
	ck_assert_int_eq(compact_tree_level_max(&l.t, 2), 0);
	assert_text(&l.t, by_host);
	ck_assert_int_eq(compact_tree_level_min(&l.t, 2), 0);
	assert_text(&l.t, "<main> [x20700]\n"
			  "  A::p2[1002] [x20700]\n"
			  "    D::p5[1005] [x7800]\n"
			  "    C::p4[1004] [x7000]\n"
			  "    B::p3[1003] [x2700]\n");
	unload(&l);
	unlink(path);
}
END_TEST

START_TEST(test_command)
{
	const char *path;
	struct tool_out r;
	struct e2e t;

	e2e_init(&t);
	path = fx_figure1();
	r = tool_run((const char *[]){ tool_path("ccsg"), "compact",
				       "--tree=dscg", "--hierarchy=location",
				       "--db", path, "--level", "1", NULL });
	e2e_assert_exit(r.status, 0, "compact --tree=dscg");
	ck_assert_str_eq(r.out, by_host);
	ck_assert_str_eq(r.err, "");
	tool_out_release(&r);
	r = tool_run((const char *[]){
		tool_path("ccsg"), "compact", "--tree=ccsg",
		"--hierarchy=location", "--db", path, "--level", "1",
		"--action", "expand <main>;A;C", "--sep", "/", NULL });
	e2e_assert_exit(r.status, 0, "compact --tree=ccsg");
	ck_assert_str_eq(r.out, "<main> [x20700]\n"
				"  A [x20700]\n"
				"    D [x7800]\n"
				"    C/p4[1004] [x7000]\n"
				"    B [x2700]\n");
	tool_out_release(&r);
	r = tool_run((const char *[]){ tool_path("ccsg"), "compact",
				       "--tree=ccsg", "--db", path,
				       "--format=folded", NULL });
	e2e_assert_exit(r.status, 0, "compact --tree=ccsg --format=folded");
	ck_assert_str_eq(
		r.out,
		"<main>;0x20000001::1::foo 3200\n"
		"<main>;0x20000001::1::foo;0x20000001::1::say_it 7800\n"
		"<main>;0x20000001::1::foo;0x20000001::1::what_to_say 3000\n"
		"<main>;0x20000001::1::foo;0x20000001::1::what_to_say;"
		"<threads of 0x20000001::what_to_say> 4000\n"
		"<main>;0x20000001::1::foo;0x20000001::1::times 2700\n");
	tool_out_release(&r);
	r = tool_run((const char *[]){ tool_path("ccsg"), "compact",
				       "--tree=dscg", "--db", "missing.db",
				       NULL });
	e2e_assert_exit(r.status, 1, "compact --db missing.db");
	ck_assert_ptr_nonnull(strstr(r.err, "ccsg: error: "));
	tool_out_release(&r);
	unlink(path);
	e2e_release(&t);
}
END_TEST

Suite *compact_trace_suite(void)
{
	Suite *s = suite_create("compact_trace");
	TCase *tc = tcase_create("compact_trace");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_dscg_by_location);
	tcase_add_test(tc, test_dscg_by_name);
	tcase_add_test(tc, test_ccsg_by_location);
	tcase_add_test(tc, test_command);
	suite_add_tcase(s, tc);
	return s;
}
