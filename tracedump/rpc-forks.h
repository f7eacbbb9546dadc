/*
 * rpc-forks.h - calls whose reply a fork child sent.
 *
 * A server that forks inside a procedure and lets the child send the
 * reply (Debian's ypserv does so for YPPROC_ALL, to stream a map) leaves
 * for that call a skeleton start and an end with fork 'handed' in the
 * serving process (its dispatch returned without a reply), and an end
 * with fork 'child' in the child's log, alone there: the child inherited
 * the open call, so the two ends have its chain and function.  Once every
 * file is read (rpc-calls.h):
 *
 *  - each child end joins the handed side with its (chain, function)
 *    whose process is the child's parent, or the parent's parent and so
 *    on (a child of the child), the first in row order not joined yet;
 *  - that side's end becomes the reply: its event, times, reply and
 *    results bytes are the child's; its cpu_ns and heap counters stay
 *    those of the serving thread at its return (Equation 1 of the CPU
 *    paper takes a skeleton's CPU on the thread that ran it; the child's
 *    CPU is its own thread's); reply_proc names the child;
 *  - the child's end then has no row of its own.
 *
 * A child end that no side takes (the parent's log lost) stays a side
 * alone; a handed side that no child end joins keeps its own end, reply
 * 'none': no reply was sent there.
 */
#ifndef CAUSAL_RPC_FORKS_H
#define CAUSAL_RPC_FORKS_H

#include <stddef.h>
#include <stdint.h>

#include "causal/log-format.h"
#include "hashmap.h"

struct rpc_side;

struct rpc_fork_proc {
	uint32_t proc_id;
	bool has_parent;
	uint8_t uuid[CAUSAL_UUID_LEN], parent[CAUSAL_UUID_LEN];
};

/* The processes loaded, by proc_id and by uuid. */
struct rpc_forks {
	struct rpc_fork_proc *procs; /* in proc_id order */
	size_t n, cap;
	struct hashmap by_uuid;
};

void rpc_forks_init(struct rpc_forks *f);
void rpc_forks_release(struct rpc_forks *f);

/*
 * Process proc_id (more than any before) is loaded: its uuid, and the
 * uuid of the process it was forked from (NULL: none).  0 or -ENOMEM.
 */
int rpc_forks_process(struct rpc_forks *f, uint32_t proc_id,
		      const uint8_t *uuid, const uint8_t *parent);

/*
 * Join the child ends among servers[0 .. n) to their handed sides (the
 * rules above).  Returns how many joined, or -ENOMEM.
 */
int64_t rpc_forks_join(const struct rpc_forks *f, struct rpc_side *servers,
		       size_t n);

/* Bytes it holds (for the summary). */
size_t rpc_forks_bytes(const struct rpc_forks *f);

#endif
