/*
 * check-spawn-links.c - the merge's parent links for children made by
 * vfork() and posix_spawn() (tracedump/spawn-links.h), on logs written
 * here by log-fixture.h: which image a FORK record links, and which not.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>

#include "log-fixture.h"
#include "merge.h"
#include "test-sql.h"
#include "test-tmpdir.h"

static void setup(void)
{
	tmpdir_make("check-spawn-links");
}

static void teardown(void)
{
	tmpdir_remove();
}

static void uuid_of(uint8_t uuid[16], int n)
{
	memset(uuid, 0, 16);
	uuid[0] = (uint8_t)n;
	uuid[15] = 0xff;
}

/* FORK [5, 1, mono, pid, how]; how < 0: the old form, without it. */
static void fork_rec(struct fixture_log *fl, uint64_t mono, int64_t pid,
		     int how)
{
	fixture_log_begin(fl, CAUSAL_REC_FORK, 1, mono, how < 0 ? 1 : 2);
	msgpack_pack_int64(&fl->pk, pid);
	if (how >= 0)
		msgpack_pack_uint64(&fl->pk, (uint64_t)how);
}

/* A one-record log: the HEADER of image n, optionally an end. */
static void image(int n, const char *host, int64_t pid, int64_t ppid,
		  uint64_t start, int parent)
{
	uint8_t uuid[16], puuid[16];
	const char *argv[] = {"child"};
	struct fixture_log fl;
	char name[64];

	uuid_of(uuid, n);
	uuid_of(puuid, parent);
	snprintf(name, sizeof(name), "logs/%s.%lld.%02d.clog", host,
		 (long long)pid, n);
	ck_assert_int_eq(fixture_log_open(&fl, tmp_path(name),
					  CAUSAL_FORMAT_VERSION), 0);
	fixture_log_header(&fl, start, uuid, host, pid, ppid, "/bin/child", 1,
			   argv, start, parent ? puuid : NULL, 64, 100);
	ck_assert_int_eq(fixture_log_close(&fl), 0);
}

/* The parent_uuid's first byte: the image number of the parent, 0 none. */
static int parent_of(sqlite3 *db, int n)
{
	char sql[160];

	snprintf(sql, sizeof(sql),
		 "SELECT coalesce(substr(parent_uuid, 1, 2), '00') "
		 "FROM processes WHERE uuid LIKE '%02x%%'", n);
	return (int)strtol(q_text(db, sql), NULL, 16);
}

START_TEST(test_which_image_a_fork_record_links)
{
	const char *argv[] = {"parent"};
	struct merge_opts o = {.dir = NULL};
	struct merge_stats s;
	struct fixture_log fl;
	uint8_t uuid[16];
	sqlite3 *db;

	mkdir(tmp_path("logs"), 0700);
	/* image 1, pid 100 on host h, alive from 1000 to 9000 */
	uuid_of(uuid, 1);
	ck_assert_int_eq(fixture_log_open(&fl, tmp_path("logs/h.100.01.clog"),
					  CAUSAL_FORMAT_VERSION), 0);
	fixture_log_header(&fl, 1000, uuid, "h", 100, 1, "/bin/parent", 1,
			   argv, 1000, NULL, 64, 100);
	fork_rec(&fl, 2000, 200, CAUSAL_FORK_POSIX_SPAWN);
	fork_rec(&fl, 3000, 300, CAUSAL_FORK_VFORK);
	fork_rec(&fl, 4000, 400, CAUSAL_FORK_FORK);
	fork_rec(&fl, 5000, 500, CAUSAL_FORK_POSIX_SPAWNP);
	fork_rec(&fl, 6000, 600, -1);
	fork_rec(&fl, 7000, 700, CAUSAL_FORK_POSIX_SPAWN);
	fork_rec(&fl, 8000, 800, CAUSAL_FORK_POSIX_SPAWN);
	fork_rec(&fl, 8500, 850, CAUSAL_FORK_VFORK);
	fixture_log_process_end(&fl, 9000, 9000, CAUSAL_END_EXIT, 0, 10, 0);
	ck_assert_int_eq(fixture_log_close(&fl), 0);

	image(2, "h", 200, 100, 2500, 0);	/* linked */
	image(3, "h", 300, 100, 2900, 0);	/* an older 300: no */
	image(4, "h", 300, 100, 3100, 0);	/* the first after: linked */
	image(5, "h", 300, 100, 3200, 0);	/* it exec'd again: no */
	image(6, "h", 400, 100, 4100, 0);	/* FORK how = fork: no */
	image(7, "h", 500, 999, 5100, 0);	/* not the parent's child */
	image(8, "h", 600, 100, 6100, 0);	/* old FORK: a fork */
	image(9, "other", 700, 100, 7100, 0);	/* another host */
	image(10, "h", 800, 1, 9500, 0);	/* an orphan: linked */
	image(11, "h", 850, 100, 8600, 12);	/* has a parent already */

	o.dir = tmp_path("logs");
	ck_assert_int_eq(merge_run(&o, &s), 0);
	ck_assert_uint_eq(s.processes, 11);
	ck_assert_uint_eq(s.truncated + s.corrupt + s.bad_records, 0);
	db = q_open(tmp_path("logs/trace.db"));
	ck_assert_int_eq(parent_of(db, 1), 0);
	ck_assert_int_eq(parent_of(db, 2), 1);
	ck_assert_int_eq(parent_of(db, 3), 0);
	ck_assert_int_eq(parent_of(db, 4), 1);
	ck_assert_int_eq(parent_of(db, 5), 0);
	ck_assert_int_eq(parent_of(db, 6), 0);
	ck_assert_int_eq(parent_of(db, 7), 0);
	ck_assert_int_eq(parent_of(db, 8), 0);
	ck_assert_int_eq(parent_of(db, 9), 0);
	ck_assert_int_eq(parent_of(db, 10), 1);
	ck_assert_int_eq(parent_of(db, 11), 12);
	sqlite3_close(db);
}
END_TEST

Suite *spawn_links_suite(void)
{
	Suite *s = suite_create("spawn_links");
	TCase *tc = tcase_create("links");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_which_image_a_fork_record_links);
	suite_add_tcase(s, tc);
	return s;
}
