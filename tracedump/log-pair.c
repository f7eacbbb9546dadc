/*
 * log-pair.c - a PAIR record back into its start and end (records.def,
 * CAUSAL_RPC_PAIRS, and format 3's CAUSAL_RPC_PAIRS_3): the same
 * elements, by pointer, as their own records would have; the end's
 * mono_ns, event and cpu_ns added to the start's.
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
/* format 3's end array: [mono_ns, event, mono_exit_ns, cpu_ns, own...] */
enum { END_AT_mono_ns, END_AT_event, END_AT_exit, END_AT_cpu_ns };
_Static_assert(CAUSAL_PAIR_END_HEAD == END_AT_cpu_ns + 1, "end's head");

/* the end's differences in the order of format 3's end array */
_Static_assert(P4_end_event - P4_end_mono_ns == END_AT_event &&
		       P4_end_exit - P4_end_mono_ns == END_AT_exit &&
		       P4_end_cpu_ns - P4_end_mono_ns == END_AT_cpu_ns,
	       "the end's four differences");
/* the group a pair writes by name: chain, event, function, exit, cpu */
_Static_assert(PAIR_AT_chain == 3 && PAIR_AT_event == 4 &&
		       PAIR_AT_function == 5 && PAIR_AT_mono_exit_ns == 6 &&
		       PAIR_AT_cpu_ns == 7 && PAIR_AT_own == 8,
	       "RPC_PROBE's fields as a pair writes them");

#define PAIR_TYPE_CASE(format, UPPER, START, END)                              \
	case CAUSAL_REC_##UPPER:                                               \
		*start = CAUSAL_REC_##START;                                   \
		*end = CAUSAL_REC_##END;                                       \
		return format;
#define PAIR_CASE_4(num, UPPER, START, END) PAIR_TYPE_CASE(4, UPPER, START, END)
#define PAIR_CASE_3(num, UPPER, START, END) PAIR_TYPE_CASE(3, UPPER, START, END)
/* clang-format on */

/* The format of the pair type (3 or 4; its two types), or 0: no pair. */
static int pair_types(unsigned type, unsigned *start, unsigned *end)
{
	switch (type) {
		CAUSAL_RPC_PAIRS(PAIR_CASE_4)
		CAUSAL_RPC_PAIRS_3(PAIR_CASE_3)
	default:
		return 0;
	}
}

bool log_pair_type(unsigned type)
{
	unsigned s, e;

	return pair_types(type, &s, &e) != 0 || pair_next_of(type);
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

static bool is_uint(const msgpack_object *o)
{
	return o->type == MSGPACK_OBJECT_POSITIVE_INTEGER;
}

static bool is_array(const msgpack_object *o)
{
	return o->type == MSGPACK_OBJECT_ARRAY;
}

/* Whether head holds the end's differences (END_AT_*) as integers. */
static bool end_head_ok(const msgpack_object *head)
{
	return is_int(&head[END_AT_mono_ns]) && is_int(&head[END_AT_event]) &&
	       is_int(&head[END_AT_cpu_ns]);
}

/*
 * The end's common elements into t: the start's (s, as its own record)
 * thread, chain and function, its mono_ns, event and cpu_ns plus head's
 * differences, head's mono_exit_ns.
 */
static void end_common(msgpack_object *t, const msgpack_object *s,
		       unsigned end_type, const msgpack_object *head)
{
	t[PAIR_AT_type] = s[PAIR_AT_type];
	t[PAIR_AT_type].via.u64 = end_type;
	t[PAIR_AT_tid] = s[PAIR_AT_tid];
	t[PAIR_AT_mono_ns] = sum(&s[PAIR_AT_mono_ns], &head[END_AT_mono_ns]);
	t[PAIR_AT_chain] = s[PAIR_AT_chain];
	t[PAIR_AT_event] = sum(&s[PAIR_AT_event], &head[END_AT_event]);
	t[PAIR_AT_function] = s[PAIR_AT_function];
	t[PAIR_AT_mono_exit_ns] = head[END_AT_exit]; /* from its own mono_ns */
	t[PAIR_AT_cpu_ns] = sum(&s[PAIR_AT_cpu_ns], &head[END_AT_cpu_ns]);
}

/* Format 3: the start's record with the end's array as its last element. */
static int split_3(const msgpack_object *a, uint32_t n, unsigned start_type,
		   unsigned end_type, msgpack_zone *zone, msgpack_object *start,
		   msgpack_object *end)
{
	const msgpack_object *e = &a[n - 1];
	msgpack_object *s, *t;
	uint32_t m, own;

	if (n < PAIR_AT_own + 1 || !is_uint(&a[PAIR_AT_event]) ||
	    !is_uint(&a[PAIR_AT_cpu_ns]) || !is_array(e) ||
	    (m = e->via.array.size) < CAUSAL_PAIR_END_HEAD)
		return -EINVAL;
	e = e->via.array.ptr;
	if (!end_head_ok(e))
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

	end_common(t, s, end_type, e);
	memcpy(t + PAIR_AT_own, e + CAUSAL_PAIR_END_HEAD, own * sizeof(*t));
	*end = array_of(t, PAIR_AT_own + own);
	return 0;
}

/* One probe record of a format 4 pair: its common elements, then own. */
static msgpack_object *probe_record(msgpack_zone *zone,
				    const msgpack_object *own_array)
{
	uint32_t own = own_array->via.array.size;
	msgpack_object *r =
		msgpack_zone_malloc(zone, (PAIR_AT_own + own) * sizeof(*r));

	if (r)
		memcpy(r + PAIR_AT_own, own_array->via.array.ptr,
		       own * sizeof(*r));
	return r;
}

/* Format 4 (records.def): the start's own fields and the end's apart. */
static int split_4(const msgpack_object *a, uint32_t n, unsigned start_type,
		   unsigned end_type, msgpack_zone *zone, msgpack_object *start,
		   msgpack_object *end)
{
	msgpack_object *s, *t;

	if (n < CAUSAL_PAIR_ELEMS || !is_array(&a[P4_start_own]) ||
	    !is_array(&a[P4_end_own]) || !is_uint(&a[P4_event]) ||
	    !is_uint(&a[P4_cpu_ns]) || !end_head_ok(&a[P4_end_mono_ns]))
		return -EINVAL;
	s = probe_record(zone, &a[P4_start_own]);
	t = probe_record(zone, &a[P4_end_own]);
	if (!s || !t)
		return -ENOMEM;

	s[PAIR_AT_type] = a[P4_type];
	s[PAIR_AT_type].via.u64 = start_type;
	s[PAIR_AT_tid] = a[P4_tid];
	s[PAIR_AT_mono_ns] = a[P4_mono_ns];
	s[PAIR_AT_chain] = a[P4_chain];
	s[PAIR_AT_event] = a[P4_event];
	s[PAIR_AT_function] = a[P4_function];
	s[PAIR_AT_mono_exit_ns] = a[P4_mono_exit_ns];
	s[PAIR_AT_cpu_ns] = a[P4_cpu_ns];
	*start = array_of(s, PAIR_AT_own + a[P4_start_own].via.array.size);

	end_common(t, s, end_type, &a[P4_end_mono_ns]);
	*end = array_of(t, PAIR_AT_own + a[P4_end_own].via.array.size);
	return 0;
}

int log_pair_split(const msgpack_object *pair, msgpack_zone *zone,
		   msgpack_object *start, msgpack_object *end)
{
	const msgpack_object *a = pair->via.array.ptr;
	uint32_t n = pair->via.array.size;
	unsigned start_type, end_type;
	int format;

	/* the common elements, integers where added to */
	if (!is_array(pair) || n < 3 || !is_uint(&a[0]) ||
	    !(format = pair_types((unsigned)a[0].via.u64, &start_type,
				  &end_type)) ||
	    !is_uint(&a[2]))
		return -EINVAL;
	if (format == 3)
		return split_3(a, n, start_type, end_type, zone, start, end);
	return split_4(a, n, start_type, end_type, zone, start, end);
}

int log_pair_object(const void *raw, size_t len, unsigned part,
		    const struct pair_next_values *next, msgpack_zone *zone,
		    msgpack_object *out)
{
	msgpack_object obj, two[2];
	size_t off = 0;

	if (msgpack_unpack(raw, len, &off, zone, &obj) !=
		    MSGPACK_UNPACK_SUCCESS ||
	    part > 2 || (next && pair_next_apply(&obj, next)))
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
