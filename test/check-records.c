/*
 * check-records.c - the tables of include/causal/records.def and
 * enums.def, from the library's encoder to the tools' decoder.
 *
 * Every record type is filled (in its in-memory form, preload/record.h)
 * with a value of its own in every field, encoded by the library
 * (preload/encode.c), decoded by the tools (tracedump/log-record.c) and
 * compared field by field: two fields swapped anywhere on the way, even
 * of the same kind, fail.  The fill and the comparison are generated from
 * the tables, so a new field or type is covered without a line here.
 * Besides: a probe's start and end written as one PAIR read back as the
 * bytes of the two; the encoder's bytes equal those log-fixture.c writes by
 * hand from log-format.h for the types it has writers of (the format does
 * not move), and those its writer generated from records.def writes for
 * every type; a record cut after its required fields still decodes, and
 * before them does not; `tracedump dump` prints every field; every enum
 * value has its name.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rpc/clnt_stat.h>

#include "dump.h"
#include "encode.h"
#include "log-fixture.h"
#include "log-pair.h"
#include "log-record.h"
#include "pair-next.h"
#include "test-tmpdir.h"

/* ---- filling a record ---------------------------------------------------- */

/* Where the values of one record come from. */
struct fill {
	unsigned k;    /* values drawn so far: the next one's seed */
	int nil;       /* nil-able fields nil, variable-length ones empty */
	uint8_t *tail; /* where the next variable-length field goes */
	size_t used;   /* of pool */
	_Alignas(8) uint8_t pool[2048]; /* what pointer fields point to */
};

/* A value no other field of the record has, with every byte set. */
static uint64_t value(struct fill *f, unsigned bits)
{
	uint64_t v = ++f->k * 0x0101010101010101ull;

	return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

static void *pool(struct fill *f, size_t n)
{
	void *p = f->pool + f->used;

	f->used += (n + 7) & ~(size_t)7;
	ck_assert_uint_le(f->used, sizeof(f->pool));
	return p;
}

static void fill_bytes(struct fill *f, uint8_t *p, size_t n)
{
	unsigned k = ++f->k;

	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(k * 37 + i);
}

static const uint8_t *pool_bytes(struct fill *f, size_t n)
{
	uint8_t *p = pool(f, n);

	fill_bytes(f, p, n);
	return p;
}

static void text(struct fill *f, char *p, size_t n)
{
	unsigned k = ++f->k;

	for (size_t i = 0; i < n; i++)
		p[i] = (char)('a' + (k * 7 + i) % 26);
}

static const char *pool_str(struct fill *f)
{
	char *s = pool(f, 16);

	text(f, s, 15);
	s[15] = '\0';
	return s;
}

/* Two strings, or none; the last one without its NUL (argv cut short). */
static struct rec_strv pool_strv(struct fill *f)
{
	char *s = pool(f, 16);

	if (f->nil)
		return (struct rec_strv){ s, 0, 0 };
	text(f, s, 12);
	s[5] = '\0';
	return (struct rec_strv){ s, 11, 2 };
}

static struct rec_counts pool_counts(struct fill *f)
{
	uint64_t *c = pool(f, 12 * sizeof(*c));

	memset(c, 0, 12 * sizeof(*c));
	if (!f->nil) {
		c[1] = value(f, 64);
		c[7] = value(f, 8);
		c[11] = value(f, 32);
	}
	return (struct rec_counts){ c, 12 };
}

static struct rec_ctx fill_ctx(struct fill *f)
{
	struct rec_ctx ctx = { 0 };

	ctx.set = !f->nil;
	fill_bytes(f, ctx.chain, sizeof(ctx.chain));
	ctx.event = value(f, 64);
	ctx.function = value(f, 64);
	return ctx;
}

/* A variable-length field into the tail: its length. */
static uint32_t tail_bytes(struct fill *f, int is_text)
{
	uint32_t n = f->nil ? 0 : 3 + f->k % 5;

	if (is_text)
		text(f, (char *)f->tail, n);
	else
		fill_bytes(f, f->tail, n);
	f->tail += n;
	return n;
}

/* clang-format off */
#define FILL_U8(s, name) s->name = (uint8_t)value(f, 8);
#define FILL_U16(s, name) s->name = (uint16_t)value(f, 16);
#define FILL_U32(s, name) s->name = (uint32_t)value(f, 32);
#define FILL_U64(s, name) s->name = value(f, 64);
#define FILL_I32(s, name) s->name = -(int32_t)value(f, 31);
#define FILL_I64(s, name) s->name = -(int64_t)value(f, 63);
/* past mono_ns (written as the distance), or before it (as itself) */
#define FILL_EXIT_NS(s, name)                                                  \
	s->name = f->nil ? rec->mono_ns - 1 : rec->mono_ns + value(f, 32);
#define FILL_AUX(s, name) rec->aux = (uint32_t)value(f, 31);
#define FILL_AUX_I(s, name) rec->aux = (uint32_t)value(f, 31);
#define FILL_CHAIN(s, name) fill_bytes(f, s->name, CAUSAL_CHAIN_ID_LEN);
#define FILL_UUID(s, name) s->name = pool_bytes(f, CAUSAL_UUID_LEN);
#define FILL_UUID_NIL(s, name)                                                 \
	s->name = f->nil ? NULL : pool_bytes(f, CAUSAL_UUID_LEN);
#define FILL_STRZ(s, name) s->name = pool_str(f);
#define FILL_STRV(s, name) s->name = pool_strv(f);
#define FILL_COUNTS(s, name) s->name = pool_counts(f);
#define FILL_CTX(s, name) s->name = fill_ctx(f);
#define FILL_STR_AUX(s, name) rec->aux = tail_bytes(f, 1);
#define FILL_BIN_AUX(s, name) rec->aux = tail_bytes(f, 0);
#define FILL_STR_L8(s, name) s->name##_len = (uint8_t)tail_bytes(f, 1);
#define FILL_STR_L16(s, name) s->name##_len = (uint16_t)tail_bytes(f, 1);
#define FILL_BIN_L8(s, name) s->name##_len = (uint8_t)tail_bytes(f, 0);
/* clang-format on */

/* ---- comparing the decoded record with it ------------------------------- */

static void check_u(const char *where, uint64_t got, uint64_t want)
{
	ck_assert_msg(got == want, "%s: %llu, want %llu", where,
		      (unsigned long long)got, (unsigned long long)want);
}

static void check_i(const char *where, int64_t got, int64_t want)
{
	ck_assert_msg(got == want, "%s: %lld, want %lld", where, (long long)got,
		      (long long)want);
}

static void check_bytes(const char *where, const uint8_t *got,
			const uint8_t *want, size_t n)
{
	ck_assert_msg(!got == !want, "%s: %s, want %s", where,
		      got ? "bytes" : "nil", want ? "bytes" : "nil");
	ck_assert_msg(!want || !memcmp(got, want, n), "%s: other bytes", where);
}

static void check_str(const char *where, struct record_str got,
		      const void *want, size_t n)
{
	ck_assert_msg(got.len == n && !memcmp(got.ptr, want, n),
		      "%s: \"%.*s\", want \"%.*s\"", where, (int)got.len,
		      got.ptr, (int)n, (const char *)want);
}

static void check_tail_str(const char *where, struct record_str got,
			   const uint8_t **tail, size_t n)
{
	check_str(where, got, *tail, n);
	*tail += n;
}

/* Empty: nil. */
static void check_tail_bin(const char *where, struct record_bin got,
			   const uint8_t **tail, size_t n)
{
	ck_assert_msg(n ? got.ptr && got.len == n : !got.ptr,
		      "%s: %zu bytes%s, want %zu", where, got.len,
		      got.ptr ? "" : " (nil)", n);
	ck_assert_msg(!n || !memcmp(got.ptr, *tail, n), "%s: other bytes",
		      where);
	*tail += n;
}

static void check_strv(const char *where, const msgpack_object *got,
		       const struct rec_strv *want)
{
	const char *s = want->buf;

	ck_assert_msg(got->via.array.size == want->count,
		      "%s: %u strings, want %u", where, got->via.array.size,
		      want->count);
	for (uint32_t i = 0; i < want->count; i++) {
		size_t n = strnlen(s, (size_t)(want->buf + want->len - s));
		struct record_str str = { got->via.array.ptr[i].via.str.ptr,
					  got->via.array.ptr[i].via.str.size };

		check_str(where, str, s, n);
		s += n + 1;
	}
}

static void check_counts(const char *where, const msgpack_object *got,
			 const struct rec_counts *want)
{
	uint32_t i = 0;

	for (unsigned t = 0; t < want->n; t++) {
		const msgpack_object *p;

		if (!want->count[t])
			continue;
		ck_assert_msg(got && i < got->via.array.size,
			      "%s: pair %u missing", where, i);
		p = got->via.array.ptr[i++].via.array.ptr;
		check_u(where, p[0].via.u64, t);
		check_u(where, p[1].via.u64, want->count[t]);
	}
	ck_assert_msg(!got || i == got->via.array.size,
		      "%s: more pairs than counts", where);
}

static void check_ctx(const char *where, const struct record_ctx *got,
		      const struct rec_ctx *want)
{
	ck_assert_msg(got->set == want->set, "%s: set %d, want %d", where,
		      got->set, want->set);
	if (!want->set)
		return;
	check_bytes(where, got->chain, want->chain, CAUSAL_CHAIN_ID_LEN);
	check_u(where, got->event, want->event);
	check_u(where, got->function, want->function);
}

/* clang-format off */
/* CMP_<KIND>(in-memory struct, member, decoded field, "type.member") */
#define CMP_U8(s, name, d, w) check_u(w, d, s->name);
#define CMP_U16 CMP_U8
#define CMP_U32 CMP_U8
#define CMP_U64 CMP_U8
#define CMP_I32(s, name, d, w) check_i(w, d, s->name);
#define CMP_I64 CMP_I32
#define CMP_EXIT_NS CMP_U64
#define CMP_AUX(s, name, d, w) check_u(w, d, rec->aux);
#define CMP_AUX_I(s, name, d, w) check_i(w, d, (int64_t)rec->aux);
#define CMP_CHAIN(s, name, d, w) check_bytes(w, d, s->name, CAUSAL_CHAIN_ID_LEN);
#define CMP_UUID(s, name, d, w) check_bytes(w, d, s->name, CAUSAL_UUID_LEN);
#define CMP_UUID_NIL CMP_UUID
#define CMP_STRZ(s, name, d, w) check_str(w, d, s->name, strlen(s->name));
#define CMP_STRV(s, name, d, w) check_strv(w, d, &s->name);
#define CMP_COUNTS(s, name, d, w) check_counts(w, d, &s->name);
#define CMP_CTX(s, name, d, w) check_ctx(w, &d, &s->name);
#define CMP_STR_AUX(s, name, d, w) check_tail_str(w, d, &tail, rec->aux);
#define CMP_BIN_AUX(s, name, d, w) check_tail_bin(w, d, &tail, rec->aux);
#define CMP_STR_L8(s, name, d, w) check_tail_str(w, d, &tail, s->name##_len);
#define CMP_STR_L16 CMP_STR_L8
#define CMP_BIN_L8(s, name, d, w) check_tail_bin(w, d, &tail, s->name##_len);
/* clang-format on */

/* ---- every type, generated ----------------------------------------------- */

static _Alignas(8) uint8_t mem[8192]; /* the in-memory record */

/* Encode rec by the library; unpack it into up. */
static const msgpack_object *encode(const struct causal_rec *rec,
				    msgpack_sbuffer *sb, msgpack_unpacked *up)
{
	msgpack_packer pk;
	size_t off = 0;

	msgpack_sbuffer_init(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	ck_assert_int_eq(causal_encode_record(&pk, rec), 0);
	msgpack_unpacked_init(up);
	ck_assert_int_eq(msgpack_unpack_next(up, sb->data, sb->size, &off),
			 MSGPACK_UNPACK_SUCCESS);
	ck_assert_uint_eq(off, sb->size);
	return &up->data;
}

/* clang-format off */
#define FILL_FIELD(name, KIND, SHOW, en, dump) FILL_##KIND(r, name)
#define FILL_PROBE_FIELD(name, KIND, SHOW, en, dump) FILL_##KIND((&r->p), name)
#define FILL_START_NONE
#define FILL_START_RPC_PROBE CAUSAL_FIELDS_RPC_PROBE(FILL_PROBE_FIELD)
#define CHECK_FIELD(name, KIND, SHOW, en, dump)                                \
	CMP_##KIND(r, name, m->name, where(t, #name))
#define CHECK_PROBE_FIELD(name, KIND, SHOW, en, dump)                          \
	CMP_##KIND((&r->p), name, m->p.name, where(t, #name))
#define CHECK_START_NONE
#define CHECK_START_RPC_PROBE CAUSAL_FIELDS_RPC_PROBE(CHECK_PROBE_FIELD)
/* clang-format on */

static const char *where(const char *type, const char *field)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s.%s", type, field);
	return buf;
}

/*
 * filled_<lower>(f): the in-memory record in mem, every field its own value;
 * decoded_<lower>(dec): is dec that record, decoded?
 */
/* clang-format off */
#define PER_TYPE(num, UPPER, lower, member, GROUP, nreq)                       \
	static struct causal_rec *filled_##lower(struct fill *f)               \
	{                                                                      \
		struct rec_##lower *r = (void *)mem;                           \
		struct causal_rec *rec = (void *)mem;                          \
									       \
		f->tail = r->tail;                                             \
		rec->type = CAUSAL_REC_##UPPER;                                \
		rec->tid = (uint32_t)value(f, 32);                             \
		rec->mono_ns = value(f, 64);                                   \
		FILL_START_##GROUP                                             \
		CAUSAL_FIELDS_##UPPER(FILL_FIELD)                              \
		rec->size = (uint32_t)CAUSAL_REC_ALIGN(f->tail - mem);         \
		return rec;                                                    \
	}                                                                      \
	static void decoded_##lower(const struct record *d)                    \
	{                                                                      \
		const struct record dec = *d;                                  \
		const struct rec_##lower *r = (const void *)mem;               \
		const struct causal_rec *rec = (const void *)mem;              \
		const struct record_##lower *m = &dec.member;                  \
		const uint8_t *tail = r->tail;                                 \
		const char *t = #lower;                                        \
									       \
		check_u(where(t, "type"), dec.type, rec->type);                \
		check_u(where(t, "tid"), dec.tid, rec->tid);                   \
		check_u(where(t, "mono_ns"), dec.mono_ns, rec->mono_ns);       \
		CHECK_START_##GROUP                                            \
		CAUSAL_FIELDS_##UPPER(CHECK_FIELD)                             \
		(void)tail, (void)m;                                           \
	}
CAUSAL_RECORDS(PER_TYPE)
/* clang-format on */

struct type_case {
	unsigned type, elems, req_elems;
	const char *name;
	struct causal_rec *(*fill)(struct fill *f);
	void (*check)(const struct record *d);
};

/* clang-format off */
#define TYPE_CASE(num, UPPER, lower, member, GROUP, nreq)                      \
	{ CAUSAL_REC_##UPPER, CAUSAL_ELEMS_##UPPER, CAUSAL_REQ_ELEMS_##UPPER,  \
	  #lower, filled_##lower, decoded_##lower },
static const struct type_case types[] = { CAUSAL_RECORDS(TYPE_CASE) };
#define N_TYPES (sizeof(types) / sizeof(types[0]))
/* clang-format on */

/* Loop test i: type i / 2, with every field set (even i) or nil / empty. */
static const struct type_case *type_fill(int i, struct fill *f)
{
	const struct type_case *tc = &types[i / 2];

	memset(mem, 0, sizeof(mem));
	memset(f, 0, sizeof(*f));
	f->nil = i % 2;
	tc->fill(f);
	return tc;
}

START_TEST(every_type_round_trips)
{
	static struct fill f;
	const struct type_case *tc = type_fill(_i, &f);
	msgpack_sbuffer sb;
	msgpack_unpacked up;
	const msgpack_object *o = encode((void *)mem, &sb, &up);
	struct record dec;

	ck_assert_msg(o->type == MSGPACK_OBJECT_ARRAY &&
			      o->via.array.size == tc->elems,
		      "%s: %u elements, records.def has %u", tc->name,
		      o->via.array.size, tc->elems);
	ck_assert_msg(record_decode(o, &dec) == 0, "%s: does not decode",
		      tc->name);
	ck_assert(record_known(dec.type));
	tc->check(&dec);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
}
END_TEST

/*
 * The record cut to n elements, or with an extra one (n = elems + 1):
 * it decodes when it has at least the required ones, the others read 0.
 */
START_TEST(only_required_fields_are_required)
{
	static struct fill f;
	const struct type_case *tc = type_fill(_i, &f);
	msgpack_sbuffer sb;
	msgpack_unpacked up;
	const msgpack_object *o = encode((void *)mem, &sb, &up);

	for (uint32_t n = 3; n <= tc->elems + 1; n++) {
		msgpack_object a = *o;
		msgpack_object extra[64];
		struct record dec;
		int rc;

		if (n > tc->elems) {
			/* a field of a later version: ignored */
			ck_assert_uint_lt(tc->elems, 64);
			memcpy(extra, o->via.array.ptr,
			       tc->elems * sizeof(extra[0]));
			extra[tc->elems].type = MSGPACK_OBJECT_NIL;
			a.via.array.ptr = extra;
		}
		a.via.array.size = n;
		rc = record_decode(&a, &dec);
		ck_assert_msg((rc == 0) == (n >= tc->req_elems),
			      "%s cut to %u elements (%u required): %d",
			      tc->name, n, tc->req_elems, rc);
		if (rc == 0 && n >= tc->elems)
			tc->check(&dec);
	}
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
}
END_TEST

/* ---- a probe's start and end as one record (format 4) -------------------- */

/* The record of this type, filled (values from seed on), copied to out. */
static struct causal_rec *filled_as(unsigned type, int nil, unsigned seed,
				    uint8_t *out)
{
	static struct fill f;

	memset(mem, 0, sizeof(mem));
	memset(&f, 0, sizeof(f));
	f.nil = nil;
	f.k = seed;
	for (size_t i = 0; i < N_TYPES; i++)
		if (types[i].type == type) {
			struct causal_rec *rec = types[i].fill(&f);

			memcpy(out, rec, rec->size);
			return (void *)out;
		}
	ck_abort_msg("type %u: not in records.def", type);
	return NULL;
}

/* The bytes of encode_fn's output. */
static size_t encoded(msgpack_sbuffer *sb, const struct causal_rec *a,
		      const struct causal_rec *b)
{
	msgpack_packer pk;

	msgpack_sbuffer_init(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	if (b ? causal_encode_pair(&pk, a, b, NULL, 0)
	      : causal_encode_record(&pk, a))
		return 0;
	return sb->size;
}

static void check_packs_to(const msgpack_object *o, const msgpack_sbuffer *want,
			   const char *what)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	ck_assert_int_eq(msgpack_pack_object(&pk, *o), 0);
	ck_assert_msg(sb.size == want->size &&
			      !memcmp(sb.data, want->data, sb.size),
		      "%s: %zu bytes, not the %zu bytes of its own record",
		      what, sb.size, want->size);
	msgpack_sbuffer_destroy(&sb);
}

/*
 * Loop test i: pair i / 2 of CAUSAL_RPC_PAIRS, every field set (even i)
 * or nil / empty.  Its start and end, each with values of its own (the
 * end's mono_ns, event and cpu_ns below the start's as often as above:
 * any values come back), written as one PAIR by the encoder and split by
 * the reader, are the bytes each encodes to alone.  Two records that are
 * not one probe's are refused.
 */
START_TEST(a_pair_reads_back_as_its_two_records)
{
#define PAIR_ROW(num, UPPER, START, END)                                       \
	{ CAUSAL_REC_##UPPER, CAUSAL_REC_##START, CAUSAL_REC_##END },
	static const unsigned pairs[][3] = { CAUSAL_RPC_PAIRS(PAIR_ROW) };
	static _Alignas(8) uint8_t a_mem[4096], b_mem[4096];
	const unsigned *pt = pairs[_i / 2];
	struct causal_rec *a = filled_as(pt[1], _i % 2, 1, a_mem);
	struct causal_rec *b = filled_as(pt[2], _i % 2, 100, b_mem);
	struct rec_rpc_probe *ap = (void *)a, *bp = (void *)b;
	msgpack_sbuffer sa, sb, sp;
	msgpack_unpacked up;
	msgpack_object start, end;
	msgpack_zone zone;
	size_t off = 0;

	ck_assert_uint_eq(sizeof(pairs) / sizeof(pairs[0]), 2);
	/* one probe's: the same thread, chain and function */
	b->tid = a->tid;
	memcpy(bp->chain, ap->chain, CAUSAL_CHAIN_ID_LEN);
	bp->function = ap->function;
	ck_assert_uint_gt(encoded(&sa, a, NULL), 0);
	ck_assert_uint_gt(encoded(&sb, b, NULL), 0);
	ck_assert_uint_gt(encoded(&sp, a, b), 0);
	ck_assert_uint_lt(sp.size, sa.size + sb.size);

	msgpack_unpacked_init(&up);
	ck_assert_int_eq(msgpack_unpack_next(&up, sp.data, sp.size, &off),
			 MSGPACK_UNPACK_SUCCESS);
	ck_assert_uint_eq(off, sp.size);
	ck_assert(log_pair_type((unsigned)up.data.via.array.ptr[0].via.u64));
	ck_assert_uint_eq(up.data.via.array.ptr[0].via.u64, pt[0]);
	msgpack_zone_init(&zone, 4096);
	ck_assert_int_eq(log_pair_split(&up.data, &zone, &start, &end), 0);
	check_packs_to(&start, &sa, "the start");
	check_packs_to(&end, &sb, "the end");
	/* without its end array it is no pair */
	up.data.via.array.size--;
	ck_assert_int_eq(log_pair_split(&up.data, &zone, &start, &end),
			 -EINVAL);
	msgpack_zone_destroy(&zone);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sp);

	/* not one probe's: nothing written */
	bp->function++;
	ck_assert_uint_eq(encoded(&sp, a, b), 0);
	ck_assert_uint_eq(sp.size, 0);
	bp->function--;
	bp->chain[7] ^= 1;
	ck_assert_uint_eq(encoded(&sp, a, b), 0);
	bp->chain[7] ^= 1;
	b->tid++;
	ck_assert_uint_eq(encoded(&sp, a, b), 0);
	b->tid--;
	ck_assert_uint_eq(encoded(&sp, b, a), 0); /* end, then start */
	ck_assert_uint_eq(encoded(&sp, a, a), 0); /* two starts */
	ck_assert_uint_gt(encoded(&sp, a, b), 0); /* and back */
	msgpack_sbuffer_destroy(&sp);
	msgpack_sbuffer_destroy(&sa);
	msgpack_sbuffer_destroy(&sb);
}
END_TEST

/* The xid of a pair kind's start (both have one, records.def). */
static uint32_t *xid_of(struct causal_rec *start)
{
	if (start->type == CAUSAL_REC_RPC_STUB_START)
		return &((struct rec_rpc_stub_start *)(void *)start)->xid;
	ck_assert_uint_eq(start->type, CAUSAL_REC_RPC_SKEL_START);
	return &((struct rec_rpc_skel_start *)(void *)start)->xid;
}

/* a's and b's pair encoded with memo in frame into sb; its type. */
static unsigned encoded_with(msgpack_sbuffer *sb, struct causal_pair_memo *memo,
			     uint64_t frame, const struct causal_rec *a,
			     const struct causal_rec *b)
{
	msgpack_unpacked up;
	msgpack_packer pk;
	size_t off = 0;
	unsigned type;

	msgpack_sbuffer_init(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	ck_assert_int_eq(causal_encode_pair(&pk, a, b, memo, frame), 0);
	msgpack_unpacked_init(&up);
	ck_assert_int_eq(msgpack_unpack_next(&up, sb->data, sb->size, &off),
			 MSGPACK_UNPACK_SUCCESS);
	type = (unsigned)up.data.via.array.ptr[0].via.u64;
	msgpack_unpacked_destroy(&up);
	return type;
}

/* The pair in sb taken by m and split: the start and end pack to sa and
 * sbe; its bytes decoded again with the values taken, the same.  Whether
 * it was a NEXT pair. */
static bool reads_back(struct pair_next *m, const msgpack_sbuffer *sb,
		       const msgpack_sbuffer *sa, const msgpack_sbuffer *sbe)
{
	msgpack_object start, end, again;
	struct pair_next_values v;
	msgpack_unpacked up;
	msgpack_zone zone;
	size_t off = 0;
	bool next;

	msgpack_unpacked_init(&up);
	msgpack_zone_init(&zone, 4096);
	ck_assert_int_eq(msgpack_unpack_next(&up, sb->data, sb->size, &off),
			 MSGPACK_UNPACK_SUCCESS);
	ck_assert_int_eq(pair_next_take(m, &up.data, &v, &next), 0);
	ck_assert_int_eq(log_pair_split(&up.data, &zone, &start, &end), 0);
	check_packs_to(&start, sa, "the start");
	check_packs_to(&end, sbe, "the end");
	ck_assert_int_eq(log_pair_object(sb->data, sb->size, 1,
					 next ? &v : NULL, &zone, &again),
			 0);
	check_packs_to(&again, sa, "the start from its bytes");
	ck_assert_int_eq(log_pair_object(sb->data, sb->size, 2,
					 next ? &v : NULL, &zone, &again),
			 0);
	check_packs_to(&again, sbe, "the end from its bytes");
	/* its bytes alone are not the pair */
	if (next)
		ck_assert_int_eq(log_pair_object(sb->data, sb->size, 1, NULL,
						 &zone, &again),
				 -EINVAL);
	msgpack_zone_destroy(&zone);
	msgpack_unpacked_destroy(&up);
	return next;
}

/*
 * Loop test i: pair kind i / 2 of CAUSAL_RPC_PAIRS, every field set (even
 * i) or nil.  The encoder writes a thread's second pair of a kind in a
 * frame as a NEXT pair, its event, function, cpu_ns and xid as steps
 * (here back in CPU, and the xid across 2^32), and the reader, having
 * taken the first, reads it back as the records each encodes to alone,
 * from its object and from its bytes with the values it took; in another
 * frame, or after a thread sharing its memo slot, a PAIR again.
 */
START_TEST(next_pairs_read_back_as_their_records)
{
	static const unsigned pairs[][3] = { CAUSAL_RPC_PAIRS(PAIR_ROW) };
	static _Alignas(8) uint8_t a_mem[4096], b_mem[4096];
	static struct causal_pair_memo memo;
	const unsigned *pt = pairs[_i / 2];
	struct causal_rec *a = filled_as(pt[1], _i % 2, 1, a_mem);
	struct causal_rec *b = filled_as(pt[2], _i % 2, 100, b_mem);
	struct rec_rpc_probe *ap = (void *)a, *bp = (void *)b;
	msgpack_sbuffer sp, sa, sbe;
	struct pair_next m = { 0 };

	memset(&memo, 0, sizeof(memo));
	b->tid = a->tid;
	memcpy(bp->chain, ap->chain, CAUSAL_CHAIN_ID_LEN);
	bp->function = ap->function;
	*xid_of(a) = 0xfffffffeu;

	/* the first in the frame: a PAIR */
	pair_next_frame(&m);
	ck_assert_uint_eq(encoded_with(&sp, &memo, 7, a, b), pt[0]);
	ck_assert_uint_gt(encoded(&sa, a, NULL), 0);
	ck_assert_uint_gt(encoded(&sbe, b, NULL), 0);
	ck_assert(!reads_back(&m, &sp, &sa, &sbe));
	msgpack_sbuffer_destroy(&sp);
	msgpack_sbuffer_destroy(&sa);
	msgpack_sbuffer_destroy(&sbe);

	/* the next call: steps up, and down */
	a->mono_ns += 5000, b->mono_ns += 5000;
	ap->event += 4, bp->event += 4;
	ap->function++, bp->function++;
	ap->cpu_ns -= 3000, bp->cpu_ns -= 2000;
	*xid_of(a) += 3; /* 1: across 2^32 */
	ck_assert_uint_eq(pair_next_of(encoded_with(&sp, &memo, 7, a, b)),
			  pt[0]);
	ck_assert_uint_gt(encoded(&sa, a, NULL), 0);
	ck_assert_uint_gt(encoded(&sbe, b, NULL), 0);
	ck_assert(reads_back(&m, &sp, &sa, &sbe));
	/* a reader that did not take the first cannot read it */
	{
		struct pair_next fresh = { 0 };
		struct pair_next_values v;
		msgpack_unpacked up;
		size_t off = 0;
		bool next;

		pair_next_frame(&fresh);
		msgpack_unpacked_init(&up);
		msgpack_unpack_next(&up, sp.data, sp.size, &off);
		ck_assert_int_eq(pair_next_take(&fresh, &up.data, &v, &next),
				 -EINVAL);
		msgpack_unpacked_destroy(&up);
		pair_next_free(&fresh);
	}
	msgpack_sbuffer_destroy(&sp);

	/* another frame: a PAIR */
	ck_assert_uint_eq(encoded_with(&sp, &memo, 8, a, b), pt[0]);
	msgpack_sbuffer_destroy(&sp);
	ck_assert_uint_eq(pair_next_of(encoded_with(&sp, &memo, 8, a, b)),
			  pt[0]);
	msgpack_sbuffer_destroy(&sp);
	/* a thread of the same memo slot in between: a PAIR */
	a->tid += CAUSAL_PAIR_MEMO_SLOTS / 2, b->tid = a->tid;
	ck_assert_uint_eq(encoded_with(&sp, &memo, 8, a, b), pt[0]);
	msgpack_sbuffer_destroy(&sp);
	a->tid -= CAUSAL_PAIR_MEMO_SLOTS / 2, b->tid = a->tid;
	ck_assert_uint_eq(encoded_with(&sp, &memo, 8, a, b), pt[0]);
	msgpack_sbuffer_destroy(&sp);
	msgpack_sbuffer_destroy(&sa);
	msgpack_sbuffer_destroy(&sbe);
	pair_next_free(&m);
}
END_TEST

/* FORK's how came later: a FORK without it is a fork. */
START_TEST(fork_without_how_is_a_fork)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	msgpack_unpacked up;
	struct record r;
	size_t off = 0;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_array(&pk, 4);
	msgpack_pack_uint32(&pk, CAUSAL_REC_FORK);
	msgpack_pack_uint32(&pk, 3);
	msgpack_pack_uint64(&pk, 77);
	msgpack_pack_uint32(&pk, 4242);
	msgpack_unpacked_init(&up);
	ck_assert_int_eq(msgpack_unpack_next(&up, sb.data, sb.size, &off),
			 MSGPACK_UNPACK_SUCCESS);
	ck_assert_int_eq(record_decode(&up.data, &r), 0);
	ck_assert_int_eq(r.fork.child_pid, 4242);
	ck_assert_uint_eq(r.fork.how, CAUSAL_FORK_FORK);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
}
END_TEST

/* ---- the bytes: the library's against log-fixture.c's ------------------ */

/* The tail's variable-length fields, one after the other. */
struct tail_reader {
	const uint8_t *p;
};

static const void *tail_take(struct tail_reader *t, size_t n)
{
	const void *p = n ? t->p : NULL;

	t->p += n;
	return p;
}

/* A NUL-terminated copy of n bytes of the tail (into buf). */
static const char *tail_str(struct tail_reader *t, char *buf, size_t n)
{
	ck_assert_uint_lt(n, 256);
	memcpy(buf, t->p, n);
	buf[n] = '\0';
	t->p += n;
	return buf;
}

static struct fixture_rpc fixture_probe(const struct rec_rpc_probe *p)
{
	return (struct fixture_rpc){
		.tid = p->hdr.tid,
		.mono = p->hdr.mono_ns,
		.mono_exit = p->mono_exit_ns,
		.cpu = p->cpu_ns,
		.chain = p->chain,
		.event = p->event,
		.function = p->function,
	};
}

/* The heap fields of r (records.def, CAUSAL_FIELDS_HEAP) for the fixture. */
#define HEAP_OF(r)                                                             \
	((struct fixture_heap){ (r)->heap_epoch, (r)->alloc_bytes,             \
				(r)->freed_bytes, (r)->allocs, (r)->frees,     \
				0 })

/* mon_off of an RPC probe: the last field of each of the four. */
#define PROBE_MON(p, r) (fl->rpc_mon_off = (r)->mon_off)

/*
 * The record in mem as log-fixture.c writes it from log-format.h: by
 * hand, field by field, independently of records.def (what was, stays).
 * False for a type it has no writer by hand of: one added since, which
 * fixture_log_record() writes (the_fixture_writes_every_type).
 */
static bool fixture_write(struct fixture_log *fl, struct causal_rec *rec)
{
	uint64_t tid = rec->tid, mono = rec->mono_ns;
	char s1[256], s2[256];

	switch (rec->type) {
	case CAUSAL_REC_HEADER: {
		struct rec_header *r = (void *)rec;
		const char *argv[2] = { r->argv.buf, r->argv.buf + 6 };

		/* the library's: its version, its start as the time, tid 0 */
		rec->tid = 0;
		r->version = CAUSAL_FORMAT_VERSION;
		r->start_mono_ns = mono;
		r->sample_skip = 0; /* the fixture's header samples all */
		strncpy(s1, r->argv.buf + 6, 5); /* cut: no NUL */
		s1[5] = '\0';
		argv[1] = s1;
		fl->header_segment[0] = r->segment;
		fl->header_segment[1] = r->deleted_segments;
		fl->header_segment[2] = r->deleted_records;
		fl->header_segment[3] = r->deleted_bytes;
		fixture_log_header_clock(fl, mono, r->uuid, r->host, r->pid,
					 r->ppid, r->exe, (int)r->argv.count,
					 argv, r->start_realtime_ns,
					 r->parent_uuid, r->buffer_kb,
					 r->flush_ms, r->cpu_clock);
		break;
	}
	case CAUSAL_REC_THREAD_START: {
		struct rec_thread_start *r = (void *)rec;

		fl->heap = HEAP_OF(r);
		fl->thread_mon_off = r->mon_off;
		fixture_log_thread_start(fl, tid, mono, rec->aux, r->os_tid,
					 r->marker, r->cpu_ns,
					 r->ctx.set ? r->ctx.chain : NULL,
					 r->ctx.event, r->ctx.function);
		break;
	}
	case CAUSAL_REC_THREAD_END: {
		struct rec_thread_end *r = (void *)rec;

		fl->heap = HEAP_OF(r);
		fl->heap.peak = r->heap_peak;
		fl->thread_mon_off = r->mon_off;
		fixture_log_thread_end(fl, tid, mono, r->cpu_ns, rec->aux);
		break;
	}
	case CAUSAL_REC_DROPS:
		fixture_log_drops(fl, tid, mono,
				  ((struct rec_drops *)rec)->dropped);
		break;
	case CAUSAL_REC_FORK:
		fixture_log_fork(fl, tid, mono, rec->aux,
				 ((struct rec_fork *)rec)->how);
		break;
	case CAUSAL_REC_EXEC: {
		struct tail_reader t = { ((struct rec_exec *)rec)->tail };

		fixture_log_exec(fl, tid, mono, tail_str(&t, s1, rec->aux));
		break;
	}
	case CAUSAL_REC_EXEC_FAILED:
		fixture_log_exec_failed(fl, tid, mono, rec->aux);
		break;
	case CAUSAL_REC_PROCESS_END: {
		struct rec_process_end *r = (void *)rec;

		rec->tid = 0;
		fl->heap =
			(struct fixture_heap){ .epoch = r->heap_epoch,
					       .peak = (int64_t)r->heap_peak };
		fixture_log_process_end(fl, mono, r->realtime_ns, r->reason,
					r->detail, r->records, r->dropped);
		break;
	}
	case CAUSAL_REC_THREAD_SPAWN:
		fixture_log_spawn(fl, tid, mono, rec->aux);
		break;
	case CAUSAL_REC_LOCK: {
		struct rec_lock *r = (void *)rec;

		fixture_log_lock(fl, tid, mono, rec->aux, r->lock, r->kind);
		break;
	}
	case CAUSAL_REC_MONITOR: {
		struct rec_monitor *r = (void *)rec;
		struct tail_reader t = { r->tail };
		char s3[256];
		const char *host = tail_str(&t, s1, r->host_len);
		const char *iface = tail_str(&t, s2, r->interface_len);

		rec->tid = 0;
		fixture_log_monitor(fl, mono, r->seq, r->kind, r->types,
				    r->named, r->on, r->selections, host, iface,
				    tail_str(&t, s3, r->function_len));
		break;
	}
	case CAUSAL_REC_LOSS: {
		struct rec_loss *r = (void *)rec;
		uint64_t pairs[64][2];
		size_t n = 0;

		rec->tid = 0;
		for (unsigned t = 0; t < r->by_type.n; t++)
			if (r->by_type.count[t]) {
				pairs[n][0] = t;
				pairs[n++][1] = r->by_type.count[t];
			}
		fixture_log_loss(fl, mono, r->err, r->lost,
				 (const uint64_t(*)[2])pairs, n);
		break;
	}
	case CAUSAL_REC_RPC_STUB_START: {
		struct rec_rpc_stub_start *r = (void *)rec;
		struct fixture_rpc p = fixture_probe(&r->p);

		fl->heap = HEAP_OF(r);
		PROBE_MON(p, r);
		struct tail_reader t = { r->tail };

		fixture_log_stub_start(fl, &p, r->prog, r->vers, r->proc,
				       r->transport, tail_take(&t, rec->aux),
				       rec->aux, r->site_id, r->xid, r->flags);
		break;
	}
	case CAUSAL_REC_RPC_STUB_END: {
		struct rec_rpc_stub_end *r = (void *)rec;
		struct fixture_rpc p = fixture_probe(&r->p);

		fl->heap = HEAP_OF(r);
		PROBE_MON(p, r);

		r->tag_sent = 1; /* what the fixture writes */
		fixture_log_stub_end(fl, &p, r->status, r->args_bytes,
				     r->results_bytes, r->reply_tag);
		break;
	}
	case CAUSAL_REC_RPC_SKEL_START: {
		struct rec_rpc_skel_start *r = (void *)rec;
		struct fixture_rpc p = fixture_probe(&r->p);

		fl->heap = HEAP_OF(r);
		PROBE_MON(p, r);
		struct tail_reader t = { r->tail };

		fixture_log_skel_start(fl, &p, r->prog, r->vers, r->proc,
				       r->transport, tail_take(&t, rec->aux),
				       rec->aux, r->object_id, r->xid,
				       r->args_bytes, r->tag);
		break;
	}
	case CAUSAL_REC_RPC_SKEL_END: {
		struct rec_rpc_skel_end *r = (void *)rec;
		struct fixture_rpc p = fixture_probe(&r->p);

		fl->heap = HEAP_OF(r);
		PROBE_MON(p, r);
		fl->skel_fork = r->fork;

		fixture_log_skel_end(fl, &p, r->reply, r->results_bytes);
		break;
	}
	case CAUSAL_REC_RPC_SITE: {
		struct rec_rpc_site *r = (void *)rec;
		struct tail_reader t = { r->tail };
		const char *symbol = tail_str(&t, s1, r->symbol_len);

		fixture_log_rpc_site(fl, tid, mono, r->site_id, symbol,
				     tail_str(&t, s2, r->module_len));
		break;
	}
	case CAUSAL_REC_RPC_OBJECT: {
		struct rec_rpc_object *r = (void *)rec;
		struct tail_reader t = { r->tail };
		const void *address = tail_take(&t, r->address_len);

		fixture_log_rpc_object(fl, tid, mono, r->object_id, r->prog,
				       r->vers, r->transport, address,
				       r->address_len,
				       tail_str(&t, s1, r->netid_len));
		break;
	}
	case CAUSAL_REC_SPIKE_SAMPLE: {
		struct rec_spike_sample *r = (void *)rec;
		struct tail_reader t = { r->tail };

		fixture_log_spike_sample(
			fl, tid, mono, r->idx, r->thread, r->ip, r->kind,
			r->ctx.set ? r->ctx.chain : NULL, r->ctx.event,
			r->ctx.function, tail_take(&t, rec->aux), rec->aux);
		break;
	}
	case CAUSAL_REC_SPIKE_BREACH: {
		struct rec_spike_breach *r = (void *)rec;
		struct tail_reader t = { r->tail };
		const char *res = tail_str(&t, s1, r->resource_len);

		fixture_log_spike_breach(fl, tid, mono, r->mark, r->n, r->value,
					 r->threshold, r->window_ms, r->lost,
					 res, tail_str(&t, s2, r->rule_len));
		break;
	}
	case CAUSAL_REC_SPIKE_MAP: {
		struct rec_spike_map *r = (void *)rec;
		struct tail_reader t = { r->tail };

		fixture_log_spike_map(fl, tid, mono, r->start, r->end,
				      r->offset, tail_str(&t, s1, r->path_len));
		break;
	}
	case CAUSAL_REC_SPIKE_PROFILE: {
		struct rec_spike_profile *r = (void *)rec;

		fixture_log_spike_profile(fl, tid, mono, r->ip, r->samples);
		break;
	}
	default:
		return false;
	}
	return true;
}

START_TEST(encoder_writes_the_documented_bytes)
{
	static struct fill f;
	const struct type_case *tc = type_fill(_i, &f);
	struct fixture_log fl;
	msgpack_sbuffer sb;
	msgpack_packer pk;

	memset(&fl, 0, sizeof(fl));
	fl.version = CAUSAL_FORMAT_VERSION;
	msgpack_sbuffer_init(&fl.sb);
	msgpack_packer_init(&fl.pk, &fl.sb, msgpack_sbuffer_write);
	if (!fixture_write(&fl, (void *)mem)) {
		/* a type newer than the writers by hand */
		msgpack_sbuffer_destroy(&fl.sb);
		return;
	}
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	ck_assert_int_eq(causal_encode_record(&pk, (void *)mem), 0);
	ck_assert_msg(
		sb.size == fl.sb.size && !memcmp(sb.data, fl.sb.data, sb.size),
		"%s: the encoder's %zu bytes differ from the fixture's %zu",
		tc->name, sb.size, fl.sb.size);
	msgpack_sbuffer_destroy(&sb);
	msgpack_sbuffer_destroy(&fl.sb);
}
END_TEST

/*
 * Every type as fixture_log_record() writes it, generated from
 * records.def, from the values the tools decode (every_type_round_trips:
 * the values filled in): the encoder's bytes.  So the tests can write any
 * type as the library does, a type added later too.
 */
START_TEST(the_fixture_writes_every_type)
{
	static struct fill f;
	const struct type_case *tc = type_fill(_i, &f);
	msgpack_sbuffer sb;
	msgpack_unpacked up;
	const msgpack_object *o = encode((void *)mem, &sb, &up);
	struct fixture_log fl;
	struct record dec;

	ck_assert_int_eq(record_decode(o, &dec), 0);
	memset(&fl, 0, sizeof(fl));
	fl.version = CAUSAL_FORMAT_VERSION;
	msgpack_sbuffer_init(&fl.sb);
	msgpack_packer_init(&fl.pk, &fl.sb, msgpack_sbuffer_write);
	ck_assert_int_eq(fixture_log_record(&fl, &dec), 0);
	ck_assert_msg(
		sb.size == fl.sb.size && !memcmp(sb.data, fl.sb.data, sb.size),
		"%s: the encoder's %zu bytes differ from the fixture's %zu",
		tc->name, sb.size, fl.sb.size);
	msgpack_unpacked_destroy(&up);
	msgpack_sbuffer_destroy(&sb);
	msgpack_sbuffer_destroy(&fl.sb);
}
END_TEST

/* A PAIR's bytes, as log-fixture.c writes them by hand from records.def's
 * description: loop test i as in a_pair_reads_back_as_its_two_records. */
START_TEST(encoder_writes_the_documented_pair_bytes)
{
	static const unsigned starts[][2] = {
		{ CAUSAL_REC_RPC_STUB_START, CAUSAL_REC_RPC_STUB_END },
		{ CAUSAL_REC_RPC_SKEL_START, CAUSAL_REC_RPC_SKEL_END },
	};
	static _Alignas(8) uint8_t a_mem[4096], b_mem[4096];
	struct causal_rec *a = filled_as(starts[_i / 2][0], _i % 2, 1, a_mem);
	struct causal_rec *b = filled_as(starts[_i / 2][1], _i % 2, 100, b_mem);
	struct rec_rpc_probe *ap = (void *)a, *bp = (void *)b;
	struct fixture_log fl;
	msgpack_sbuffer sb;

	b->tid = a->tid;
	memcpy(bp->chain, ap->chain, CAUSAL_CHAIN_ID_LEN);
	bp->function = ap->function;
	memset(&fl, 0, sizeof(fl));
	fl.version = CAUSAL_FORMAT_VERSION;
	msgpack_sbuffer_init(&fl.sb);
	msgpack_packer_init(&fl.pk, &fl.sb, msgpack_sbuffer_write);
	fixture_log_pair_next(&fl);
	ck_assert(fixture_write(&fl, a));
	ck_assert(fixture_write(&fl, b));
	ck_assert_uint_gt(encoded(&sb, a, b), 0);
	ck_assert_msg(sb.size == fl.sb.size &&
			      !memcmp(sb.data, fl.sb.data, sb.size),
		      "pair %d: the encoder's %zu bytes differ from the "
		      "fixture's %zu",
		      _i, sb.size, fl.sb.size);
	msgpack_sbuffer_destroy(&sb);
	msgpack_sbuffer_destroy(&fl.sb);
}
END_TEST

/* ---- `tracedump dump` names every field --------------------------------- */

/* clang-format off */
#define DUMP_KEY(name, KIND, SHOW, en, dump) dump,
#define DUMP_KEYS(num, UPPER, lower, member, GROUP, nreq)                      \
	static const char *const keys_##lower[] = {                            \
		CAUSAL_FIELDS_##GROUP(DUMP_KEY)                                \
		CAUSAL_FIELDS_##UPPER(DUMP_KEY) NULL                           \
	};
CAUSAL_RECORDS(DUMP_KEYS)
#define DUMP_KEYS_ENTRY(num, UPPER, lower, member, GROUP, nreq) keys_##lower,
static const char *const *const keys[] = { CAUSAL_RECORDS(DUMP_KEYS_ENTRY) };
/* clang-format on */

static void setup(void)
{
	tmpdir_make("check-records");
}

static void teardown(void)
{
	tmpdir_remove();
}

/* A line of the dump of type tc: every field's key, in order. */
static void check_dump_line(const char *line, const struct type_case *tc,
			    const char *const *key, int json)
{
	const char *type = json ? tc->name : record_type_name(tc->type, false);
	const char *at = line;
	char k[64];

	ck_assert_msg(!strstr(line, "malformed"), "%s", line);
	ck_assert_msg(strstr(line, type), "%s: not in '%s'", type, line);
	for (; *key; key++) {
		snprintf(k, sizeof(k), json ? ",\"%s\":" : " %s=", *key);
		at = strstr(at, k);
		ck_assert_msg(at, "%s: no '%s' in order in '%s'", type, k,
			      line);
	}
}

/* Every type, in its two variants, in a log; dumped in both formats. */
START_TEST(dump_shows_every_field)
{
	const char *path = tmp_path("all.clog");
	static char out[1 << 16];
	struct fixture_log fl;
	struct dump_stats st;

	ck_assert_int_eq(fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION), 0);
	for (size_t i = 0; i < 2 * N_TYPES; i++) {
		static struct fill f;
		msgpack_packer pk;

		type_fill((int)i, &f);
		msgpack_packer_init(&pk, &fl.sb, msgpack_sbuffer_write);
		ck_assert_int_eq(causal_encode_record(&pk, (void *)mem), 0);
	}
	ck_assert_int_eq(fixture_log_close(&fl), 0);
	for (int json = 0; json < 2; json++) {
		FILE *o = fmemopen(out, sizeof(out) - 1, "w");
		char *line = out, *end;

		memset(out, 0, sizeof(out));
		ck_assert_int_eq(
			dump_path(o, path, json ? DUMP_JSON : DUMP_TEXT, &st),
			0);
		fclose(o);
		ck_assert_uint_eq(st.records, 2 * N_TYPES);
		for (size_t i = 0; i < 2 * N_TYPES; i++, line = end + 1) {
			end = strchr(line, '\n');
			ck_assert_ptr_nonnull(end);
			*end = '\0';
			check_dump_line(line, &types[i / 2], keys[i / 2], json);
		}
	}
}
END_TEST

/* ---- names --------------------------------------------------------------- */

/* clang-format off */
#define TYPE_NAME(num, UPPER, lower, member, GROUP, nreq)                      \
	ck_assert_str_eq(record_type_name(num, false), #UPPER);                \
	ck_assert_str_eq(record_type_name(num, true), #lower);                 \
	ck_assert(record_known(num));
/* clang-format on */

START_TEST(every_type_named)
{
	unsigned known = 0;

	CAUSAL_RECORDS(TYPE_NAME)
	for (unsigned t = 0; t < 256; t++)
		known += record_known(t);
	ck_assert_uint_eq(known, N_TYPES);
	ck_assert(!record_known(0));
	ck_assert(!record_known(CAUSAL_REC_RPC_LAST));
}
END_TEST

/*
 * Each value of each enum: the constant (libtirpc's for EXTERN) is the
 * value, and has its name; the names of an enum differ; past the last
 * value there is no name.
 */
static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void check_names(const char *stem, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(strcmp(names[i], names[j]),
				      "%s: '%s' twice", stem, names[i]);
}

/* clang-format off */
#define ENUM_VALUE(constant, value, name)                                      \
	ck_assert_msg((uint64_t)(constant) == (value), "%s: %s is %llu, not %s", \
		      stem, #constant, (unsigned long long)(constant), #value); \
	ck_assert_msg(fn(value) && !strcmp(fn(value), name),                   \
		      "%s: %s is named '%s', not '%s'", stem, #constant,       \
		      fn(value) ? fn(value) : "(null)", name);                 \
	last = max_u64(last, value);
#define ENUM_NAME(constant, value, name) name,
#define ENUM_PAST_ENUM(fn, last) ck_assert_ptr_null(fn(last + 1));
#define ENUM_PAST_EXTERN ENUM_PAST_ENUM
#define ENUM_PAST_FLAGS(fn, last) ck_assert_ptr_null(fn(last << 1));
#define ENUM_CHECK(ctype, stem_, KIND)                                         \
	{                                                                      \
		const char *(*fn)(uint64_t) = record_##stem_##_name;           \
		const char *const names[] = { CAUSAL_VALUES_##stem_(ENUM_NAME) }; \
		const char *stem = #stem_;                                     \
		uint64_t last = 0;                                             \
									       \
		CAUSAL_VALUES_##stem_(ENUM_VALUE)                              \
		ENUM_PAST_##KIND(fn, last)                                     \
		check_names(stem, names, sizeof(names) / sizeof(names[0]));    \
	}
/* clang-format on */

START_TEST(every_enum_value_named)
{
	char buf[128];

	CAUSAL_ENUMS(ENUM_CHECK)
	/* flags: by name in table order, unknown bits in hex */
	record_rpc_flags(buf, sizeof(buf),
			 CAUSAL_RPC_ONE_WAY | CAUSAL_RPC_BATCHED | 0x30, '|');
	ck_assert_str_eq(buf, "one_way|batched|0x30");
	record_rpc_flags(buf, sizeof(buf), 0, '|');
	ck_assert_str_eq(buf, "");
	ck_assert_str_eq(record_rpc_kind(CAUSAL_REC_RPC_SKEL_END), "skel_end");
	ck_assert_ptr_null(record_rpc_kind(CAUSAL_REC_RPC_SITE));
}
END_TEST

Suite *records_suite(void)
{
	Suite *s = suite_create("records");
	TCase *tc = tcase_create("records");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, every_type_round_trips, 0, 2 * N_TYPES);
	tcase_add_loop_test(tc, only_required_fields_are_required, 0,
			    2 * N_TYPES);
	tcase_add_test(tc, fork_without_how_is_a_fork);
	tcase_add_loop_test(tc, a_pair_reads_back_as_its_two_records, 0, 4);
	tcase_add_loop_test(tc, next_pairs_read_back_as_their_records, 0, 4);
	tcase_add_loop_test(tc, encoder_writes_the_documented_bytes, 0,
			    2 * N_TYPES);
	tcase_add_loop_test(tc, the_fixture_writes_every_type, 0, 2 * N_TYPES);
	tcase_add_loop_test(tc, encoder_writes_the_documented_pair_bytes, 0, 4);
	tcase_add_test(tc, dump_shows_every_field);
	tcase_add_test(tc, every_type_named);
	tcase_add_test(tc, every_enum_value_named);
	suite_add_tcase(s, tc);
	return s;
}
