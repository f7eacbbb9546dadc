/*
 * cpu-burn - N threads, thread i burning (i + 1) * STEP ms of its own CPU.
 *
 *   cpu-burn [N [STEP_MS]]      (default 4 40)
 *
 * Each thread spins on its CLOCK_THREAD_CPUTIME_ID and prints
 * "thread <os_tid> burned <ns>", ns being that clock as it returns: what a
 * tracer should report as the thread's CPU time.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *burn(void *arg)
{
	int64_t target = (int64_t)(intptr_t)arg * 1000000, now;
	volatile uint64_t sink = 0;

	while ((now = thread_cpu_ns()) < target)
		for (int i = 0; i < 1000; i++)
			sink += i * now;
	(void)sink;
	printf("thread %d burned %lld\n", (int)gettid(), (long long)now);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	int step = argc > 2 ? atoi(argv[2]) : 40;
	pthread_t th[256];

	if (n < 1 || n > 256 || step < 1) {
		fprintf(stderr, "usage: cpu-burn [N [STEP_MS]]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, burn,
				   (void *)(intptr_t)((i + 1) * step))) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
