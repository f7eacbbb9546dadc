/*
 * diag-knobs.h - what the planted bottlenecks' programs
 * (examples/diagnose/) agree on: the clocks, the CPU burn, and the knobs
 * (environment variables, microseconds) that size each cause, so that a
 * second run can make the cause 20% smaller:
 *
 *   DIAG_HOLD_US   LOCKED: how long the flusher holds the lock (40000)
 *   DIAG_BURN_US   WORK: the CPU it burns (10000)
 *   DIAG_DELAY_US  diag-proxy: the delay of each message (25000)
 *   DIAG_GAP_US    diag-client: its pause between two requests (0), which
 *                  no request's latency holds
 */
#ifndef CAUSAL_EXAMPLES_DIAG_KNOBS_H
#define CAUSAL_EXAMPLES_DIAG_KNOBS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline long long diag_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spin until this thread has used us more microseconds of CPU: the
 * thread's CPU, not wall time, whatever else runs. */
static inline void diag_burn_us(long us)
{
	long long end = diag_ns(CLOCK_THREAD_CPUTIME_ID) + us * 1000LL;
	volatile unsigned x = 1;

	while (diag_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 200; i++)
			x = x * 1103515245u + 12345u;
}

static inline void diag_sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts))
		;
}

/* Knob name: its value in microseconds, or def when unset. */
static inline long diag_knob(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	long us;

	if (!v || !*v)
		return def;
	us = strtol(v, &end, 10);
	if (*end || us < 0 || us > 10000000) {
		fprintf(stderr, "%s: not a number of microseconds: '%s'\n",
			name, v);
		exit(2);
	}
	return us;
}

#endif
