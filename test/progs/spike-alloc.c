/*
 * spike-alloc - a memory spike (sporadic bottlenecks, docs/tracing.md): idles
 * with a small resident set, then hog_memory() allocates MB megabytes, touches
 * every page and keeps touching them for BUSY_MS of CPU, frees them and
 * idles again.
 *
 *   spike-alloc [MB [BUSY_MS]]     (defaults 96, 300)
 *
 * Prints "peak_kb=K" as getrusage saw it.  Built with frame pointers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void idle(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static unsigned long hog_memory(size_t mb,
							  uint64_t busy_ms)
{
	size_t n = mb << 20;
	volatile unsigned char *p = malloc(n);
	uint64_t end;
	unsigned long sum = 0;

	if (!p)
		return 0;
	memset((void *)p, 1, n);
	end = cpu_ns() + busy_ms * 1000000;
	while (cpu_ns() < end)
		for (size_t i = 0; i < n; i += 4096)
			sum += p[i]++;
	free((void *)p);
	return sum;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 96;
	uint64_t busy = argc > 2 ? strtoull(argv[2], NULL, 10) : 300;
	struct rusage ru;
	unsigned long sum;

	idle(600);
	sum = hog_memory(mb, busy);
	idle(300);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak_kb=%ld sum=%lu\n", ru.ru_maxrss, sum ? 1ul : 0ul);
	return 0;
}
