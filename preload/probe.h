/*
 * probe.h - what a probe needs of libcausal.so: the contract between the
 * library (preload/) and the shims that record (shim-pthread/, shim-rpc/,
 * preload's own hooks).  The library's own state is internal.h's.
 *
 * A probe, inside someone else's process:
 *
 *	if (causal_self.in_hook || !causal_running() ||
 *	    !(tb = causal_thread_current()))
 *		return real(...);		(untraced: straight through)
 *	saved = errno;
 *	causal_self.in_hook = 1;		(our own calls are not traced)
 *	r = (void *)causal_record_begin(tb, CAUSAL_REC_X, size, &pending);
 *	if (r) {
 *		r->... = ...;			(record.h: struct rec_x)
 *		causal_record_commit(tb, pending);
 *	}
 *	causal_self.in_hook = 0;
 *	errno = saved;
 *
 * Everything here may run in any thread at any time, in a signal handler
 * too: no lock, no malloc, no stdio, no system call but the vDSO's clock.
 */
#ifndef CAUSAL_PROBE_H
#define CAUSAL_PROBE_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "context.h"
#include "cpu-clock.h"
#include "heap.h"
#include "record.h"
#include "ring.h"
#include "timespec.h"
#include "writer-wake.h" /* causal_writer_wake() */

/* Every symbol is hidden but the wrappers, which say so. */
#define CAUSAL_EXPORT __attribute__((visibility("default")))
/* Thread-locals: global-dynamic TLS may call malloc on first access and
 * recurse into the program's allocator. */
#define CAUSAL_TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- whether to record (state.c) ----------------------------------------- */

enum causal_run_state {
	CAUSAL_UNINIT = 0,
	CAUSAL_RUNNING,	 /* tracing */
	CAUSAL_DISABLED, /* could not trace: the program runs untraced */
	CAUSAL_FINISHED, /* the log is closed */
};

/* What the probes read of the library, set at start-up (lifecycle.c) and
 * by the last flush (writer.c). */
struct causal_run {
	_Atomic int state;     /* enum causal_run_state */
	uint32_t cpu_exact_us; /* CAUSAL_CPU_EXACT_US: causal_probe_cpu_ns() */
	uint32_t values_max;   /* CAUSAL_VALUES_MAX: shim-rpc/values.h */
};

extern struct causal_run causal_run;

/* Start the library once (a wrapper that may run before our constructor
 * calls it first: another library's constructor may call it). */
void causal_ensure_init(void);

static inline int causal_running(void)
{
	return atomic_load_explicit(&causal_run.state, memory_order_acquire) ==
	       CAUSAL_RUNNING;
}

/* ---- the thread and its buffer (thread-buffers.c) ------------------------ */

/* One thread's record ring, from a pool (internal.h manages it). */
struct causal_tbuf {
	struct causal_ring ring;
	_Atomic int state; /* enum causal_tbuf_state (internal.h) */
	uint32_t tid;	   /* the process-wide thread id */
	pid_t os_tid;
	_Atomic uint64_t dropped;      /* producer: records lost, ring full */
	uint64_t dropped_reported;     /* writer: last DROPS total written */
	int end_written;	       /* writer: THREAD_END is in the log */
	uint8_t cpu_at_start;	       /* its THREAD_START read the CPU */
	struct causal_tbuf *next_all;  /* registry; immutable once linked */
	struct causal_tbuf *next_free; /* under the pool lock */
	/* hand-off from pthread_create to the new thread's trampoline */
	uint32_t parent_tid;
	struct causal_ctx start_ctx;
	/* the owner's heap counters (heap.h), for its end record at exit */
	_Atomic(struct causal_heap_tls *) heap;
	/* its exact totals (totals.h), made at its first count, kept */
	_Atomic(struct causal_totals *) totals;
	void *(*start_fn)(void *);
	void *start_arg;
};

enum causal_thread_status {
	CAUSAL_THREAD_UNKNOWN = 0, /* not seen yet: registered lazily */
	CAUSAL_THREAD_LIVE,
	CAUSAL_THREAD_ENDED, /* its end is recorded: stay silent */
	CAUSAL_THREAD_INFRA, /* our own threads: never traced */
};

/* What each thread keeps, in the TLS block the recursion guard is in. */
struct causal_thread {
	struct causal_tbuf *tbuf;
	struct causal_ctx ctx;
	uint64_t cpu_read_ns; /* last real read of the CPU clock ... */
	uint64_t cpu_read_at; /* ... and CLOCK_MONOTONIC then (0: none) */
	uint8_t in_hook;      /* recursion guard */
	uint8_t status;	      /* enum causal_thread_status */
	uint8_t exiting;      /* pthread_exit() was called */
	uint8_t cpu_at_start; /* THREAD_START read the CPU clock */
	uint8_t end_by_key;   /* its end seen by the key's destructor */
	struct causal_heap_tls heap; /* heap.h: the allocation counters */
};

extern CAUSAL_TLS struct causal_thread causal_self;

/* This thread's buffer, registering the thread on first use; NULL when
 * the thread is not traced. */
struct causal_tbuf *causal_thread_current(void);

/* ---- clocks -------------------------------------------------------------- */

static inline uint64_t causal_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no system call */
	return timespec_ns(&ts);
}

static inline uint64_t causal_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return timespec_ns(&ts);
}

/* The bpf clock (cpu-clock.h), mapped at start-up (lifecycle.c); its
 * slots are NULL when the process reads the system call. */
extern struct causal_cpu_clock causal_cpu_clock;

/*
 * The calling thread's CPU clock at CLOCK_MONOTONIC now (read by this
 * thread just before) from the bpf clock: 1 and *cpu exact, or 0 when the
 * system call must be read (no bpf clock, the thread's slot holds another
 * thread or none yet, or the clock was stopped).  Two cache lines, no
 * system call.
 */
static inline int causal_cpu_now(uint64_t now, uint64_t *cpu)
{
	const struct causal_tbuf *tb = causal_self.tbuf;

	return tb &&
	       causal_cpu_clock_read(&causal_cpu_clock, (uint32_t)tb->os_tid,
				     now, cpu) == CAUSAL_CPU_READ_OK;
}

/*
 * The thread's CPU clock for an RPC probe at CLOCK_MONOTONIC `now`: the
 * bpf clock's, exact, when it has it.  Else the system call (0.3-1.3 us
 * on virtual machines), most of what a probe costs; within
 * cpu_exact_us of the thread's last real read, the reading is that
 * one plus the time since: exact unless the thread was descheduled in
 * those microseconds, and then wrong by less than the bound.  Estimates
 * never move the anchor, so errors do not add up.
 */
static inline uint64_t causal_probe_cpu_ns(uint64_t now)
{
	struct causal_thread *t = &causal_self;
	uint64_t since = now - t->cpu_read_at, cpu;

	if (causal_cpu_now(now, &cpu))
		return cpu;
	if (t->cpu_read_at && now >= t->cpu_read_at &&
	    since < (uint64_t)causal_run.cpu_exact_us * 1000)
		return t->cpu_read_ns + since;
	t->cpu_read_ns = causal_thread_cpu_ns();
	t->cpu_read_at = now;
	return t->cpu_read_ns;
}

/* ---- records ------------------------------------------------------------- */

/*
 * Room for a record of `size` bytes in tb, header filled in; NULL (and the
 * record counted as dropped) when the buffer is full.  No lock, no malloc,
 * no system call.
 */
static inline struct causal_rec *
causal_record_begin_at(struct causal_tbuf *tb, uint16_t type, uint32_t size,
		       uint64_t *pending, uint64_t mono_ns)
{
	struct causal_rec *r = causal_ring_reserve(&tb->ring, size, pending);

	if (!r) {
		atomic_fetch_add_explicit(&tb->dropped, 1,
					  memory_order_relaxed);
		return NULL;
	}
	r->type = type;
	r->reserved = 0;
	r->size = size;
	r->tid = tb->tid;
	r->aux = 0;
	r->mono_ns = mono_ns;
	return r;
}

/* The same, stamped now. */
static inline struct causal_rec *causal_record_begin(struct causal_tbuf *tb,
						     uint16_t type,
						     uint32_t size,
						     uint64_t *pending)
{
	return causal_record_begin_at(tb, type, size, pending, causal_now_ns());
}

/*
 * A ring this full (capacity / CAUSAL_WAKE_FRACTION) wakes the writer
 * rather than wait for its period.  Early: the rest of the ring (seven
 * eighths, some 20 ms of a serving thread at 50,000 calls/s with the
 * default 256 KiB) is what covers the writer's wait for a CPU on a loaded
 * machine.  The wake is one system call per writer round, not per record.
 */
#define CAUSAL_WAKE_FRACTION 8

static inline void causal_record_commit(struct causal_tbuf *tb,
					uint64_t pending)
{
	uint64_t wake_at = tb->ring.capacity / CAUSAL_WAKE_FRACTION;

	if (causal_ring_commit(&tb->ring, pending) > wake_at &&
	    causal_ring_refresh(&tb->ring) > wake_at)
		causal_writer_wake();
}

/* A record with nothing but the header and aux (SPAWN, FORK, ...). */
void causal_record_simple(struct causal_tbuf *tb, uint16_t type, uint32_t aux);

/* ---- a thread's life (thread-buffers.c), for the pthread shim ------------ */

/*
 * pthread_create, before the real one: a buffer for the child with its
 * id, its parent's and the context it starts in, fn and arg for the
 * trampoline; NULL when the calling thread is not traced or memory runs
 * out (the child then registers itself lazily, if it is to be traced).
 * After it: ret its answer; THREAD_SPAWN, or the buffer given back.
 */
struct causal_tbuf *causal_thread_spawn(void *(*fn)(void *), void *arg);
void causal_thread_spawned(struct causal_tbuf *child, int ret);
/*
 * The real pthread_create failed with EAGAIN (no memory for the stack,
 * under RLIMIT_AS, say): give the memory of child's ring and of the
 * pool's spare rings back to the system; 1 if there was any, and then
 * the call is worth making again, with child now ringless.  A child
 * without a ring (tb->ring.data NULL) calls causal_thread_untraced()
 * first: it runs untraced, counted as lost.
 */
int causal_thread_shed(struct causal_tbuf *child);
void causal_thread_untraced(struct causal_tbuf *tb);
/*
 * The new thread's first act: take tb over and record THREAD_START.
 * end_by_key: its end (pthread_exit, cancellation) is to be seen by the
 * key's destructor, for a thread whose start the library did not wrap;
 * 0 when the caller sees it itself (the trampoline: a return, and a
 * cleanup handler), which spares glibc's walk of every key slot at the
 * thread's exit, some 700 instructions, once a key was ever set in it.
 */
void causal_thread_begin(struct causal_tbuf *tb, int end_by_key);
/* Record THREAD_END (enum causal_thread_end) and hand the buffer back. */
void causal_thread_end(uint32_t how);
/*
 * The thread whose buffer is tb ends by unwinding: pthread_exit() (it
 * said so, causal_self.exiting) or cancellation; nothing if tb is not its
 * buffer any more.  The trampoline's cleanup handler, or the key's
 * destructor (never run for a return: the key is cleared first).
 */
void causal_thread_unwound(void *tb);

#endif
