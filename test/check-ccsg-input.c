/*
 * check-ccsg-input.c - ccsg on databases that are not what tracedump
 * writes: a schema version it does not know, and values of the wrong
 * type or out of range in the columns it reads.  Each is one error line
 * naming the database and what is wrong (table, row and column), and
 * `ccsg` exits with status 1; nothing is loaded half-way.  A database of
 * schema version 2 (chain ids as hex text) is read as it was written.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "e2e.h"
#include "trace.h"

#define CH "00000000000000000000000000000000000000d1"

/* ccsg_trace_load() of path with stderr captured into msg. */
static int load_err(const char *path, char *msg, size_t len)
{
	char tmpl[PATH_MAX];
	int fd = mkstemp(test_tmp_name(tmpl, sizeof(tmpl), "ccsg-err-XXXXXX"));
	int saved = dup(2), rc;
	struct ccsg_trace t;
	ssize_t n;

	ck_assert(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	rc = ccsg_trace_load(&t, path);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, msg, len - 1, 0);
	msg[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(tmpl);
	if (!rc)
		ccsg_trace_release(&t);
	return rc;
}

/* One error line: "PROG: error: 'PATH'..." and nothing else. */
static void assert_one_error(const char *msg, const char *path)
{
	char quoted[128];

	snprintf(quoted, sizeof(quoted), "'%s'", path);
	ck_assert_msg(strstr(msg, ": error: ") && strstr(msg, quoted),
		      "no error naming %s: '%s'", quoted, msg);
	ck_assert_msg(strchr(msg, '\n') == msg + strlen(msg) - 1, "not one line: '%s'", msg);
}

/*
 * A small valid trace: host A, a client and a server process, their main
 * threads, one whole call with every column tracedump fills.  Left open
 * (in its transaction) so that a test can spoil it before fx_close().
 */
static void base_db(void)
{
	long long ev[4] = { 0, 1, 2, 3 }, cpu[4] = { 0, 100, 300, 50 };

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_thread(1, 1, 0, 500, -1);
	fx_thread(2, 1, 0, 700, -1);
	fx_exec("INSERT INTO rpc_sites VALUES(1, 1, 'f_1', '/bin/p1')");
	fx_exec("INSERT INTO rpc_objects VALUES(2, 1, 7, 1, 'tcp', '127.0.0.1:700', 'tcp')");
	fx_call(CH, 7, 1, "f_1", 1, 1, 2, 1, 1, ev, cpu);
	fx_set("status = 0, status_name = 'RPC_SUCCESS', args_bytes = 8, results_bytes = 4, "
	       "reply_tag = 'ok', tag = 'ok', reply = 'success', server_args_bytes = 8, "
	       "server_results_bytes = 4, one_way = 0, transport = 'tcp'");
}

/*
 * The loader reads rpc_calls in call_id order and sorts it itself: the
 * calls come out as SQL's ORDER BY chain, coalesce(stub_start_event,
 * skel_start_event, skel_end_event, stub_end_event), call_id would give
 * them (NULL first), each chain a run, whatever order the rows have.
 */
START_TEST(test_call_order)
{
	/* chain ids whose byte order is not their insertion order */
	static const char *const chains[] = {
		"ff00000000000000000000000000000000000001",
		"0000000000000000000000000000000000000002",
		"8000000000000000000000000000000000000003",
	};
	static const long long evs[][4] = {
		{ 5, 6, 7, 8 },	      { 1, 2, 3, 4 },
		{ NUL, 3, 4, NUL },   { NUL, NUL, 9, NUL },
		{ NUL, NUL, NUL, 2 }, { NUL, NUL, NUL, NUL },
		{ 1, 2, 3, 4 },
	};
	long long cpu[4] = { 0, 1, 2, 3 };
	struct ccsg_trace t;
	char want[512] = "", got[512] = "";
	const char *path;
	sqlite3_stmt *st;
	int k = 0;

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_thread(1, 1, 0, 500, -1);
	fx_thread(2, 1, 0, 700, -1);
	for (int i = 0; i < 21; i++) {
		const long long *ev = evs[(i * 5) % 7];
		int client = ev[0] != NUL || ev[3] != NUL;

		fx_call(chains[(i * 2) % 3], 7, 1, "f", client, client, 2, 1, 1,
			ev, cpu);
	}
	ck_assert_int_eq(
		sqlite3_prepare_v2(
			fx_db,
			"SELECT call_id, chain FROM rpc_calls ORDER BY chain,"
			" coalesce(stub_start_event, skel_start_event, "
			"skel_end_event,"
			" stub_end_event), call_id",
			-1, &st, NULL),
		SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		k += snprintf(
			want + k, sizeof(want) - (size_t)k, "%lld/%02x ",
			(long long)sqlite3_column_int64(st, 0),
			((const unsigned char *)sqlite3_column_blob(st, 1))[0]);
	sqlite3_finalize(st);
	path = fx_close();
	ck_assert_int_eq(ccsg_trace_load(&t, path), 0);
	k = 0;
	for (size_t i = 0; i < t.ncalls; i++) {
		const struct ccsg_chain *ch = &t.chains[t.calls[i].chain];

		ck_assert(ch->first <= (int32_t)i &&
			  (int32_t)i < ch->first + ch->n);
		k += snprintf(got + k, sizeof(got) - (size_t)k, "%lld/%02x ",
			      (long long)t.calls[i].call_id, ch->id[0]);
	}
	ck_assert_uint_eq(t.nchains, 3);
	ck_assert_str_eq(got, want);
	ccsg_trace_release(&t);
	unlink(path);
}
END_TEST

START_TEST(test_valid_base)
{
	char msg[512];
	const char *path;

	base_db();
	path = fx_close();
	ck_assert_msg(load_err(path, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert_str_eq(msg, "");
	unlink(path);
}
END_TEST

START_TEST(test_schema_version)
{
	static const struct {
		const char *value, *says;
	} cases[] = {
		{ "100", "schema version 100" }, /* newer than ccsg knows */
		{ "99", "schema version 99" },
		{ "1", "schema version 1" }, /* older, without rpc tables */
		{ "2x", "'2x'" },	     /* not a number */
		{ "", "''" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char sql[128], msg[512];
		const char *path;

		base_db();
		snprintf(sql, sizeof(sql), "UPDATE meta SET value = '%s' "
			 "WHERE key = 'schema_version'", cases[i].value);
		fx_exec(sql);
		path = fx_close();
		ck_assert_msg(load_err(path, msg, sizeof(msg)) < 0, "version '%s' accepted",
			      cases[i].value);
		assert_one_error(msg, path);
		ck_assert_msg(strstr(msg, cases[i].says), "version '%s': '%s'", cases[i].value,
			      msg);
		unlink(path);
	}
}
END_TEST

/* A bad value: the spoiling SQL, and what the message must name. */
static const struct bad {
	const char *sql, *table, *row, *column;
} bad[] = {
	/* text, blob and real where an integer is expected */
	{ "UPDATE rpc_calls SET stub_start_ns = 'abc'", "rpc_calls",
	  "call_id 1", "stub_start_ns" },
	{ "UPDATE rpc_calls SET skel_end_cpu_ns = x'0102'", "rpc_calls",
	  "call_id 1", "skel_end_cpu_ns" },
	{ "UPDATE rpc_calls SET prog = 1.5", "rpc_calls", "call_id 1", "prog" },
	{ "UPDATE rpc_calls SET stub_end_event = '3 events'", "rpc_calls",
	  "call_id 1", "stub_end_event" },
	{ "UPDATE rpc_calls SET status = 'bad'", "rpc_calls", "call_id 1",
	  "status" },
	/* negative counts, values out of range */
	{ "UPDATE rpc_calls SET args_bytes = -5", "rpc_calls", "call_id 1",
	  "args_bytes" },
	{ "UPDATE rpc_calls SET server_results_bytes = -1", "rpc_calls",
	  "call_id 1", "server_results_bytes" },
	{ "UPDATE rpc_calls SET skel_start_event = -3", "rpc_calls",
	  "call_id 1", "skel_start_event" },
	{ "UPDATE rpc_calls SET client_tid = 99999999999", "rpc_calls",
	  "call_id 1", "client_tid" },
	{ "UPDATE rpc_calls SET vers = 4294967296", "rpc_calls", "call_id 1",
	  "vers" },
	{ "UPDATE rpc_calls SET one_way = 7", "rpc_calls", "call_id 1",
	  "one_way" },
	{ "UPDATE rpc_calls SET stub_end_cpu_ns = -100", "rpc_calls",
	  "call_id 1", "stub_end_cpu_ns" },
	/* enum strings ccsg does not know, text of the wrong shape */
	{ "UPDATE rpc_calls SET missing = 'nobody'", "rpc_calls", "call_id 1",
	  "missing" },
	{ "UPDATE rpc_calls SET reply = 'maybe'", "rpc_calls", "call_id 1",
	  "reply" },
	{ "UPDATE rpc_calls SET chain = 'xyz'", "rpc_calls", "call_id 1",
	  "chain" },
	{ "UPDATE rpc_calls SET tag = x'6f6b'", "rpc_calls", "call_id 1",
	  "tag" },
	{ "UPDATE rpc_calls SET site_symbol = x'00'", "rpc_calls", "call_id 1",
	  "site_symbol" },
	/* a start probe without the program it gives */
	{ "UPDATE rpc_calls SET proc = NULL", "rpc_calls", "call_id 1",
	  "proc" },
	/* the other tables ccsg reads */
	{ "UPDATE threads SET cpu_ns = 'lots' WHERE tid = 1 AND proc_id = 2",
	  "threads", "proc_id 2, tid 1", "cpu_ns" },
	{ "UPDATE threads SET marker = 'grey' WHERE proc_id = 1", "threads",
	  "proc_id 1, tid 1", "marker" },
	{ "UPDATE threads SET ctx_function = -2 WHERE proc_id = 1", "threads",
	  "proc_id 1, tid 1", "ctx_function" },
	{ "UPDATE threads SET parent_tid = 'x' WHERE proc_id = 1", "threads",
	  "proc_id 1, tid 1", "parent_tid" },
	/* ccsg impact's joined threads */
	{ "UPDATE threads SET end_mono_ns = 'late' WHERE proc_id = 1",
	  "threads", "proc_id 1, tid 1", "end_mono_ns" },
	{ "UPDATE processes SET pid = 'x' WHERE proc_id = 2", "processes",
	  "proc_id 2", "pid" },
	/* an id ccsg would index a dense array with: not gigabytes */
	{ "UPDATE processes SET proc_id = 100000000 WHERE proc_id = 2",
	  "processes", "#2", "proc_id" },
	{ "UPDATE hosts SET host_id = 2000000000", "hosts", "#1", "host_id" },
	{ "UPDATE processes SET host_id = -1 WHERE proc_id = 2", "processes",
	  "proc_id 2", "host_id" },
	{ "UPDATE processes SET exe = x'2f' WHERE proc_id = 1", "processes",
	  "proc_id 1", "exe" },
	{ "UPDATE hosts SET name = x'41'", "hosts", "host_id 1", "name" },
	{ "UPDATE rpc_objects SET object_id = 'o'", "rpc_objects", "proc_id 2",
	  "object_id" },
	{ "UPDATE rpc_sites SET module = x'00'", "rpc_sites",
	  "proc_id 1, site_id 1", "module" },
};

/* Chain ids of the wrong form for the database's version. */
static const struct bad bad_chains[] = {
	{ "UPDATE rpc_calls SET chain = x'0102'", "rpc_calls", "call_id 1",
	  "chain" },
	/* version 2's form of a chain id in a version 3 database */
	{ "UPDATE rpc_calls SET chain = lower(hex(chain))", "rpc_calls",
	  "call_id 1", "chain" },
	/* version 3's form in a version 2 database, and hex not lowercase */
	{ "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
	  "rpc_calls", "call_id 1", "chain" },
	{ "UPDATE meta SET value = '2' WHERE key = 'schema_version';"
	  " UPDATE rpc_calls SET chain = upper(hex(chain))",
	  "rpc_calls", "call_id 1", "chain" },
};

static void check_bad(const struct bad *b)
{
	char msg[512], want[128];
	const char *path;

	base_db();
	fx_exec(b->sql);
	path = fx_close();
	ck_assert_msg(load_err(path, msg, sizeof(msg)) < 0, "'%s' accepted",
		      b->sql);
	assert_one_error(msg, path);
	snprintf(want, sizeof(want), "table %s, row %s, column %s:", b->table,
		 b->row, b->column);
	ck_assert_msg(strstr(msg, want), "'%s': '%s' does not say '%s'", b->sql,
		      msg, want);
	unlink(path);
}

START_TEST(test_bad_values)
{
	check_bad(&bad[_i]);
}
END_TEST

START_TEST(test_bad_chains)
{
	check_bad(&bad_chains[_i]);
}
END_TEST

/* The calls, chains and strings of two loaded traces are the same. */
static void assert_same_trace(const struct ccsg_trace *a,
			      const struct ccsg_trace *b)
{
	ck_assert_uint_eq(a->ncalls, b->ncalls);
	ck_assert_uint_eq(a->nchains, b->nchains);
	ck_assert_uint_eq(a->nthreads, b->nthreads);
	ck_assert_uint_eq(a->nstrings, b->nstrings);
	ck_assert(!memcmp(a->calls, b->calls, a->ncalls * sizeof(*a->calls)));
	ck_assert(
		!memcmp(a->chains, b->chains, a->nchains * sizeof(*a->chains)));
	ck_assert(!memcmp(a->threads, b->threads,
			  a->nthreads * sizeof(*a->threads)));
	for (size_t i = 0; i < a->nstrings; i++)
		ck_assert_str_eq(a->strings[i], b->strings[i]);
}

/*
 * Schema version 2, whose chain ids are 40 lowercase hex digits of text:
 * ccsg reads it as the version 3 it became (same calls, same chains in
 * the same order, same ids).
 */
START_TEST(test_schema_version_2)
{
	struct ccsg_trace t3, t2;
	const char *path = fx_outcomes();
	char msg[512];

	ck_assert_msg(load_err(path, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert_int_eq(ccsg_trace_load(&t3, path), 0);
	ck_assert_int_eq(t3.schema_version, DB_SCHEMA_VERSION);
	ck_assert_uint_eq(t3.nchains, 12);
	ck_assert_int_eq(t3.chains[0].id[DB_CHAIN_LEN - 1], 0xe0);
	ck_assert_int_eq(sqlite3_open(path, &fx_db), SQLITE_OK);
	fx_exec("UPDATE rpc_calls SET chain = lower(hex(chain));"
		"UPDATE threads SET ctx_chain = lower(hex(ctx_chain));"
		"UPDATE meta SET value = '2' WHERE key = 'schema_version'");
	sqlite3_close(fx_db);
	ck_assert_int_eq(ccsg_trace_load(&t2, path), 0);
	ck_assert_int_eq(t2.schema_version, 2);
	assert_same_trace(&t2, &t3);
	ccsg_trace_release(&t2);
	ccsg_trace_release(&t3);
	unlink(path);
}
END_TEST

/* The commands exit with status 1 after the one line, for each of them. */
START_TEST(test_cli_exit_status)
{
	static const char *const spoil[] = {
		"UPDATE meta SET value = '99' WHERE key = 'schema_version'",
		"UPDATE rpc_calls SET results_bytes = 'many'",
	};
	static const char *const cmds[] = { "dscg", "report", "latency" };
	char ccsg[PATH_MAX], out[PATH_MAX], err[PATH_MAX];

	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	test_tmp_name(out, sizeof(out), "ccsg-out-XXXXXX");
	test_tmp_name(err, sizeof(err), "ccsg-err-XXXXXX");
	close(mkstemp(out));
	close(mkstemp(err));
	for (size_t i = 0; i < 2; i++) {
		const char *path;

		base_db();
		fx_exec(spoil[i]);
		path = fx_close();
		for (size_t c = 0; c < 3; c++) {
			const char *argv[] = { ccsg, cmds[c], "--db", path, NULL };
			char *text;

			e2e_assert_exit(e2e_run_plain(argv, out, err), 1, spoil[i]);
			text = e2e_slurp(err, NULL);
			ck_assert_msg(!strncmp(text, "ccsg: error: ", 13), "%s", text);
			assert_one_error(text, path);
			free(text);
			text = e2e_slurp(out, NULL);
			ck_assert_msg(!*text, "%s wrote '%s'", cmds[c], text);
			free(text);
		}
		unlink(path);
	}
	unlink(out);
	unlink(err);
}
END_TEST

Suite *ccsg_input_suite(void)
{
	Suite *s = suite_create("ccsg-input");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_valid_base);
	tcase_add_test(tc, test_schema_version);
	tcase_add_test(tc, test_schema_version_2);
	tcase_add_loop_test(tc, test_bad_values, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_loop_test(tc, test_bad_chains, 0,
			    sizeof(bad_chains) / sizeof(bad_chains[0]));
	tcase_add_test(tc, test_cli_exit_status);
	tcase_add_test(tc, test_call_order);
	suite_add_tcase(s, tc);
	return s;
}
