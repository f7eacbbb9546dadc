/*
 * check-logread.c - unit tests of tracedump's log reader, record decoder
 * and JSON output, on logs written here by log-fixture.h.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "json.h"
#include "log-fixture.h"
#include "log-pair.h"
#include "test-tmpdir.h"
#include "log-record.h"
#include "msgpack-json.h"
#include "logread.h"

static const uint8_t uuid_a[16] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff };

static void setup(void)
{
	tmpdir_make("check-logread");
}

static void teardown(void)
{
	tmpdir_remove();
}

static void write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	fclose(f);
}

/* Records seen by the callback, decoded. */
struct seen {
	int n;
	unsigned type[32];
	uint64_t tid[32], mono[32], frame[32];
	struct record rec[32];
	int bad_decode;
	uint64_t raw_bytes; /* of the records seen, before compression */
	char host[32], argv_json[128];
	uint8_t chain0;
};

static int collect(void *arg, const struct logread_record *lr)
{
	struct seen *s = arg;
	struct record *r = &s->rec[s->n];

	ck_assert_int_lt(s->n, 32);
	ck_assert_uint_eq(lr->seq, (uint64_t)s->n);
	s->type[s->n] = lr->type;
	s->tid[s->n] = lr->tid;
	s->mono[s->n] = lr->mono_ns;
	s->frame[s->n] = lr->frame;
	/* The raw span must be exactly one msgpack array (fix or 16). */
	ck_assert_uint_gt(lr->raw_len, 3);
	ck_assert(((const uint8_t *)lr->raw)[0] >> 4 == 0x9 ||
		  ((const uint8_t *)lr->raw)[0] == 0xdc);
	if (record_decode(lr->obj, r) < 0) {
		s->bad_decode++;
	} else if (r->type == CAUSAL_REC_HEADER) {
		FILE *f = fmemopen(s->argv_json, sizeof(s->argv_json), "w");

		snprintf(s->host, sizeof(s->host), "%.*s", (int)r->header.host.len,
			 r->header.host.ptr);
		json_msgpack(f, r->header.argv);
		fclose(f);
		r->header.argv = NULL;	/* points into the callback's zone */
	} else if (r->type == CAUSAL_REC_THREAD_START && r->thread_start.ctx.set) {
		s->chain0 = r->thread_start.ctx.chain[0];
	}
	s->n++;
	return 0;
}

START_TEST(test_sample_decodes)
{
	const char *path = tmp_path("h.1.aa.clog");
	struct logread_result res;
	struct seen s = { 0 };
	long ends[3];

	ck_assert_int_eq(fixture_log_sample(path, uuid_a, "hostA", 42, NULL, 1, ends), 9);
	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_OK);
	ck_assert_str_eq(res.error, "");
	ck_assert_uint_eq(res.version, CAUSAL_FORMAT_VERSION);
	ck_assert_uint_eq(res.frames, 3);
	ck_assert_uint_eq(res.records, 9);
	ck_assert_uint_eq(res.bad_records, 0);
	ck_assert_uint_eq(res.bytes, (uint64_t)ends[2]);
	ck_assert_int_eq(s.n, 9);
	ck_assert_int_eq(s.bad_decode, 0);

	ck_assert_uint_eq(s.type[0], CAUSAL_REC_HEADER);
	ck_assert_ptr_nonnull(s.rec[0].header.uuid);
	ck_assert_str_eq(s.host, "hostA");
	ck_assert_int_eq(s.rec[0].header.pid, 42);
	ck_assert_int_eq(s.rec[0].header.ppid, 1);
	ck_assert_str_eq(s.argv_json, "[\"prog\",\"-x\",\"a \\\"q\\\"\"]");
	ck_assert_ptr_null(s.rec[0].header.parent_uuid);
	ck_assert_uint_eq(s.rec[0].header.buffer_kb, 64);
	ck_assert_uint_eq(s.rec[0].header.flush_ms, 100);
	ck_assert_uint_eq(s.rec[0].header.start_realtime_ns, 1700000000000000000ull);

	ck_assert_uint_eq(s.type[1], CAUSAL_REC_THREAD_START);
	ck_assert(!s.rec[1].thread_start.ctx.set);
	ck_assert_uint_eq(s.rec[1].thread_start.parent_tid, 0);
	ck_assert_uint_eq(s.type[2], CAUSAL_REC_THREAD_SPAWN);
	ck_assert_uint_eq(s.rec[2].thread_spawn.child_tid, 2);
	ck_assert_uint_eq(s.type[3], CAUSAL_REC_THREAD_START);
	ck_assert_uint_eq(s.tid[3], 2);
	ck_assert_uint_eq(s.mono[3], 1003);
	ck_assert_uint_eq(s.rec[3].thread_start.parent_tid, 1);
	ck_assert_uint_eq(s.rec[3].thread_start.os_tid, 43);
	ck_assert_uint_eq(s.rec[3].thread_start.marker, CAUSAL_MARKER_INFRA);
	ck_assert_uint_eq(s.rec[3].thread_start.cpu_ns, 20);
	ck_assert(s.rec[3].thread_start.ctx.set);
	ck_assert_uint_eq(s.chain0, 0xC0);
	ck_assert_uint_eq(s.rec[3].thread_start.ctx.event, 3);
	ck_assert_uint_eq(s.rec[3].thread_start.ctx.function, 4);

	ck_assert_uint_eq(s.frame[4], 1);
	ck_assert_uint_eq(s.type[4], CAUSAL_REC_DROPS);
	ck_assert_uint_eq(s.rec[4].drops.dropped, 5);
	ck_assert_uint_eq(s.type[5], CAUSAL_REC_THREAD_END);
	ck_assert_uint_eq(s.rec[5].thread_end.cpu_ns, 70);
	ck_assert_uint_eq(s.rec[5].thread_end.how, CAUSAL_THREAD_RETURNED);
	ck_assert_uint_eq(s.type[6], FIXTURE_UNKNOWN_TYPE);	/* unknown: common fields only */
	ck_assert(!record_known(FIXTURE_UNKNOWN_TYPE));
	ck_assert_uint_eq(s.type[8], CAUSAL_REC_PROCESS_END);
	ck_assert_uint_eq(s.frame[8], 2);
	ck_assert_uint_eq(s.rec[8].process_end.realtime_ns, 1700000000000000008ull);
	ck_assert_uint_eq(s.rec[8].process_end.records, 9);
	ck_assert_uint_eq(s.rec[8].process_end.dropped, 7);
	ck_assert_uint_eq(s.rec[8].process_end.reason, CAUSAL_END_EXIT);
}
END_TEST

START_TEST(test_truncated_keeps_complete_frames)
{
	const char *path = tmp_path("t.clog");
	struct logread_result res;
	struct seen s = { 0 };
	long ends[3];

	fixture_log_sample(path, uuid_a, "h", 42, NULL, 1, ends);
	/* Cut inside the last frame, as SIGKILL mid-write would. */
	ck_assert_int_eq(truncate(path, ends[2] - 5), 0);
	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_TRUNCATED);
	ck_assert_ptr_nonnull(strstr(res.error, "cut short"));
	ck_assert_uint_eq(res.frames, 2);
	ck_assert_uint_eq(res.bad_frames, 0);
	ck_assert_int_eq(s.n, 7);

	/* Cut right after the magic of the last frame. */
	ck_assert_int_eq(truncate(path, ends[1] + 3), 0);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_TRUNCATED);
	ck_assert_int_eq(s.n, 7);

	/* Cut at a frame boundary: nothing is damaged. */
	ck_assert_int_eq(truncate(path, ends[1]), 0);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_OK);
	ck_assert_int_eq(s.n, 7);

	/* Cut inside the file header. */
	ck_assert_int_eq(truncate(path, 10), 0);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_TRUNCATED);
	ck_assert_int_eq(s.n, 0);
}
END_TEST

static void flip(const char *path, long off)
{
	int fd = open(path, O_RDWR);
	uint8_t b;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &b, 1, off), 1);
	b ^= 0x5a;
	ck_assert_int_eq(pwrite(fd, &b, 1, off), 1);
	close(fd);
}

START_TEST(test_corrupt_middle_frame)
{
	const char *path = tmp_path("c.clog");
	struct logread_result res;
	struct seen s = { 0 };
	long ends[3];

	fixture_log_sample(path, uuid_a, "h", 42, NULL, 1, ends);
	flip(path, (ends[0] + ends[1]) / 2);
	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_CORRUPT);
	ck_assert_ptr_nonnull(strstr(res.error, "frame 1"));
	ck_assert_uint_eq(res.frames, 2);
	ck_assert_uint_eq(res.bad_frames, 1);
	ck_assert_int_eq(s.n, 6);
	ck_assert_uint_eq(s.type[4], CAUSAL_REC_THREAD_END);
	ck_assert_uint_eq(s.type[5], CAUSAL_REC_PROCESS_END);
}
END_TEST

START_TEST(test_corrupt_frame_magic)
{
	const char *path = tmp_path("m.clog");
	struct logread_result res;
	struct seen s = { 0 };
	long ends[3];

	/* A damaged frame header: resync on the next frame magic. */
	fixture_log_sample(path, uuid_a, "h", 42, NULL, 1, ends);
	flip(path, ends[0]);
	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_CORRUPT);
	ck_assert_uint_eq(res.frames, 2);
	ck_assert_int_eq(s.n, 6);
}
END_TEST

/* Each record decoded, and the bytes of all of them before compression. */
static int exit_ns_of(void *arg, const struct logread_record *lr)
{
	struct seen *s = arg;
	struct record *r = &s->rec[s->n];

	ck_assert_int_lt(s->n, 32);
	if (record_decode(lr->obj, r) < 0)
		s->bad_decode++;
	s->raw_bytes += lr->raw_len;
	s->n++;
	return 0;
}

/*
 * An RPC probe's exit time, as format 1 wrote it (the value) and as format
 * 2 does (its distance past mono_ns, in fewer bytes): the same times back
 * from both, including an exit at mono_ns, one before it, and 0.
 */
START_TEST(test_exit_ns_both_formats)
{
	static const uint64_t mono = 5000000000000ull;
	static const uint64_t exits[] = {
		mono + 40,     mono,	 mono + 31, mono + 32,
		mono + 100000, mono - 1, 0,	    UINT64_MAX,
	};
	enum { N = sizeof(exits) / sizeof(exits[0]) };
	uint8_t chain[CAUSAL_CHAIN_ID_LEN] = { 0xcd };
	uint64_t bytes[2] = { 0 };

	for (uint32_t version = 1; version <= 2; version++) {
		const char *path = tmp_path("x.clog");
		struct fixture_log fl;
		struct logread_result res;
		struct seen *s = calloc(1, sizeof(*s));

		ck_assert_ptr_nonnull(s);
		ck_assert_int_eq(fixture_log_open(&fl, path, version), 0);
		for (int i = 0; i < N; i++) {
			struct fixture_rpc p = { .tid = 1,
						 .mono = mono,
						 .mono_exit = exits[i],
						 .cpu = 7,
						 .chain = chain,
						 .event = (uint64_t)i + 1,
						 .function = 1 };

			fixture_log_skel_end(&fl, &p, 0, 0);
		}
		fixture_log_close(&fl);
		ck_assert_int_eq(logread_file(path, exit_ns_of, s, &res), 0);
		ck_assert_uint_eq(res.version, version);
		ck_assert_int_eq(s->n, N);
		ck_assert_int_eq(s->bad_decode, 0);
		for (int i = 0; i < N; i++)
			ck_assert_uint_eq(s->rec[i].skel_end.p.mono_exit_ns,
					  exits[i]);
		bytes[version - 1] = s->raw_bytes;
		free(s);
	}
	/* a time past mono_ns: 9 bytes in format 1, 1, 2 or 5 in format 2;
	 * one before it, 0 and one past INT64_MAX from it: alike in both */
	ck_assert_uint_eq(bytes[0] - bytes[1],
			  (9 - 2) + (9 - 1) + (9 - 1) + (9 - 2) + (9 - 5));
}
END_TEST

START_TEST(test_rejects_foreign_and_newer)
{
	const char *path = tmp_path("x.clog");
	struct logread_result res;
	struct fixture_log fl;
	long ends[3];
	const char text[] = "this is not a causal log, just some text\n";
	char newer[32];

	write_bytes(path, text, sizeof(text) - 1);
	ck_assert_int_eq(logread_file(path, NULL, NULL, &res), -EINVAL);
	ck_assert_str_eq(res.error, "bad magic");

	/* Right frame magic, wrong file magic. */
	fixture_log_sample(path, uuid_a, "h", 42, NULL, 1, ends);
	flip(path, 9);
	ck_assert_int_eq(logread_file(path, NULL, NULL, &res), -EINVAL);

	ck_assert_int_eq(fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION + 1), 0);
	fixture_log_drops(&fl, 1, 1, 1);
	fixture_log_close(&fl);
	ck_assert_int_eq(logread_file(path, NULL, NULL, &res), -EPROTO);
	snprintf(newer, sizeof(newer), "version %u", CAUSAL_FORMAT_VERSION + 1);
	ck_assert_ptr_nonnull(strstr(res.error, newer));

	ck_assert_int_eq(logread_file(tmp_path("missing.clog"), NULL, NULL, &res), -ENOENT);
	ck_assert_int_eq(logread_file(tmpdir_path, NULL, NULL, &res), -EINVAL);
}
END_TEST

START_TEST(test_empty_file)
{
	const char *path = tmp_path("e.clog");
	struct logread_result res;
	struct seen s = { 0 };

	write_bytes(path, "", 0);
	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_TRUNCATED);
	ck_assert_str_eq(res.error, "empty file");
	ck_assert_uint_eq(res.records, 0);
	ck_assert_int_eq(s.n, 0);
}
END_TEST

START_TEST(test_bad_records_counted)
{
	const char *path = tmp_path("b.clog");
	struct logread_result res;
	struct seen s = { 0 };
	struct fixture_log fl;

	ck_assert_int_eq(fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION), 0);
	msgpack_pack_array(&fl.pk, 2);		/* too short */
	msgpack_pack_int(&fl.pk, 2);
	msgpack_pack_int(&fl.pk, 1);
	fixture_log_str(&fl, "not an array");
	fixture_log_begin(&fl, CAUSAL_REC_THREAD_END, 1, 5, 2);
	fixture_log_str(&fl, "cpu");		/* wrong field type */
	msgpack_pack_int(&fl.pk, 0);
	fixture_log_begin(&fl, CAUSAL_REC_DROPS, 1, 6, 0);	/* missing field */
	fixture_log_drops(&fl, 1, 7, 9);
	fixture_log_close(&fl);

	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_OK);
	ck_assert_uint_eq(res.bad_records, 2);
	ck_assert_int_eq(s.n, 3);
	ck_assert_int_eq(s.bad_decode, 2);
	ck_assert_uint_eq(s.rec[2].drops.dropped, 9);
}
END_TEST

/*
 * A PAIR comes out as its two records, in their place, each its own seq
 * and msgpack bytes; a pair of the wrong shape is a bad record, and the
 * records around it are read.  Loop test: format _i (3, the start's
 * record with the end's as its last element; 4, the fields that change
 * from call to call after the others).
 */
START_TEST(test_pair_read_as_two_records)
{
	static const uint8_t chain[CAUSAL_CHAIN_ID_LEN] = { 7, 7, 7 };
	const char *path = tmp_path("p.clog");
	struct fixture_rpc a = { 3, 1000, 1040, 5000, chain, 10, 4 };
	struct fixture_rpc b = { 3, 900, 960, 4990, chain, 11, 4 };
	struct logread_result res;
	struct seen s = { 0 };
	struct fixture_log fl;

	ck_assert_int_eq(fixture_log_open(&fl, path, (uint32_t)_i), 0);
	fixture_log_drops(&fl, 3, 1, 0);
	/* an end before its start, in time and CPU: as well */
	fixture_log_pair_next(&fl);
	fixture_log_skel_start(&fl, &a, 9, 1, 2, CAUSAL_TRANSPORT_TCP, NULL, 0,
			       1, 77, 8, CAUSAL_TAG_OK);
	fixture_log_skel_end(&fl, &b, CAUSAL_REPLY_SUCCESS, 4);
	fixture_log_begin(&fl,
			  _i == 3 ? CAUSAL_REC_RPC_SKEL_PAIR_3
				  : CAUSAL_REC_RPC_SKEL_PAIR,
			  3, 5, 1);
	msgpack_pack_int(&fl.pk, 1); /* no end array */
	fixture_log_drops(&fl, 3, 2000, 0);
	fixture_log_close(&fl);

	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_OK);
	ck_assert_uint_eq(res.bad_records, 1);
	ck_assert_uint_eq(res.records, 4);
	ck_assert_int_eq(s.n, 4);
	ck_assert_int_eq(s.bad_decode, 0);
	ck_assert_uint_eq(s.type[1], CAUSAL_REC_RPC_SKEL_START);
	ck_assert_uint_eq(s.type[2], CAUSAL_REC_RPC_SKEL_END);
	ck_assert_uint_eq(s.type[3], CAUSAL_REC_DROPS);
	ck_assert_uint_eq(res.version, (uint32_t)_i);
	ck_assert_uint_eq(s.rec[1].mono_ns, 1000);
	ck_assert_uint_eq(s.rec[1].skel_start.p.mono_exit_ns, 1040);
	ck_assert_uint_eq(s.rec[1].skel_start.p.cpu_ns, 5000);
	ck_assert_uint_eq(s.rec[1].skel_start.p.event, 10);
	ck_assert_uint_eq(s.rec[1].skel_start.prog, 9);
	ck_assert_uint_eq(s.rec[1].skel_start.xid, 77);
	ck_assert_uint_eq(s.rec[2].tid, 3);
	ck_assert_uint_eq(s.rec[2].mono_ns, 900);
	ck_assert_uint_eq(s.rec[2].skel_end.p.mono_exit_ns, 960);
	ck_assert_uint_eq(s.rec[2].skel_end.p.cpu_ns, 4990);
	ck_assert_uint_eq(s.rec[2].skel_end.p.event, 11);
	ck_assert_uint_eq(s.rec[2].skel_end.p.function, 4);
	ck_assert_uint_eq(s.rec[2].skel_end.results_bytes, 4);
}
END_TEST

/* The calls of test_next_pairs: threads 3 (skeletons) and 4 (a stub),
 * two frames; the CPU going back once, an xid across 2^32. */
static void write_calls(struct fixture_log *fl)
{
	static const uint8_t chain[CAUSAL_CHAIN_ID_LEN] = { 5, 5 };
	static const uint64_t xid[] = { 0xfffffffeu, 1, 9, 10, 12 };
	uint64_t cpu = 9000;

	for (int i = 0; i < 5; i++) {
		struct fixture_rpc s = { 3,    1000 + 100 * i, 1010 + 100 * i,
					 cpu,  chain,	       10 + 4 * i,
					 7 + i },
				   e = s;

		e.mono += 50, e.mono_exit += 50, e.cpu += 40, e.event++;
		cpu = i == 1 ? cpu - 500 : cpu + 300;
		if (i == 3)
			fixture_log_flush(fl); /* a new frame: a PAIR */
		fixture_log_pair_next(fl);
		fixture_log_skel_start(fl, &s, 9, 1, 2, CAUSAL_TRANSPORT_TCP,
				       NULL, 0, 1, xid[i], 8, CAUSAL_TAG_OK);
		fixture_log_skel_end(fl, &e, CAUSAL_REPLY_SUCCESS, 4);
		s.tid = e.tid = 4, s.function = e.function = 100 + i;
		fixture_log_pair_next(fl);
		fixture_log_stub_start(fl, &s, 9, 1, 3, CAUSAL_TRANSPORT_TCP,
				       NULL, 0, 2, 0, 0);
		fixture_log_stub_end(fl, &e, 0, 4, 4, CAUSAL_TAG_OK);
	}
}

/* Each record of a log packed again (msgpack), in order. */
struct packed {
	msgpack_sbuffer sb;
	int n;
};

static int pack_each(void *arg, const struct logread_record *lr)
{
	struct packed *p = arg;
	msgpack_packer pk;
	msgpack_zone zone;
	msgpack_object alone;

	msgpack_packer_init(&pk, &p->sb, msgpack_sbuffer_write);
	msgpack_pack_object(&pk, *lr->obj);
	/* the bytes handed on decode to the same (a NEXT pair's with its
	 * values) */
	msgpack_zone_init(&zone, 1024);
	ck_assert_int_eq(log_pair_object(lr->raw, lr->raw_len, lr->part,
					 lr->next, &zone, &alone),
			 0);
	msgpack_pack_object(&pk, alone);
	msgpack_zone_destroy(&zone);
	p->n++;
	return 0;
}

/*
 * Format 5 writes a thread's later pairs of a kind in a frame as NEXT
 * pairs, their counters as steps: read, they are the records format 4's
 * PAIRs are, from their objects and from the bytes handed on with the
 * values the reader took; a NEXT
 * pair with nothing before it in its frame is a bad record (and so are
 * the thread's next ones in the frame, which step from it), the records
 * around them read.
 */
START_TEST(test_next_pairs)
{
	struct packed p4 = { .n = 0 }, p5 = { .n = 0 };
	const char *path4 = tmp_path("n4.clog"), *path5 = tmp_path("n5.clog");
	struct logread_result res;
	struct fixture_log fl;

	msgpack_sbuffer_init(&p4.sb);
	msgpack_sbuffer_init(&p5.sb);
	ck_assert_int_eq(fixture_log_open(&fl, path4, 4), 0);
	write_calls(&fl);
	ck_assert_uint_eq(fl.nexts, 0);
	fixture_log_close(&fl);
	ck_assert_int_eq(fixture_log_open(&fl, path5, 5), 0);
	write_calls(&fl);
	ck_assert_uint_eq(fl.nexts, 2 * 2 + 2 * 1); /* frames of 3 and 2 */
	fixture_log_close(&fl);
	ck_assert_int_eq(logread_file(path4, pack_each, &p4, &res), 0);
	ck_assert_uint_eq(res.bad_records, 0);
	ck_assert_int_eq(logread_file(path5, pack_each, &p5, &res), 0);
	ck_assert_uint_eq(res.bad_records, 0);
	ck_assert_int_eq(p5.n, 20);
	ck_assert_int_eq(p4.n, p5.n);
	ck_assert(p4.sb.size == p5.sb.size &&
		  !memcmp(p4.sb.data, p5.sb.data, p4.sb.size));

	/* a NEXT pair whose first is in another frame */
	ck_assert_int_eq(fixture_log_open(&fl, path5, 5), 0);
	write_calls(&fl);
	fixture_log_flush(&fl);
	for (size_t i = 0; i < sizeof(fl.last) / sizeof(fl.last[0]); i++)
		if (fl.last[i].frame == fl.frame_no) /* the last frame's */
			fl.last[i].frame = fl.frame_no + 1;
	fixture_log_drops(&fl, 3, 5000, 0);
	write_calls(&fl);
	fixture_log_close(&fl);
	p5.n = 0;
	msgpack_sbuffer_clear(&p5.sb);
	ck_assert_int_eq(logread_file(path5, pack_each, &p5, &res), 0);
	/* threads 3 and 4: their three pairs in that frame, each stepping
	 * from the one before */
	ck_assert_uint_eq(res.bad_records, 6);
	ck_assert_int_eq(p5.n, 20 + 1 + 20 - 2 * 6);
	msgpack_sbuffer_destroy(&p4.sb);
	msgpack_sbuffer_destroy(&p5.sb);
}
END_TEST

START_TEST(test_bad_msgpack_in_frame)
{
	const char *path = tmp_path("p.clog");
	struct logread_result res;
	struct seen s = { 0 };
	struct fixture_log fl;

	/* A frame with a valid checksum but a cut msgpack object. */
	ck_assert_int_eq(fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION), 0);
	fixture_log_drops(&fl, 1, 7, 9);
	msgpack_pack_array(&fl.pk, 5);
	msgpack_pack_int(&fl.pk, 4);
	fixture_log_flush(&fl);
	fixture_log_drops(&fl, 1, 8, 10);
	fixture_log_close(&fl);

	ck_assert_int_eq(logread_file(path, collect, &s, &res), 0);
	ck_assert_int_eq(res.status, LOGREAD_CORRUPT);
	ck_assert_ptr_nonnull(strstr(res.error, "bad msgpack"));
	ck_assert_int_eq(s.n, 2);
	ck_assert_uint_eq(s.rec[1].drops.dropped, 10);
}
END_TEST

/* Stops the read at the third record, with a value of its own. */
static int stop(void *arg, const struct logread_record *lr)
{
	(void)arg;
	return lr->seq == 2 ? 42 : 0;
}

START_TEST(test_callback_stops)
{
	const char *path = tmp_path("s.clog");
	struct logread_result res;
	long ends[3];

	fixture_log_sample(path, uuid_a, "h", 42, NULL, 1, ends);
	ck_assert_int_eq(logread_file(path, stop, NULL, &res), 42);
	ck_assert_uint_eq(res.records, 3);
}
END_TEST

START_TEST(test_json_string)
{
	char buf[128] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	json_string(f, "a\"b\\c\n\x01\xff\xc3\xa9", 10);
	fclose(f);
	ck_assert_str_eq(buf, "\"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9\"");
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(record_type_name(CAUSAL_REC_THREAD_START, false), "THREAD_START");
	ck_assert_str_eq(record_type_name(CAUSAL_REC_EXEC_FAILED, true), "exec_failed");
	ck_assert_ptr_null(record_type_name(0, true));
	ck_assert_ptr_null(record_type_name(FIXTURE_UNKNOWN_TYPE, true));
	ck_assert_str_eq(record_marker_name(CAUSAL_MARKER_INFRA), "infra");
	ck_assert_str_eq(record_thread_end_name(CAUSAL_THREAD_AT_EXIT), "at_exit");
	ck_assert_str_eq(record_process_end_name(CAUSAL_END__EXIT), "_exit");
	ck_assert_ptr_null(record_process_end_name(4));
}
END_TEST

/* path dumped in fmt into out (size bytes, kept NUL-terminated). */
static void dump_into(const char *path, enum dump_format fmt, char *out,
		      size_t size)
{
	struct dump_stats st;
	FILE *f = fmemopen(out, size - 1, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(dump_path(f, path, fmt, &st), 0);
	fclose(f);
}

/* Numbers at their limits, in both formats (dump writes its own digits). */
START_TEST(test_dump_number_limits)
{
	const char *path = tmp_path("n.clog");
	struct fixture_log fl;
	char text[2048] = "", json[2048] = "";

	ck_assert_int_eq(fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION), 0);
	fixture_log_process_end(&fl, 0, UINT64_MAX, CAUSAL_END_EXIT, INT64_MIN,
				10, 0);
	fixture_log_process_end(&fl, 9, 1, CAUSAL_END_EXIT, -1, 0, 100);
	fixture_log_close(&fl);

	dump_into(path, DUMP_TEXT, text, sizeof(text));
	ck_assert_ptr_nonnull(strstr(
		text, "PROCESS_END tid=0 mono_ns=0"
		      " realtime_ns=18446744073709551615 reason=exit"
		      " detail=-9223372036854775808 records=10 dropped=0"));
	ck_assert_ptr_nonnull(strstr(text,
				     " mono_ns=9 realtime_ns=1 reason=exit"
				     " detail=-1 records=0 dropped=100"));

	dump_into(path, DUMP_JSON, json, sizeof(json));
	ck_assert_ptr_nonnull(strstr(
		json,
		"\"tid\":0,\"mono_ns\":0,"
		"\"realtime_ns\":18446744073709551615,\"reason\":\"exit\","
		"\"detail\":-9223372036854775808,\"records\":10"));
}
END_TEST

START_TEST(test_dump_rpc)
{
	const char *path = tmp_path("r.clog");
	uint8_t chain[CAUSAL_CHAIN_ID_LEN] = { 0xab };
	uint8_t sin[16] = { 2, 0, 0x08, 0x01, 127, 0, 0, 1 };	/* AF_INET, LE host */
	struct fixture_rpc p = { 3, 50, 51, 700, chain, 4, 9 };
	struct fixture_log fl;
	char text[4096] = "", json[4096] = "";

	ck_assert_int_eq(fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION), 0);
	fl.heap = (struct fixture_heap){ 1, 100, 40, 3, 1, 0 };
	fixture_log_stub_start(&fl, &p, 100003, 3, 1, CAUSAL_TRANSPORT_UDP, sin,
			       sizeof(sin), 2, 77, CAUSAL_RPC_ONE_WAY | CAUSAL_RPC_TAG_SENT);
	fl.heap = (struct fixture_heap){ 0 };
	fixture_log_stub_end(&fl, &p, 10, 1, 2, CAUSAL_TAG_STALE);
	fixture_log_skel_end(&fl, &p, 99, 5);
	fixture_log_close(&fl);

	dump_into(path, DUMP_TEXT, text, sizeof(text));
	ck_assert_ptr_nonnull(strstr(
		text, "RPC_STUB_START tid=3 mono_ns=50 chain=ab000000"
		      "00000000000000000000000000000000 event=4 function=9"
		      " mono_exit_ns=51 cpu_ns=700 prog=100003 vers=3 proc=1"
		      " transport=udp peer=127.0.0.1:2049 site=2 xid=77"
		      " flags=one_way|tag_sent heap_epoch=1 alloc_bytes=100"
		      " freed_bytes=40 allocs=3 frees=1 mon_off=-\n"));
	ck_assert_ptr_nonnull(
		strstr(text, " status=RPC_PROCUNAVAIL args_bytes=1"
			     " results_bytes=2 reply_tag=stale tag_sent=1"
			     " heap_epoch=0 alloc_bytes=0 freed_bytes=0"
			     " allocs=0 frees=0 mon_off=-\n"));
	/* Out of range: the number. */
	ck_assert_ptr_nonnull(
		strstr(text, " reply=99 results_bytes=5 heap_epoch=0"));

	dump_into(path, DUMP_JSON, json, sizeof(json));
	ck_assert_ptr_nonnull(strstr(json, "\"type\":\"rpc_stub_start\""));
	ck_assert_ptr_nonnull(strstr(
		json,
		"\"transport\":\"udp\",\"peer\":\"127.0.0.1:2049\""
		",\"site\":2,\"xid\":77,\"flags\":[\"one_way\",\"tag_sent\"],"
		"\"heap_epoch\":1,\"alloc_bytes\":100,\"freed_bytes\":40,"
		"\"allocs\":3,\"frees\":1,\"mon_off\":[]}"));
	ck_assert_ptr_nonnull(strstr(json, "\"status\":\"RPC_PROCUNAVAIL\""));
}
END_TEST

Suite *logread_suite(void)
{
	Suite *s = suite_create("logread");
	TCase *tc = tcase_create("logread");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_sample_decodes);
	tcase_add_test(tc, test_truncated_keeps_complete_frames);
	tcase_add_test(tc, test_corrupt_middle_frame);
	tcase_add_test(tc, test_corrupt_frame_magic);
	tcase_add_test(tc, test_exit_ns_both_formats);
	tcase_add_test(tc, test_rejects_foreign_and_newer);
	tcase_add_test(tc, test_empty_file);
	tcase_add_test(tc, test_bad_records_counted);
	tcase_add_loop_test(tc, test_pair_read_as_two_records, 3,
			    CAUSAL_FORMAT_VERSION + 1);
	tcase_add_test(tc, test_next_pairs);
	tcase_add_test(tc, test_bad_msgpack_in_frame);
	tcase_add_test(tc, test_callback_stops);
	tcase_add_test(tc, test_json_string);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_dump_rpc);
	tcase_add_test(tc, test_dump_number_limits);
	suite_add_tcase(s, tc);
	return s;
}
