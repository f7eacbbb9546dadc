/*
 * spikes-cost - the CPU-bound example of bench-spikes.sh: a fixed amount
 * of matrix multiplication (ROUNDS products of two 128 x 128 matrices,
 * default 400), then "cpu_ns=C wall_ns=W" (the process's CPU clock, so
 * the tracer's own threads count, and the wall clock, around the work).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define DIM 128

static double a[DIM][DIM], b[DIM][DIM];
double cost_c[DIM][DIM]; /* read at the end: the work is kept */

static uint64_t ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void matmul(void)
{
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++) {
			double s = 0;

			for (int k = 0; k < DIM; k++)
				s += a[i][k] * b[k][j];
			cost_c[i][j] += s;
		}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 400;
	uint64_t c0, w0;

	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++) {
			a[i][j] = i + j;
			b[i][j] = i - j;
		}
	c0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	w0 = ns(CLOCK_MONOTONIC);
	for (int r = 0; r < rounds; r++)
		matmul();
	printf("cpu_ns=%llu wall_ns=%llu check=%d\n",
	       (unsigned long long)(ns(CLOCK_PROCESS_CPUTIME_ID) - c0),
	       (unsigned long long)(ns(CLOCK_MONOTONIC) - w0),
	       cost_c[1][1] != 0);
	return 0;
}
