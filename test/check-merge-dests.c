/*
 * check-merge-dests.c - every record type reaches the database where
 * records.def's CAUSAL_RECORD_DESTS says, by nothing but that table.
 *
 * Each type of CAUSAL_RECORDS has a line there (the tools' build fails
 * already without one: tracedump/internal.h).  Then, type by type: one
 * record of it with values of its own (log-fixture.c's fixture_record_fill
 * and fixture_log_record, both generated from records.def), in the log of
 * process A after its header, beside process B, A's child; merged with
 * and without it (a HEADER: as A's header, instead of the usual one), the
 * tables whose rows differ must be exactly those its line names (files
 * may differ for any type: which logs were read and how), none for a
 * type that is raw only on purpose; and with --raw the record is in the
 * records table.  Nothing here names a type but FORK, whose record links
 * a child only.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "causal/db-schema.h"
#include "log-fixture.h"
#include "log-record.h"
#include "merge.h"
#include "test-tmpdir.h"

/* ---- the tables, generated ----------------------------------------------- */

struct dest {
	unsigned type;
	const char *upper, *stage;
	uint64_t tables; /* bit DB_<ID> for each TABLE(ID) */
};

/* clang-format off */
#define TABLE(ID) | (1ull << DB_##ID)
#define DEST_ROW(UPPER, STAGE, handler, tables)                                \
	{ CAUSAL_REC_##UPPER, #UPPER, #STAGE, 0 tables },
static const struct dest dests[] = { CAUSAL_RECORD_DESTS(DEST_ROW) };
#undef TABLE
#define N_DESTS (sizeof(dests) / sizeof(dests[0]))

#define TYPE_ROW(num, UPPER, lower, member, GROUP, nreq)                       \
	{ CAUSAL_REC_##UPPER, #UPPER },
static const struct {
	unsigned type;
	const char *upper;
} types[] = { CAUSAL_RECORDS(TYPE_ROW) };
#define N_TYPES (sizeof(types) / sizeof(types[0]))
/* clang-format on */

_Static_assert(DB_NTABLES <= 64, "a table is a bit of struct dest's tables");

/* The line of type, or NULL. */
static const struct dest *dest_of(unsigned type)
{
	for (size_t i = 0; i < N_DESTS; i++)
		if (dests[i].type == type)
			return &dests[i];
	return NULL;
}

/*
 * Each type has one line, each line one of the four stages; a type that
 * is raw only names no table, any other names one at least.
 */
START_TEST(every_type_has_a_destination)
{
	size_t raw = 0;

	for (size_t i = 0; i < N_TYPES; i++) {
		const struct dest *d = dest_of(types[i].type);
		size_t lines = 0;

		ck_assert_msg(d, "%s: no line in CAUSAL_RECORD_DESTS",
			      types[i].upper);
		for (size_t j = 0; j < N_DESTS; j++)
			lines += dests[j].type == types[i].type;
		ck_assert_msg(lines == 1, "%s: %zu lines", types[i].upper,
			      lines);
		ck_assert_msg(!strcmp(d->stage, "READ") ||
				      !strcmp(d->stage, "STORE") ||
				      !strcmp(d->stage, "BOTH") ||
				      !strcmp(d->stage, "RAW"),
			      "%s: stage %s", d->upper, d->stage);
		raw += !strcmp(d->stage, "RAW");
		ck_assert_msg(!strcmp(d->stage, "RAW") == !d->tables,
			      "%s: %s with %s tables", d->upper, d->stage,
			      d->tables ? "some" : "no");
	}
	ck_assert_uint_eq(N_DESTS, N_TYPES);
	ck_assert_uint_lt(raw, N_TYPES);
}
END_TEST

/* ---- the logs ------------------------------------------------------------ */

#define PARENT_PID 42
#define CHILD_PID 43

static const uint8_t uuid_a[16] = { 0xaa, 1, 2, 3 };
static const uint8_t uuid_b[16] = { 0xbb, 1, 2, 3 };

/*
 * dir/a.clog: process A's header, then x (none: NULL), or x alone when it
 * is a HEADER; dir/b.clog: process B, started after A on A's host as its
 * child.
 */
static void write_logs(const char *dir, const struct record *x)
{
	static const char *const argv[] = { "prog" };
	char path[PATH_MAX + 16];
	struct fixture_log fl;

	ck_assert_int_eq(mkdir(dir, 0777), 0);
	snprintf(path, sizeof(path), "%s/a.clog", dir);
	ck_assert_int_eq(fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION), 0);
	if (!x || x->type != CAUSAL_REC_HEADER)
		fixture_log_header(&fl, 1000, uuid_a, "hostA", PARENT_PID, 1,
				   "/bin/a", 1, argv, 1700000000000000000ull,
				   NULL, 64, 100);
	if (x)
		ck_assert_int_eq(fixture_log_record(&fl, x), 0);
	ck_assert_int_eq(fixture_log_close(&fl), 0);

	snprintf(path, sizeof(path), "%s/b.clog", dir);
	ck_assert_int_eq(fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION), 0);
	fixture_log_header(&fl, 5000, uuid_b, "hostA", CHILD_PID, PARENT_PID,
			   "/bin/b", 1, argv, 1700000000000000004ull, NULL, 64,
			   100);
	ck_assert_int_eq(fixture_log_close(&fl), 0);
}

/* dir merged into dir/trace.db (raw: with the records table). */
static sqlite3 *merged(const char *dir, bool raw)
{
	struct merge_opts o = { .dir = dir, .raw = raw };
	struct merge_stats stats;
	char path[PATH_MAX + 16];
	sqlite3 *db;

	ck_assert_int_eq(merge_run(&o, &stats), 0);
	snprintf(path, sizeof(path), "%s/trace.db", dir);
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	return db;
}

/* The first column of the first row of sql as text ("" for NULL), malloc'd. */
static char *query(sqlite3 *db, const char *sql)
{
	const unsigned char *t = NULL;
	sqlite3_stmt *st;
	char *s;

	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK,
		      "%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		t = sqlite3_column_text(st, 0);
	s = strdup(t ? (const char *)t : "");
	sqlite3_finalize(st);
	ck_assert_ptr_nonnull(s);
	return s;
}

/*
 * Table t's rows, each as its columns quoted, in order: what a record
 * changed shows.  How many records a file or process held, and when
 * its last one was, is no row of any record's (files.records,
 * processes.records, processes.last_mono_ns).
 */
static char *rows_of(sqlite3 *db, enum db_table t)
{
	const struct db_table_def *d = &db_tables[t];
	char sql[4096];
	size_t n = 0;
	char *rows;

	n += snprintf(sql + n, sizeof(sql) - n,
		      "SELECT group_concat(r, char(10)) FROM (SELECT ''");
	for (int c = 0; c < d->ncols; c++)
		if (!(t == DB_FILES && c == DB_FILES_RECORDS) &&
		    !(t == DB_PROCESSES && (c == DB_PROCESSES_RECORDS ||
					    c == DB_PROCESSES_LAST_MONO_NS)))
			n += snprintf(sql + n, sizeof(sql) - n,
				      " || quote(%s) || ','", d->cols[c].name);
	n += snprintf(sql + n, sizeof(sql) - n, " AS r FROM %s ORDER BY r)",
		      d->name);
	ck_assert_uint_lt(n, sizeof(sql));
	rows = query(db, sql);
	return rows;
}

/* The tables whose rows differ between databases a and b. */
static uint64_t changed(sqlite3 *a, sqlite3 *b)
{
	uint64_t mask = 0;

	for (int t = 0; t < DB_NTABLES; t++) {
		char *ra, *rb;

		if (t == DB_RECORDS) /* only with --raw */
			continue;
		ra = rows_of(a, t);
		rb = rows_of(b, t);
		if (strcmp(ra, rb))
			mask |= 1ull << t;
		free(ra);
		free(rb);
	}
	return mask;
}

static void setup(void)
{
	tmpdir_make("check-merge-dests");
}

static void teardown(void)
{
	tmpdir_remove();
}

/*
 * Loop test i: type i of CAUSAL_RECORDS, merged alone beside what every
 * log holds; the tables it changes are its line's.
 */
START_TEST(every_type_arrives_where_its_line_says)
{
	const unsigned type = types[_i].type;
	const struct dest *d = dest_of(type);
	struct fixture_values v = { 0 };
	struct record x;
	sqlite3 *without, *with, *raw;
	uint64_t diff;
	char sql[128], *n;

	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(fixture_record_fill(&x, type, &v), 0);
	if (type == CAUSAL_REC_FORK) {
		/* a child made by vfork or posix_spawn: process B, after */
		x.fork.how = CAUSAL_FORK_VFORK;
		x.fork.child_pid = CHILD_PID;
		x.mono_ns = 2000;
	}
	write_logs(tmp_path("without"), NULL);
	write_logs(tmp_path("with"), &x);
	without = merged(tmp_path("without"), false);
	with = merged(tmp_path("with"), false);
	diff = changed(without, with);
	for (int t = 0; t < DB_NTABLES; t++) {
		uint64_t bit = 1ull << t;

		if (t == DB_FILES && !(d->tables & bit))
			continue;
		ck_assert_msg((diff & bit) == (d->tables & bit),
			      "%s (%s): table %s %s", d->upper, d->stage,
			      db_tables[t].name,
			      diff & bit ? "changed, its line does not name it"
					 : "did not change, its line names it");
	}
	sqlite3_close(without);
	sqlite3_close(with);

	/* raw: kept as it is, whatever the stage */
	ck_assert_int_eq(unlink(tmp_path("with/trace.db")), 0);
	raw = merged(tmp_path("with"), true);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM records WHERE proc_id = 1 AND type = %u",
		 type);
	n = query(raw, sql);
	ck_assert_msg(!strcmp(n, "1"), "%s: %s in records with --raw", d->upper,
		      n);
	free(n);
	sqlite3_close(raw);
}
END_TEST

#ifdef CAUSAL_TEST_EXTRA_RECORD
/* run-tests-extra: the type test/extra-record.h adds is one of them. */
START_TEST(the_extra_type_is_seen)
{
	ck_assert_ptr_nonnull(dest_of(CAUSAL_REC_TEST_EXTRA));
	ck_assert(record_known(CAUSAL_REC_TEST_EXTRA));
	ck_assert_str_eq(record_type_name(CAUSAL_REC_TEST_EXTRA, true),
			 "test_extra");
}
END_TEST
#endif

Suite *merge_dests_suite(void)
{
	Suite *s = suite_create("merge-dests");
	TCase *tc = tcase_create("merge-dests");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_type_has_a_destination);
	tcase_add_loop_test(tc, every_type_arrives_where_its_line_says, 0,
			    (int)N_TYPES);
#ifdef CAUSAL_TEST_EXTRA_RECORD
	tcase_add_test(tc, the_extra_type_is_seen);
#endif
	suite_add_tcase(s, tc);
	return s;
}
