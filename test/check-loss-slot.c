/*
 * check-loss-slot.c - the loss slot of a log whose writes failed
 * (log-format.h): the reader gives its records after every data frame's,
 * and the merge tells the file from a crashed one ('disk_full', the loss
 * in processes.dropped and in the error).  Logs written here by
 * log-fixture.h, plus the slot; logs without one are the other suites'.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log-fixture.h"
#include "logread.h"
#include "merge.h"
#include "test-sql.h"
#include "test-tmpdir.h"

static const uint8_t uuid[16] = { 0xcc, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff };

static void setup(void)
{
	tmpdir_make("check-loss-slot");
	ck_assert_int_eq(mkdir(tmp_path("logs"), 0700), 0);
}

static void teardown(void)
{
	tmpdir_remove();
}

/*
 * A process whose disk filled after its second frame: the slot (right
 * after the file header, as the library writes it) says errno, 70
 * records lost (40 THREAD_START, 30 THREAD_END) and the process end.
 */
static void write_disk_full_log(const char *path, int err)
{
	const char *argv[] = { "prog" };
	uint8_t slot[8 + CAUSAL_SLOT_SIZE] = { 0 };
	struct fixture_log fl, rec;

	ck_assert_int_eq(fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION), 0);
	/* the slot's records, packed with a second fixture's packer */
	msgpack_sbuffer_init(&rec.sb);
	msgpack_packer_init(&rec.pk, &rec.sb, msgpack_sbuffer_write);
	fixture_log_begin(&rec, CAUSAL_REC_LOSS, 0, 9000, 3);
	msgpack_pack_int(&rec.pk, err);
	msgpack_pack_uint64(&rec.pk, 70);
	msgpack_pack_array(&rec.pk, 2);
	msgpack_pack_array(&rec.pk, 2);
	msgpack_pack_uint64(&rec.pk, CAUSAL_REC_THREAD_START);
	msgpack_pack_uint64(&rec.pk, 40);
	msgpack_pack_array(&rec.pk, 2);
	msgpack_pack_uint64(&rec.pk, CAUSAL_REC_THREAD_END);
	msgpack_pack_uint64(&rec.pk, 30);
	fixture_log_process_end(&rec, 9001, 1700000000000009001ull,
				CAUSAL_END_EXIT, 0, 3, 2);
	fixture_le32(slot, CAUSAL_SLOT_MAGIC);
	fixture_le32(slot + 4, CAUSAL_SLOT_SIZE);
	fixture_le32(slot + 8, (uint32_t)rec.sb.size);
	memcpy(slot + 12, rec.sb.data, rec.sb.size);
	msgpack_sbuffer_destroy(&rec.sb);
	ck_assert_int_eq(fwrite(slot, 1, sizeof(slot), fl.f), sizeof(slot));

	fixture_log_header(&fl, 1000, uuid, "hostC", 44, 1, "/bin/prog", 1,
			   argv, 1700000000000000000ull, NULL, 256, 100);
	fixture_log_thread_start(&fl, 1, 1001, 0, 44, CAUSAL_MARKER_USER, 10,
				 NULL, 0, 0);
	ck_assert_int_eq(fixture_log_flush(&fl), 0);
	fixture_log_drops(&fl, 1, 1002, 2);
	ck_assert_int_eq(fixture_log_close(&fl), 0);
}

static int seen[4];

static int on_record(void *arg, const struct logread_record *r)
{
	int *n = arg;

	if (*n < 4)
		seen[*n] = (int)r->type;
	(*n)++;
	return 0;
}

START_TEST(slot_records_come_last)
{
	struct logread_result res;
	int n = 0;

	write_disk_full_log(tmp_path("logs/c.clog"), ENOSPC);
	ck_assert_int_eq(logread_file(tmp_path("logs/c.clog"), on_record, &n,
				      &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_OK);
	ck_assert_int_eq(res.frames, 2);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(res.slot_records, 2);
	ck_assert_int_eq(seen[0], CAUSAL_REC_HEADER);
	ck_assert_int_eq(seen[1], CAUSAL_REC_THREAD_START);
	ck_assert_int_eq(seen[2], CAUSAL_REC_DROPS);
	ck_assert_int_eq(seen[3], CAUSAL_REC_LOSS);
}
END_TEST

START_TEST(an_empty_slot_adds_nothing)
{
	uint8_t slot[8 + CAUSAL_SLOT_SIZE] = { 0 };
	const char *argv[] = { "prog" };
	struct logread_result res;
	struct fixture_log fl;
	int n = 0;

	ck_assert_int_eq(fixture_log_open(&fl, tmp_path("logs/e.clog"),
					  CAUSAL_FORMAT_VERSION), 0);
	fixture_le32(slot, CAUSAL_SLOT_MAGIC);
	fixture_le32(slot + 4, CAUSAL_SLOT_SIZE);
	fwrite(slot, 1, sizeof(slot), fl.f);
	fixture_log_header(&fl, 1000, uuid, "hostC", 44, 1, "/bin/prog", 1,
			   argv, 1700000000000000000ull, NULL, 256, 100);
	ck_assert_int_eq(fixture_log_close(&fl), 0);
	ck_assert_int_eq(logread_file(tmp_path("logs/e.clog"), on_record, &n,
				      &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_OK);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(res.slot_records, 0);
}
END_TEST

START_TEST(merge_tells_a_full_disk_from_a_crash)
{
	struct merge_opts o = { .dir = tmp_path("logs") };
	struct merge_stats s;
	sqlite3 *db;

	write_disk_full_log(tmp_path("logs/c.clog"), ENOSPC);
	ck_assert_int_eq(merge_run(&o, &s), 0);
	ck_assert_uint_eq(s.write_failed, 1);
	ck_assert_uint_eq(s.disk_full, 1);
	ck_assert_uint_eq(s.lost, 70);
	ck_assert_uint_eq(s.truncated, 0);
	ck_assert_uint_eq(s.corrupt, 0);
	ck_assert_uint_eq(s.dropped, 72);
	db = q_open(tmp_path("logs/trace.db"));
	ck_assert_str_eq(q_text(db, "SELECT status FROM files"), "disk_full");
	ck_assert_str_eq(q_text(db, "SELECT error FROM files"),
			 "disk full (No space left on device): 70 records lost "
			 "(thread_start 40, thread_end 30)");
	/* 2 from the DROPS record, 70 never written */
	ck_assert_int_eq(q_int(db, "SELECT dropped FROM processes"), 72);
	/* the end is known, the log is not complete */
	ck_assert_str_eq(q_text(db, "SELECT end_reason FROM processes"), "exit");
	ck_assert_int_eq(q_int(db, "SELECT complete FROM processes"), 0);
	ck_assert_int_eq(q_int(db, "SELECT records FROM processes"), 5);
	sqlite3_close(db);
}
END_TEST

START_TEST(another_errno_is_a_write_error)
{
	struct merge_opts o = { .dir = tmp_path("logs") };
	struct merge_stats s;
	sqlite3 *db;

	write_disk_full_log(tmp_path("logs/c.clog"), EIO);
	ck_assert_int_eq(merge_run(&o, &s), 0);
	ck_assert_uint_eq(s.write_failed, 1);
	ck_assert_uint_eq(s.disk_full, 0);
	db = q_open(tmp_path("logs/trace.db"));
	ck_assert_str_eq(q_text(db, "SELECT status FROM files"), "write_error");
	ck_assert_int_eq(q_int(db, "SELECT error LIKE 'write failed "
				   "(Input/output error): 70 records lost%' "
				   "FROM files"),
			 1);
	sqlite3_close(db);
}
END_TEST

Suite *loss_slot_suite(void)
{
	Suite *s = suite_create("loss_slot");
	TCase *tc = tcase_create("slot");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, slot_records_come_last);
	tcase_add_test(tc, an_empty_slot_adds_nothing);
	tcase_add_test(tc, merge_tells_a_full_disk_from_a_crash);
	tcase_add_test(tc, another_errno_is_a_write_error);
	suite_add_tcase(s, tc);
	return s;
}
