/*
 * record.h - the in-memory form of each record: what a probe writes into
 * its thread's ring, and what the writer builds for the records it makes
 * itself (HEADER, DROPS, PROCESS_END, LOSS, THREAD_END at exit).
 *
 * Private to libcausal.so: the writer turns these into the msgpack
 * records of include/causal/log-format.h (encode.c).  Each is generated
 * from records.def, struct rec_<lower>:
 *
 *	struct causal_rec hdr;		(or struct rec_rpc_probe p, with hdr)
 *	<its fields, widest first>	(no padding between them)
 *	_Alignas(8) uint8_t tail[];	(its variable-length fields)
 *
 * The only padding is at the end of p and of a struct rec_ctx (after the
 * chain, and set) and before tail, up to a multiple of 8.  Members are
 * in order of their alignment, not in msgpack order (which is
 * records.def's, and only the encoder's business), so that a record takes
 * no more ring than its fields need.  A probe fills the members by name
 * and copies its variable-length fields into the tail one after the
 * other, in records.def order, setting their lengths (hdr.aux, or
 * <name>_len).
 */
#ifndef CAUSAL_RECORD_H
#define CAUSAL_RECORD_H

#include "causal/log-format.h"
#include "context.h"
#include "ring.h"

#define CAUSAL_MAX_PATH_IN_RECORD 4096
#define CAUSAL_SOCKADDR_MAX 112 /* sockaddr_un fits */

/* CTX: the context a thread started in, valid when set. */
struct rec_ctx {
	uint64_t event, function;
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	uint8_t set;
};

/* STRV: count NUL-terminated strings, one after the other in buf. */
struct rec_strv {
	const char *buf;
	size_t len;
	uint32_t count;
};

/* COUNTS: count[t] records of type t for t < n, written when not 0. */
struct rec_counts {
	const uint64_t *count;
	unsigned n;
};

/*
 * A member of KIND is declared in the pass of its alignment (8, 4, 2, 1),
 * or in none when it lives in hdr.aux or only in the tail.
 */
/* clang-format off */
#define REC_A8_U64(n) uint64_t n;
#define REC_A8_I64(n) int64_t n;
#define REC_A8_EXIT_NS(n) uint64_t n;
#define REC_A8_UUID(n) const uint8_t *n;
#define REC_A8_UUID_NIL(n) const uint8_t *n;
#define REC_A8_STRZ(n) const char *n;
#define REC_A8_STRV(n) struct rec_strv n;
#define REC_A8_COUNTS(n) struct rec_counts n;
#define REC_A8_CTX(n) struct rec_ctx n;
#define REC_A4_U32(n) uint32_t n;
#define REC_A4_I32(n) int32_t n;
#define REC_A2_U16(n) uint16_t n;
#define REC_A2_STR_L16(n) uint16_t n##_len;
#define REC_A1_U8(n) uint8_t n;
#define REC_A1_CHAIN(n) uint8_t n[CAUSAL_CHAIN_ID_LEN];
#define REC_A1_STR_L8(n) uint8_t n##_len;
#define REC_A1_BIN_L8(n) uint8_t n##_len;

/* Which pass each KIND is in. */
#define REC_PASS_U64 A8
#define REC_PASS_I64 A8
#define REC_PASS_EXIT_NS A8
#define REC_PASS_UUID A8
#define REC_PASS_UUID_NIL A8
#define REC_PASS_STRZ A8
#define REC_PASS_STRV A8
#define REC_PASS_COUNTS A8
#define REC_PASS_CTX A8
#define REC_PASS_U32 A4
#define REC_PASS_I32 A4
#define REC_PASS_U16 A2
#define REC_PASS_STR_L16 A2
#define REC_PASS_U8 A1
#define REC_PASS_CHAIN A1
#define REC_PASS_STR_L8 A1
#define REC_PASS_BIN_L8 A1
#define REC_PASS_AUX NO
#define REC_PASS_AUX_I NO
#define REC_PASS_STR_AUX NO
#define REC_PASS_BIN_AUX NO

/* REC_IN_<pass>_<pass of the kind>: the declaration, or nothing. */
#define REC_IN_A8_A8(d) d
#define REC_IN_A8_A4(d)
#define REC_IN_A8_A2(d)
#define REC_IN_A8_A1(d)
#define REC_IN_A8_NO(d)
#define REC_IN_A4_A8(d)
#define REC_IN_A4_A4(d) d
#define REC_IN_A4_A2(d)
#define REC_IN_A4_A1(d)
#define REC_IN_A4_NO(d)
#define REC_IN_A2_A8(d)
#define REC_IN_A2_A4(d)
#define REC_IN_A2_A2(d) d
#define REC_IN_A2_A1(d)
#define REC_IN_A2_NO(d)
#define REC_IN_A1_A8(d)
#define REC_IN_A1_A4(d)
#define REC_IN_A1_A2(d)
#define REC_IN_A1_A1(d) d
#define REC_IN_A1_NO(d)
#define REC_IN(pass, kpass, d) REC_IN_(pass, kpass, d)
#define REC_IN_(pass, kpass, d) REC_IN_##pass##_##kpass(d)

#define REC_MEMBER(pass, name, KIND)                                           \
	REC_IN(pass, REC_PASS_##KIND, REC_##pass##_##KIND(name))
#define REC_A8(name, KIND, SHOW, en, dump) REC_MEMBER(A8, name, KIND)
#define REC_A4(name, KIND, SHOW, en, dump) REC_MEMBER(A4, name, KIND)
#define REC_A2(name, KIND, SHOW, en, dump) REC_MEMBER(A2, name, KIND)
#define REC_A1(name, KIND, SHOW, en, dump) REC_MEMBER(A1, name, KIND)
#define REC_MEMBERS(FIELDS)                                                    \
	FIELDS(REC_A8) FIELDS(REC_A4) FIELDS(REC_A2) FIELDS(REC_A1)
/* clang-format on */

/*
 * The start the four RPC probes share (records.def, RPC_PROBE):
 * hdr.mono_ns is the probe's entry; mono_exit_ns and cpu_ns are taken
 * last, just before the commit.
 */
struct rec_rpc_probe {
	struct causal_rec hdr;
	REC_MEMBERS(CAUSAL_FIELDS_RPC_PROBE)
};

/* clang-format off */
#define REC_START_NONE struct causal_rec hdr;
#define REC_START_RPC_PROBE struct rec_rpc_probe p;

#define REC_STRUCT(num, UPPER, lower, member, GROUP, nreq)                     \
	struct rec_##lower {                                                   \
		REC_START_##GROUP                                              \
		REC_MEMBERS(CAUSAL_FIELDS_##UPPER)                             \
		_Alignas(8) uint8_t tail[];                                    \
	};

CAUSAL_RECORDS(REC_STRUCT)

/* hdr.aux holds one field at most; a group's fields are all members. */
#define REC_IN_AUX_A8 0
#define REC_IN_AUX_A4 0
#define REC_IN_AUX_A2 0
#define REC_IN_AUX_A1 0
#define REC_IN_AUX_NO 1
#define REC_IN_AUX(kpass) REC_IN_AUX_(kpass)
#define REC_IN_AUX_(kpass) REC_IN_AUX_##kpass
#define REC_COUNT_AUX(name, KIND, SHOW, en, dump)                              \
	+REC_IN_AUX(REC_PASS_##KIND)
#define REC_AUX_CHECK(num, UPPER, lower, member, GROUP, nreq)                  \
	_Static_assert((0 CAUSAL_FIELDS_##UPPER(REC_COUNT_AUX)) <= 1,          \
		       #UPPER ": more than one field in hdr.aux or its length"); \
	_Static_assert((0 CAUSAL_FIELDS_##GROUP(REC_COUNT_AUX)) == 0,          \
		       #GROUP ": a field in hdr.aux or in the tail");
CAUSAL_RECORDS(REC_AUX_CHECK)
/* clang-format on */

#endif
