/* check-encode.c - ring records to msgpack, field by field (log-format.h) */
#include <check.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "encode.h"
#include "identity.h"

static msgpack_object *encode_and_unpack(const struct causal_rec *rec,
					 msgpack_sbuffer *sb,
					 msgpack_unpacked *up)
{
	msgpack_packer pk;
	size_t off = 0;

	msgpack_sbuffer_init(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	ck_assert_int_eq(causal_encode_record(&pk, rec), 0);
	msgpack_unpacked_init(up);
	ck_assert_int_eq(msgpack_unpack_next(up, sb->data, sb->size, &off),
			 MSGPACK_UNPACK_SUCCESS);
	ck_assert_uint_eq(off, sb->size); /* exactly one object */
	ck_assert_int_eq(up->data.type, MSGPACK_OBJECT_ARRAY);
	return up->data.via.array.ptr;
}

START_TEST(thread_start_with_context)
{
	struct rec_thread_start r = { 0 };
	msgpack_sbuffer sb;
	msgpack_unpacked up;
	msgpack_object *f, *ctx;

	r.hdr.type = CAUSAL_REC_THREAD_START;
	r.hdr.size = sizeof(r);
	r.hdr.tid = 7;
	r.hdr.aux = 3; /* parent */
	r.hdr.mono_ns = 123456789012ull;
	r.os_tid = 4242;
	r.marker = CAUSAL_MARKER_INFRA;
	r.cpu_ns = 999;
	r.ctx.set = 1;
	memset(r.ctx.chain, 0xab, sizeof(r.ctx.chain));
	r.ctx.event = 5;
	r.ctx.function = 11;
	f = encode_and_unpack(&r.hdr, &sb, &up);
	/* 8, then the 5 heap fields (records.def, CAUSAL_FIELDS_HEAP), mon_off
	 */
	ck_assert_uint_eq(up.data.via.array.size, 14);
	ck_assert_uint_eq(f[0].via.u64, CAUSAL_REC_THREAD_START);
	ck_assert_uint_eq(f[1].via.u64, 7);
	ck_assert_uint_eq(f[2].via.u64, 123456789012ull);
	ck_assert_uint_eq(f[3].via.u64, 3);
	ck_assert_uint_eq(f[4].via.u64, 4242);
	ck_assert_uint_eq(f[5].via.u64, CAUSAL_MARKER_INFRA);
	ck_assert_uint_eq(f[6].via.u64, 999);
	ck_assert_int_eq(f[7].type, MSGPACK_OBJECT_ARRAY);
	ctx = f[7].via.array.ptr;
	ck_assert_int_eq(ctx[0].type, MSGPACK_OBJECT_BIN);
	ck_assert_uint_eq(ctx[0].via.bin.size, CAUSAL_CHAIN_ID_LEN);
	ck_assert_int_eq(memcmp(ctx[0].via.bin.ptr, r.ctx.chain, 20), 0);
	ck_assert_uint_eq(ctx[1].via.u64, 5);
	ck_assert_uint_eq(ctx[2].via.u64, 11);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
}
END_TEST

START_TEST(thread_start_without_context_is_nil)
{
	struct rec_thread_start r = { 0 };
	msgpack_sbuffer sb;
	msgpack_unpacked up;
	msgpack_object *f;

	r.hdr.type = CAUSAL_REC_THREAD_START;
	r.hdr.size = sizeof(r);
	f = encode_and_unpack(&r.hdr, &sb, &up);
	ck_assert_int_eq(f[7].type, MSGPACK_OBJECT_NIL);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
}
END_TEST

START_TEST(exec_path_and_simple_records)
{
	uint8_t buf[128] = { 0 };
	struct rec_exec *r = (void *)buf;
	struct causal_rec spawn = { CAUSAL_REC_THREAD_SPAWN, 0, 24, 1, 9, 77 };
	msgpack_sbuffer sb;
	msgpack_unpacked up;
	msgpack_object *f;

	r->hdr.type = CAUSAL_REC_EXEC;
	r->hdr.aux = 8;
	r->hdr.size = CAUSAL_REC_ALIGN(sizeof(*r) + 8);
	memcpy(r->tail, "/bin/truXXXX", 12); /* only aux (8) bytes count */
	f = encode_and_unpack(&r->hdr, &sb, &up);
	ck_assert_int_eq(f[3].type, MSGPACK_OBJECT_STR);
	ck_assert_uint_eq(f[3].via.str.size, 8);
	ck_assert_int_eq(memcmp(f[3].via.str.ptr, "/bin/tru", 8), 0);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);

	f = encode_and_unpack(&spawn, &sb, &up);
	ck_assert_uint_eq(up.data.via.array.size, 4);
	ck_assert_uint_eq(f[0].via.u64, CAUSAL_REC_THREAD_SPAWN);
	ck_assert_uint_eq(f[3].via.u64, 9); /* child tid */
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
}
END_TEST

START_TEST(unknown_type_is_refused)
{
	struct causal_rec r = { 200, 0, 24, 1, 0, 0 };
	msgpack_sbuffer sb;
	msgpack_packer pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	ck_assert_int_lt(causal_encode_record(&pk, &r), 0);
	ck_assert_uint_eq(sb.size, 0);
	msgpack_sbuffer_destroy(&sb);
}
END_TEST

/* id's HEADER (buffer_kb 64, flush_ms 10, the bpf clock) encoded, and
 * unpacked: exactly one array of its 20 elements. */
static msgpack_object *header_encoded(const struct causal_identity *id,
				      msgpack_sbuffer *sb, msgpack_unpacked *up)
{
	msgpack_packer pk;
	size_t off = 0;

	msgpack_sbuffer_init(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	causal_encode_header(&pk, id, 64, 10, CAUSAL_CPU_CLOCK_BPF, 0);
	msgpack_unpacked_init(up);
	ck_assert_int_eq(msgpack_unpack_next(up, sb->data, sb->size, &off),
			 MSGPACK_UNPACK_SUCCESS);
	ck_assert_uint_eq(off, sb->size);
	ck_assert_int_eq(up->data.type, MSGPACK_OBJECT_ARRAY);
	ck_assert_uint_eq(up->data.via.array.size, 21);
	return up->data.via.array.ptr;
}

START_TEST(header_carries_identity)
{
	static struct causal_identity id;
	msgpack_sbuffer sb;
	msgpack_unpacked up;
	msgpack_object *f;

	causal_identity_init(&id);
	f = header_encoded(&id, &sb, &up);
	ck_assert_uint_eq(f[0].via.u64, CAUSAL_REC_HEADER);
	ck_assert_uint_eq(f[3].via.u64, CAUSAL_FORMAT_VERSION);
	ck_assert_int_eq(memcmp(f[4].via.bin.ptr, id.uuid, 16), 0);
	ck_assert_int_eq(f[6].via.i64, (int64_t)getpid());
	/* argv[0] of this test runner */
	ck_assert_int_eq(f[9].type, MSGPACK_OBJECT_ARRAY);
	ck_assert_uint_ge(f[9].via.array.size, 1);
	ck_assert_ptr_nonnull(memmem(f[9].via.array.ptr[0].via.str.ptr,
				     f[9].via.array.ptr[0].via.str.size,
				     "run-tests", 9));
	ck_assert_int_eq(f[12].type, MSGPACK_OBJECT_NIL); /* no fork parent */
	ck_assert_uint_eq(f[13].via.u64, 64);
	ck_assert_uint_eq(f[14].via.u64, 10);
	ck_assert_uint_eq(f[15].via.u64, CAUSAL_CPU_CLOCK_BPF);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
}
END_TEST

/* The header of id, encoded and checked whole: its strings, argv and the
 * fields after them. */
static void check_header_whole(const struct causal_identity *id,
			       const size_t *len)
{
	msgpack_sbuffer sb;
	msgpack_unpacked up;
	msgpack_object *f = header_encoded(id, &sb, &up);

	ck_assert_uint_eq(f[8].via.str.size, strlen(id->exe));
	ck_assert_uint_eq(f[9].via.array.size, id->argc);
	for (uint32_t i = 0; i < id->argc; i++) {
		const msgpack_object *a = &f[9].via.array.ptr[i];
		char c = (char)('a' + i % 26);

		ck_assert_uint_eq(a->via.str.size, len[i]);
		ck_assert(!len[i] || (a->via.str.ptr[0] == c &&
				      a->via.str.ptr[len[i] - 1] == c));
	}
	ck_assert_uint_eq(f[11].via.u64, id->start_mono_ns);
	ck_assert_uint_eq(f[13].via.u64, 64);
	ck_assert_uint_eq(f[15].via.u64, CAUSAL_CPU_CLOCK_BPF);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
}

/* argv of n strings of these lengths, the i-th of the letter 'a' + i. */
static void set_argv(struct causal_identity *id, const size_t *len, uint32_t n)
{
	size_t used = 0;

	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_lt(used + len[i] + 1, sizeof(id->argv));
		memset(id->argv + used, 'a' + (char)(i % 26), len[i]);
		id->argv[used + len[i]] = 0;
		used += len[i] + 1;
	}
	id->argc = n;
	id->argv_len = (uint32_t)used;
}

/*
 * Strings of every length around the packer's buffer (1 KiB, half of it
 * kept free for the fields without a check for room): each comes back
 * whole, and so do the fields after them, whatever room the last string
 * left (under ASan, a field written past the buffer fails).
 */
START_TEST(long_strings_cross_the_packer_s_buffer)
{
	static struct causal_identity id;
	size_t len[64], l = 0;

	causal_identity_init(&id);
	memset(id.exe, 'x', 1500);
	id.exe[1500] = 0;
	for (len[0] = 0; len[0] <= 1200; len[0]++) {
		set_argv(&id, len, 1);
		check_header_whole(&id, len);
	}
	for (uint32_t n = 0; n < 64; n++, l = (l * 7 + 13) % 1100)
		len[n] = l;
	set_argv(&id, len, 64);
	check_header_whole(&id, len);
}
END_TEST

START_TEST(uuids_differ_and_are_version_4)
{
	static struct causal_identity a, b;
	char hex[33];

	causal_identity_init(&a);
	causal_identity_init(&b);
	ck_assert_int_ne(memcmp(a.uuid, b.uuid, 16), 0);
	ck_assert_uint_eq(a.uuid[6] >> 4, 4);
	causal_uuid_hex(a.uuid, hex);
	ck_assert_uint_eq(strlen(hex), 32);
	ck_assert_uint_eq(strspn(hex, "0123456789abcdef"), 32);
}
END_TEST

/* Every RPC record is exactly one array of the size log-format.h gives. */
START_TEST(rpc_records_have_documented_shapes)
{
	static const struct {
		uint16_t type;
		size_t body, extra, elements;
	} shapes[] = {
		/* each probe: its fields, then the 5 heap fields */
		{ CAUSAL_REC_RPC_STUB_START, sizeof(struct rec_rpc_stub_start),
		  16, 22 },
		{ CAUSAL_REC_RPC_STUB_END, sizeof(struct rec_rpc_stub_end), 0,
		  19 },
		{ CAUSAL_REC_RPC_SKEL_START, sizeof(struct rec_rpc_skel_start),
		  16, 23 },
		{ CAUSAL_REC_RPC_SKEL_END, sizeof(struct rec_rpc_skel_end), 0,
		  17 },
		{ CAUSAL_REC_RPC_SITE, sizeof(struct rec_rpc_site), 8, 6 },
		{ CAUSAL_REC_RPC_OBJECT, sizeof(struct rec_rpc_object), 8, 9 },
	};
	size_t i;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		uint8_t buf[512] = { 0 };
		struct causal_rec *rec = (void *)buf;
		msgpack_sbuffer sb;
		msgpack_unpacked up;

		rec->type = shapes[i].type;
		rec->size = CAUSAL_REC_ALIGN(shapes[i].body + shapes[i].extra);
		rec->aux = (uint32_t)shapes[i].extra; /* peer length */
		if (shapes[i].type == CAUSAL_REC_RPC_SITE) {
			struct rec_rpc_site *r = (void *)buf;

			r->symbol_len = 5;
			r->module_len = 3;
			memcpy(r->tail, "say_itabc", 8);
		}
		if (shapes[i].type == CAUSAL_REC_RPC_OBJECT) {
			struct rec_rpc_object *r = (void *)buf;

			r->address_len = 5;
			r->netid_len = 3;
		}
		encode_and_unpack(rec, &sb, &up);
		ck_assert_msg(up.data.via.array.size == shapes[i].elements,
			      "type %u: %u elements, documented %zu",
			      shapes[i].type, up.data.via.array.size,
			      shapes[i].elements);
		ck_assert_uint_eq(up.data.via.array.ptr[0].via.u64,
				  shapes[i].type);
		msgpack_unpacked_destroy(&up);
		msgpack_sbuffer_destroy(&sb);
	}
}
END_TEST

/* LOSS: [10, 0, mono, errno, lost, [[type, count]...]], counted types only. */
START_TEST(loss_lists_the_types_lost)
{
	uint64_t by_type[64] = { 0 };
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_unpacked up;
	msgpack_object *f, *pairs;
	size_t off = 0;

	by_type[CAUSAL_REC_THREAD_START] = 7;
	by_type[CAUSAL_REC_RPC_SKEL_END] = 5;
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	causal_encode_loss(&pk, 99, 28, 12, by_type, 64);
	msgpack_unpacked_init(&up);
	ck_assert_int_eq(msgpack_unpack_next(&up, sb.data, sb.size, &off),
			 MSGPACK_UNPACK_SUCCESS);
	ck_assert_uint_eq(up.data.via.array.size, 6);
	f = up.data.via.array.ptr;
	ck_assert_uint_eq(f[0].via.u64, CAUSAL_REC_LOSS);
	ck_assert_uint_eq(f[1].via.u64, 0);
	ck_assert_uint_eq(f[2].via.u64, 99);
	ck_assert_uint_eq(f[3].via.u64, 28);
	ck_assert_uint_eq(f[4].via.u64, 12);
	ck_assert_int_eq(f[5].type, MSGPACK_OBJECT_ARRAY);
	ck_assert_uint_eq(f[5].via.array.size, 2);
	pairs = f[5].via.array.ptr;
	ck_assert_uint_eq(pairs[0].via.array.ptr[0].via.u64,
			  CAUSAL_REC_THREAD_START);
	ck_assert_uint_eq(pairs[0].via.array.ptr[1].via.u64, 7);
	ck_assert_uint_eq(pairs[1].via.array.ptr[0].via.u64,
			  CAUSAL_REC_RPC_SKEL_END);
	ck_assert_uint_eq(pairs[1].via.array.ptr[1].via.u64, 5);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
}
END_TEST

/*
 * Our packer writes msgpack-c's bytes: the encoding of a record equals
 * msgpack-c's own packing of what it decodes to (the smallest form of
 * every integer, str/bin/array headers), at every boundary between
 * forms, and for strings longer than the packer's buffer.
 */
static void assert_canonical(const struct causal_rec *rec)
{
	msgpack_sbuffer sb, again;
	msgpack_unpacked up;
	msgpack_packer pk;

	encode_and_unpack(rec, &sb, &up);
	msgpack_sbuffer_init(&again);
	msgpack_packer_init(&pk, &again, msgpack_sbuffer_write);
	ck_assert_int_eq(msgpack_pack_object(&pk, up.data), 0);
	ck_assert_uint_eq(again.size, sb.size);
	ck_assert(memcmp(again.data, sb.data, sb.size) == 0);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
	msgpack_sbuffer_destroy(&again);
}

/* o is the integer v, of msgpack-c's type for it. */
static void assert_int_is(const msgpack_object *o, int64_t v)
{
	if (v < 0) {
		ck_assert_int_eq(o->type, MSGPACK_OBJECT_NEGATIVE_INTEGER);
		ck_assert_int_eq(o->via.i64, v);
	} else {
		ck_assert_int_eq(o->type, MSGPACK_OBJECT_POSITIVE_INTEGER);
		ck_assert_uint_eq(o->via.u64, (uint64_t)v);
	}
}

/*
 * An RPC probe's exit time (records.def, EXIT_NS): -(distance past the
 * entry) - 1, in the smallest form, from 1 byte (a negative fixint) up;
 * before the entry, the time itself.
 */
START_TEST(exit_time_as_its_distance)
{
	static const uint64_t mono = 5000000000000ull;
	static const uint64_t past[] = { 0,	 30,	     31,	32,
					 127,	 128,	     32767,	32768,
					 100000, 1ull << 31, 1ull << 40 };

	for (size_t k = 0; k <= sizeof(past) / sizeof(past[0]); k++) {
		struct rec_rpc_skel_end r = { 0 };
		msgpack_sbuffer sb;
		msgpack_unpacked up;
		msgpack_object *f;
		int before = k == sizeof(past) / sizeof(past[0]);

		r.p.hdr.type = CAUSAL_REC_RPC_SKEL_END;
		r.p.hdr.size = sizeof(r);
		r.p.hdr.mono_ns = mono;
		r.p.mono_exit_ns = before ? mono - 1 : mono + past[k];
		assert_canonical(&r.p.hdr);
		f = encode_and_unpack(&r.p.hdr, &sb, &up);
		/* [type, tid, mono_ns, chain, event, function, mono_exit_ns */
		if (before)
			assert_int_is(&f[6], (int64_t)(mono - 1));
		else
			assert_int_is(&f[6], -(int64_t)past[k] - 1);
		msgpack_unpacked_destroy(&up);
		msgpack_sbuffer_destroy(&sb);
	}
}
END_TEST

START_TEST(packing_is_msgpack_c_s)
{
	static const uint64_t u[] = {
		0,	    1,	   127,	  128,		 255,
		256,	    65535, 65536, 0xffffffffull, 0x100000000ull,
		UINT64_MAX,
	};
	static const int64_t i[] = {
		0,	   -1,	   -32,	   -33,	      -128,
		-129,	   -32768, -32769, INT32_MIN, (int64_t)INT32_MIN - 1,
		INT64_MIN, 127,	   128,	   65536,     INT64_MAX,
	};
	static char path[6000];
	static uint64_t exbuf[(sizeof(struct rec_exec) + sizeof(path)) / 8 + 1];
	struct rec_exec *ex = (void *)exbuf;
	static const size_t lens[] = {
		0, 31, 32, 255, 256, 511, 512, 513, 5000
	};

	for (size_t k = 0; k < sizeof(u) / sizeof(u[0]); k++) {
		struct rec_thread_end r = { 0 };

		r.hdr.type = CAUSAL_REC_THREAD_END;
		r.hdr.size = sizeof(r);
		r.hdr.tid = (uint32_t)u[k];
		r.hdr.aux = (uint32_t)u[k];
		r.hdr.mono_ns = u[k];
		r.cpu_ns = u[k];
		r.heap_epoch = 1;
		r.alloc_bytes = u[k];
		r.heap_peak = i[k % (sizeof(i) / sizeof(i[0]))];
		r.mon_off = (uint8_t)u[k];
		assert_canonical(&r.hdr);
	}
	for (size_t k = 0; k < sizeof(i) / sizeof(i[0]); k++) {
		struct rec_thread_end r = { 0 };
		msgpack_sbuffer sb;
		msgpack_unpacked up;
		msgpack_object *f;

		r.hdr.type = CAUSAL_REC_THREAD_END;
		r.hdr.size = sizeof(r);
		r.heap_peak = i[k];
		assert_canonical(&r.hdr);
		/* canonical is not enough: -1 once went out as the 9 bytes
		 * of 2^64 - 1, which msgpack-c packs back the same */
		f = encode_and_unpack(&r.hdr, &sb, &up);
		assert_int_is(&f[up.data.via.array.size - 2], i[k]);
		msgpack_unpacked_destroy(&up);
		msgpack_sbuffer_destroy(&sb);
	}
	memset(path, 'p', sizeof(path));
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		memset(exbuf, 0, sizeof(exbuf));
		ex->hdr.type = CAUSAL_REC_EXEC;
		ex->hdr.size =
			(uint32_t)CAUSAL_REC_ALIGN(sizeof(*ex) + lens[k]);
		ex->hdr.aux = (uint32_t)lens[k];
		memcpy(ex->tail, path, lens[k]);
		assert_canonical(&ex->hdr);
	}
}
END_TEST

Suite *encode_suite(void)
{
	Suite *s = suite_create("encode");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, thread_start_with_context);
	tcase_add_test(tc, thread_start_without_context_is_nil);
	tcase_add_test(tc, exec_path_and_simple_records);
	tcase_add_test(tc, unknown_type_is_refused);
	tcase_add_test(tc, header_carries_identity);
	tcase_add_test(tc, long_strings_cross_the_packer_s_buffer);
	tcase_add_test(tc, uuids_differ_and_are_version_4);
	tcase_add_test(tc, rpc_records_have_documented_shapes);
	tcase_add_test(tc, loss_lists_the_types_lost);
	tcase_add_test(tc, packing_is_msgpack_c_s);
	tcase_add_test(tc, exit_time_as_its_distance);
	suite_add_tcase(s, tc);
	return s;
}
