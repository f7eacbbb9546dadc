/*
 * pair-next.c - NEXT pairs back into PAIRs (pair-next.h): the last pair
 * of each thread and kind in the frame, in a table keyed by both, and a
 * NEXT pair's bytes rewritten with its four values in place of its steps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log-pair.h"
#include "msgpack-walk.h"
#include "pair-next.h"

struct pair_next_last {
	uint64_t frame; /* the frame it is in; another: a free slot */
	uint32_t tid, type;
	uint64_t event, function, cpu_ns;
	uint32_t xid;
};

/* Where the xid is among a pair kind's start's own fields (records.def):
 * STUB_AT_xid, SKEL_AT_xid. */
/* clang-format off */
#define STUB_AT(name, KIND, SHOW, en, dump) STUB_AT_##name,
#define SKEL_AT(name, KIND, SHOW, en, dump) SKEL_AT_##name,
enum { CAUSAL_FIELDS_RPC_STUB_START(STUB_AT) STUB_OWN };
enum { CAUSAL_FIELDS_RPC_SKEL_START(SKEL_AT) SKEL_OWN };
/* clang-format on */

/* The xid's index in the start's own fields of a PAIR type, or -1. */
static int xid_at(unsigned pair_type)
{
	switch (pair_type) {
	case CAUSAL_REC_RPC_STUB_PAIR:
		return STUB_AT_xid;
	case CAUSAL_REC_RPC_SKEL_PAIR:
		return SKEL_AT_xid;
	default:
		return -1;
	}
}

void pair_next_frame(struct pair_next *m)
{
	m->frame++;
	m->used = 0;
}

void pair_next_free(struct pair_next *m)
{
	free(m->slot);
	free(m->bytes);
	memset(m, 0, sizeof(*m));
}

static size_t slot_of(const struct pair_next *m, uint32_t tid, uint32_t type)
{
	size_t i = ((size_t)tid * 0x9e3779b1u ^ type) & (m->cap - 1);

	while (m->slot[i].frame == m->frame &&
	       (m->slot[i].tid != tid || m->slot[i].type != type))
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Room for one more thread and kind in this frame: at most half full. */
static int make_room(struct pair_next *m)
{
	struct pair_next_last *old = m->slot;
	size_t old_cap = m->cap;

	if (m->cap && (m->used + 1) * 2 <= m->cap)
		return 0;
	m->cap = old_cap ? 2 * old_cap : 64;
	m->slot = calloc(m->cap, sizeof(*m->slot));
	if (!m->slot) {
		m->slot = old;
		m->cap = old_cap;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].frame == m->frame)
			m->slot[slot_of(m, old[i].tid, old[i].type)] = old[i];
	free(old);
	return 0;
}

/* The integer o, a step modulo 2^64 (a NEXT pair's: negative too) or a
 * value (a PAIR's: not negative), or -EINVAL. */
static int int_of(const msgpack_object *o, int step, uint64_t *v)
{
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		*v = o->via.u64;
	else if (step && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		*v = (uint64_t)o->via.i64;
	else
		return -EINVAL;
	return 0;
}

static void set_uint(msgpack_object *o, uint64_t v)
{
	o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
	o->via.u64 = v;
}

/* ---- the bytes ---------------------------------------------------------- */

/* The offsets of the first want elements of the array at p (n bytes)
 * into at[], at[want] where the element after them starts; -1: cut,
 * fewer elements, not an array. */
static int elements(const uint8_t *p, size_t n, size_t *at, unsigned want)
{
	uint64_t count, body;
	size_t i = 0;

	if (!n || ((p[0] & 0xf0) != 0x90 && p[0] != 0xdc && p[0] != 0xdd))
		return -1;
	if (msgpack_walk_head(p, n, &i, &count, &body) || count < want)
		return -1;
	for (unsigned k = 0; k < want; k++) {
		size_t l = msgpack_walk_len(p + i, n - i);

		if (!l)
			return -1;
		at[k] = i;
		i += l;
	}
	at[want] = i;
	return 0;
}

/* v as a msgpack unsigned integer of the fewest bytes, at o. */
static size_t put_uint(uint8_t *o, uint64_t v)
{
	unsigned w;

	if (v <= 0x7f) {
		o[0] = (uint8_t)v;
		return 1;
	}
	w = v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffffu ? 4 : 8;
	o[0] = w == 1 ? 0xcc : w == 2 ? 0xcd : w == 4 ? 0xce : 0xcf;
	for (unsigned k = 0; k < w; k++)
		o[1 + k] = (uint8_t)(v >> 8 * (w - 1 - k));
	return 1 + w;
}

/*
 * raw (len bytes), a NEXT pair, as the PAIR obj now is: its type, its
 * start's xid, event, function and cpu_ns in place of their steps, into
 * m->bytes.
 */
static int rewrite(struct pair_next *m, const msgpack_object *obj,
		   const uint8_t *raw, size_t len, int xat, size_t *out_len)
{
	const msgpack_object *a = obj->via.array.ptr;
	size_t top[P4_cpu_ns + 2], own[64], need = len + 5 * 9, o = 0;

	if ((unsigned)xat + 1 >= sizeof(own) / sizeof(own[0]) ||
	    elements(raw, len, top, P4_cpu_ns + 1) ||
	    elements(raw + top[P4_start_own],
		     top[P4_start_own + 1] - top[P4_start_own], own,
		     (unsigned)xat + 1))
		return -EINVAL;
	if (need > m->bytes_cap) {
		uint8_t *b = realloc(m->bytes, need);

		if (!b)
			return -ENOMEM;
		m->bytes = b;
		m->bytes_cap = need;
	}
#define COPY(from, to)                                                         \
	do {                                                                   \
		memcpy(m->bytes + o, raw + (from), (to) - (from));             \
		o += (to) - (from);                                            \
	} while (0)
	COPY(0, top[P4_type]);
	o += put_uint(m->bytes + o, a[P4_type].via.u64);
	COPY(top[P4_tid], top[P4_start_own] + own[xat]);
	o += put_uint(m->bytes + o, a[P4_start_own].via.array.ptr[xat].via.u64);
	COPY(top[P4_start_own] + own[xat + 1], top[P4_event]);
	o += put_uint(m->bytes + o, a[P4_event].via.u64);
	o += put_uint(m->bytes + o, a[P4_function].via.u64);
	COPY(top[P4_mono_exit_ns], top[P4_cpu_ns]);
	o += put_uint(m->bytes + o, a[P4_cpu_ns].via.u64);
	COPY(top[P4_cpu_ns + 1], len);
#undef COPY
	*out_len = o;
	return 0;
}

/* ---- taking a pair ------------------------------------------------------ */

int pair_next_take(struct pair_next *m, msgpack_object *obj, const void *raw,
		   size_t len, const void **out, size_t *out_len)
{
	/* the reader checked: an array of 3 elements at least, an integer
	 * type */
	msgpack_object *a = obj->via.array.ptr, *own;
	uint64_t type = a[P4_type].via.u64, event, function, cpu, xid;
	unsigned pair = log_pair_next_of((unsigned)type);
	struct pair_next_last *last;
	uint32_t tid;
	int xat, rc;

	*out = raw;
	*out_len = len;
	if (!m->frame)
		m->frame = 1;
	xat = xid_at(pair ? pair : (unsigned)type);
	if (obj->type != MSGPACK_OBJECT_ARRAY ||
	    obj->via.array.size < CAUSAL_PAIR_ELEMS ||
	    a[P4_tid].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    a[P4_tid].via.u64 > UINT32_MAX || xat < 0 ||
	    a[P4_start_own].type != MSGPACK_OBJECT_ARRAY ||
	    a[P4_start_own].via.array.size <= (uint32_t)xat)
		return pair ? -EINVAL : 0; /* a PAIR: log_pair_split judges */
	tid = (uint32_t)a[P4_tid].via.u64;
	own = &a[P4_start_own].via.array.ptr[xat];
	if ((rc = make_room(m)))
		return rc;
	last = &m->slot[slot_of(m, tid, pair ? pair : (uint32_t)type)];
	if (int_of(&a[P4_event], !!pair, &event) ||
	    int_of(&a[P4_function], !!pair, &function) ||
	    int_of(&a[P4_cpu_ns], !!pair, &cpu) || int_of(own, !!pair, &xid)) {
		last->frame = 0; /* nothing to step from after it */
		return pair ? -EINVAL : 0;
	}
	if (pair) {
		if (last->frame != m->frame)
			return -EINVAL; /* no pair before it in the frame */
		event += last->event;
		function += last->function;
		cpu += last->cpu_ns;
		xid = (uint32_t)(xid + last->xid);
		set_uint(&a[P4_type], pair);
		set_uint(&a[P4_event], event);
		set_uint(&a[P4_function], function);
		set_uint(&a[P4_cpu_ns], cpu);
		set_uint(own, xid);
		if ((rc = rewrite(m, obj, raw, len, xat, out_len))) {
			last->frame = 0; /* the next ones step from this one */
			return rc;
		}
		*out = m->bytes;
	} else if (xid > UINT32_MAX) {
		last->frame = 0;
		return 0;
	}
	if (last->frame != m->frame)
		m->used++;
	*last = (struct pair_next_last){
		.frame = m->frame,
		.tid = tid,
		.type = pair ? pair : (uint32_t)type,
		.event = event,
		.function = function,
		.cpu_ns = cpu,
		.xid = (uint32_t)xid,
	};
	return 0;
}
