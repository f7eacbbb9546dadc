/*
 * pair-next.h - format 5's NEXT pairs (records.def,
 * CAUSAL_RPC_PAIRS_NEXT) back into the PAIR records they stand for: the
 * steps added to the previous pair of the same thread and kind in the
 * frame, which the reader remembers as it goes.  After this, a reader
 * sees PAIR records only, whose bytes decode on their own (the merge
 * decodes a record's bytes again, in another order).
 *
 *	struct pair_next memo = { 0 };
 *
 *	pair_next_frame(&memo);		-- each frame, before its records
 *	rc = pair_next_take(&memo, &obj, raw, len, &raw, &len);
 *	...
 *	pair_next_free(&memo);
 */
#ifndef CAUSAL_PAIR_NEXT_H
#define CAUSAL_PAIR_NEXT_H

#include <msgpack.h>
#include <stddef.h>
#include <stdint.h>

struct pair_next {
	struct pair_next_last *slot; /* open addressing, cap a power of 2 */
	size_t cap, used;
	uint64_t frame; /* slots of another frame are free */
	uint8_t *bytes; /* the last NEXT pair as a PAIR */
	size_t bytes_cap;
};

/* A new frame: no pair before it. */
void pair_next_frame(struct pair_next *m);

/*
 * Take the PAIR or NEXT pair obj, whose bytes are raw (len): a PAIR is
 * remembered as its thread's last of its kind; a NEXT pair becomes the
 * PAIR it stands for, in obj and in *out (*out_len bytes, valid until the
 * next call), and is remembered.  For a PAIR, *out = raw.  0; -EINVAL for
 * a NEXT pair with no pair of its thread and kind before it in the frame,
 * or one of the wrong shape; -ENOMEM.
 */
int pair_next_take(struct pair_next *m, msgpack_object *obj, const void *raw,
		   size_t len, const void **out, size_t *out_len);

void pair_next_free(struct pair_next *m);

#endif
