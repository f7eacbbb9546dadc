/*
 * log-record.h - decode one log record (a msgpack array, see log-format.h)
 * into a typed struct, and name record types and enum values.
 *
 * Strings and byte strings point into the msgpack object, so a struct
 * record lives no longer than the logread callback that produced it.
 */
#ifndef CAUSAL_TRACEDUMP_LOG_RECORD_H
#define CAUSAL_TRACEDUMP_LOG_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "causal/log-format.h"

struct record_str {
	const char *ptr;
	size_t len;
};

struct record_ctx {
	bool set;			/* false when the record had nil */
	const uint8_t *chain;		/* CAUSAL_CHAIN_ID_LEN bytes */
	uint64_t event;
	uint64_t function;
};

/* A raw struct sockaddr (bin), or nil: ptr NULL. */
struct record_bin {
	const uint8_t *ptr;
	size_t len;
};

/* The fields common to the four RPC probes (log-format.h). */
struct record_rpc {
	const uint8_t *chain;		/* CAUSAL_CHAIN_ID_LEN bytes */
	uint64_t event, function, mono_exit_ns, cpu_ns;
};

struct record {
	unsigned type;
	uint64_t tid;
	uint64_t mono_ns;
	union {
		struct {
			uint64_t version;
			const uint8_t *uuid;		/* CAUSAL_UUID_LEN */
			struct record_str host;
			int64_t pid, ppid;
			struct record_str exe;
			const msgpack_object *argv;	/* array of str */
			uint64_t start_realtime_ns, start_mono_ns;
			const uint8_t *parent_uuid;	/* NULL if none */
			uint64_t buffer_kb, flush_ms;
			uint64_t cpu_clock; /* enum causal_cpu_clock_kind */
		} header;
		struct {
			uint64_t parent_tid, os_tid, marker, cpu_ns;
			struct record_ctx ctx;
		} thread_start;
		struct {
			uint64_t cpu_ns, how;
		} thread_end;
		struct {
			uint64_t dropped;
		} drops;
		struct {
			int64_t child_pid;
			uint64_t how;		/* 0 (fork) if absent */
		} fork;
		struct {
			struct record_str path;
		} exec;
		struct {
			int64_t err;
		} exec_failed;
		struct {
			uint64_t realtime_ns, reason;
			int64_t detail;
			uint64_t records, dropped;
		} process_end;
		struct {
			uint64_t child_tid;
		} thread_spawn;
		struct {
			int64_t err;
			uint64_t lost;
			/* array of [type, count] pairs, checked: see
			 * record_loss_pair() */
			const msgpack_object *by_type;
		} loss;
		struct {
			struct record_rpc p;
			uint64_t prog, vers, proc, transport;
			struct record_bin peer;
			uint64_t site_id, xid, flags;
		} stub_start;
		struct {
			struct record_rpc p;
			uint64_t status, args_bytes, results_bytes, reply_tag;
			uint64_t tag_sent;
		} stub_end;
		struct {
			struct record_rpc p;
			uint64_t prog, vers, proc, transport;
			struct record_bin peer;
			uint64_t object_id, xid, args_bytes, tag;
		} skel_start;
		struct {
			struct record_rpc p;
			uint64_t reply, results_bytes;
		} skel_end;
		struct {
			uint64_t site_id;
			struct record_str symbol, module;
		} rpc_site;
		struct {
			uint64_t object_id, prog, vers, transport;
			struct record_bin address;
			struct record_str netid;
		} rpc_object;
	};
};

/*
 * Decode o into r.  Returns 0, or -EINVAL when a field has the wrong type
 * or is missing.  Unknown types decode to their common fields only
 * (record_known() tells them apart); extra trailing fields are ignored.
 */
int record_decode(const msgpack_object *o, struct record *r);

bool record_known(unsigned type);

/* "THREAD_START" / "thread_start"; NULL for an unknown type. */
const char *record_type_name(unsigned type, bool lower);

/* Enum value names; NULL when out of range. */
const char *record_marker_name(uint64_t marker);
const char *record_thread_end_name(uint64_t how);
const char *record_process_end_name(uint64_t reason);
const char *record_cpu_clock_name(uint64_t clock);	/* "bpf" */
const char *record_fork_how_name(uint64_t how);		/* "posix_spawn" */
const char *record_transport_name(uint64_t transport);	/* "tcp" */
const char *record_clnt_stat_name(uint64_t status);	/* "RPC_TIMEDOUT" */
const char *record_tag_status_name(uint64_t tag);	/* "stale" */
const char *record_reply_name(uint64_t reply);		/* "proc_unavail" */

/* Pair i of a LOSS record's by_type: false past the last. */
bool record_loss_pair(const struct record *r, uint32_t i, uint64_t *type,
		      uint64_t *count);

/* The probe kind of an RPC probe type ("stub_start"...), else NULL. */
const char *record_rpc_kind(unsigned type);

/*
 * enum causal_rpc_flags as "one_way|tag_sent" (unknown bits as hex,
 * "0x10"; no flag: ""), sep between names.  out needs 64 bytes.
 */
void record_rpc_flags(char *out, size_t size, uint64_t flags, char sep);

/*
 * A raw struct sockaddr as text: "127.0.0.1:2049", "[::1]:111",
 * "unix:/path" ("unix:@name" for an abstract socket, "unix:" unnamed).
 * Anything else is "af<family>:<hex>", or "bad:<hex>" when too short
 * for its family.  out needs RECORD_SOCKADDR_MAX bytes; returns out.
 */
#define RECORD_SOCKADDR_MAX 320
char *record_sockaddr(char *out, const uint8_t *p, size_t len);

#endif
