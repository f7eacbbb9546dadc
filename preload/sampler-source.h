/*
 * sampler-source.h - what times a thread's samples (sampler.h): a
 * perf_event cpu-clock event opened on the thread, or a POSIX timer on its
 * CPU clock.  Either sends the thread the sampler's signal every period
 * of its CPU time; the handler (sampler.c) knows a signal of its source
 * from anything else by the siginfo (causal_source_sent()).
 *
 * An event's descriptor goes above the program's range: at the top of
 * the first 2048 numbers, or of the soft limit when that is lower (the
 * highest eighth of it), never below; a thread whose event finds no
 * number free there, or a process whose limit is under 256, is sampled
 * by the timer instead (counted: causal_sampler.fallback).  Everything
 * that touches an event from outside its handler first checks that the
 * descriptor still holds it (PERF_EVENT_IOC_ID): a program that closes
 * every descriptor, or dup2()s onto ours, loses us the event, never its
 * own file.
 */
#ifndef CAUSAL_SAMPLER_SOURCE_H
#define CAUSAL_SAMPLER_SOURCE_H

#include "sampler.h"

/* How the process samples: perf (with or without the kernel's time), or,
 * where perf events are not allowed (or sampler=timer), the timer. */
int causal_source_choose(void);
/* Open the calling thread's source on signo, paused or running (0, or
 * -1: the thread is not sampled).  A perf event that cannot have a
 * descriptor above the program's range gives a timer. */
int causal_source_open(struct causal_sampled_thread *st, int signo, int paused);
/* Close it (the thread ends, or sampling stops); from any thread. */
void causal_source_close(struct causal_sampled_thread *st);
/* Stop and restart its signals; from any thread, under the lock. */
void causal_source_pause(struct causal_sampled_thread *st);
void causal_source_resume(struct causal_sampled_thread *st);
/* Send them as signo from now on; from any thread, under the lock. */
int causal_source_retarget(struct causal_sampled_thread *st, int signo);
/* Is a signal with this siginfo from st's source? */
int causal_source_sent(const struct causal_sampled_thread *st,
		       const siginfo_t *si);
/* The handler took a sample of st's perf event: keep it going. */
void causal_source_sampled(struct causal_sampled_thread *st);
/* Is st's event still the one we opened (the program may have closed
 * its descriptor, or put one of its own files there)? */
int causal_source_intact(const struct causal_sampled_thread *st);

#endif
