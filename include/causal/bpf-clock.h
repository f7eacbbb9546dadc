/*
 * bpf-clock.h - the memory-mapped thread CPU clock: the layout of the BPF
 * array map that bpf/bpf-clock.bpf.c keeps up to date, `causalctl
 * bpf-clock start` pins and libcausal.so maps read-only.  Shared by the
 * BPF program, causalctl and the library: change it only together with
 * CAUSAL_BPF_CLOCK_VERSION, which the library checks before it reads.
 *
 * The map is a BPF_MAP_TYPE_ARRAY (BPF_F_MMAPABLE, frozen once started)
 * of 1 + nslots values of 32 bytes: element 0 is the head, elements
 * 1 .. nslots the slots.  At every context switch the program writes, into
 * the slot of the thread switched in (causal_bpf_clock_index() of its pid
 * namespace and its thread id in that namespace), the thread's identity,
 * its CPU time so far (task->se.sum_exec_runtime: the kernel's own
 * CLOCK_THREAD_CPUTIME_ID as of that switch) and CLOCK_MONOTONIC then.
 * While the thread runs, its CPU time at CLOCK_MONOTONIC t is then
 *
 *	cpu_at_in + (t - in_at)
 *
 * with no system call (preload/cpu-clock.h).  Exact but for what the
 * kernel does not charge to the thread since the switch-in (time stolen
 * by a hypervisor, interrupts under IRQ time accounting), which is why a
 * reader takes a slot only in the first 100 us after it was written.
 *
 * Each slot is written under its seqcount (seq odd while a write is in
 * progress); a program that finds seq odd skips the slot, so a slot has
 * one writer at a time even when two threads sharing it are switched in
 * on two CPUs at once.  A reader takes a slot only if seq is even and
 * unchanged across its reads, the identity is its own and the head's
 * state is LIVE.
 */
#ifndef CAUSAL_BPF_CLOCK_H
#define CAUSAL_BPF_CLOCK_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define CAUSAL_BPF_CLOCK_MAGIC 0x4b4c4343u /* "CCLK" little-endian */
#define CAUSAL_BPF_CLOCK_VERSION 1
#define CAUSAL_BPF_CLOCK_SLOTS 65536u /* a power of two: 2 MiB */

/* Where `causalctl bpf-clock start` pins the clock; the map's name. */
#define CAUSAL_BPF_CLOCK_DIR "/sys/fs/bpf/causal"
#define CAUSAL_BPF_CLOCK_MAP "clock"

enum causal_bpf_clock_state {
	CAUSAL_BPF_CLOCK_LOADING = 0, /* not attached yet: read nothing */
	CAUSAL_BPF_CLOCK_LIVE = 1,    /* attached: slots are current */
	CAUSAL_BPF_CLOCK_STOPPED = 2, /* being detached: read nothing */
};

/* Element 1 .. nslots. */
struct causal_bpf_clock_slot {
	__u32 seq; /* odd while being written */
	__u32 tid; /* thread id in its pid namespace; 0: never */
	__u32 ns;  /* inode number of that pid namespace */
	__u32 pad;
	__u64 cpu_at_in; /* its CPU time (ns) when switched in ... */
	__u64 in_at;	 /* ... and CLOCK_MONOTONIC (ns) then */
};

/*
 * Element 0, written by the program's set_state (run by causalctl): the
 * state goes LIVE once the switch program is attached and STOPPED before
 * it is detached, so a reader never takes a slot nobody updates.
 */
struct causal_bpf_clock_head {
	__u32 magic;	  /* CAUSAL_BPF_CLOCK_MAGIC */
	__u32 version;	  /* CAUSAL_BPF_CLOCK_VERSION */
	__u32 state;	  /* enum causal_bpf_clock_state */
	__u32 nslots;	  /* slots after the head, a power of two */
	__u64 started_ns; /* CLOCK_MONOTONIC when it went LIVE */
	__u64 stopped_ns; /* ... and STOPPED, else 0 */
};

/* What set_state takes (BPF_PROG_RUN's context). */
struct causal_bpf_clock_set {
	__u32 state;
	__u32 nslots;
};

/*
 * The slot of thread tid of pid namespace ns, 1 .. nslots (mask is
 * nslots - 1).  Consecutive thread ids of one namespace get distinct
 * slots; the namespace's inode number spreads namespaces apart.
 */
static inline __u32 causal_bpf_clock_index(__u32 ns, __u32 tid, __u32 mask)
{
	return 1 + ((tid ^ (ns * 0x9e3779b1u)) & mask);
}

#endif
