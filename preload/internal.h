/*
 * internal.h - what the modules of libcausal.so share beyond what a probe
 * needs (probe.h): the library's state, the pool of thread buffers, the
 * writer, the fatal signals.
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
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "identity.h"
#include "log-dir.h"
#include "log-file.h"
#include "monitor.h"
#include "probe.h"
#include "real.h"

/* ---- the library's state (state.c) --------------------------------------- */

struct causal_global {
	struct causal_config cfg;
	struct causal_log_dir log_dir;	/* resolved once, at start-up */
	struct causal_identity id;
	struct causal_log_file log;
	pthread_key_t end_key;	/* its destructor sees pthread_exit/cancel */
	_Atomic uint32_t next_tid;
};

extern struct causal_global causal_g;

/* Write one line, the NULL-terminated parts joined, on stderr with
 * write(2): no stdio inside the program.  The library's one voice. */
void causal_say(const char *first, ...) __attribute__((sentinel));

/* ---- thread buffers (thread-buffers.c; the rest is probe.h's) ------------ */

enum causal_tbuf_state {
	CAUSAL_TBUF_FREE = 0,
	CAUSAL_TBUF_LIVE,	/* owned by a running thread */
	CAUSAL_TBUF_DEAD,	/* thread ended; recycled once drained */
};

void causal_tbufs_init(void);
/* A buffer for a new thread (state LIVE), or NULL when memory runs out. */
struct causal_tbuf *causal_tbuf_acquire(void);
/* The same, but a buffer whose ring could not be mapped (ring.data NULL:
 * it takes no record) rather than NULL; NULL when not even its header
 * could be had. */
struct causal_tbuf *causal_tbuf_take(void);
/* Give back a buffer no thread ever used (pthread_create failed). */
void causal_tbuf_release(struct causal_tbuf *tb);
/* Unmap the ring of tb (LIVE, never written) and of every free buffer;
 * 1 if any memory went back to the system. */
int causal_tbuf_shed(struct causal_tbuf *tb);
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

/* The kernel's id of the calling thread, from glibc's thread descriptor
 * once checked (causal_tid_init at start-up), else gettid(). */
void causal_tid_init(void);
pid_t causal_os_tid(void);

/* ---- the background writer (writer.c) ------------------------------------ */

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

/* ---- signals (signals.c) ------------------------------------------------- */

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
