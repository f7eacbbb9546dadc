/*
 * spike-block - a blocking spike (sporadic bottlenecks, docs/tracing.md):
 * THREADS threads spin on CPU in spin_work() for SPIN_MS of wall clock, then
 * all wait in wait_for_lock() on a mutex the main thread holds, asleep in
 * hold_lock(), for HOLD_MS; then they finish.
 *
 *   spike-block [THREADS [SPIN_MS [HOLD_MS]]]     (defaults 3, 800, 1000)
 *
 * Built with frame pointers.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t spun;
static uint64_t spin_ms;
static volatile unsigned long work;

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

__attribute__((noinline)) static void spin_work(void)
{
	uint64_t end = mono_ms() + spin_ms;

	while (mono_ms() < end)
		for (int i = 0; i < 10000; i++)
			work++;
}

__attribute__((noinline)) static void wait_for_lock(void)
{
	pthread_mutex_lock(&lock);
	work++;
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	(void)arg;
	spin_work();
	pthread_barrier_wait(&spun);
	wait_for_lock();
	return NULL;
}

__attribute__((noinline)) static void hold_lock(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	pthread_mutex_lock(&lock);
	pthread_barrier_wait(&spun);
	nanosleep(&ts, NULL);
	pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int hold = argc > 3 ? atoi(argv[3]) : 1000;
	pthread_t th[64];

	spin_ms = argc > 2 ? strtoull(argv[2], NULL, 10) : 800;
	if (n < 1 || n > 64)
		return 2;
	pthread_barrier_init(&spun, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	hold_lock(hold);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("threads=%d\n", n);
	return 0;
}
