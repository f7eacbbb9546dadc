/*
 * log-format.h - the on-disk format of a causal per-process log.
 *
 * This header is the contract between libcausal.so (which writes logs) and
 * the tools (which read them).  Change it only together with
 * CAUSAL_FORMAT_VERSION, so that old logs are rejected or read on purpose,
 * never misread.
 *
 * A log file is a sequence of zstd frames:
 *
 *   1. one zstd *skippable* frame (magic 0x184D2A50) whose 12-byte content
 *      is CAUSAL_FILE_MAGIC (8 bytes) followed by the format version as a
 *      little-endian uint32.  Plain `zstd -d` skips it.
 *   2. any number of ordinary zstd frames, each with a content checksum and
 *      its decompressed size in the frame header.  Each frame decompresses to
 *      a concatenation of msgpack objects, one per record, and is decodable
 *      on its own: a process killed mid-write loses at most the frame being
 *      written, never an earlier one.
 *
 * Every record is a msgpack array whose first three elements are common:
 *
 *   [ type, tid, mono_ns, ...type-specific fields... ]
 *
 *   type     one of enum causal_record_type
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
#define CAUSAL_FORMAT_VERSION 1
#define CAUSAL_SKIPPABLE_MAGIC 0x184D2A50u

/* Log file names: HOST.PID.UUIDHEX.clog, unique across hosts. */
#define CAUSAL_LOG_SUFFIX ".clog"

#define CAUSAL_UUID_LEN 16	 /* process UUID */
#define CAUSAL_CHAIN_ID_LEN 20	 /* function UUID: process UUID + counter */

enum causal_record_type {
	/*
	 * [1, 0, mono_ns, version, process_uuid(bin 16), hostname(str),
	 *  pid, ppid, exe(str), argv(array of str), start_realtime_ns,
	 *  start_mono_ns, parent_process_uuid(bin 16 | nil), buffer_kb, flush_ms]
	 * parent_process_uuid is set in a child created by fork().
	 */
	CAUSAL_REC_HEADER = 1,

	/*
	 * [2, tid, mono_ns, parent_tid, os_tid, marker, cpu_ns, ctx]
	 * parent_tid is 0 when unknown (main thread, threads created before
	 * the library was ready).  marker is enum causal_marker.  cpu_ns is the
	 * thread's CPU clock at start.  ctx is the causality context that was
	 * active in the parent when it created the thread:
	 *   nil, or [chain_id(bin 20), event_no, function_id]
	 * (Table 1 of the monitoring paper: function UUID, event number and
	 * the function container identifier).
	 */
	CAUSAL_REC_THREAD_START = 2,

	/*
	 * [3, tid, mono_ns, cpu_ns, how]
	 * how is enum causal_thread_end.
	 */
	CAUSAL_REC_THREAD_END = 3,

	/*
	 * [4, tid, mono_ns, dropped_total]
	 * Records of thread tid lost because its buffer was full, counted
	 * since the thread started (a running total: the last one wins).
	 */
	CAUSAL_REC_DROPS = 4,

	/* [5, tid, mono_ns, child_pid]: thread tid called fork(). */
	CAUSAL_REC_FORK = 5,

	/*
	 * [6, tid, mono_ns, path(str)]: thread tid is about to exec path.
	 * Everything before it has been flushed.  If the exec fails, an
	 * EXEC_FAILED record follows and the log goes on.
	 */
	CAUSAL_REC_EXEC = 6,

	/* [7, tid, mono_ns, errno] */
	CAUSAL_REC_EXEC_FAILED = 7,

	/*
	 * [8, 0, mono_ns, realtime_ns, reason, detail, records, dropped]
	 * reason is enum causal_process_end; detail is the signal number for
	 * CAUSAL_END_SIGNAL, the status for CAUSAL_END__EXIT, else 0.
	 * records and dropped count every record of the process written to /
	 * lost from this log.
	 */
	CAUSAL_REC_PROCESS_END = 8,

	/*
	 * [9, tid, mono_ns, child_tid]: thread tid created thread child_tid.
	 * Written by the parent, so the function-spawn-thread relation is
	 * seen from the spawning side even if the child's records are lost.
	 */
	CAUSAL_REC_THREAD_SPAWN = 9,

	/* 16..63 are reserved for the Sun RPC probes (shim-rpc). */
	CAUSAL_REC_RPC_FIRST = 16,
	CAUSAL_REC_RPC_LAST = 63,
};

/* The white / black marker of Section 2.3.4.2 of the monitoring paper. */
enum causal_marker {
	CAUSAL_MARKER_USER = 0,		/* white: user-application thread */
	CAUSAL_MARKER_INFRA = 1,	/* black: runtime infrastructure */
};

enum causal_thread_end {
	CAUSAL_THREAD_RETURNED = 0,	/* start routine returned */
	CAUSAL_THREAD_EXITED = 1,	/* called pthread_exit() */
	CAUSAL_THREAD_CANCELLED = 2,	/* acted on a cancellation */
	CAUSAL_THREAD_AT_EXIT = 3,	/* still running when the process ended */
};

enum causal_process_end {
	CAUSAL_END_EXIT = 0,		/* exit() or return from main */
	CAUSAL_END_SIGNAL = 1,		/* fatal signal (best effort) */
	CAUSAL_END_EXEC = 2,		/* the image was replaced by exec */
	CAUSAL_END__EXIT = 3,		/* _exit() / _Exit() */
};

#endif /* CAUSAL_LOG_FORMAT_H */
