/*
 * cpu-clock.h - the thread CPU clock without a system call: the bpf clock
 * (include/causal/bpf-clock.h) that `causalctl bpf-clock start` keeps in
 * a pinned BPF map, mapped read-only into the traced process.
 *
 * At start-up the library opens the pinned map (one bpf(BPF_OBJ_GET),
 * which needs no privilege, only access to the pin), checks its layout,
 * maps it and closes it: the mapping keeps the map alive, and a fork child
 * inherits it.  A probe then reads its thread's slot:
 *
 *	uint64_t cpu;
 *	int r = causal_cpu_clock_read(&clk, os_tid, now, &cpu);
 *
 *	if (r == CAUSAL_CPU_READ_OK)
 *		... cpu is the thread's CPU clock at CLOCK_MONOTONIC now ...
 *	else
 *		... clock_gettime(CLOCK_THREAD_CPUTIME_ID) ...
 *
 * two cache lines, no system call, no lock, no write: safe in any context
 * (signal handlers included).  Any other answer means: read the system
 * call this time.  The library never needs the bpf clock to run: without
 * it every read is the system call.
 */
#ifndef CAUSAL_CPU_CLOCK_H
#define CAUSAL_CPU_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "causal/bpf-clock.h"

struct causal_cpu_clock {
	/* the mapping: element 0 the head, 1 .. mask + 1 the slots; NULL
	 * when the process reads the system call */
	const struct causal_bpf_clock_slot *slots;
	uint32_t mask;	/* nslots - 1 */
	uint32_t ns;	/* this process's pid namespace (inode) */
	size_t map_len; /* bytes mapped */
};

enum causal_cpu_read {
	CAUSAL_CPU_READ_OK = 0,
	CAUSAL_CPU_READ_NONE,	  /* no bpf clock in this process */
	CAUSAL_CPU_READ_NOT_MINE, /* the slot holds another thread, or
				   * none yet (not switched in since
				   * the clock started) */
	CAUSAL_CPU_READ_BUSY,	  /* being written on another CPU */
	CAUSAL_CPU_READ_STOPPED,  /* the clock was stopped */
	CAUSAL_CPU_READ_STALE,	  /* switched in too long ago */
};

/*
 * How long after its switch-in a thread's slot is read (ns).  The time
 * since the switch-in counts as CPU, and all of it is but for what the
 * kernel does not charge to the thread: time a hypervisor stole from the
 * virtual CPU (2-5% on a busy host here, in chunks of milliseconds: 20 ms
 * of error in 2 s of a thread that kept its CPU), interrupts under IRQ
 * time accounting.  So a read is off by at most what was stolen in this
 * much time; later, the system call is read.  Probes run within
 * microseconds of the wake-up that brought their thread back (a request,
 * a reply); a thread that computed longer pays one system call.
 */
#define CAUSAL_CPU_MAX_AGE_NS 100000

#define CAUSAL_CPU_READ_TRIES 2

/* Sleeps causal_cpu_clock_open() takes to see its thread's slot written
 * by the program (some 60 us each; the first is almost always enough). */
#define CAUSAL_CPU_LIVE_TRIES 4

/* The unit suite's way in between the reads of a slot and the check of
 * its seq (a switch-in on another CPU, at will); nothing in the library. */
#ifndef CAUSAL_CPU_CLOCK_TEST_HOOK
#define CAUSAL_CPU_CLOCK_TEST_HOOK(slot) ((void)0)
#endif

static inline const struct causal_bpf_clock_head *
causal_cpu_clock_head(const struct causal_cpu_clock *c)
{
	return (const struct causal_bpf_clock_head *)(const void *)c->slots;
}

/*
 * The CPU clock of thread tid (its id in this process's pid namespace,
 * gettid()) at CLOCK_MONOTONIC now, into *cpu: now must have been read by
 * this very thread before the call.  Exact: the thread has run without a
 * break since the switch-in its slot holds, at most
 * CAUSAL_CPU_MAX_AGE_NS before now.  When the thread was switched out and
 * in again between now and this read, *cpu is its CPU time at that
 * switch-in, later than now by the few instructions between the two.
 *
 * Seqcount reader: seq even and unchanged across the reads, and the
 * head's state read LIVE after the slot (the state goes STOPPED before the
 * program is detached, so a LIVE state means every switch-in until then
 * updated the slot).
 */
static inline int causal_cpu_clock_read(const struct causal_cpu_clock *c,
					uint32_t tid, uint64_t now,
					uint64_t *cpu)
{
	const struct causal_bpf_clock_slot *s;
	uint32_t seq, stid, sns, state;
	uint64_t cin, at;
	int tries = CAUSAL_CPU_READ_TRIES;

	if (!c->slots)
		return CAUSAL_CPU_READ_NONE;
	s = &c->slots[causal_bpf_clock_index(c->ns, tid, c->mask)];
	for (;;) {
		seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		stid = __atomic_load_n(&s->tid, __ATOMIC_RELAXED);
		sns = __atomic_load_n(&s->ns, __ATOMIC_RELAXED);
		cin = __atomic_load_n(&s->cpu_at_in, __ATOMIC_RELAXED);
		at = __atomic_load_n(&s->in_at, __ATOMIC_RELAXED);
		CAUSAL_CPU_CLOCK_TEST_HOOK(s);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		state = __atomic_load_n(&causal_cpu_clock_head(c)->state,
					__ATOMIC_RELAXED);
		if (!(seq & 1) &&
		    __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq)
			break;
		if (--tries <= 0)
			return CAUSAL_CPU_READ_BUSY;
	}
	if (state != CAUSAL_BPF_CLOCK_LIVE)
		return CAUSAL_CPU_READ_STOPPED;
	if (stid != tid || sns != c->ns)
		return CAUSAL_CPU_READ_NOT_MINE;
	if (now > at && now - at > CAUSAL_CPU_MAX_AGE_NS)
		return CAUSAL_CPU_READ_STALE;
	*cpu = cin + (now > at ? now - at : 0);
	return CAUSAL_CPU_READ_OK;
}

/*
 * Map the clock pinned at path into c, checked: a BPF array of the layout
 * above whose head says LIVE; this process's pid namespace; a
 * CLOCK_MONOTONIC that is the host's (no time namespace offset); a clock
 * some program updates now (the calling thread sleeps a few tens of
 * microseconds and finds its switch-in in its slot; -ESTALE if not: a
 * stale pin, a map of another boot).  0, or a
 * negative errno with a one-line reason in why ("'PATH': ..."; -ENOENT:
 * nothing pinned there).  No stdio, no malloc:
 * it runs at start-up inside the traced process.
 */
int causal_cpu_clock_open(struct causal_cpu_clock *c, const char *path,
			  char *why, size_t why_size);

/* In a fork child: the pid and time namespaces again (the parent may have
 * moved its children to new ones); 0, or a negative errno and c is
 * closed. */
int causal_cpu_clock_after_fork(struct causal_cpu_clock *c);

/* Unmap; c reads nothing after. */
void causal_cpu_clock_close(struct causal_cpu_clock *c);

#endif
