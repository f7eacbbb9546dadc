/*
 * timespec.h - a struct timespec as nanoseconds, the one unit the logs,
 * the database and the reports use.  Inline: the tracer's probes read a
 * clock on every call.
 */
#ifndef CAUSAL_TIMESPEC_H
#define CAUSAL_TIMESPEC_H

#include <stdint.h>
#include <time.h>

static inline uint64_t timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* The time of clock c now, in nanoseconds; 0 if c cannot be read (a
 * thread's CPU clock once the thread is gone). */
static inline uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	return clock_gettime(c, &ts) ? 0 : timespec_ns(&ts);
}

#endif
