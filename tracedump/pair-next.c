/*
 * pair-next.c - NEXT pairs back into PAIRs (pair-next.h): the last pair
 * of each thread and kind in the frame, in a table keyed by both; a NEXT
 * pair's four values in place of its steps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log-pair.h"
#include "pair-next.h"

/* clang-format off */
#define PAIR_NEXT_CASE(num, UPPER, PAIR)                                       \
	case CAUSAL_REC_##UPPER:                                               \
		return CAUSAL_REC_##PAIR;
/* clang-format on */

unsigned pair_next_of(unsigned type)
{
	switch (type) {
		CAUSAL_RPC_PAIRS_NEXT(PAIR_NEXT_CASE)
	default:
		return 0;
	}
}

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

/* The xid's index in the start's own fields of a PAIR type, or -1: one
 * case a pair kind (records.def), which the encoder steps the xid of
 * whenever its start has one. */
#define PAIR_KIND(num, UPPER, START, END) +1
_Static_assert(0 CAUSAL_RPC_PAIRS(PAIR_KIND) == 2,
	       "a pair kind more: its xid's index below");
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

/* ---- taking a pair ------------------------------------------------------ */

/*
 * The start's own xid of the pair obj of PAIR type pair (a NEXT pair's
 * too), its shape checked: CAUSAL_PAIR_ELEMS elements at least, a tid of
 * 32 bits, an own array that holds the xid.  NULL: the wrong shape.
 */
static msgpack_object *own_xid(msgpack_object *obj, unsigned pair)
{
	msgpack_object *a = obj->via.array.ptr;
	int xat = xid_at(pair);

	if (obj->type != MSGPACK_OBJECT_ARRAY ||
	    obj->via.array.size < CAUSAL_PAIR_ELEMS ||
	    a[P4_tid].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    a[P4_tid].via.u64 > UINT32_MAX || xat < 0 ||
	    a[P4_start_own].type != MSGPACK_OBJECT_ARRAY ||
	    a[P4_start_own].via.array.size <= (uint32_t)xat)
		return NULL;
	return &a[P4_start_own].via.array.ptr[xat];
}

/* v into the NEXT pair of elements a, its shape checked, xid its start's
 * own xid. */
static void apply(msgpack_object *a, msgpack_object *xid,
		  const struct pair_next_values *v)
{
	set_uint(&a[P4_type], v->type);
	set_uint(&a[P4_event], v->event);
	set_uint(&a[P4_function], v->function);
	set_uint(&a[P4_cpu_ns], v->cpu_ns);
	set_uint(xid, v->xid);
}

int pair_next_apply(msgpack_object *obj, const struct pair_next_values *v)
{
	msgpack_object *a = obj->via.array.ptr, *xid;

	if (obj->type != MSGPACK_OBJECT_ARRAY || !obj->via.array.size ||
	    pair_next_of((unsigned)a[P4_type].via.u64) != v->type ||
	    !(xid = own_xid(obj, v->type)))
		return -EINVAL;
	apply(a, xid, v);
	return 0;
}

int pair_next_take(struct pair_next *m, msgpack_object *obj,
		   struct pair_next_values *v, bool *next)
{
	/* the reader checked: an array of 3 elements at least, an integer
	 * type */
	msgpack_object *a = obj->via.array.ptr, *own;
	uint64_t type = a[P4_type].via.u64, event, function, cpu, xid;
	unsigned pair = pair_next_of((unsigned)type);
	struct pair_next_last *last;
	int rc;

	*next = false;
	if (!m->frame)
		m->frame = 1;
	if (!pair)
		pair = (unsigned)type;
	if (!(own = own_xid(obj, pair))) /* a PAIR: log_pair_split judges */
		return type != pair ? -EINVAL : 0;
	if ((rc = make_room(m)))
		return rc;
	last = &m->slot[slot_of(m, (uint32_t)a[P4_tid].via.u64, pair)];
	if (int_of(&a[P4_event], type != pair, &event) ||
	    int_of(&a[P4_function], type != pair, &function) ||
	    int_of(&a[P4_cpu_ns], type != pair, &cpu) ||
	    int_of(own, type != pair, &xid)) {
		last->frame = 0; /* nothing to step from after it */
		return type != pair ? -EINVAL : 0;
	}
	if (type != pair) {
		if (last->frame != m->frame)
			return -EINVAL; /* no pair before it in the frame */
		*v = (struct pair_next_values){
			.event = event + last->event,
			.function = function + last->function,
			.cpu_ns = cpu + last->cpu_ns,
			.xid = (uint32_t)(xid + last->xid),
			.type = pair,
		};
		apply(a, own, v); /* own_xid() checked its shape */
		*next = true;
		event = v->event, function = v->function, cpu = v->cpu_ns;
		xid = v->xid;
	} else if (xid > UINT32_MAX) {
		last->frame = 0;
		return 0;
	}
	if (last->frame != m->frame)
		m->used++;
	*last = (struct pair_next_last){
		.frame = m->frame,
		.tid = (uint32_t)a[P4_tid].via.u64,
		.type = pair,
		.event = event,
		.function = function,
		.cpu_ns = cpu,
		.xid = (uint32_t)xid,
	};
	return 0;
}
