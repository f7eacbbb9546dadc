/*
 * encode.c - the in-memory records (record.h) as msgpack, generated from
 * records.def: one case per record type, one pack per field, in msgpack
 * order.  The writer's hot loop: straight-line code, no allocation (the
 * packer writes into the frame buffer).
 */
#include <errno.h>
#include <string.h>

#include "encode.h"
#include "heap.h"
#include "identity.h"

/*
 * The packer: msgpack-c's encodings, byte for byte (the smallest form of
 * each integer, fixstr / str 8 / 16 / 32, bin 8 / 16 / 32, fixarray /
 * array 16 / 32), written inline into a buffer on the stack that goes to
 * the caller's msgpack_packer in one callback per record (or per
 * ENC_BUF bytes).  msgpack-c's own functions call the callback once per
 * value, a call and a memcpy for every byte or few: 60% of the
 * encoding's time, which the writer spends per record.  The unit suite
 * "encode" checks both give the same bytes.
 *
 * The fixed-size elements (integers, headers, chains, uuids) are written
 * with no check for room: a record starts in an empty buffer of its own,
 * with room for all of its fixed elements at their largest
 * (ENC_MAX_RECORD, from records.def, asserted to fit ENC_RESERVE), and
 * whatever has a variable length (a string's or bin's body, an array of
 * strings or counts) takes its own room and leaves ENC_RESERVE bytes
 * behind it.  A check per field
 * was some 230 instructions a probe's pair (callgrind), 5% of what
 * tracing adds to an RPC.
 */
#define ENC_BUF 1024
#define ENC_RESERVE 512

struct enc {
	msgpack_packer *pk;
	uint8_t *p; /* where the next byte goes in buf */
	uint8_t buf[ENC_BUF];
};

static void enc_flush(struct enc *e)
{
	if (e->p > e->buf)
		e->pk->callback(e->pk->data, (const char *)e->buf,
				(size_t)(e->p - e->buf));
	e->p = e->buf;
}

/* Room for n <= ENC_BUF bytes at e->p. */
static inline void enc_reserve(struct enc *e, size_t n)
{
	if ((size_t)(e->buf + ENC_BUF - e->p) < n)
		enc_flush(e);
}

static inline void enc_be16(uint8_t *p, uint16_t v)
{
	v = __builtin_bswap16(v);
	memcpy(p, &v, 2);
}

static inline void enc_be32(uint8_t *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static inline void enc_be64(uint8_t *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

static inline void pack_u64(struct enc *e, uint64_t v)
{
	uint8_t *p = e->p;

	if (v < 128) {
		p[0] = (uint8_t)v;
		e->p = p + 1;
	} else if (v < 256) {
		p[0] = 0xcc;
		p[1] = (uint8_t)v;
		e->p = p + 2;
	} else if (v < 65536) {
		p[0] = 0xcd;
		enc_be16(p + 1, (uint16_t)v);
		e->p = p + 3;
	} else if (v < (1ull << 32)) {
		p[0] = 0xce;
		enc_be32(p + 1, (uint32_t)v);
		e->p = p + 5;
	} else {
		p[0] = 0xcf;
		enc_be64(p + 1, v);
		e->p = p + 9;
	}
}

static inline void pack_i64(struct enc *e, int64_t v)
{
	uint8_t *p;

	if (v >= 0) {
		pack_u64(e, (uint64_t)v); /* as msgpack-c: unsigned */
		return;
	}
	p = e->p;
	if (v >= -32) {
		p[0] = (uint8_t)v; /* negative fixint */
		e->p = p + 1;
	} else if (v >= -128) {
		p[0] = 0xd0;
		p[1] = (uint8_t)v;
		e->p = p + 2;
	} else if (v >= -32768) {
		p[0] = 0xd1;
		enc_be16(p + 1, (uint16_t)v);
		e->p = p + 3;
	} else if (v >= -2147483648ll) {
		p[0] = 0xd2;
		enc_be32(p + 1, (uint32_t)v);
		e->p = p + 5;
	} else {
		p[0] = 0xd3;
		enc_be64(p + 1, (uint64_t)v);
		e->p = p + 9;
	}
}

/* EXIT_NS (records.def): v as its distance past mono, when it is past. */
static inline void pack_exit_ns(struct enc *e, uint64_t v, uint64_t mono)
{
	if (v >= mono && v - mono <= INT64_MAX)
		pack_i64(e, -(int64_t)(v - mono) - 1);
	else
		pack_u64(e, v);
}

/* A header byte, then len as 0 (none), 1, 2 or 4 bytes. */
static inline void pack_head(struct enc *e, uint8_t b, size_t len, int bytes)
{
	uint8_t *p = e->p;

	p[0] = b;
	if (bytes == 1)
		p[1] = (uint8_t)len;
	else if (bytes == 2)
		enc_be16(p + 1, (uint16_t)len);
	else if (bytes == 4)
		enc_be32(p + 1, (uint32_t)len);
	e->p = p + 1 + bytes;
}

static inline void pack_array(struct enc *e, size_t n)
{
	if (n < 16)
		pack_head(e, (uint8_t)(0x90 | n), 0, 0);
	else if (n < 65536)
		pack_head(e, 0xdc, n, 2);
	else
		pack_head(e, 0xdd, n, 4);
}

static inline void pack_nil(struct enc *e)
{
	pack_head(e, 0xc0, 0, 0);
}

/* A variable-length body, leaving ENC_RESERVE bytes of room after it. */
static void pack_body(struct enc *e, const void *s, size_t len)
{
	if ((size_t)(e->buf + ENC_BUF - e->p) < len + ENC_RESERVE) {
		enc_flush(e);
		if (len > ENC_BUF - ENC_RESERVE) {
			e->pk->callback(e->pk->data, s, len);
			return;
		}
	}
	memcpy(e->p, s, len);
	e->p += len;
}

static void pack_str(struct enc *e, const void *s, size_t len)
{
	if (len < 32)
		pack_head(e, (uint8_t)(0xa0 | len), 0, 0);
	else if (len < 256)
		pack_head(e, 0xd9, len, 1);
	else if (len < 65536)
		pack_head(e, 0xda, len, 2);
	else
		pack_head(e, 0xdb, len, 4);
	pack_body(e, s, len);
}

static void pack_bin(struct enc *e, const void *p, size_t len)
{
	if (len < 256)
		pack_head(e, 0xc4, len, 1);
	else if (len < 65536)
		pack_head(e, 0xc5, len, 2);
	else
		pack_head(e, 0xc6, len, 4);
	pack_body(e, p, len);
}

/* A bin of len <= 255 bytes counted in a record's fixed elements. */
static inline void pack_bin_fixed(struct enc *e, const void *p, size_t len)
{
	pack_head(e, 0xc4, len, 1);
	memcpy(e->p, p, len);
	e->p += len;
}

static void pack_bin_or_nil(struct enc *e, const void *p, size_t len)
{
	if (len)
		pack_bin(e, p, len);
	else
		pack_nil(e);
}

static void pack_ctx(struct enc *e, const struct rec_ctx *ctx)
{
	if (!ctx->set) {
		pack_nil(e);
		return;
	}
	pack_array(e, 3);
	pack_bin_fixed(e, ctx->chain, sizeof(ctx->chain));
	pack_u64(e, ctx->event);
	pack_u64(e, ctx->function);
}

static void pack_strv(struct enc *e, const struct rec_strv *v)
{
	const char *s = v->buf;

	pack_array(e, v->count);
	for (uint32_t i = 0; i < v->count; i++) {
		size_t len = strnlen(s, (size_t)(v->buf + v->len - s));

		enc_reserve(e, ENC_RESERVE + 5);
		pack_str(e, s, len);
		s += len + 1;
	}
}

static void pack_counts(struct enc *e, const struct rec_counts *c)
{
	unsigned t, n = 0;

	for (t = 0; t < c->n; t++)
		n += c->count[t] != 0;
	pack_array(e, n);
	for (t = 0; t < c->n; t++) {
		if (!c->count[t])
			continue;
		enc_reserve(e, ENC_RESERVE + 1 + 9 + 9);
		pack_array(e, 2);
		pack_u64(e, t);
		pack_u64(e, c->count[t]);
	}
}

/*
 * One field of KIND, member `name` of s; rec is the record's header and
 * tail its variable-length bytes not yet packed.
 */
/* clang-format off */
#define ENC_U8(s, name) pack_u64(e, s->name);
#define ENC_U16(s, name) pack_u64(e, s->name);
#define ENC_U32(s, name) pack_u64(e, s->name);
#define ENC_U64(s, name) pack_u64(e, s->name);
#define ENC_I32(s, name) pack_i64(e, s->name);
#define ENC_I64(s, name) pack_i64(e, s->name);
#define ENC_EXIT_NS(s, name) pack_exit_ns(e, s->name, rec->mono_ns);
#define ENC_AUX(s, name) pack_u64(e, rec->aux);
#define ENC_AUX_I(s, name) pack_u64(e, rec->aux);
#define ENC_CHAIN(s, name) pack_bin_fixed(e, s->name, CAUSAL_CHAIN_ID_LEN);
#define ENC_UUID(s, name) pack_bin_fixed(e, s->name, CAUSAL_UUID_LEN);
#define ENC_UUID_NIL(s, name)                                                  \
	if (s->name)                                                           \
		pack_bin_fixed(e, s->name, CAUSAL_UUID_LEN);                   \
	else                                                                   \
		pack_nil(e);
#define ENC_STRZ(s, name) pack_str(e, s->name, strlen(s->name));
#define ENC_STRV(s, name) pack_strv(e, &s->name);
#define ENC_COUNTS(s, name) pack_counts(e, &s->name);
#define ENC_CTX(s, name) pack_ctx(e, &s->name);
#define ENC_TAIL(pack, len)                                                    \
	pack(e, tail, len);                                                    \
	tail += len;
#define ENC_STR_AUX(s, name) ENC_TAIL(pack_str, rec->aux)
#define ENC_BIN_AUX(s, name) ENC_TAIL(pack_bin_or_nil, rec->aux)
#define ENC_STR_L8(s, name) ENC_TAIL(pack_str, s->name##_len)
#define ENC_STR_L16(s, name) ENC_TAIL(pack_str, s->name##_len)
#define ENC_BIN_L8(s, name) ENC_TAIL(pack_bin_or_nil, s->name##_len)

#define ENC_FIELD(name, KIND, SHOW, en, dump) ENC_##KIND(r, name)

/*
 * A NEXT pair's start (records.def, CAUSAL_RPC_PAIRS_NEXT): its field
 * named xid as its step from xid_base, modulo 2^32; the others as above.
 * ENC_IS_XID(name) is 1 for that name, else 0, chosen by the
 * preprocessor, so that no other field is ever read as an xid.
 */
#define ENC_SECOND(a, b, ...) b
#define ENC_SECOND_(...) ENC_SECOND(__VA_ARGS__)
#define ENC_XID_PROBE_xid ~, 1
#define ENC_IS_XID(name) ENC_SECOND_(ENC_XID_PROBE_##name, 0, ~)
#define ENC_CAT_(a, b) a##b
#define ENC_CAT(a, b) ENC_CAT_(a, b)
#define ENC_STEP_0(name, KIND) ENC_##KIND(r, name)
#define ENC_STEP_1(name, KIND) pack_u64(e, (uint32_t)(r->name - xid_base));
#define ENC_STEP_FIELD(name, KIND, SHOW, en, dump)                             \
	ENC_CAT(ENC_STEP_, ENC_IS_XID(name))(name, KIND)
/* + r->xid for the field named xid, nothing for the others */
#define ENC_XID_0(name)
#define ENC_XID_1(name) +r->name
#define ENC_XID_VALUE(name, KIND, SHOW, en, dump)                              \
	ENC_CAT(ENC_XID_, ENC_IS_XID(name))(name)
#define ENC_XID_COUNT(name, KIND, SHOW, en, dump) +ENC_IS_XID(name)

/* The most bytes each KIND's fixed elements take: 9 for any integer,
 * 5 for a string's, bin's or array's header (its body or elements take
 * their own room). */
#define ENC_MAX_U8 9
#define ENC_MAX_U16 9
#define ENC_MAX_U32 9
#define ENC_MAX_U64 9
#define ENC_MAX_I32 9
#define ENC_MAX_I64 9
#define ENC_MAX_EXIT_NS 9
#define ENC_MAX_AUX 9
#define ENC_MAX_AUX_I 9
#define ENC_MAX_CHAIN (2 + CAUSAL_CHAIN_ID_LEN)
#define ENC_MAX_UUID (2 + CAUSAL_UUID_LEN)
#define ENC_MAX_UUID_NIL (2 + CAUSAL_UUID_LEN)
#define ENC_MAX_STRZ 5
#define ENC_MAX_STRV 5
#define ENC_MAX_COUNTS 5
#define ENC_MAX_CTX (1 + ENC_MAX_CHAIN + 9 + 9)
#define ENC_MAX_STR_AUX 5
#define ENC_MAX_BIN_AUX 5
#define ENC_MAX_STR_L8 5
#define ENC_MAX_STR_L16 5
#define ENC_MAX_BIN_L8 5
#define ENC_MAX_FIELD(name, KIND, SHOW, en, dump) + ENC_MAX_##KIND
/* a record's array header, type, tid, mono_ns; then its group's fields */
#define ENC_MAX_START_NONE (5 + 3 * 9)
#define ENC_MAX_START_RPC_PROBE                                                \
	(ENC_MAX_START_NONE CAUSAL_FIELDS_RPC_PROBE(ENC_MAX_FIELD))
#define ENC_MAX_OWN(UPPER) (0 CAUSAL_FIELDS_##UPPER(ENC_MAX_FIELD))
#define ENC_MAX_RECORD(UPPER, GROUP) (ENC_MAX_START_##GROUP + ENC_MAX_OWN(UPPER))
/* a pair (records.def): its array header, type, tid, mono_ns, chain, the
 * start's own fields in an array, eight integers, the end's in an array */
#define ENC_MAX_PAIR(START, END)                                               \
	(5 + 3 * 9 + ENC_MAX_CHAIN + 5 + ENC_MAX_OWN(START) + 8 * 9 + 5 +     \
	 ENC_MAX_OWN(END))

#define ENC_FITS(num, UPPER, lower, member, GROUP, nreq)                       \
	_Static_assert(ENC_MAX_RECORD(UPPER, GROUP) <= ENC_RESERVE,            \
		       #UPPER "'s fixed elements outgrow ENC_RESERVE");
#define ENC_PAIR_FITS(num, UPPER, START, END)                                  \
	_Static_assert(ENC_MAX_PAIR(START, END) <= ENC_RESERVE,                \
		       #UPPER "'s fixed elements outgrow ENC_RESERVE");
CAUSAL_RECORDS(ENC_FITS)
CAUSAL_RPC_PAIRS(ENC_PAIR_FITS)
_Static_assert(ENC_RESERVE + 1 + 9 + 9 <= ENC_BUF, "a COUNTS element fits");
#define ENC_START_NONE(n) pack_common(e, n, rec);
#define ENC_START_RPC_PROBE(n) pack_probe(e, n, (const void *)rec);

/*
 * encode_<lower>(): one record type, in a function of its own that stays
 * small enough for the compiler to inline the packers in it.
 * encode_own_<UPPER>(): its own fields only (a pair's start and end).
 */
#define ENC_FUNC(num, UPPER, lower, member, GROUP, nreq)                       \
	static inline void encode_own_##UPPER(struct enc *e,                   \
					      const struct causal_rec *rec)    \
	{                                                                      \
		const struct rec_##lower *r = (const void *)rec;               \
		const uint8_t *tail = r->tail;                                 \
									       \
		CAUSAL_FIELDS_##UPPER(ENC_FIELD)                               \
		(void)tail, (void)r;                                           \
	}                                                                      \
	/* the same with the xid a step from xid_base (a NEXT pair's start;   \
	 * the other types' go unused) */                                      \
	static inline __attribute__((unused)) void encode_own_step_##UPPER(    \
		struct enc *e, const struct causal_rec *rec, uint32_t xid_base) \
	{                                                                      \
		const struct rec_##lower *r = (const void *)rec;               \
		const uint8_t *tail = r->tail;                                 \
									       \
		CAUSAL_FIELDS_##UPPER(ENC_STEP_FIELD)                          \
		(void)tail, (void)r, (void)xid_base;                           \
	}                                                                      \
	/* its xid, 0 if it has none (ENC_XID_COUNT) */                        \
	static inline __attribute__((unused)) uint32_t xid_of_##UPPER(         \
		const struct causal_rec *rec)                                  \
	{                                                                      \
		const struct rec_##lower *r = (const void *)rec;               \
									       \
		(void)r;                                                       \
		return (uint32_t)(0 CAUSAL_FIELDS_##UPPER(ENC_XID_VALUE));     \
	}                                                                      \
	static __attribute__((noinline)) void                                  \
	encode_##lower(struct enc *e, const struct causal_rec *rec)            \
	{                                                                      \
		ENC_START_##GROUP(CAUSAL_ELEMS_##UPPER)                        \
		encode_own_##UPPER(e, rec);                                    \
	}
#define ENC_CASE(num, UPPER, lower, member, GROUP, nreq)                       \
	case CAUSAL_REC_##UPPER:                                               \
		encode_##lower(e, rec);                                        \
		return 0;
#define ENC_PAIR_CASE(num, UPPER, START, END)                                  \
	case CAUSAL_REC_##START:                                               \
		if (end->type != CAUSAL_REC_##END)                             \
			return -EINVAL;                                        \
		type = CAUSAL_REC_##UPPER;                                     \
		own_start = encode_own_##START;                                \
		own_start_step = encode_own_step_##START;                      \
		has_xid = 0 CAUSAL_FIELDS_##START(ENC_XID_COUNT);              \
		xid = xid_of_##START(start);                                   \
		own_end = encode_own_##END;                                    \
		start_elems = CAUSAL_ELEMS_##START - ENC_PROBE_ELEMS;          \
		end_elems = CAUSAL_ELEMS_##END - ENC_PROBE_ELEMS;              \
		break;
/* clang-format on */

/* The elements up to a probe's own fields: common, then RPC_PROBE's
 * (chain, event, function, mono_exit_ns, cpu_ns: a pair writes them by
 * name). */
#define ENC_PROBE_ELEMS (3 CAUSAL_FIELDS_RPC_PROBE(CAUSAL_COUNT_FIELD))
_Static_assert(ENC_PROBE_ELEMS == 8, "a pair writes RPC_PROBE's five fields");

/*
 * The array of n elements with the three every record starts with, with
 * the fields of the group RPC_PROBE after them.  Shared by the types.
 */
static void pack_common(struct enc *e, size_t n, const struct causal_rec *rec)
{
	pack_array(e, n);
	pack_u64(e, rec->type);
	pack_u64(e, rec->tid);
	pack_u64(e, rec->mono_ns);
}

static void pack_probe(struct enc *e, size_t n, const struct rec_rpc_probe *r)
{
	const struct causal_rec *rec = &r->hdr;

	pack_common(e, n, rec);
	CAUSAL_FIELDS_RPC_PROBE(ENC_FIELD)
}

CAUSAL_RECORDS(ENC_FUNC)

static int encode_as(struct enc *e, const struct causal_rec *rec)
{
	switch (rec->type) {
		CAUSAL_RECORDS(ENC_CASE)
	default:
		return -EINVAL;
	}
}

int causal_encode_record(msgpack_packer *pk, const struct causal_rec *rec)
{
	struct enc e;

	e.pk = pk;
	e.p = e.buf;
	if (encode_as(&e, rec))
		return -EINVAL;
	enc_flush(&e);
	return 0;
}

/* The slot of memo that remembers tid's pairs of this type. */
static struct causal_pair_last *memo_slot(struct causal_pair_memo *memo,
					  uint32_t tid, unsigned type)
{
	return &memo->slot[(tid * 2u + (type & 1u)) % CAUSAL_PAIR_MEMO_SLOTS];
}

/* clang-format off */
#define ENC_NEXT_CASE(num, UPPER, PAIR)                                        \
	case CAUSAL_REC_##PAIR:                                                \
		return CAUSAL_REC_##UPPER;
/* clang-format on */

static unsigned next_type(unsigned pair_type)
{
	switch (pair_type) {
		CAUSAL_RPC_PAIRS_NEXT(ENC_NEXT_CASE)
	default:
		return 0;
	}
}

int causal_encode_pair(msgpack_packer *pk, const struct causal_rec *start,
		       const struct causal_rec *end,
		       struct causal_pair_memo *memo, uint64_t frame)
{
	const struct rec_rpc_probe *s = (const void *)start;
	const struct rec_rpc_probe *t = (const void *)end;
	void (*own_start)(struct enc * e, const struct causal_rec *rec);
	void (*own_start_step)(struct enc * e, const struct causal_rec *rec,
			       uint32_t xid_base);
	void (*own_end)(struct enc * e, const struct causal_rec *rec);
	unsigned type, start_elems, end_elems, has_xid;
	struct causal_pair_last *last = NULL, prev = { 0 };
	uint32_t xid;
	struct enc e;

	switch (start->type) {
		CAUSAL_RPC_PAIRS(ENC_PAIR_CASE)
	default:
		return -EINVAL;
	}
	if (end->tid != start->tid || t->function != s->function ||
	    memcmp(t->chain, s->chain, CAUSAL_CHAIN_ID_LEN))
		return -EINVAL;
	if (memo && has_xid && next_type(type)) {
		/* this pair is its thread's last of its kind in the frame:
		 * the slot remembers it */
		last = memo_slot(memo, start->tid, type);
		prev = *last;
		*last = (struct causal_pair_last){
			.frame = frame + 1,
			.event = s->event,
			.function = s->function,
			.cpu_ns = s->cpu_ns,
			.tid = start->tid,
			.xid = xid,
			.type = type,
		};
		if (prev.frame == frame + 1 && prev.tid == start->tid &&
		    prev.type == type)
			type = next_type(type);
		else
			last = NULL; /* a PAIR: no steps */
	} else if (memo)
		memo_slot(memo, start->tid, type)->frame = 0; /* forgotten */
	e.pk = pk;
	e.p = e.buf;
	pack_array(&e, CAUSAL_PAIR_ELEMS);
	pack_u64(&e, type);
	pack_u64(&e, start->tid);
	pack_u64(&e, start->mono_ns);
	pack_bin_fixed(&e, s->chain, CAUSAL_CHAIN_ID_LEN);
	pack_array(&e, start_elems);
	if (last) {
		own_start_step(&e, start, prev.xid);
		/* steps modulo 2^64, as integers: any values come back */
		pack_i64(&e, (int64_t)(s->event - prev.event));
		pack_i64(&e, (int64_t)(s->function - prev.function));
	} else {
		own_start(&e, start);
		pack_u64(&e, s->event);
		pack_u64(&e, s->function);
	}
	pack_exit_ns(&e, s->mono_exit_ns, start->mono_ns);
	if (last)
		pack_i64(&e, (int64_t)(s->cpu_ns - prev.cpu_ns));
	else
		pack_u64(&e, s->cpu_ns);
	/* differences modulo 2^64, as integers: any values come back */
	pack_i64(&e, (int64_t)(end->mono_ns - start->mono_ns));
	pack_i64(&e, (int64_t)(t->event - s->event));
	pack_exit_ns(&e, t->mono_exit_ns, end->mono_ns);
	pack_i64(&e, (int64_t)(t->cpu_ns - s->cpu_ns));
	pack_array(&e, end_elems);
	own_end(&e, end);
	enc_flush(&e);
	return 0;
}

int causal_encode_header(msgpack_packer *pk, const struct causal_identity *id,
			 uint32_t buffer_kb, uint32_t flush_ms,
			 uint32_t cpu_clock, uint64_t sample_skip)
{
	return causal_encode_segment_header(pk, id, buffer_kb, flush_ms,
					    cpu_clock, sample_skip, NULL);
}

int causal_encode_segment_header(msgpack_packer *pk,
				 const struct causal_identity *id,
				 uint32_t buffer_kb, uint32_t flush_ms,
				 uint32_t cpu_clock, uint64_t sample_skip,
				 const struct causal_segment_note *seg)
{
	static const struct causal_segment_note none;
	struct rec_header r = {
		.hdr = { .type = CAUSAL_REC_HEADER,
			 .mono_ns = id->start_mono_ns },
		.version = CAUSAL_FORMAT_VERSION,
		.uuid = id->uuid,
		.host = id->hostname,
		.pid = id->pid,
		.ppid = id->ppid,
		.exe = id->exe,
		.argv = { id->argv, id->argv_len, id->argc },
		.start_realtime_ns = id->start_realtime_ns,
		.start_mono_ns = id->start_mono_ns,
		.parent_uuid = id->has_parent ? id->parent_uuid : NULL,
		.buffer_kb = buffer_kb,
		.flush_ms = flush_ms,
		.cpu_clock = cpu_clock,
		.sample_skip = sample_skip,
	};

	if (!seg)
		seg = &none;
	r.segment = seg->segment;
	r.deleted_segments = seg->deleted_segments;
	r.deleted_records = seg->deleted_records;
	r.deleted_bytes = seg->deleted_bytes;
	return causal_encode_record(pk, &r.hdr);
}

void causal_encode_drops(msgpack_packer *pk, uint32_t tid, uint64_t mono_ns,
			 uint64_t dropped_total)
{
	struct rec_drops r = {
		.hdr = { .type = CAUSAL_REC_DROPS,
			 .tid = tid,
			 .mono_ns = mono_ns },
		.dropped = dropped_total,
	};

	causal_encode_record(pk, &r.hdr);
}

void causal_encode_thread_end(msgpack_packer *pk, uint32_t tid,
			      uint64_t mono_ns, uint64_t cpu_ns, uint32_t how,
			      const struct causal_heap_tls *heap,
			      uint32_t heap_epoch, uint8_t mon_off)
{
	struct rec_thread_end r = {
		.hdr = { .type = CAUSAL_REC_THREAD_END,
			 .tid = tid,
			 .aux = how,
			 .mono_ns = mono_ns },
		.cpu_ns = cpu_ns,
		.mon_off = mon_off,
	};

	if (heap && heap_epoch) {
		r.heap_epoch = heap_epoch;
		r.alloc_bytes = heap->alloc_bytes;
		r.freed_bytes = heap->freed_bytes;
		r.allocs = heap->allocs;
		r.frees = heap->frees;
		r.heap_peak = heap->peak;
	}

	causal_encode_record(pk, &r.hdr);
}

void causal_encode_process_end(msgpack_packer *pk, uint64_t mono_ns,
			       uint64_t realtime_ns, uint32_t reason,
			       int64_t detail, uint64_t records,
			       uint64_t dropped, uint32_t heap_epoch,
			       uint64_t heap_peak)
{
	struct rec_process_end r = {
		.hdr = { .type = CAUSAL_REC_PROCESS_END, .mono_ns = mono_ns },
		.realtime_ns = realtime_ns,
		.reason = reason,
		.detail = detail,
		.records = records,
		.dropped = dropped,
		.heap_epoch = heap_epoch,
		.heap_peak = heap_peak,
	};

	causal_encode_record(pk, &r.hdr);
}

void causal_encode_loss(msgpack_packer *pk, uint64_t mono_ns, int err,
			uint64_t lost, const uint64_t *by_type, unsigned types)
{
	struct rec_loss r = {
		.hdr = { .type = CAUSAL_REC_LOSS, .mono_ns = mono_ns },
		.err = err,
		.lost = lost,
		.by_type = { by_type, types },
	};

	causal_encode_record(pk, &r.hdr);
}
