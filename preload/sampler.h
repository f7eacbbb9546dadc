/*
 * sampler.h - sporadic bottlenecks (docs/tracing.md, "Sporadic bottlenecks";
 * the Lichen disclosure): a per-thread CPU-time sampling profiler feeding a
 * lock-free ring of 2N samples, and a monitor thread that checks the
 * resource policy (policy.h) and, on a breach, writes the N samples
 * before the one nearest the breach and the N from it on to the log
 * (records.def, SPIKE_*).  Nothing of it runs without a policy.
 *
 * The profiler (sampler.c).  Each traced thread arms a POSIX timer on its
 * own CPU clock (timer_create(CLOCK_THREAD_CPUTIME_ID) with
 * SIGEV_THREAD_ID, so the signal goes to that thread and counts its CPU
 * time only, unlike setitimer's process-wide SIGPROF).  The handler
 * (SA_RESTART, so the program's system calls are restarted, not failed
 * with EINTR) takes the interrupted ip and walks the frame pointers up
 * the thread's own stack, every frame checked to lie between the
 * interrupted sp and the stack's top, so a frame built without a frame
 * pointer ends the stack (truncated) instead of a fault.  Frame pointers,
 * not libunwind: libunwind's local unwinder looks up unwind tables
 * through dl_iterate_phdr, which takes the loader's lock and may find it
 * held by the very code the signal interrupted (dlopen, a thread start),
 * and caches what it reads with its own allocator; neither is
 * async-signal-safe.  A frame-pointer walk reads only the stack.  No
 * malloc, no stdio, no lock: the sample goes into a ring slot claimed
 * with one atomic add (a sequence number per slot tells the monitor a
 * complete slot from one being written or overwritten), and its ip into
 * a fixed table of per-address counters (the whole-run profile).
 *
 * The monitor (spikes.c) is an infrastructure thread (never traced, every
 * signal blocked) that wakes every period.
 */
#ifndef CAUSAL_SAMPLER_H
#define CAUSAL_SAMPLER_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "causal/log-format.h"
#include "policy.h"

#define CAUSAL_SAMPLE_CPU 0
#define CAUSAL_SAMPLE_OFFCPU 1

struct causal_sample {
	_Atomic uint64_t seq; /* idx + 1 once complete, else 0 */
	uint64_t mono_ns, ip, event, function;
	uint32_t tid; /* the process-wide thread id */
	uint8_t kind, depth, ctx_set;
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	uint64_t stack[CAUSAL_POLICY_DEPTH_MAX];
};

/* The sampler's state, shared with the monitor. */
struct causal_sampler {
	struct causal_policy policy;
	int signo;
	_Atomic int on;	       /* the handler takes samples */
	_Atomic uint64_t head; /* samples ever claimed */
	uint64_t cap;	       /* 2N slots */
	struct causal_sample *ring;
	_Atomic uint64_t profile_overflow; /* samples no counter took */
	_Atomic uint64_t failed;	   /* samples not taken (no slot) */
};

extern struct causal_sampler causal_sampler;

/* A user thread the sampler follows (the monitor's list). */
struct causal_sampled_thread {
	_Atomic int32_t os_tid; /* 0: a free slot */
	uint32_t tid;
	uintptr_t top;	      /* its stack's top */
	_Atomic uint32_t gen; /* changes when the slot is reused */
};

#define CAUSAL_SAMPLED_THREADS 1024
extern struct causal_sampled_thread causal_sampled[CAUSAL_SAMPLED_THREADS];

/* Profile counters: an address and its samples. */
struct causal_profile_slot {
	_Atomic uint64_t ip, count;
};

#define CAUSAL_PROFILE_SLOTS 16384
extern struct causal_profile_slot *causal_profile;

/*
 * Start-up (lifecycle.c, after the monitoring state; spikes.c): load the
 * policy (a bad one is said once on stderr, and nothing starts), map the
 * ring and the counters, install the handler, start the monitor.
 */
void causal_spikes_start(void);
/* The process ends (lifecycle.c destructor), before the last flush: stop
 * sampling, let the monitor write its open windows and the profile. */
void causal_spikes_finish(void);
/* In a fork child, before its first thread begins: a fresh state and a
 * new monitor (timers and threads do not survive fork). */
void causal_spikes_after_fork(void);

/* A traced thread starts (thread-buffers.c): arm its timer. */
void causal_sampler_thread_begin(void);
/* ... ends: disarm and delete it. */
void causal_sampler_thread_end(void);

/* sampler.c for spikes.c, which starts it: with the policy loaded, map
 * the ring and the counters (0, or -1), install the handler (0, or -1);
 * in a fork child, forget the parent's samples and threads. */
int causal_sampler_map(void);
int causal_sampler_install(void);
void causal_sampler_after_fork(void);
/* Put a sample the monitor took (off-CPU). */
void causal_sampler_put(const struct causal_sample *s);
/* Copy sample idx out of the ring: 0, or -1 when it is not there
 * (overwritten, or still being written). */
int causal_sampler_get(uint64_t idx, struct causal_sample *out);

#endif
