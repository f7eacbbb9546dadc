/*
 * figure1-cpu.h - what figure1-server, figure1-client and the tests
 * (test/check-e2e-figure1.c, check-e2e-impact.c) agree on: the CPU each
 * component burns, and the clocks they read.
 *
 * The amounts are those of Figure 1 of the CPU paper, ten times larger
 * (the paper's milliseconds become our 10 ms units) so that they stand
 * well above the noise of a loaded machine.  Every amount is burned by
 * spinning on the calling thread's CPU clock, so it is the thread's CPU,
 * not wall time, whatever else runs.
 *
 * A server scales these amounts by FIG1_SCALE, per component
 * (FIG1_SCALE='say_it=0.8': say_it burns 20% less there; see
 * figure1-server.c), to play a change of code or processor whose effect
 * `ccsg impact` predicts (test/check-e2e-impact.c, make example-impact).
 */
#ifndef CAUSAL_EXAMPLES_FIGURE1_CPU_H
#define CAUSAL_EXAMPLES_FIGURE1_CPU_H

#define FIG1_FOO_US 32000	  /* foo, host A: half before, half after its calls */
#define FIG1_TIMES_US 27000	  /* times, host B */
#define FIG1_WHAT_TO_SAY_US 30000 /* what_to_say, host C: half before, half
				     while its two threads run */
#define FIG1_THREAD_US 20000	  /* each of what_to_say's two threads */
#define FIG1_THREADS 2
#define FIG1_SAY_TIMES 3	  /* what times answers */
/* say_it, host D: invocation n burns FIG1_SAY_IT_US[n % 3] */
#define FIG1_SAY_IT_US_INIT {26000, 25000, 27000}

/* Everything together: the global virtual main's descendant CPU. */
#define FIG1_TOTAL_US                                                          \
	(FIG1_FOO_US + FIG1_TIMES_US + FIG1_WHAT_TO_SAY_US +                   \
	 FIG1_THREADS * FIG1_THREAD_US + 26000 + 25000 + 27000)

#ifndef FIG1_NO_BURN
#include <time.h>

static inline long long fig1_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CLOCK_MONOTONIC, ns: the wall times the programs print, which the
 * latencies ccsg shows are checked against. */
static inline long long fig1_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spin until this thread has used us more microseconds of CPU. */
static inline void fig1_burn_us(int us)
{
	long long end = fig1_thread_cpu_ns() + us * 1000LL;
	volatile unsigned x = 1;

	while (fig1_thread_cpu_ns() < end)
		for (int i = 0; i < 200; i++)
			x = x * 1103515245u + 12345u;
}
#endif

#endif /* CAUSAL_EXAMPLES_FIGURE1_CPU_H */
