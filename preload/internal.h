/*
 * internal.h - what the modules of libcausal.so share.
 *
 * Rules inside the traced process: no stdio and no malloc on a hook path;
 * save and restore errno around everything a wrapper does; when the
 * recursion guard is set or the library is not running, call straight
 * through.  Every non-static symbol starts with causal_ and is hidden
 * unless marked CAUSAL_EXPORT.
 */
#ifndef CAUSAL_INTERNAL_H
#define CAUSAL_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "config.h"
#include "heap.h"
#include "context.h"
#include "cpu-clock.h"
#include "identity.h"
#include "log-dir.h"
#include "log-file.h"
#include "monitor.h"
#include "record.h"
#include "ring.h"
#include "timespec.h"

#define CAUSAL_EXPORT __attribute__((visibility("default")))
#define CAUSAL_TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- the real functions we wrap (real.c) ------------------------------ */

struct causal_real_table {
	int (*pthread_create)(pthread_t *, const pthread_attr_t *,
			      void *(*)(void *), void *);
	void (*pthread_exit)(void *) __attribute__((noreturn));
	pid_t (*fork)(void);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
	void (*_exit)(int) __attribute__((noreturn));
	void (*_Exit)(int) __attribute__((noreturn));
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	sighandler_t (*signal)(int, sighandler_t);	/* = bsd_signal, ssignal */
	sighandler_t (*sysv_signal)(int, sighandler_t);	/* = __sysv_signal */
	sighandler_t (*sigset)(int, sighandler_t);
	int (*posix_spawn)(pid_t *, const char *,
			   const posix_spawn_file_actions_t *,
			   const posix_spawnattr_t *, char *const[],
			   char *const[]);
	int (*posix_spawnp)(pid_t *, const char *,
			    const posix_spawn_file_actions_t *,
			    const posix_spawnattr_t *, char *const[],
			    char *const[]);
	int (*pthread_mutex_timedlock)(pthread_mutex_t *,
				       const struct timespec *);
	int (*pthread_rwlock_tryrdlock)(pthread_rwlock_t *);
	int (*pthread_rwlock_trywrlock)(pthread_rwlock_t *);
};

extern struct causal_real_table causal_real;

/*
 * glibc's mutex functions by the names libc still exports for old
 * binaries (__pthread_mutex_lock@GLIBC_2.2.5 on x86_64: bound at link
 * time, no lookup): the library's own mutexes, which must never go
 * through the LOCK records' wrappers (shim-pthread/mutex-hooks.c) as the
 * program's locks do, and those wrappers' way to the real functions.
 */
#if defined(__x86_64__)
#define CAUSAL_GLIBC_FIRST "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define CAUSAL_GLIBC_FIRST "GLIBC_2.17"
#else
#error "the first glibc symbol version of this architecture is not known"
#endif
#define CAUSAL_GLIBC_SYM(ours, theirs)                                         \
	__asm__(".symver " #ours ", " #theirs "@" CAUSAL_GLIBC_FIRST)
int causal_glibc_mutex_lock(pthread_mutex_t *m);
int causal_glibc_mutex_trylock(pthread_mutex_t *m);
int causal_glibc_mutex_unlock(pthread_mutex_t *m);
CAUSAL_GLIBC_SYM(causal_glibc_mutex_lock, __pthread_mutex_lock);
CAUSAL_GLIBC_SYM(causal_glibc_mutex_trylock, __pthread_mutex_trylock);
CAUSAL_GLIBC_SYM(causal_glibc_mutex_unlock, __pthread_mutex_unlock);
#define causal_mutex_lock(m) causal_glibc_mutex_lock(m)
#define causal_mutex_trylock(m) causal_glibc_mutex_trylock(m)
#define causal_mutex_unlock(m) causal_glibc_mutex_unlock(m)

/* Fill causal_real once; safe to call from any wrapper at any time. */
void causal_real_resolve(void);

/* ---- library state (lifecycle.c) -------------------------------------- */

enum causal_run_state {
	CAUSAL_UNINIT = 0,
	CAUSAL_RUNNING,		/* tracing */
	CAUSAL_DISABLED,	/* could not trace: the program runs untraced */
	CAUSAL_FINISHED,	/* the log is closed */
};

struct causal_global {
	_Atomic int state;	/* enum causal_run_state */
	struct causal_config cfg;
	struct causal_log_dir log_dir;	/* resolved once, at start-up */
	struct causal_identity id;
	struct causal_log_file log;
	pthread_key_t end_key;	/* its destructor sees pthread_exit/cancel */
	_Atomic uint32_t next_tid;
};

extern struct causal_global causal_g;

/* Initialise once (constructor, or the first wrapper to run). */
void causal_ensure_init(void);

static inline int causal_running(void)
{
	return atomic_load_explicit(&causal_g.state, memory_order_acquire) ==
	       CAUSAL_RUNNING;
}

/* Write one line, the NULL-terminated parts joined, on stderr with
 * write(2): no stdio inside the program. */
void causal_say(const char *first, ...) __attribute__((sentinel));

/* ---- per-thread buffers (thread-buffers.c) ---------------------------- */

enum causal_tbuf_state {
	CAUSAL_TBUF_FREE = 0,
	CAUSAL_TBUF_LIVE,	/* owned by a running thread */
	CAUSAL_TBUF_DEAD,	/* thread ended; recycled once drained */
};

struct causal_tbuf {
	struct causal_ring ring;
	_Atomic int state;		/* enum causal_tbuf_state */
	uint32_t tid;
	pid_t os_tid;
	_Atomic uint64_t dropped;	/* producer: records lost, ring full */
	uint64_t dropped_reported;	/* writer: last DROPS total written */
	int end_written;		/* writer: THREAD_END is in the log */
	uint8_t cpu_at_start;		/* its THREAD_START read the CPU */
	struct causal_tbuf *next_all;	/* registry; immutable once linked */
	struct causal_tbuf *next_free;	/* under the pool lock */
	/* hand-off from pthread_create to the new thread's trampoline */
	uint32_t parent_tid;
	struct causal_ctx start_ctx;
	/* the owner's heap counters (heap.h), for its end record at exit */
	_Atomic(struct causal_heap_tls *) heap;
	void *(*start_fn)(void *);
	void *start_arg;
};

enum causal_thread_status {
	CAUSAL_THREAD_UNKNOWN = 0,	/* not seen yet: registered lazily */
	CAUSAL_THREAD_LIVE,
	CAUSAL_THREAD_ENDED,		/* its end is recorded: stay silent */
	CAUSAL_THREAD_INFRA,		/* our own threads: never traced */
};

/* What each thread keeps in TLS.  initial-exec: global-dynamic TLS may
 * call malloc on first access and recurse into the program's allocator. */
struct causal_thread {
	struct causal_tbuf *tbuf;
	struct causal_ctx ctx;
	uint64_t cpu_read_ns;	/* last real read of the CPU clock ... */
	uint64_t cpu_read_at;	/* ... and CLOCK_MONOTONIC then (0: none) */
	uint8_t in_hook;	/* recursion guard */
	uint8_t status;		/* enum causal_thread_status */
	uint8_t exiting;	/* pthread_exit() was called */
	uint8_t cpu_at_start;	/* THREAD_START read the CPU clock */
	uint8_t own_files;	/* a file table of its own (own-files.h) */
	uint8_t end_by_key;	/* its end seen by the key's destructor */
	struct causal_heap_tls heap; /* heap.h: the allocation counters */
};

extern CAUSAL_TLS struct causal_thread causal_self;

void causal_tbufs_init(void);
/* A buffer for a new thread (state LIVE), or NULL when memory runs out. */
struct causal_tbuf *causal_tbuf_acquire(void);
/* Give back a buffer no thread ever used (pthread_create failed). */
void causal_tbuf_release(struct causal_tbuf *tb);
/* Writer: a DEAD, drained buffer goes back to the pool. */
void causal_tbuf_recycle(struct causal_tbuf *tb);
struct causal_tbuf *causal_tbufs_first(void);
/* Records lost without a buffer to count them in, plus recycled buffers'. */
uint64_t causal_tbufs_dropped_elsewhere(void);
void causal_tbufs_count_lost(uint64_t n);
/* After fork, in the child: everything but `keep` becomes free. */
void causal_tbufs_after_fork(struct causal_tbuf *keep);
void causal_tbufs_lock(void);
void causal_tbufs_unlock(void);

/* This thread's buffer, registering the thread on first use; NULL when
 * the thread is not traced. */
struct causal_tbuf *causal_thread_current(void);
/*
 * The new thread's first act: take tb over and record THREAD_START.
 * end_by_key: its end (pthread_exit, cancellation) is to be seen by the
 * key's destructor (causal_g.end_key), for a thread whose start the
 * library did not wrap; 0 when the caller sees it itself (the
 * trampoline of pthread_create: a return, and a cleanup handler), which
 * spares glibc's walk of every key slot at the thread's exit, some 700
 * instructions, once a key was ever set in the thread.
 */
void causal_thread_begin(struct causal_tbuf *tb, int end_by_key);
/* The kernel's id of the calling thread, from glibc's thread descriptor
 * once checked (causal_tid_init at start-up), else gettid(). */
void causal_tid_init(void);
pid_t causal_os_tid(void);
/* Record THREAD_END (enum causal_thread_end) and hand the buffer back. */
void causal_thread_end(uint32_t how);
/*
 * The thread whose buffer is tb ends by unwinding: pthread_exit() (it
 * said so, causal_self.exiting) or cancellation; nothing if tb is not its
 * buffer any more.  The trampoline's cleanup handler for the threads the
 * library starts, the key's destructor for the others (never run for a
 * return: the key is cleared first).
 */
void causal_thread_unwound(void *tb);

/* ---- emitting records: the probe hot path ----------------------------- */

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

/*
 * The bpf clock (cpu-clock.h), mapped at start-up (lifecycle.c); its
 * slots are NULL when the process reads the system call.
 */
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
 * cfg.cpu_exact_us of the thread's last real read, the reading is that
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
	    since < (uint64_t)causal_g.cfg.cpu_exact_us * 1000)
		return t->cpu_read_ns + since;
	t->cpu_read_ns = causal_thread_cpu_ns();
	t->cpu_read_at = now;
	return t->cpu_read_ns;
}

void causal_writer_wake(void);

/*
 * Room for a record of `size` bytes in tb, header filled in; NULL (and the
 * record counted as dropped) when the buffer is full.  No lock, no malloc,
 * no system call.
 */
static inline struct causal_rec *causal_record_begin_at(struct causal_tbuf *tb,
							uint16_t type,
							uint32_t size,
							uint64_t *pending,
							uint64_t mono_ns)
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

/* ---- the background writer (writer.c) --------------------------------- */

int causal_writer_start(void);
/* Encode the header record and write it as the first frame. */
int causal_writer_header(void);
/* Everything so far into the log, then EXEC + PROCESS_END(exec). */
void causal_writer_before_exec(const char *path);
/*
 * The last flush: drain, end records for threads still running, PROCESS_END.
 * from_signal: do not wait long for the writer lock.
 */
void causal_writer_finish(uint32_t reason, int64_t detail, int from_signal);
void causal_writer_lock(void);
void causal_writer_unlock(void);
/* After fork, in the child: a fresh lock and a new writer thread. */
void causal_writer_after_fork(void);

/* ---- signals (signals.c) ---------------------------------------------- */

void causal_signals_install(void);
/* Is h one of our fatal-signal handlers (hidden from the program)? */
int causal_signals_is_ours(sighandler_t h);
/*
 * What the program asked for, or, for SIG_DFL on a fatal signal while
 * tracing, the same with our handler in its place (act's flags and mask
 * kept; buf holds the copy).
 */
const struct sigaction *causal_signals_substitute(int sig,
						  const struct sigaction *act,
						  struct sigaction *buf);
sighandler_t causal_signals_substitute_handler(int sig, sighandler_t h);
/* Rewrite an action the kernel reported into what the program would have
 * been told without us: SIG_DFL in place of our handler. */
void causal_signals_view(struct sigaction *sa);
sighandler_t causal_signals_view_handler(sighandler_t h);


#endif
