/*
 * record.h - the in-memory (ring) form of each record the probes write.
 *
 * These are private to libcausal.so: the background writer turns them into
 * the msgpack records of include/causal/log-format.h.  Field order follows
 * the msgpack layout of the same record type.
 */
#ifndef CAUSAL_RECORD_H
#define CAUSAL_RECORD_H

#include "causal/log-format.h"
#include "context.h"
#include "ring.h"

#define CAUSAL_MAX_PATH_IN_RECORD 4096

struct rec_thread_start {	/* hdr.aux = parent_tid */
	struct causal_rec hdr;
	uint32_t os_tid;
	uint8_t marker;
	uint8_t has_ctx;
	uint8_t pad[2];
	uint64_t cpu_ns;
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	uint8_t pad2[4];
	uint64_t event_no;
	uint64_t function_id;
};

struct rec_thread_end {		/* hdr.aux = enum causal_thread_end */
	struct causal_rec hdr;
	uint64_t cpu_ns;
};

struct rec_thread_spawn {	/* hdr.aux = child tid */
	struct causal_rec hdr;
};

struct rec_fork {		/* hdr.aux = child pid */
	struct causal_rec hdr;
};

struct rec_exec_failed {	/* hdr.aux = errno */
	struct causal_rec hdr;
};

struct rec_exec {
	struct causal_rec hdr;	/* hdr.aux = strlen(path) */
	char path[];		/* not NUL-terminated */
};

#endif
