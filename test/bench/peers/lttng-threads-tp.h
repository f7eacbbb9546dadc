/*
 * lttng-threads-tp.h - the LTTng-UST tracepoints of lttng-threads.c: a
 * thread's start, with its id and its creator's, and its end (LTTng adds
 * its own timestamp).  Read twice by lttng-ust's macros, as its providers
 * are.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER causal_peer_thread

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng-threads-tp.h"

#if !defined(LTTNG_THREADS_TP_H) ||                                            \
	defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_THREADS_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

/* clang-format would indent each field under the one before it */
/* clang-format off */
LTTNG_UST_TRACEPOINT_EVENT(
	causal_peer_thread, start,
	LTTNG_UST_TP_ARGS(uint64_t, tid, uint64_t, parent_tid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, tid, tid)
		lttng_ust_field_integer(uint64_t, parent_tid, parent_tid)))

LTTNG_UST_TRACEPOINT_EVENT(
	causal_peer_thread, end,
	LTTNG_UST_TP_ARGS(uint64_t, tid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, tid, tid)))
/* clang-format on */

#endif

#include <lttng/tracepoint-event.h>
