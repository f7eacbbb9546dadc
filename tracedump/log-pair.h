/*
 * log-pair.h - a PAIR record (a probe's start and end in one record,
 * records.def CAUSAL_RPC_PAIRS, format 4, and CAUSAL_RPC_PAIRS_3) back
 * into its two records, as a log that wrote them apart has them.
 */
#ifndef CAUSAL_LOG_PAIR_H
#define CAUSAL_LOG_PAIR_H

#include <msgpack.h>
#include <stdbool.h>

#include "causal/log-format.h"
#include "pair-next.h"

/* clang-format off */
/* A format 4 or 5 pair's elements (records.def), a NEXT pair's too. */
enum {
	P4_type, P4_tid, P4_mono_ns, P4_chain, P4_start_own,
	P4_event, P4_function, P4_mono_exit_ns, P4_cpu_ns,
	P4_end_mono_ns, P4_end_event, P4_end_exit, P4_end_cpu_ns,
	P4_end_own
};
/* clang-format on */
_Static_assert(CAUSAL_PAIR_ELEMS == P4_end_own + 1, "a pair's elements");

/* Whether type is a PAIR's (a NEXT pair's too: pair-next.h). */
bool log_pair_type(unsigned type);

/*
 * The start and the end of the PAIR record pair (an array whose type,
 * tid and mono_ns are checked), their elements in zone.  Returns 0, or
 * -EINVAL when it has the wrong shape (a NEXT pair: pair-next.h first).
 */
int log_pair_split(const msgpack_object *pair, msgpack_zone *zone,
		   msgpack_object *start, msgpack_object *end);

/*
 * The record in the msgpack bytes raw (len bytes, one object) as a
 * logread_record has them: with part 0 the record, with part 1 or 2 the
 * start or end of the PAIR they hold; of the NEXT pair they hold, with
 * next its values (logread_record.next), else NULL.  Its elements in
 * zone.  Returns 0, or -EINVAL.
 */
int log_pair_object(const void *raw, size_t len, unsigned part,
		    const struct pair_next_values *next, msgpack_zone *zone,
		    msgpack_object *out);

#endif
