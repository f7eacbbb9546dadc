/*
 * cpu-clock-cost.c - cost of one read of the thread CPU clock: the system
 * call (clock_gettime(CLOCK_THREAD_CPUTIME_ID)) against the bpf clock
 * (preload/cpu-clock.h, mapped from the clock pinned at PATH), side by side
 * in one run: ABBA rounds, medians.  The bpf read is timed with the
 * CLOCK_MONOTONIC read it needs (a probe has that one anyway).  Reads come
 * in batches of BATCH just after a 1 us sleep, as a probe comes just after
 * the wake-up that brought its thread back: a slot is read only in the
 * 100 us after its thread's switch-in (cpu-clock.h); the sleeps are not
 * timed.
 *
 *   cpu-clock-cost PATH [READS]
 *
 * Prints "syscall_ns S bpf_ns B ratio R bpf_share P" (P: the reads the bpf
 * clock answered, in %); exit status 1 when the clock cannot be mapped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cpu-clock.h"

#define ROUNDS 7
#define BATCH 64

static uint64_t ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double syscall_round(long n, uint64_t *sink)
{
	uint64_t spent = 0;

	for (long i = 0; i < n; i += BATCH) {
		uint64_t t0;

		usleep(1);
		t0 = ns(CLOCK_MONOTONIC);
		for (int k = 0; k < BATCH; k++)
			*sink += ns(CLOCK_THREAD_CPUTIME_ID);
		spent += ns(CLOCK_MONOTONIC) - t0;
	}
	return (double)spent / (double)n;
}

static double bpf_round(const struct causal_cpu_clock *c, uint32_t tid, long n,
			uint64_t *sink, long *ok)
{
	uint64_t spent = 0, cpu;

	for (long i = 0; i < n; i += BATCH) {
		uint64_t t0;

		usleep(1);
		t0 = ns(CLOCK_MONOTONIC);
		for (int k = 0; k < BATCH; k++) {
			if (causal_cpu_clock_read(c, tid, ns(CLOCK_MONOTONIC),
						  &cpu) == CAUSAL_CPU_READ_OK) {
				*sink += cpu;
				(*ok)++;
			} else {
				*sink += ns(CLOCK_THREAD_CPUTIME_ID);
			}
		}
		spent += ns(CLOCK_MONOTONIC) - t0;
	}
	return (double)spent / (double)n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 128000, ok = 0;
	double sys[ROUNDS], bpf[ROUNDS];
	struct causal_cpu_clock c;
	uint64_t sink = 0;
	char why[512];
	uint32_t tid = (uint32_t)gettid();

	if (argc < 2 || n < 1000) {
		fprintf(stderr, "usage: cpu-clock-cost PATH [READS]\n");
		return 2;
	}
	if (causal_cpu_clock_open(&c, argv[1], why, sizeof(why))) {
		fprintf(stderr, "cpu-clock-cost: cannot use the bpf clock %s\n",
			why);
		return 1;
	}
	n = (n + BATCH - 1) / BATCH * BATCH;
	for (int r = 0; r < ROUNDS; r++) {
		if (r & 1) {
			bpf[r] = bpf_round(&c, tid, n, &sink, &ok);
			sys[r] = syscall_round(n, &sink);
		} else {
			sys[r] = syscall_round(n, &sink);
			bpf[r] = bpf_round(&c, tid, n, &sink, &ok);
		}
	}
	qsort(sys, ROUNDS, sizeof(sys[0]), cmp);
	qsort(bpf, ROUNDS, sizeof(bpf[0]), cmp);
	printf("syscall_ns %.1f bpf_ns %.1f ratio %.3f bpf_share %.1f%s\n",
	       sys[ROUNDS / 2], bpf[ROUNDS / 2],
	       bpf[ROUNDS / 2] / sys[ROUNDS / 2],
	       100.0 * (double)ok / ((double)n * ROUNDS),
	       sink == 42 ? " " : "");
	causal_cpu_clock_close(&c);
	return 0;
}
