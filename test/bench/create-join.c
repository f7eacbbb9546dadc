/*
 * create-join - the cost of thread creation: create and join N threads
 * that do nothing, one after the other.
 *
 *   create-join [N]      (default 20000)
 *
 * Prints "create-join <N> threads <ns> ns", the CLOCK_MONOTONIC time of
 * the loop alone, so process start-up and the tracer's final flush are
 * not part of the figure.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *nothing(void *arg) { return arg; }

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	int64_t t0, t1;

	if (n < 1) {
		fprintf(stderr, "usage: create-join [N]\n");
		return 2;
	}
	t0 = mono_ns();
	for (long i = 0; i < n; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, nothing, NULL)) {
			perror("pthread_create");
			return 1;
		}
		pthread_join(th, NULL);
	}
	t1 = mono_ns();
	printf("create-join %ld threads %lld ns\n", n, (long long)(t1 - t0));
	return 0;
}
