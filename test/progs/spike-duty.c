/*
 * spike-duty - a program at 30% of a CPU with a spike to 100% (sporadic
 * bottlenecks, docs/tracing.md): background_work() takes 3 ms of CPU in
 * every 10 ms of wall clock for BEFORE_S seconds, then spike_work() spins
 * for SPIKE_MS of CPU, then the background again for AFTER_S seconds.
 * A policy cpu>75%/1s is breached only by the spike; a window of 500
 * samples each side at 1 kHz holds half a second of CPU on each side of
 * the breach, so most of it is the spike's, while the whole run is
 * mostly the background's.
 *
 *   spike-duty [BEFORE_S [SPIKE_MS [AFTER_S]]]     (defaults 3, 1000, 2)
 *
 * Prints "background_cpu_ms=B spike_cpu_ms=S spike_share=P" as it
 * measured them (P the spike's CPU over its wall time, in percent).
 * Built with frame pointers (Makefile).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long work;

static uint64_t ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Each spins for ms of its thread's CPU in a loop of its own (two bodies
 * alike would be folded into one function by the compiler, and the
 * samples could not tell them apart).
 */
__attribute__((noinline)) static void background_work(uint64_t ms)
{
	uint64_t end = ns(CLOCK_THREAD_CPUTIME_ID) + ms * 1000000;

	while (ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 10000; i++)
			work++;
}

__attribute__((noinline)) static void spike_work(uint64_t ms)
{
	uint64_t end = ns(CLOCK_THREAD_CPUTIME_ID) + ms * 1000000;

	while (ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 5000; i++)
			work += 2;
}

/* 3 ms of CPU, then asleep to the next 10 ms of wall clock. */
static uint64_t background(double seconds)
{
	uint64_t cpu0 = ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t next = ns(CLOCK_MONOTONIC);
	uint64_t end = next + (uint64_t)(seconds * 1e9);

	while (next < end) {
		struct timespec at;

		background_work(3);
		next += 10000000;
		at.tv_sec = (time_t)(next / 1000000000ull);
		at.tv_nsec = (long)(next % 1000000000ull);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
	}
	return ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
}

int main(int argc, char **argv)
{
	double before = argc > 1 ? atof(argv[1]) : 3;
	uint64_t spike_ms = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
	double after = argc > 3 ? atof(argv[3]) : 2;
	uint64_t bg, cpu0, wall0, spike_cpu, spike_wall;

	bg = background(before);
	cpu0 = ns(CLOCK_THREAD_CPUTIME_ID);
	wall0 = ns(CLOCK_MONOTONIC);
	spike_work(spike_ms);
	spike_cpu = ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	spike_wall = ns(CLOCK_MONOTONIC) - wall0;
	bg += background(after);
	printf("background_cpu_ms=%llu spike_cpu_ms=%llu spike_share=%llu\n",
	       (unsigned long long)(bg / 1000000),
	       (unsigned long long)(spike_cpu / 1000000),
	       (unsigned long long)(spike_cpu * 100 / spike_wall));
	return 0;
}
