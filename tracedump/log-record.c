/*
 * log-record.c - typed decoding of log records.  Every field is checked
 * against its msgpack type, because logs are input, not trusted memory.
 */
#include <errno.h>
#include <string.h>

#include "log-record.h"

static const char *const type_names[][2] = {
	[CAUSAL_REC_HEADER] = { "HEADER", "header" },
	[CAUSAL_REC_THREAD_START] = { "THREAD_START", "thread_start" },
	[CAUSAL_REC_THREAD_END] = { "THREAD_END", "thread_end" },
	[CAUSAL_REC_DROPS] = { "DROPS", "drops" },
	[CAUSAL_REC_FORK] = { "FORK", "fork" },
	[CAUSAL_REC_EXEC] = { "EXEC", "exec" },
	[CAUSAL_REC_EXEC_FAILED] = { "EXEC_FAILED", "exec_failed" },
	[CAUSAL_REC_PROCESS_END] = { "PROCESS_END", "process_end" },
	[CAUSAL_REC_THREAD_SPAWN] = { "THREAD_SPAWN", "thread_spawn" },
};

#define N_TYPES (sizeof(type_names) / sizeof(type_names[0]))

bool record_known(unsigned type)
{
	return type < N_TYPES && type_names[type][0];
}

const char *record_type_name(unsigned type, bool lower)
{
	return record_known(type) ? type_names[type][lower] : NULL;
}

const char *record_marker_name(uint64_t marker)
{
	static const char *const names[] = { "user", "infra" };

	return marker < 2 ? names[marker] : NULL;
}

const char *record_thread_end_name(uint64_t how)
{
	static const char *const names[] = {
		"returned", "exited", "cancelled", "at_exit",
	};

	return how < 4 ? names[how] : NULL;
}

const char *record_process_end_name(uint64_t reason)
{
	static const char *const names[] = { "exit", "signal", "exec", "_exit" };

	return reason < 4 ? names[reason] : NULL;
}

void record_hex(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* A cursor over the type-specific fields; any mismatch sets bad. */
struct fields {
	const msgpack_object *a;
	uint32_t n, i;
	bool bad;
};

static const msgpack_object *next(struct fields *f)
{
	if (f->i >= f->n) {
		f->bad = true;
		return NULL;
	}
	return &f->a[f->i++];
}

static uint64_t get_u64(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (!o || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER) {
		f->bad = true;
		return 0;
	}
	return o->via.u64;
}

static int64_t get_i64(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return o->via.i64;
	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
	    o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	f->bad = true;
	return 0;
}

static struct record_str get_str(struct fields *f)
{
	const msgpack_object *o = next(f);
	struct record_str s = { "", 0 };

	if (!o || o->type != MSGPACK_OBJECT_STR) {
		f->bad = true;
		return s;
	}
	s.ptr = o->via.str.ptr;
	s.len = o->via.str.size;
	return s;
}

/* A bin of exactly n bytes, or nil when nil_ok. */
static const uint8_t *get_bin(struct fields *f, uint32_t n, bool nil_ok)
{
	const msgpack_object *o = next(f);

	if (o && nil_ok && o->type == MSGPACK_OBJECT_NIL)
		return NULL;
	if (!o || o->type != MSGPACK_OBJECT_BIN || o->via.bin.size != n) {
		f->bad = true;
		return NULL;
	}
	return (const uint8_t *)o->via.bin.ptr;
}

static const msgpack_object *get_str_array(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (!o || o->type != MSGPACK_OBJECT_ARRAY) {
		f->bad = true;
		return NULL;
	}
	for (uint32_t i = 0; i < o->via.array.size; i++)
		if (o->via.array.ptr[i].type != MSGPACK_OBJECT_STR)
			f->bad = true;
	return o;
}

static void get_ctx(struct fields *f, struct record_ctx *ctx)
{
	const msgpack_object *o = next(f);
	struct fields sub;

	memset(ctx, 0, sizeof(*ctx));
	if (!o || o->type == MSGPACK_OBJECT_NIL)
		return;	/* a missing ctx is already flagged by next() */
	if (o->type != MSGPACK_OBJECT_ARRAY) {
		f->bad = true;
		return;
	}
	sub = (struct fields){ o->via.array.ptr, o->via.array.size, 0, false };
	ctx->chain = get_bin(&sub, CAUSAL_CHAIN_ID_LEN, false);
	ctx->event = get_u64(&sub);
	ctx->function = get_u64(&sub);
	ctx->set = !sub.bad;
	if (sub.bad)
		f->bad = true;
}

int record_decode(const msgpack_object *o, struct record *r)
{
	struct fields f;

	memset(r, 0, sizeof(*r));
	if (o->type != MSGPACK_OBJECT_ARRAY)
		return -EINVAL;
	f = (struct fields){ o->via.array.ptr, o->via.array.size, 0, false };
	r->type = (unsigned)get_u64(&f);
	r->tid = get_u64(&f);
	r->mono_ns = get_u64(&f);
	if (f.bad)
		return -EINVAL;

	switch (r->type) {
	case CAUSAL_REC_HEADER:
		r->header.version = get_u64(&f);
		r->header.uuid = get_bin(&f, CAUSAL_UUID_LEN, false);
		r->header.host = get_str(&f);
		r->header.pid = get_i64(&f);
		r->header.ppid = get_i64(&f);
		r->header.exe = get_str(&f);
		r->header.argv = get_str_array(&f);
		r->header.start_realtime_ns = get_u64(&f);
		r->header.start_mono_ns = get_u64(&f);
		r->header.parent_uuid = get_bin(&f, CAUSAL_UUID_LEN, true);
		r->header.buffer_kb = get_u64(&f);
		r->header.flush_ms = get_u64(&f);
		break;
	case CAUSAL_REC_THREAD_START:
		r->thread_start.parent_tid = get_u64(&f);
		r->thread_start.os_tid = get_u64(&f);
		r->thread_start.marker = get_u64(&f);
		r->thread_start.cpu_ns = get_u64(&f);
		get_ctx(&f, &r->thread_start.ctx);
		break;
	case CAUSAL_REC_THREAD_END:
		r->thread_end.cpu_ns = get_u64(&f);
		r->thread_end.how = get_u64(&f);
		break;
	case CAUSAL_REC_DROPS:
		r->drops.dropped = get_u64(&f);
		break;
	case CAUSAL_REC_FORK:
		r->fork.child_pid = get_i64(&f);
		break;
	case CAUSAL_REC_EXEC:
		r->exec.path = get_str(&f);
		break;
	case CAUSAL_REC_EXEC_FAILED:
		r->exec_failed.err = get_i64(&f);
		break;
	case CAUSAL_REC_PROCESS_END:
		r->process_end.realtime_ns = get_u64(&f);
		r->process_end.reason = get_u64(&f);
		r->process_end.detail = get_i64(&f);
		r->process_end.records = get_u64(&f);
		r->process_end.dropped = get_u64(&f);
		break;
	case CAUSAL_REC_THREAD_SPAWN:
		r->thread_spawn.child_tid = get_u64(&f);
		break;
	default:
		break;
	}
	return f.bad ? -EINVAL : 0;
}
