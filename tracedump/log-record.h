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

/* Lowercase hex of n bytes into out (2n + 1 bytes). */
void record_hex(char *out, const uint8_t *p, size_t n);

#endif
