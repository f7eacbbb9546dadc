// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bpf-clock.bpf.c - the thread CPU clock without a system call: at each
 * context switch, the slot of the thread switched in gets its CPU time so
 * far and CLOCK_MONOTONIC (include/causal/bpf-clock.h has the layout and
 * the protocol).  Loaded, attached and pinned by `causalctl bpf-clock
 * start`; read by libcausal.so (preload/cpu-clock.h).
 *
 * Built with clang for the BPF target against kernel-types.h, the few
 * kernel types it reads (CO-RE: libbpf relocates their field offsets
 * against the running kernel's BTF at load time, so the build needs no
 * BTF).  GPL: bpf_probe_read_kernel is GPL-only.
 */
#include "kernel-types.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "causal/bpf-clock.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, CAUSAL_BPF_CLOCK_SLOTS + 1);
	__type(key, __u32);
	__type(value, struct causal_bpf_clock_slot);
} clock SEC(".maps");

/* The initial pid namespace's inode number (PROC_PID_INIT_INO): the one
 * /proc/self/ns/pid shows there. */
#define INIT_PID_NS 0xeffffffcu

/*
 * The pid namespace of a task and its thread id there: the numbers a
 * process sees itself by (gettid(), /proc/self/ns/pid).  In the initial
 * namespace, the common case, that is task->pid: one load from the
 * struct pid, for its level.
 */
static __always_inline int task_ns_tid(struct task_struct *t, __u32 *ns,
				       __u32 *tid)
{
	struct pid *pid = t->thread_pid;
	unsigned int level;
	struct upid up;

	if (!pid)
		return -1;
	level = pid->level;
	if (!level) {
		*tid = (__u32)t->pid;
		*ns = INIT_PID_NS;
		return 0;
	}
	if (level > 32) /* MAX_PID_NS_LEVEL */
		return -1;
	/* numbers[level]: a variable index, so read it by address */
	if (bpf_probe_read_kernel(
		    &up, sizeof(up),
		    (void *)((unsigned long)pid +
			     bpf_core_field_offset(struct pid, numbers) +
			     level * bpf_core_type_size(struct upid))))
		return -1;
	*tid = (__u32)up.nr;
	*ns = BPF_CORE_READ(up.ns, ns.inum);
	return 0;
}

/*
 * Write t's slot s under its seqcount: its CPU time so far, and now.  One
 * writer per slot: another CPU writing it (two threads sharing the slot
 * switched in at once) keeps it, ours is skipped; the thread then reads
 * another identity and falls back.
 */
static __always_inline void anchor(struct causal_bpf_clock_slot *s,
				   struct task_struct *t, __u32 ns, __u32 tid,
				   __u64 now)
{
	__u32 seq = s->seq;

	if ((seq & 1) ||
	    __sync_val_compare_and_swap(&s->seq, seq, seq + 1) != seq)
		return;
	s->tid = tid;
	s->ns = ns;
	s->cpu_at_in = t->se.sum_exec_runtime;
	s->in_at = now;
	__sync_fetch_and_add(&s->seq, 1);
}

static __always_inline struct causal_bpf_clock_slot *slot(__u32 ns, __u32 tid)
{
	__u32 k = causal_bpf_clock_index(ns, tid, CAUSAL_BPF_CLOCK_SLOTS - 1);

	return bpf_map_lookup_elem(&clock, &k);
}

/* A thread switched in: its CPU time is final until it runs. */
SEC("tp_btf/sched_switch")
int BPF_PROG(causal_on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct causal_bpf_clock_slot *s;
	__u32 ns, tid;

	if (task_ns_tid(next, &ns, &tid) || !tid)
		return 0; /* the idle task, or no pid */
	s = slot(ns, tid);
	if (s)
		anchor(s, next, ns, tid, bpf_ktime_get_ns());
	return 0;
}

SEC("syscall")
int causal_set_state(struct causal_bpf_clock_set *arg)
{
	struct causal_bpf_clock_head *h;
	__u32 k = 0;

	h = bpf_map_lookup_elem(&clock, &k);
	if (!h)
		return 1;
	h->magic = CAUSAL_BPF_CLOCK_MAGIC;
	h->version = CAUSAL_BPF_CLOCK_VERSION;
	h->nslots = CAUSAL_BPF_CLOCK_SLOTS;
	if (arg->state == CAUSAL_BPF_CLOCK_LIVE)
		h->started_ns = bpf_ktime_get_ns();
	else if (arg->state == CAUSAL_BPF_CLOCK_STOPPED)
		h->stopped_ns = bpf_ktime_get_ns();
	/* an atomic exchange: the fields above are seen before the state */
	__sync_lock_test_and_set(&h->state, arg->state);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
