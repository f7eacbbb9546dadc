/*
 * pair-next.h - format 5's NEXT pairs (records.def,
 * CAUSAL_RPC_PAIRS_NEXT) back into the PAIR records they stand for: the
 * steps added to the previous pair of the same thread and kind in the
 * frame, which the reader remembers as it goes.
 *
 * A NEXT pair's bytes do not decode on their own: whoever keeps them to
 * decode again (the merge) keeps its values beside them, and applies them
 * to what it decodes (log_pair_object()).
 *
 *	struct pair_next memo = { 0 };
 *	struct pair_next_values v;
 *
 *	pair_next_frame(&memo);		-- each frame, before its records
 *	rc = pair_next_take(&memo, &obj, &v, &next);
 *	...
 *	pair_next_free(&memo);
 */
#ifndef CAUSAL_PAIR_NEXT_H
#define CAUSAL_PAIR_NEXT_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a NEXT pair stands for: the PAIR type and the four values. */
struct pair_next_values {
	uint64_t event, function, cpu_ns;
	uint32_t xid;
	uint32_t type;
};

struct pair_next {
	struct pair_next_last *slot; /* open addressing, cap a power of 2 */
	size_t cap, used;
	uint64_t frame; /* slots of another frame are free */
};

/* A new frame: no pair before it. */
void pair_next_frame(struct pair_next *m);

/*
 * Take the PAIR or NEXT pair obj: a PAIR is remembered as its thread's
 * last of its kind (*next false); a NEXT pair becomes in obj the PAIR it
 * stands for, its values in *v (*next true), and is remembered.  0;
 * -EINVAL for a NEXT pair with no pair of its thread and kind before it in
 * the frame, or one of the wrong shape; -ENOMEM.
 */
int pair_next_take(struct pair_next *m, msgpack_object *obj,
		   struct pair_next_values *v, bool *next);

/* The NEXT pair obj (decoded again from its bytes) as the PAIR of values
 * v.  0, or -EINVAL: not a NEXT pair of v's kind, or the wrong shape. */
int pair_next_apply(msgpack_object *obj, const struct pair_next_values *v);

/* The PAIR type the NEXT pair type stands for, or 0: not a NEXT type. */
unsigned pair_next_of(unsigned type);

void pair_next_free(struct pair_next *m);

#endif
