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

static void pack_str(msgpack_packer *pk, const void *s, size_t len)
{
	msgpack_pack_str(pk, len);
	msgpack_pack_str_body(pk, s, len);
}

static void pack_bin(msgpack_packer *pk, const void *p, size_t len)
{
	msgpack_pack_bin(pk, len);
	msgpack_pack_bin_body(pk, p, len);
}

static void pack_bin_or_nil(msgpack_packer *pk, const void *p, size_t len)
{
	if (len)
		pack_bin(pk, p, len);
	else
		msgpack_pack_nil(pk);
}

static void pack_ctx(msgpack_packer *pk, const struct rec_ctx *ctx)
{
	if (!ctx->set) {
		msgpack_pack_nil(pk);
		return;
	}
	msgpack_pack_array(pk, 3);
	pack_bin(pk, ctx->chain, sizeof(ctx->chain));
	msgpack_pack_uint64(pk, ctx->event);
	msgpack_pack_uint64(pk, ctx->function);
}

static void pack_strv(msgpack_packer *pk, const struct rec_strv *v)
{
	const char *s = v->buf;

	msgpack_pack_array(pk, v->count);
	for (uint32_t i = 0; i < v->count; i++) {
		size_t len = strnlen(s, (size_t)(v->buf + v->len - s));

		pack_str(pk, s, len);
		s += len + 1;
	}
}

static void pack_counts(msgpack_packer *pk, const struct rec_counts *c)
{
	unsigned t, n = 0;

	for (t = 0; t < c->n; t++)
		n += c->count[t] != 0;
	msgpack_pack_array(pk, n);
	for (t = 0; t < c->n; t++) {
		if (!c->count[t])
			continue;
		msgpack_pack_array(pk, 2);
		msgpack_pack_uint32(pk, t);
		msgpack_pack_uint64(pk, c->count[t]);
	}
}

/*
 * One field of KIND, member `name` of s; rec is the record's header and
 * tail its variable-length bytes not yet packed.
 */
/* clang-format off */
#define ENC_U8(s, name) msgpack_pack_uint8(pk, s->name);
#define ENC_U16(s, name) msgpack_pack_uint16(pk, s->name);
#define ENC_U32(s, name) msgpack_pack_uint32(pk, s->name);
#define ENC_U64(s, name) msgpack_pack_uint64(pk, s->name);
#define ENC_I32(s, name) msgpack_pack_int32(pk, s->name);
#define ENC_I64(s, name) msgpack_pack_int64(pk, s->name);
#define ENC_AUX(s, name) msgpack_pack_uint32(pk, rec->aux);
#define ENC_AUX_I(s, name) msgpack_pack_uint32(pk, rec->aux);
#define ENC_CHAIN(s, name) pack_bin(pk, s->name, CAUSAL_CHAIN_ID_LEN);
#define ENC_UUID(s, name) pack_bin(pk, s->name, CAUSAL_UUID_LEN);
#define ENC_UUID_NIL(s, name)                                                  \
	pack_bin_or_nil(pk, s->name, s->name ? CAUSAL_UUID_LEN : 0);
#define ENC_STRZ(s, name) pack_str(pk, s->name, strlen(s->name));
#define ENC_STRV(s, name) pack_strv(pk, &s->name);
#define ENC_COUNTS(s, name) pack_counts(pk, &s->name);
#define ENC_CTX(s, name) pack_ctx(pk, &s->name);
#define ENC_TAIL(pack, len)                                                    \
	pack(pk, tail, len);                                                   \
	tail += len;
#define ENC_STR_AUX(s, name) ENC_TAIL(pack_str, rec->aux)
#define ENC_BIN_AUX(s, name) ENC_TAIL(pack_bin_or_nil, rec->aux)
#define ENC_STR_L8(s, name) ENC_TAIL(pack_str, s->name##_len)
#define ENC_STR_L16(s, name) ENC_TAIL(pack_str, s->name##_len)
#define ENC_BIN_L8(s, name) ENC_TAIL(pack_bin_or_nil, s->name##_len)

#define ENC_FIELD(name, KIND, SHOW, en, dump) ENC_##KIND(r, name)
#define ENC_START_NONE(n) pack_common(pk, n, rec);
#define ENC_START_RPC_PROBE(n) pack_probe(pk, n, (const void *)rec);

/*
 * encode_<lower>(): one record type, in a function of its own that stays
 * small enough for the compiler to inline msgpack's packers in it: in a
 * single function for all the types, msgpack_pack_uint64() became a call
 * and writer-cost measured encoding 5 to 10% slower.
 */
#define ENC_FUNC(num, UPPER, lower, member, GROUP, nreq)                       \
	static __attribute__((noinline)) void                                  \
	encode_##lower(msgpack_packer *pk, const struct causal_rec *rec)       \
	{                                                                      \
		const struct rec_##lower *r = (const void *)rec;               \
		const uint8_t *tail = r->tail;                                 \
									       \
		ENC_START_##GROUP(CAUSAL_ELEMS_##UPPER)                        \
		CAUSAL_FIELDS_##UPPER(ENC_FIELD)                               \
		(void)tail;                                                    \
	}
#define ENC_CASE(num, UPPER, lower, member, GROUP, nreq)                       \
	case CAUSAL_REC_##UPPER:                                               \
		encode_##lower(pk, rec);                                       \
		return 0;
/* clang-format on */

/*
 * The array of n elements with the three every record starts with; with
 * the fields of the group RPC_PROBE after them.  Shared by the types.
 */
static void pack_common(msgpack_packer *pk, size_t n,
			const struct causal_rec *rec)
{
	msgpack_pack_array(pk, n);
	msgpack_pack_uint32(pk, rec->type);
	msgpack_pack_uint32(pk, rec->tid);
	msgpack_pack_uint64(pk, rec->mono_ns);
}

static void pack_probe(msgpack_packer *pk, size_t n,
		       const struct rec_rpc_probe *r)
{
	const struct causal_rec *rec = &r->hdr;

	pack_common(pk, n, rec);
	CAUSAL_FIELDS_RPC_PROBE(ENC_FIELD)
}

CAUSAL_RECORDS(ENC_FUNC)

int causal_encode_record(msgpack_packer *pk, const struct causal_rec *rec)
{
	switch (rec->type) {
		CAUSAL_RECORDS(ENC_CASE)
	}
	return -EINVAL;
}

int causal_encode_header(msgpack_packer *pk, const struct causal_identity *id,
			 uint32_t buffer_kb, uint32_t flush_ms,
			 uint32_t cpu_clock)
{
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
	};

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
