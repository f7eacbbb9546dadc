/*
 * paired-batches.h - the method of malloc-cost.c and lock-cost.c: batches
 * of an operation through the tracer's wrapper alternate with batches
 * through glibc's own entry point, which the tracer never sees, in one
 * process, so that both see the same machine state (load, CPU frequency,
 * caches) and their ratio holds on a busy machine.  A batch is a
 * millisecond or less, so most run without being preempted; the median
 * of the rounds' ratios drops those that were.
 */
#ifndef CAUSAL_BENCH_PAIRED_BATCHES_H
#define CAUSAL_BENCH_PAIRED_BATCHES_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static int64_t pb_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int pb_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * One batch of each kind to warm up, then rounds rounds of one batch of
 * each, back to back, the order alternating so that neither always
 * follows.  batch(wrapped, arg) runs one batch and gives its time in ns,
 * or -1 on an error.  ratio has room for rounds values.  *plain and
 * *wrapped get the fastest batch of each kind (ns); the result is the
 * median over the rounds of wrapped / plain, or -1 after an error.
 */
static double pb_run(long rounds, int64_t (*batch)(int wrapped, void *arg),
		     void *arg, double *ratio, int64_t *plain, int64_t *wrapped)
{
	*plain = *wrapped = INT64_MAX;
	if (batch(1, arg) < 0 || batch(0, arg) < 0)
		return -1;
	for (long r = 0; r < rounds; r++) {
		int first = (int)(r & 1);
		int64_t a = batch(first, arg), b = batch(!first, arg);
		int64_t x = first ? a : b,
			y = first ? b : a; /* wrapped, plain */

		if (a < 0 || b < 0)
			return -1;
		*wrapped = x < *wrapped ? x : *wrapped;
		*plain = y < *plain ? y : *plain;
		ratio[r] = (double)x / (double)(y ? y : 1);
	}
	qsort(ratio, (size_t)rounds, sizeof(*ratio), pb_cmp_double);
	return ratio[rounds / 2];
}

#endif
