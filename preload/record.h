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
	uint32_t how;		/* enum causal_fork_how */
	uint32_t pad;
};

struct rec_exec_failed {	/* hdr.aux = errno */
	struct causal_rec hdr;
};

struct rec_exec {
	struct causal_rec hdr;	/* hdr.aux = strlen(path) */
	char path[];		/* not NUL-terminated */
};

/*
 * The four RPC probes share this start; hdr.mono_ns is the probe's entry.
 * mono_exit_ns and cpu_ns are taken last, just before the commit.
 */
struct rec_rpc_probe {
	struct causal_rec hdr;
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	uint8_t pad[4];
	uint64_t event_no;
	uint64_t function_id;
	uint64_t mono_exit_ns;
	uint64_t cpu_ns;
};

#define CAUSAL_SOCKADDR_MAX 112	/* sockaddr_un fits */

struct rec_rpc_stub_start {	/* hdr.aux = peer length (0: none) */
	struct rec_rpc_probe p;
	uint32_t prog, vers, proc, xid;
	uint64_t site_id;
	uint8_t transport, flags, pad[6];
	uint8_t peer[];
};

struct rec_rpc_stub_end {
	struct rec_rpc_probe p;
	uint32_t status, reply_tag, args_bytes, results_bytes;
	uint8_t tag_sent, pad[7];
};

struct rec_rpc_skel_start {	/* hdr.aux = peer length (0: none) */
	struct rec_rpc_probe p;
	uint32_t prog, vers, proc, xid;
	uint64_t object_id;
	uint32_t args_bytes;
	uint8_t transport, tag, pad[2];
	uint8_t peer[];
};

struct rec_rpc_skel_end {
	struct rec_rpc_probe p;
	uint32_t reply, results_bytes;
};

struct rec_rpc_site {		/* text = symbol, then module */
	struct causal_rec hdr;
	uint64_t site_id;
	uint16_t symbol_len, module_len;
	uint8_t pad[4];
	char text[];
};

struct rec_rpc_object {		/* bytes = address, then netid */
	struct causal_rec hdr;
	uint64_t object_id;
	uint32_t prog, vers;
	uint8_t transport, address_len, netid_len, pad[5];
	uint8_t bytes[];
};

#endif
