/*
 * spike-rate - the sampler's rate against the CPU time it samples
 * (sporadic bottlenecks, docs/tracing.md): THREADS threads (the main one
 * and THREADS - 1 more) each burn CPU_MS of their own CPU time in burn(),
 * then the program prints "cpu_ns=C", C the sum of the threads' CPU
 * clocks read as each one ends (all the CPU they had while sampled, so a
 * sampler at rate R took about R * C / 1e9 samples).  CPU time, not wall
 * time: the figure holds on a loaded machine.
 *
 *   spike-rate [CPU_MS [THREADS]]     (defaults 1000, 1)
 *
 * Built with frame pointers (Makefile).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t cpu_ms;
static _Atomic uint64_t total_ns;
static volatile unsigned long work;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void burn(void)
{
	uint64_t end = cpu_ns() + cpu_ms * 1000000;

	while (cpu_ns() < end)
		for (int i = 0; i < 10000; i++)
			work++;
}

static void *burner(void *arg)
{
	(void)arg;
	burn();
	atomic_fetch_add(&total_ns, cpu_ns());
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 1;
	pthread_t t[64];

	cpu_ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;
	if (threads < 1 || threads > 64)
		return fprintf(stderr, "spike-rate: 1 to 64 threads\n"), 2;
	for (unsigned i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, burner, NULL);
	burner(NULL);
	for (unsigned i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("cpu_ns=%llu\n", (unsigned long long)atomic_load(&total_ns));
	return 0;
}
