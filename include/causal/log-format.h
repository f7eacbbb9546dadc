/*
 * log-format.h - the on-disk format of a causal per-process log.
 *
 * This header, with the tables of record types and fields (records.def)
 * and of enums (enums.def) it includes, is the contract between
 * libcausal.so (which writes logs) and the tools (which read them).
 * Change them only together with CAUSAL_FORMAT_VERSION, so that old logs
 * are rejected or read on purpose, never misread; a field appended to a
 * record (records.def says how) is the one change a version allows.
 *
 * A log file is a sequence of zstd frames:
 *
 *   1. one zstd *skippable* frame (magic 0x184D2A50) whose 12-byte content
 *      is CAUSAL_FILE_MAGIC (8 bytes) followed by the format version as a
 *      little-endian uint32.  Plain `zstd -d` skips it.
 *   2. the loss slot: one zstd skippable frame (magic CAUSAL_SLOT_MAGIC)
 *      of CAUSAL_SLOT_SIZE content bytes, written with the file header.
 *      Its content is a little-endian uint32 n, n bytes of msgpack
 *      records, then zeros; n is 0 unless a write failed (a full disk).
 *      Then the writer appends no more frames, and rewrites the slot in
 *      place, which takes no new disk space: a CAUSAL_REC_LOSS record
 *      with what was lost, kept up to date, and the PROCESS_END once the
 *      process ends.  A reader takes the slot's records after those of
 *      every data frame.  Logs written before the slot existed lack it
 *      (the data frames follow the file header): read them the same.
 *   3. any number of ordinary zstd frames, each with a content checksum and
 *      its decompressed size in the frame header.  Each frame decompresses to
 *      a concatenation of msgpack objects, one per record, and is decodable
 *      on its own: a process killed mid-write loses at most the frame being
 *      written, never an earlier one.
 *
 * Every record is a msgpack array whose first three elements are common:
 *
 *   [ type, tid, mono_ns, ...type-specific fields... ]
 *
 *   type     one of enum causal_record_type (records.def lists each
 *            type's fields, in this order)
 *   tid      the process-wide thread id (1 = main thread, 0 = the process)
 *   mono_ns  CLOCK_MONOTONIC of the event, in nanoseconds
 *
 * A reader must accept (and ignore) extra trailing elements, so that fields
 * can be appended within a format version; it must skip unknown record types.
 *
 * The first record of the first data frame is always CAUSAL_REC_HEADER.
 * A complete log ends with CAUSAL_REC_PROCESS_END.  CPU times are
 * CLOCK_THREAD_CPUTIME_ID of the thread in question, in nanoseconds.
 */
#ifndef CAUSAL_LOG_FORMAT_H
#define CAUSAL_LOG_FORMAT_H

#include <stdint.h>

#define CAUSAL_FILE_MAGIC "CAUSALOG" /* 8 bytes, no NUL written */
#define CAUSAL_FILE_MAGIC_LEN 8
/* 2: an RPC probe's mono_exit_ns as its distance from mono_ns (records.def,
 * EXIT_NS); 3: a probe's start and end in one record when nothing came
 * between them (records.def, CAUSAL_RPC_PAIRS_3); 4: such a pair with what
 * changes from call to call after what does not (CAUSAL_RPC_PAIRS); 5: a
 * pair's counters as steps from its thread's previous pair in the frame
 * (CAUSAL_RPC_PAIRS_NEXT); the tools read 1 to 4 as well. */
#define CAUSAL_FORMAT_VERSION 5
#define CAUSAL_SKIPPABLE_MAGIC 0x184D2A50u

/* The loss slot: where it is, its magic, the size of its content. */
#define CAUSAL_SLOT_OFFSET (8 + CAUSAL_FILE_MAGIC_LEN + 4)
#define CAUSAL_SLOT_MAGIC 0x184D2A51u
#define CAUSAL_SLOT_SIZE 504u	/* 512 bytes with the frame header */

/* Log file names: HOST.PID.UUIDHEX.clog, unique across hosts. */
#define CAUSAL_LOG_SUFFIX ".clog"

#define CAUSAL_UUID_LEN 16	 /* process UUID */
#define CAUSAL_CHAIN_ID_LEN 20	 /* function UUID: process UUID + counter */

#include "causal/enums.def"
#include "causal/records.def"

/*
 * The record types, their fields and the enums those use are the tables
 * of records.def and enums.def (beside this file); what follows is
 * generated from them.
 */

/* clang-format off */
#define CAUSAL_REC_TYPE(num, UPPER, lower, member, GROUP, nreq)                \
	CAUSAL_REC_##UPPER = num,
#define CAUSAL_REC_PAIR_TYPE(num, UPPER, START, END) CAUSAL_REC_##UPPER = num,
#define CAUSAL_REC_NEXT_TYPE(num, UPPER, PAIR) CAUSAL_REC_##UPPER = num,

enum causal_record_type {
	CAUSAL_RECORDS(CAUSAL_REC_TYPE)

	CAUSAL_RPC_PAIRS_3(CAUSAL_REC_PAIR_TYPE)
	CAUSAL_RPC_PAIRS(CAUSAL_REC_PAIR_TYPE)
	CAUSAL_RPC_PAIRS_NEXT(CAUSAL_REC_NEXT_TYPE)
	/* 29..63 are reserved for more RPC records. */
	CAUSAL_REC_RPC_FIRST = 16,
	CAUSAL_REC_RPC_LAST = 63,
};

/*
 * The elements of each record type's array, [type, tid, mono_ns, ...]:
 * CAUSAL_ELEMS_<UPPER>; CAUSAL_REQ_ELEMS_<UPPER> of them every log of
 * this format version has (records.def, nreq).
 */
#define CAUSAL_COUNT_FIELD(name, KIND, SHOW, en, dump) +1
#define CAUSAL_REC_ELEMS(num, UPPER, lower, member, GROUP, nreq)               \
	CAUSAL_ELEMS_##UPPER = 3 CAUSAL_FIELDS_##GROUP(CAUSAL_COUNT_FIELD)     \
		CAUSAL_FIELDS_##UPPER(CAUSAL_COUNT_FIELD),                     \
	CAUSAL_REQ_ELEMS_##UPPER =                                             \
		3 CAUSAL_FIELDS_##GROUP(CAUSAL_COUNT_FIELD) + nreq,

enum { CAUSAL_RECORDS(CAUSAL_REC_ELEMS) };
/* clang-format on */

/*
 * The events a client skips at the stub end of a tagged call whose reply
 * brought back no tag: more than any one call's server side numbers in
 * practice (2^20), few enough that a chain has room for 2^28 such calls
 * below the tag's limit of 2^48.  A reader takes a stub end exactly this
 * far after its stub start as a normal transition, not a gap.
 */
#define CAUSAL_RPC_EVENT_SKIP (1ull << 20)

/* The enums of enums.def (all but another API's: EXTERN). */
/* clang-format off */
#define CAUSAL_ENUM_VALUE(constant, value, name) constant = value,
#define CAUSAL_ENUM_DECL_ENUM(ctype, stem)                                     \
	enum causal_##ctype { CAUSAL_VALUES_##stem(CAUSAL_ENUM_VALUE) };
#define CAUSAL_ENUM_DECL_FLAGS CAUSAL_ENUM_DECL_ENUM
#define CAUSAL_ENUM_DECL_EXTERN(ctype, stem)
#define CAUSAL_ENUM_DECL(ctype, stem, KIND) CAUSAL_ENUM_DECL_##KIND(ctype, stem)

CAUSAL_ENUMS(CAUSAL_ENUM_DECL)

/*
 * The names of the monitoring types in bit order, [i] naming 1 << i
 * (enums.def gives them so): the one list the library, causalctl and
 * ccsg parse and print.
 */
#define CAUSAL_MONTYPE_NAME(constant, value, name) name,
#define CAUSAL_MONTYPE_NAMES { CAUSAL_VALUES_monitor_types(CAUSAL_MONTYPE_NAME) }
/* clang-format on */

#endif /* CAUSAL_LOG_FORMAT_H */
