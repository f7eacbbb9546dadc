/*
 * spike-matmul - the experiment of the Lichen disclosure (sporadic
 * bottlenecks, docs/tracing.md): a program that calls a trivial foo() all the
 * time, a tenth of the wall clock (the rest asleep), and a few
 * times a run does a burst of matrix multiplication at full speed.  The
 * whole-run profile is mostly foo; the CPU spikes are matmul.
 *
 *   spike-matmul [CYCLES [BURSTS [BURST_CPU_MS]]]
 *
 * Runs CYCLES (default 500) of 1 ms of CPU calling foo() then 8.5 ms
 * asleep (at most a tenth of a CPU), with BURSTS bursts (default 2) of
 * BURST_CPU_MS of CPU each (default 300) spread over them, then prints
 * "foo_cpu_ms=F matmul_cpu_ms=M" as it measured them.  Counted in CPU
 * time, so the ratio of the two holds on a loaded machine.
 * Built with frame pointers (Makefile) for the sampler's stacks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define DIM 64

static double a[DIM][DIM], b[DIM][DIM];
double spike_c[DIM][DIM]; /* read at the end: the work is kept */
static volatile uint64_t foo_calls;

static uint64_t ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * foo's body outweighs the loop that calls it many times over, so that
 * the samples name foo and not foo_phase, whatever the processor (one
 * increment was an even split with the loop on an AMD EPYC).
 */
__attribute__((noinline)) void foo(void)
{
	for (int i = 0; i < 16; i++)
		foo_calls++;
}

__attribute__((noinline)) void matmul(void)
{
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++) {
			double s = 0;

			for (int k = 0; k < DIM; k++)
				s += a[i][k] * b[k][j];
			spike_c[i][j] += s;
		}
}

/* Spin calling foo() for `ms` of CPU. */
__attribute__((noinline)) static void foo_phase(uint64_t ms)
{
	uint64_t end = ns(CLOCK_THREAD_CPUTIME_ID) + ms * 1000000;

	do {
		for (int i = 0; i < 8192; i++)
			foo();
	} while (ns(CLOCK_THREAD_CPUTIME_ID) < end);
}

__attribute__((noinline)) static void burst(uint64_t cpu_ms)
{
	uint64_t end = ns(CLOCK_THREAD_CPUTIME_ID) + cpu_ms * 1000000;

	/* the clock is a system call: read it seldom */
	while (ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 8; i++)
			matmul();
}

int main(int argc, char **argv)
{
	unsigned cycles = argc > 1 ? (unsigned)atoi(argv[1]) : 500;
	unsigned bursts = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
	uint64_t burst_ms = argc > 3 ? strtoull(argv[3], NULL, 10) : 300;
	uint64_t foo_cpu = 0, mm_cpu = 0, t0;
	unsigned done = 0;
	struct timespec nap = { 0, 8500000 };

	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++) {
			a[i][j] = i + j;
			b[i][j] = i - j;
		}
	for (unsigned cy = 0; cy < cycles; cy++) {
		if (done < bursts && cy >= cycles * (done + 1) / (bursts + 1)) {
			t0 = ns(CLOCK_THREAD_CPUTIME_ID);
			burst(burst_ms);
			mm_cpu += ns(CLOCK_THREAD_CPUTIME_ID) - t0;
			done++;
		}
		t0 = ns(CLOCK_THREAD_CPUTIME_ID);
		foo_phase(1);
		foo_cpu += ns(CLOCK_THREAD_CPUTIME_ID) - t0;
		nanosleep(&nap, NULL);
	}
	printf("foo_cpu_ms=%llu matmul_cpu_ms=%llu check=%g\n",
	       (unsigned long long)(foo_cpu / 1000000),
	       (unsigned long long)(mm_cpu / 1000000), spike_c[1][2]);
	return 0;
}
