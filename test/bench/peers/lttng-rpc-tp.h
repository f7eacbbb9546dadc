/*
 * lttng-rpc-tp.h - the LTTng-UST tracepoint of lttng-rpc.c: what causal
 * records of an RPC probe that LTTng can take as it is, the call chain's
 * 20-byte id, the event number and the invocation's id (LTTng adds its
 * own timestamp).  Read twice by lttng-ust's macros, as its providers are.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER causal_peer_rpc

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng-rpc-tp.h"

#if !defined(LTTNG_RPC_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_RPC_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

/* clang-format would indent each field under the one before it */
/* clang-format off */
LTTNG_UST_TRACEPOINT_EVENT(
	causal_peer_rpc, probe,
	LTTNG_UST_TP_ARGS(const unsigned char *, chain, uint64_t, event,
			  uint64_t, function),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_array(unsigned char, chain, chain, 20)
		lttng_ust_field_integer(uint64_t, event, event)
		lttng_ust_field_integer(uint64_t, function, function)))
/* clang-format on */

#endif

#include <lttng/tracepoint-event.h>
