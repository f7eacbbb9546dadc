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

/* The loss slot: where it is, its magic, the size of its content. */
#define CAUSAL_SLOT_OFFSET (8 + CAUSAL_FILE_MAGIC_LEN + 4)
#define CAUSAL_SLOT_MAGIC 0x184D2A51u
#define CAUSAL_SLOT_SIZE 504u	/* 512 bytes with the frame header */

/* Log file names: HOST.PID.UUIDHEX.clog, unique across hosts. */
#define CAUSAL_LOG_SUFFIX ".clog"

#define CAUSAL_UUID_LEN 16	 /* process UUID */
#define CAUSAL_CHAIN_ID_LEN 20	 /* function UUID: process UUID + counter */

enum causal_record_type {
	/*
	 * [1, 0, mono_ns, version, process_uuid(bin 16), hostname(str),
	 *  pid, ppid, exe(str), argv(array of str), start_realtime_ns,
	 *  start_mono_ns, parent_process_uuid(bin 16 | nil), buffer_kb,
	 *  flush_ms, cpu_clock]
	 * parent_process_uuid is set in a child created by fork().
	 * cpu_clock is enum causal_cpu_clock_kind (absent in logs written
	 * before it was added: read it as syscall).
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

	/*
	 * [5, tid, mono_ns, child_pid, how]: thread tid made process
	 * child_pid; how is enum causal_fork_how (absent in logs written
	 * before it was added: read it as fork).
	 *   fork          written in the parent once fork() returned; the
	 *                 child's HEADER names the parent.
	 *   vfork         written by a child that shares the parent's memory
	 *                 (vfork(), or clone() with CLONE_VM | CLONE_VFORK)
	 *                 when it calls exec, into the buffer of the parent
	 *                 thread it keeps suspended; mono_ns is just before
	 *                 the exec (which may still fail).
	 *   posix_spawn,  written in the parent once the call succeeded;
	 *   posix_spawnp  mono_ns is taken before the call, so it precedes
	 *                 the child's start.
	 * The image such a child execs cannot name its parent in its HEADER
	 * (the environment is the program's): the merge links it by host,
	 * pid and time (README, "The database").
	 */
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
	 * records counts every record of the process in the data frames;
	 * dropped those lost because a buffer was full (DROPS; a LOSS record
	 * counts those a failed write lost).
	 */
	CAUSAL_REC_PROCESS_END = 8,

	/*
	 * [9, tid, mono_ns, child_tid]: thread tid created thread child_tid.
	 * Written by the parent, so the function-spawn-thread relation is
	 * seen from the spawning side even if the child's records are lost.
	 */
	CAUSAL_REC_THREAD_SPAWN = 9,

	/*
	 * [10, 0, mono_ns, errno, lost, [[type, count], ...]]
	 * The log could not be written (errno: ENOSPC or EDQUOT for a full
	 * disk, EIO, ...): lost records of the process were never written,
	 * counted by record type (the types with a count, in type order).
	 * Everything after the first failed frame is lost, that frame
	 * included; the records before it are in the data frames.  Found
	 * only in the loss slot (above), where the last one wins.
	 */
	CAUSAL_REC_LOSS = 10,

	/*
	 * The four probes of a Sun RPC call (Figure 2 of the monitoring
	 * paper), written by shim-rpc.  All four start with
	 *   [type, tid, mono_ns, chain(bin 20), event_no, function_id,
	 *    mono_exit_ns, cpu_ns, ...]
	 * mono_ns / mono_exit_ns: CLOCK_MONOTONIC at the probe's entry and
	 * exit.  chain is the call chain id (function UUID: 16-byte process
	 * UUID + 4-byte big-endian counter); event_no its event number;
	 * function_id the process-wide id of this stub or skeleton
	 * invocation (shared by its start and end probes).  cpu_ns is the
	 * thread CPU clock read once per probe, at the phase Equation 1 of
	 * the CPU paper needs: stub start at entry, stub end at exit,
	 * skeleton start at exit, skeleton end at entry.  So the probes' own
	 * cost falls outside every interval the analysis takes.
	 */

	/* [16, ..., prog, vers, proc, transport, peer(bin sockaddr | nil),
	 *  site_id, xid, flags(enum causal_rpc_flags)] */
	CAUSAL_REC_RPC_STUB_START = 16,

	/* [17, ..., status(enum clnt_stat), args_bytes, results_bytes,
	 *  reply_tag(enum causal_tag_status), tag_sent(0/1)]
	 * tag_sent: the tag did go with the arguments (only the stub end
	 * knows: on UDP it is left out when the arguments leave no room).
	 * event_no: the server's skeleton-end event + 1 when the reply
	 * carried a tag; stub start + 3 after an error reply (which cannot
	 * carry one), leaving room for the skeleton start and end a traced
	 * server gave the call; stub start + CAUSAL_RPC_EVENT_SKIP when the
	 * tagged request got no readable reply tag (timeout, one-way or
	 * batched call, a tag damaged or not all received): a traced server
	 * may have numbered events the client cannot know of; else (an
	 * untraced server's reply, no tag sent) stub start + 1. */
	CAUSAL_REC_RPC_STUB_END = 17,

	/* [18, ..., prog, vers, proc, transport, peer(bin sockaddr | nil),
	 *  object_id, xid, args_bytes, tag(enum causal_tag_status)]
	 * An untagged call (untraced client) starts a chain of its own. */
	CAUSAL_REC_RPC_SKEL_START = 18,

	/* [19, ..., reply(enum causal_rpc_reply), results_bytes] */
	CAUSAL_REC_RPC_SKEL_END = 19,

	/* [20, tid, mono_ns, site_id, symbol(str), module(str)]: the client
	 * stub a call site belongs to (e.g. say_it_1), once per site. */
	CAUSAL_REC_RPC_SITE = 20,

	/* [21, tid, mono_ns, object_id, prog, vers, transport,
	 *  local address(bin sockaddr | nil), netid(str)]: a serving
	 * instance, once per process; with the log's host and process it is
	 * the object identity of the CPU paper (Section 2.2). */
	CAUSAL_REC_RPC_OBJECT = 21,

	/* 22..63 are reserved for more RPC records. */
	CAUSAL_REC_RPC_FIRST = 16,
	CAUSAL_REC_RPC_LAST = 63,
};

/* How a process read its threads' CPU clocks (HEADER's cpu_clock). */
enum causal_cpu_clock_kind {
	/* clock_gettime(CLOCK_THREAD_CPUTIME_ID), a system call */
	CAUSAL_CPU_CLOCK_SYSCALL = 0,
	/* the bpf clock (bpf-clock.h) at the RPC probes, without a system
	 * call; the system call for a read whose slot was not the thread's
	 * own, and for every read once the clock was stopped */
	CAUSAL_CPU_CLOCK_BPF = 1,
};

/*
 * The events a client skips at the stub end of a tagged call whose reply
 * brought back no tag: more than any one call's server side numbers in
 * practice (2^20), few enough that a chain has room for 2^28 such calls
 * below the tag's limit of 2^48.  A reader takes a stub end exactly this
 * far after its stub start as a normal transition, not a gap.
 */
#define CAUSAL_RPC_EVENT_SKIP (1ull << 20)

enum causal_rpc_transport {
	CAUSAL_TRANSPORT_UNKNOWN = 0,
	CAUSAL_TRANSPORT_TCP = 1,
	CAUSAL_TRANSPORT_UDP = 2,
	CAUSAL_TRANSPORT_UNIX = 3,	/* AF_LOCAL stream */
	CAUSAL_TRANSPORT_RAW = 4,	/* clnt_raw / svc_raw, in-process */
};

enum causal_rpc_flags {
	CAUSAL_RPC_ONE_WAY = 1,		/* zero timeout: no reply awaited */
	CAUSAL_RPC_TAG_SENT = 2,	/* the tag went with it (from stub end) */
	CAUSAL_RPC_BROADCAST = 4,	/* rpc_broadcast / clnt_broadcast */
	CAUSAL_RPC_BATCHED = 8,		/* NULL results: a batched call */
};

/* What became of the causality tag a peer may have sent. */
enum causal_tag_status {
	CAUSAL_TAG_OK = 0,
	CAUSAL_TAG_ABSENT = 1,		/* untraced peer, or none expected */
	CAUSAL_TAG_MALFORMED = 2,	/* present but invalid: ignored */
	CAUSAL_TAG_STALE = 3,		/* valid, for another xid: ignored */
	CAUSAL_TAG_INCOMPLETE = 4,	/* announced, not all received when
					 * read: not waited for, ignored */
};

/* How a skeleton ended: the reply the server sent. */
enum causal_rpc_reply {
	CAUSAL_REPLY_SUCCESS = 0,
	CAUSAL_REPLY_NONE = 1,		/* dispatch returned without reply */
	CAUSAL_REPLY_PROG_UNAVAIL = 2,
	CAUSAL_REPLY_PROG_MISMATCH = 3,
	CAUSAL_REPLY_PROC_UNAVAIL = 4,
	CAUSAL_REPLY_GARBAGE_ARGS = 5,
	CAUSAL_REPLY_SYSTEM_ERR = 6,
	CAUSAL_REPLY_DENIED = 7,	/* auth error or RPC mismatch */
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

/* How a process was made (CAUSAL_REC_FORK). */
enum causal_fork_how {
	CAUSAL_FORK_FORK = 0,
	CAUSAL_FORK_VFORK = 1,		/* or clone(CLONE_VM | CLONE_VFORK) */
	CAUSAL_FORK_POSIX_SPAWN = 2,
	CAUSAL_FORK_POSIX_SPAWNP = 3,
};

enum causal_process_end {
	CAUSAL_END_EXIT = 0,		/* exit() or return from main */
	CAUSAL_END_SIGNAL = 1,		/* fatal signal (best effort) */
	CAUSAL_END_EXEC = 2,		/* the image was replaced by exec */
	CAUSAL_END__EXIT = 3,		/* _exit() / _Exit() */
};

#endif /* CAUSAL_LOG_FORMAT_H */
