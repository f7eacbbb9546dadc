/*
 * lock-cost - what tracing adds to an uncontended pthread_mutex_lock +
 * pthread_mutex_unlock pair, measured in one process (paired-batches.h):
 * batches of pairs through the public names, which the tracer
 * interposes when preloaded (shim-pthread/mutex-hooks.c), alternate with
 * batches through glibc's own __pthread_mutex_lock / __pthread_mutex_unlock
 * (the names libc still exports for old binaries), which it never sees.
 * Both see the same machine state, so their ratio holds on a busy
 * machine.
 *
 *   lock-cost [ROUNDS [PAIRS]]   (default 1000 rounds of 10000 pairs)
 *
 * A second thread, idle, runs all along: glibc takes a lock without an
 * atomic instruction while a process has one thread, and a traced process
 * always has two (its writer), so without it the untraced figure would
 * be a single-threaded program's, 3x cheaper (5.5 ns against 17 here),
 * whatever the wrappers cost; programs whose locks matter have threads.
 *
 * Prints "lock-cost <pairs> pairs plain <ns> wrapped <ns> ratio <r>": the
 * fastest batch of each kind in ns per pair, and the median over the
 * rounds of wrapped / plain.  Untraced, both kinds are glibc's (the ratio
 * shows the method's noise).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "paired-batches.h"

int plain_lock(pthread_mutex_t *m);
int plain_unlock(pthread_mutex_t *m);
__asm__(".symver plain_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver plain_unlock, __pthread_mutex_unlock@GLIBC_2.2.5");

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

/* One batch of *(long *)pairs pairs, through the wrappers or glibc's own
 * functions; its time in ns. */
static int64_t batch(int wrapped, void *pairs)
{
	int (*volatile lock)(pthread_mutex_t *) =
		wrapped ? pthread_mutex_lock : plain_lock;
	int (*volatile unlock)(pthread_mutex_t *) =
		wrapped ? pthread_mutex_unlock : plain_unlock;
	long n = *(long *)pairs;
	int64_t t0 = pb_mono_ns();

	for (long i = 0; i < n; i++) {
		lock(&mutex);
		unlock(&mutex);
	}
	return pb_mono_ns() - t0;
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long batches = argc > 1 ? atol(argv[1]) : 1000;
	long pairs = argc > 2 ? atol(argv[2]) : 10000;
	int64_t plain, wrapped;
	pthread_t other;
	double *ratio, median;

	if (batches < 1 || pairs < 1) {
		fprintf(stderr, "usage: lock-cost [ROUNDS [PAIRS]]\n");
		return 2;
	}
	ratio = malloc((size_t)batches * sizeof(*ratio));
	if (!ratio || pthread_create(&other, NULL, idle, NULL)) {
		perror("lock-cost");
		return 1;
	}
	median = pb_run(batches, batch, &pairs, ratio, &plain, &wrapped);
	printf("lock-cost %ld pairs plain %.2f wrapped %.2f ratio %.3f\n",
	       batches * pairs, (double)plain / (double)pairs,
	       (double)wrapped / (double)pairs, median);
	free(ratio);
	return 0;
}
