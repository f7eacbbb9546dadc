/*
 * log-pair.c - a PAIR record back into its start and end (records.def,
 * CAUSAL_RPC_PAIRS): the same elements, by pointer, as their own records
 * would have; the end's mono_ns, event and cpu_ns added to the start's.
 */
#include <errno.h>
#include <string.h>

#include "causal/log-format.h"
#include "log-pair.h"

/* Where each element of a probe's record is: PAIR_AT_event ... */
/* clang-format off */
#define PAIR_AT(name, KIND, SHOW, en, dump) PAIR_AT_##name,
enum {
	PAIR_AT_type, PAIR_AT_tid, PAIR_AT_mono_ns,
	CAUSAL_FIELDS_RPC_PROBE(PAIR_AT)
	PAIR_AT_own		/* the type's own fields */
};
/* the end's array: [mono_ns, event, mono_exit_ns, cpu_ns, own...] */
enum { END_AT_mono_ns, END_AT_event, END_AT_exit, END_AT_cpu_ns };
_Static_assert(CAUSAL_PAIR_END_HEAD == END_AT_cpu_ns + 1, "end's head");

#define PAIR_TYPE_CASE(num, UPPER, START, END)                                 \
	case CAUSAL_REC_##UPPER:                                               \
		*start = CAUSAL_REC_##START;                                   \
		*end = CAUSAL_REC_##END;                                       \
		return true;
/* clang-format on */

static bool pair_types(unsigned type, unsigned *start, unsigned *end)
{
	switch (type) {
		CAUSAL_RPC_PAIRS(PAIR_TYPE_CASE)
	default:
		return false;
	}
}

bool log_pair_type(unsigned type)
{
	unsigned s, e;

	return pair_types(type, &s, &e);
}

static bool is_int(const msgpack_object *o)
{
	return o->type == MSGPACK_OBJECT_POSITIVE_INTEGER ||
	       o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER;
}

/* base + the integer d, modulo 2^64: the writer's difference undone. */
static msgpack_object sum(const msgpack_object *base, const msgpack_object *d)
{
	uint64_t v = d->type == MSGPACK_OBJECT_NEGATIVE_INTEGER
			     ? (uint64_t)d->via.i64
			     : d->via.u64;

	return (msgpack_object){ .type = MSGPACK_OBJECT_POSITIVE_INTEGER,
				 .via.u64 = base->via.u64 + v };
}

static msgpack_object array_of(msgpack_object *a, uint32_t n)
{
	return (msgpack_object){ .type = MSGPACK_OBJECT_ARRAY,
				 .via.array = { .size = n, .ptr = a } };
}

int log_pair_split(const msgpack_object *pair, msgpack_zone *zone,
		   msgpack_object *start, msgpack_object *end)
{
	const msgpack_object *a = pair->via.array.ptr, *e;
	uint32_t n = pair->via.array.size, m, own;
	unsigned start_type, end_type;
	msgpack_object *s, *t;

	/* the common elements and the end's array, integers where added to */
	if (pair->type != MSGPACK_OBJECT_ARRAY || n < PAIR_AT_own + 1 ||
	    a[PAIR_AT_type].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    !pair_types((unsigned)a[PAIR_AT_type].via.u64, &start_type,
			&end_type) ||
	    a[PAIR_AT_mono_ns].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    a[PAIR_AT_event].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    a[PAIR_AT_cpu_ns].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return -EINVAL;
	e = &a[n - 1];
	if (e->type != MSGPACK_OBJECT_ARRAY ||
	    (m = e->via.array.size) < CAUSAL_PAIR_END_HEAD)
		return -EINVAL;
	e = e->via.array.ptr;
	if (!is_int(&e[END_AT_mono_ns]) || !is_int(&e[END_AT_event]) ||
	    !is_int(&e[END_AT_cpu_ns]))
		return -EINVAL;
	own = m - CAUSAL_PAIR_END_HEAD;
	s = msgpack_zone_malloc(zone, (n - 1) * sizeof(*s));
	t = msgpack_zone_malloc(zone, (PAIR_AT_own + own) * sizeof(*t));
	if (!s || !t)
		return -ENOMEM;

	/* the start: the pair but its last element, under its own type */
	memcpy(s, a, (n - 1) * sizeof(*s));
	s[PAIR_AT_type].via.u64 = start_type;
	*start = array_of(s, n - 1);

	/* the end: the start's thread, chain and function */
	t[PAIR_AT_type] = s[PAIR_AT_type];
	t[PAIR_AT_type].via.u64 = end_type;
	t[PAIR_AT_tid] = a[PAIR_AT_tid];
	t[PAIR_AT_mono_ns] = sum(&a[PAIR_AT_mono_ns], &e[END_AT_mono_ns]);
	t[PAIR_AT_chain] = a[PAIR_AT_chain];
	t[PAIR_AT_event] = sum(&a[PAIR_AT_event], &e[END_AT_event]);
	t[PAIR_AT_function] = a[PAIR_AT_function];
	t[PAIR_AT_mono_exit_ns] = e[END_AT_exit]; /* from its own mono_ns */
	t[PAIR_AT_cpu_ns] = sum(&a[PAIR_AT_cpu_ns], &e[END_AT_cpu_ns]);
	memcpy(t + PAIR_AT_own, e + CAUSAL_PAIR_END_HEAD, own * sizeof(*t));
	*end = array_of(t, PAIR_AT_own + own);
	return 0;
}

int log_pair_object(const void *raw, size_t len, unsigned part,
		    msgpack_zone *zone, msgpack_object *out)
{
	msgpack_object obj, two[2];
	size_t off = 0;

	if (msgpack_unpack(raw, len, &off, zone, &obj) !=
		    MSGPACK_UNPACK_SUCCESS ||
	    part > 2)
		return -EINVAL;
	if (!part) {
		*out = obj;
		return 0;
	}
	if (log_pair_split(&obj, zone, &two[0], &two[1]))
		return -EINVAL;
	*out = two[part - 1];
	return 0;
}
