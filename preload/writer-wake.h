/*
 * writer-wake.h - how the probes wake the writer (writer.c), and on which
 * CPU it then runs.  A module of its own so that the probes' one call out
 * of line (causal_record_commit, probe.h) goes to what owns the wake
 * alone, not into the writer: the writer calls this, never the reverse.
 */
#ifndef CAUSAL_WRITER_WAKE_H
#define CAUSAL_WRITER_WAKE_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Sleep on word until woken or t passes, then clear it; wake one. */
void causal_futex_wait(_Atomic uint32_t *word, const struct timespec *t);
void causal_futex_wake(_Atomic uint32_t *word);

/* The probes (causal_record_commit, probe.h): the writer is to drain;
 * one system call per writer round. */
void causal_writer_wake(void);

/* The writer, with nothing to do: sleep until woken, at most period. */
void causal_writer_wait(const struct timespec *period);
/* The writer, before a round: the wakes so far are answered by it. */
void causal_writer_woken(void);
/* The writer thread, at its start: it runs (its tid, its CPUs). */
void causal_writer_here(void);
/* The writer's kernel thread id, 0 until it runs. */
pid_t causal_writer_os_tid(void);
/* In a fork child: no writer yet, no wake pending. */
void causal_writer_wake_after_fork(void);

#endif
