/*
 * rpc-side.h - one side of a Sun RPC call as the call join holds it: what
 * rpc-calls.c pairs from a start probe and its end, and what rpc-forks.c
 * joins across a fork (rpc-calls.h has the rules).
 */
#ifndef CAUSAL_RPC_SIDE_H
#define CAUSAL_RPC_SIDE_H

#include <stdbool.h>
#include <stdint.h>

/* One probe of a side: what rpc_calls keeps of it. */
struct rpc_pr {
	uint64_t event, mono, mono_exit, cpu;
	uint32_t heap;	 /* index into heaps, 0: not counted */
	uint8_t mon_off; /* CAUSAL_MONTYPE_* not measured */
	uint8_t fork;	 /* a skeleton end's enum causal_skel_fork */
	bool has;	 /* the probe was seen */
};

/*
 * A side: a start and its end (either may be missing).  tid, function,
 * proc_id and chain are its first probe's.
 */
struct rpc_side {
	struct rpc_pr start, end;
	uint64_t tid, function;
	uint64_t id;		/* stub start: site; skeleton start: object */
	uint64_t args_bytes;	/* stub end; skeleton start */
	uint64_t results_bytes; /* either end */
	uint32_t chain;		/* index into chains */
	uint32_t proc_id;
	uint32_t prog, vers, proc, xid; /* from the start */
	uint32_t start_flags;		/* a client's */
	union {
		uint32_t end_flags; /* a client's */
		/* a server's: the fork child whose reply ended it (its
		 * proc_id, rpc-forks.h), 0 when the serving process's */
		uint32_t reply_proc;
	};
	uint32_t status; /* stub end: clnt_stat; skeleton end: reply */
	uint32_t addr;	 /* strings offset of the peer (start), NO_STR */
	/* a client: the server joined (index into servers) or NONE; a
	 * server: the next one with its (chain, event) in row order */
	uint32_t next;
	uint8_t transport;
	uint8_t start_tag; /* skeleton start: tag */
	uint8_t end_tag;   /* stub end: reply_tag */
	/* a server joined to a client, or whose reply went into the side
	 * of the call its fork child inherited: no row of its own */
	bool used;
};

#endif
