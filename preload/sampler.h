/*
 * sampler.h - sporadic bottlenecks (docs/tracing.md, "Sporadic bottlenecks";
 * the Lichen disclosure): a per-thread CPU-time sampling profiler feeding a
 * lock-free ring of 2N samples, and a monitor thread that checks the
 * resource policy (policy.h) and, on a breach, writes the N samples
 * before the one nearest the breach and the N from it on to the log
 * (records.def, SPIKE_*).  Nothing of it runs without a policy.
 *
 * The profiler (sampler.c).  Each traced thread has a source of its own
 * (sampler-source.c) that sends it a signal every period of ITS CPU time:
 * a perf_event software cpu-clock event opened on the thread (period in
 * nanoseconds, on a high-resolution timer, so the rate asked is the rate
 * obtained), which signals that thread through F_SETOWN_EX/F_SETSIG as
 * async profilers do; where perf events are not allowed
 * (perf_event_paranoid, seccomp, a container), or with sampler=timer, a
 * POSIX timer on the thread's CPU clock (SIGEV_THREAD_ID), which the
 * kernel checks only on its tick.  The handler (SA_RESTART, so the
 * program's system calls are restarted, not failed with EINTR) takes the
 * interrupted ip and walks the frame pointers up the thread's own stack,
 * every frame checked to lie between the interrupted sp and the stack's
 * top, so a frame built without a frame pointer ends the stack
 * (truncated) instead of a fault.  Frame pointers, not libunwind:
 * libunwind's local unwinder looks up unwind tables through
 * dl_iterate_phdr, which takes the loader's lock and may find it held by
 * the very code the signal interrupted (dlopen, a thread start), and
 * caches what it reads with its own allocator; neither is
 * async-signal-safe.  A frame-pointer walk reads only the stack.  No
 * malloc, no stdio, no lock: the sample goes into a ring slot claimed
 * with one atomic add (a sequence number per slot tells the monitor a
 * complete slot from one being written or overwritten), and its ip into
 * a fixed table of per-address counters (the whole-run profile).
 *
 * The signal is the library's, never the program's (sampler-signal.c):
 * the program is shown SIG_DFL for it; when the program installs a
 * disposition for it, or blocks it, the sampler moves to a real-time
 * signal the program has not touched (or, when there is none, stops, or
 * leaves the thread that blocks every one unsampled while it does), and
 * says so once; a signal the program or another process sends acts as
 * it would without us.
 *
 * The monitor (spikes.c) is an infrastructure thread (never traced, every
 * signal blocked) that wakes every period.
 */
#ifndef CAUSAL_SAMPLER_H
#define CAUSAL_SAMPLER_H

#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "causal/log-format.h"
#include "policy.h"
#include "probe.h"

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
	_Atomic int signo;     /* the signal samples come by */
	_Atomic int source;    /* enum causal_sampler_source: the process's */
	_Atomic int on;	       /* the handler takes samples */
	_Atomic uint64_t head; /* samples ever claimed */
	uint64_t cap;	       /* 2N slots */
	struct causal_sample *ring;
	_Atomic uint64_t profile_overflow; /* samples no counter took */
	_Atomic uint64_t failed;	   /* samples not taken (no slot) */
	/* what the SPIKE_SAMPLER records say (spikes.c writes them) */
	_Atomic uint64_t taken;	   /* CPU-time samples */
	_Atomic uint64_t cpu_ns;   /* sampled CPU of spans already closed */
	_Atomic uint32_t fallback; /* threads on the timer for want of an fd */
	_Atomic uint32_t lost;	   /* threads whose sampling ended early */
	_Atomic uint32_t changes;  /* one more with each note */
	char note[160];		   /* the last change, in words */
};

extern struct causal_sampler causal_sampler;

/*
 * A user thread the sampler follows: the monitor's list, and what the
 * thread's source is.  os_tid, tid and top are the thread's; the source
 * fields change under the sampler's lock (sampler-signal.c), by the
 * thread itself or by a thread moving every source to another signal.
 */
struct causal_sampled_thread {
	_Atomic int32_t os_tid; /* 0: a free slot */
	uint32_t tid;
	uintptr_t top;	      /* its stack's top */
	_Atomic uint32_t gen; /* changes when the slot is reused */
	uint8_t source;	      /* PERF, PERF_USER or TIMER; OFF: none */
	_Atomic int fd;	      /* the perf event, -1: none */
	uint64_t perf_id;     /* its PERF_EVENT_IOC_ID: still ours? */
	_Atomic int timer;    /* the kernel's timer id, -1: none */
	_Atomic uint8_t paused;		/* the thread blocks the signal */
	_Atomic uint8_t in_handler;	/* its handler runs */
	_Atomic uint32_t since_refresh; /* samples since the last refresh */
	_Atomic uint64_t blocked;	/* its mask as the wrappers saw it */
	uint64_t cpu_from;		/* its CPU clock when sampling began */
};

#define CAUSAL_SAMPLED_THREADS 1024
extern struct causal_sampled_thread causal_sampled[CAUSAL_SAMPLED_THREADS];

/* Another thread's CPU clock, as glibc's pthread_getcpuclockid makes it. */
static inline clockid_t causal_thread_clock(int32_t os_tid)
{
	return (clockid_t)((~(unsigned)os_tid) << 3) | 6;
}

/* Bit sig - 1 of a 64-bit mask: the signals 1..64. */
static inline uint64_t causal_sig_bit(int sig)
{
	return sig >= 1 && sig <= 64 ? 1ull << (sig - 1) : 0;
}

/* What each sampled thread keeps: initial-exec, safe in the handler. */
struct causal_sampler_tls {
	uintptr_t top; /* frames above it are not walked */
	struct causal_sampled_thread *slot;
};

extern CAUSAL_TLS struct causal_sampler_tls causal_sampler_tls;

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

/* A traced thread starts (thread-buffers.c): open its source. */
void causal_sampler_thread_begin(void);
/* ... ends: close it. */
void causal_sampler_thread_end(void);

/* sampler.c for spikes.c, which starts it: with the policy loaded, map
 * the ring and the counters (0, or -1), choose the signal and install the
 * handler (0, or -1 with the reason said); in a fork child, forget the
 * parent's samples and threads (and close the parent's events). */
int causal_sampler_map(void);
int causal_sampler_install(void);
void causal_sampler_after_fork(void);
/* Put a sample the monitor took (off-CPU). */
void causal_sampler_put(const struct causal_sample *s);
/* Copy sample idx out of the ring: 0, or -1 when it is not there
 * (overwritten, or still being written). */
int causal_sampler_get(uint64_t idx, struct causal_sample *out);
/* The CPU time the threads were sampled so far (spikes.c, for the
 * SPIKE_SAMPLER records): the spans closed and those still open. */
uint64_t causal_sampler_cpu_ns(void);
/* The monitor's check that the program left every event alone
 * (sampler-signal.c): a thread whose event's descriptor the program
 * closed goes on with a timer, and is counted. */
void causal_sampler_check_sources(void);

/* ---- the sampler's signal (sampler-signal.c) ----------------------------- */

/* The calling thread's slot, NULL when it is not sampled (sampler-state.c). */
struct causal_sampled_thread *causal_sampler_self(void);
/* The handler (sampler.c). */
void causal_sampler_on_signal(int sig, siginfo_t *si, void *uc);
/* The first signal: the policy's, unless the program has it; handler the
 * one to install there and on every signal the sampler moves to (0, or
 * -1 said). */
int causal_sampler_signal_init(void (*handler)(int, siginfo_t *, void *));
/* A sampler signal that no source of ours sent: what it would have done
 * without us (the program sees SIG_DFL: the process dies of it). */
void causal_sampler_foreign(int sig, siginfo_t *si, void *uc);
/* The sampler's lock, taken with every signal blocked (a handler of the
 * program's calling a wrapper cannot meet it held); *old for the unlock. */
void causal_sampler_lock(sigset_t *old);
void causal_sampler_unlock(const sigset_t *old);
/* The lock anew in a fork child. */
void causal_sampler_lock_after_fork(void);
/* Record a change, in words: the monitor writes it as SPIKE_SAMPLER. */
void causal_sampler_note(const char *first, ...) __attribute__((sentinel));
/* The signal bits of a mask, and the thread's own mask. */
uint64_t causal_sampler_mask_bits(const sigset_t *set);
uint64_t causal_sampler_own_mask(void);

/* Is addr in the library's own code (its calls and handlers are not the
 * program's)? */
int causal_sampler_library_code(const void *addr);

/* The wrappers (signal-hooks.c).  The program sets a disposition for sig:
 * the sampler leaves it first. */
void causal_sampler_program_sets(int sig);
/* What the program is told of a disposition: SIG_DFL for the sampler's. */
void causal_sampler_view(struct sigaction *sa);
sighandler_t causal_sampler_view_handler(sighandler_t h);
/* The thread's mask changes: before and after the real call (old NULL:
 * the call failed). */
void causal_sampler_mask_before(int how, const sigset_t *set);
void causal_sampler_mask_after(int how, const sigset_t *set,
			       const sigset_t *old);
/* An exec is about to replace the image: no sample may be pending in it
 * (the new image would die of it); again when the exec failed. */
void causal_sampler_before_exec(void);
void causal_sampler_after_failed_exec(void);

#endif
