/*
 * monitor.h - run-time selective monitoring (Section 5.2 of the
 * monitoring paper): which monitoring types are on in this process, and
 * which components (RPC interface and function) are selected.
 *
 * Four types, each on or off per process at run time:
 *
 *   semantics  what the RPC probes say of a call: peer, call site, sizes,
 *              status, reply, tag statuses
 *   latency    the CLOCK_MONOTONIC readings of the RPC probes
 *   cpu        the thread CPU clock readings (RPC probes, thread start
 *              and end)
 *   memory     heap accounting per thread (preload/heap.h)
 *
 * Causality (chain ids, event numbers, function ids, the tag, thread
 * parent and child) is always on, so that whatever is recorded stays
 * linked.  A type that is off costs its probes one predictable branch:
 * no clock read, no record (an RPC probe with no type on writes nothing;
 * with memory alone, it writes the causality and the heap counters, no
 * clock read).
 *
 * What a call is monitored with (docs/tracing.md, "Selective monitoring"):
 *
 *   stub      the enclosing call's types (ctx.mon: causal overriding,
 *             Criterion 1 of Section 5.2.1.2) | the process's types if
 *             the call's component is selected, else 0
 *   skeleton  the types the caller's stub was monitored with, from the
 *             tag; from a caller that sends none (untraced, or an older
 *             libcausal), the process's own decision as for a stub
 *   thread    its start: the enclosing call's types of its parent | the
 *             process's; its CPU is read at its end iff read at its start
 *
 * The state changes in one thread only, the coordinator's consumer
 * (monitor.c); probes read it with relaxed atomic loads.  This header is
 * shared with the heap accounting (preload/heap.*): keep the CAUSAL_MON_
 * values, which are also those of enums.def (monitor_types) and of the
 * RPC tag's flags.
 */
#ifndef CAUSAL_MONITOR_H
#define CAUSAL_MONITOR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor-rules.h"

enum {
	CAUSAL_MON_SEMANTICS = 1u << 0,
	CAUSAL_MON_LATENCY = 1u << 1,
	CAUSAL_MON_CPU = 1u << 2,
	CAUSAL_MON_MEMORY = 1u << 3,
	/* the LOCK records of this process (shim-pthread/mutex-hooks.c):
	 * not a type of calls, not in `all`, off unless named */
	CAUSAL_MON_LOCKS = 1u << 4,
	/* the RPC_VALUES records (shim-rpc/values.h): the first bytes of a
	 * call's arguments and results, decided by each process for its
	 * own components, never carried by the tag; not in `all` */
	CAUSAL_MON_VALUES = 1u << 5
};

/* The types of calls (`all`): what a call's tag carries. */
#define CAUSAL_MON_ALL 0xfu
/* Every type a switch may name. */
#define CAUSAL_MON_KNOWN (CAUSAL_MON_ALL | CAUSAL_MON_LOCKS | CAUSAL_MON_VALUES)
/* What the RPC probes measure besides the heap: a record's mon_off. */
#define CAUSAL_MON_PROBES                                                      \
	(CAUSAL_MON_SEMANTICS | CAUSAL_MON_LATENCY | CAUSAL_MON_CPU)
/* Is any type on, so that an RPC probe writes its record?  With none, a
 * probe records nothing; with memory alone, the causality and the heap
 * counters (so a call's own allocations are its own), no clock read. */
#define CAUSAL_MON_RECORD(types) (((types)&CAUSAL_MON_ALL) != 0)

/* ---- component selection: monitor-rules.h ------------------------------- */

/* ---- the process's state (monitor.c) ------------------------------------ */

/*
 * The selections in force are rules[flips & 1]: the consumer writes the
 * other copy and then flips, so a probe never waits for it (a seqlock
 * would make it spin while the consumer, preempted, held the odd count);
 * a probe that saw a flip while it read takes the new copy again.
 */
struct causal_monitor {
	_Atomic uint32_t types;		  /* CAUSAL_MON_* on in this process */
	_Atomic uint32_t nrules;	  /* selections in force (0: all on) */
	_Atomic uint32_t flips;		  /* which copy is in force */
	struct causal_mon_rules rules[2]; /* written by the consumer only */
	_Atomic uint64_t applied;	  /* last coordinator event applied */
};

extern struct causal_monitor causal_mon;

/* The slow path of causal_mon_call(): selections are in force. */
uint32_t causal_mon_select(uint32_t types, uint32_t prog, uint32_t proc,
			   uintptr_t stub);

/*
 * The types this process monitors a call of (prog, proc) with, before
 * overriding; stub: the return address of a client stub's call (its
 * call site: a selection by function name matches it), NULL for a
 * skeleton.  Without selections: two loads and a branch.
 */
static inline uint32_t causal_mon_call(uint32_t prog, uint32_t proc,
				       const void *stub)
{
	uint32_t t =
		atomic_load_explicit(&causal_mon.types, memory_order_relaxed);

	if (__builtin_expect(atomic_load_explicit(&causal_mon.nrules,
						  memory_order_relaxed) != 0,
			     0) &&
	    t)
		return causal_mon_select(t, prog, proc, (uintptr_t)stub);
	return t;
}

/* The process's types, for what has no component (threads). */
static inline uint32_t causal_mon_types(void)
{
	return atomic_load_explicit(&causal_mon.types, memory_order_relaxed);
}

/* Start-up (once tracing runs): the initial state and its record, the
 * heap accounting told.  tb: the buffer of the MONITOR records (tid 0),
 * from the pool (NULL: none could be had, none is written). */
struct causal_tbuf;
void causal_monitor_start(struct causal_tbuf *tb);
/* In a fork child: the state is the parent's; a record says so. */
void causal_monitor_after_fork(struct causal_tbuf *tb);

/* Start the coordinator's consumer thread (consumer.c) if
 * CAUSAL_COORDINATOR names one, after causal_monitor_start() (or
 * _after_fork(): the child gets a consumer of its own, the parent's
 * connection dropped first). */
void causal_consumer_start(void);

/*
 * The rate cap on the coordinator's events (consumer thread only): 1 if
 * the event arriving at now_ns (CLOCK_MONOTONIC) may be applied, 0 if it
 * is to be dropped.  CAUSAL_MON_EVENT_BURST at once, then
 * CAUSAL_MON_EVENT_RATE a second: a coordinator flooding the process
 * (200,000 events in 15 s) costs it a few hundred records, not its log.
 */
#define CAUSAL_MON_EVENT_BURST 128
#define CAUSAL_MON_EVENT_RATE 32
int causal_monitor_admit(uint64_t now_ns);

/*
 * Apply one event (the consumer thread; or start-up): kind is enum
 * causal_monitor_kind; named the types of an on/off; the selection's
 * fields as published for select.  seq: the coordinator's event number.
 * Writes the MONITOR record.  Returns 0, or -1 when a selection is
 * malformed or too many are in force (nothing changes then).
 */
int causal_monitor_apply(uint64_t seq, unsigned kind, uint32_t named,
			 const char *host, const char *iface, const char *func,
			 int on);

#endif
