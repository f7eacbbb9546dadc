/*
 * output - deterministic output from a multithreaded computation, to check
 * that tracing changes nothing a program's user sees.
 *
 * Four threads count and sum the primes in their quarter of [2, 200000);
 * main prints a table of every 100th prime, the per-thread results in
 * order, a line on stderr in the middle, and exits with status 3.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LIMIT 200000
#define NTHREADS 4

struct range {
	long lo, hi;
	long count;
	long long sum;
};

static unsigned char composite[LIMIT];

static void *count_primes(void *arg)
{
	struct range *r = arg;

	for (long i = r->lo; i < r->hi; i++)
		if (!composite[i]) {
			r->count++;
			r->sum += i;
		}
	return NULL;
}

int main(void)
{
	struct range r[NTHREADS];
	pthread_t th[NTHREADS];
	long n = 0, total = 0;

	for (long i = 2; i * i < LIMIT; i++)
		if (!composite[i])
			for (long j = i * i; j < LIMIT; j += i)
				composite[j] = 1;
	for (long i = 2; i < LIMIT; i++)
		if (!composite[i] && ++n % 100 == 0)
			printf("prime #%ld = %ld\n", n, i);

	fprintf(stderr, "output: sieve done, %ld primes\n", n);
	for (int t = 0; t < NTHREADS; t++) {
		r[t] =
		    (struct range){2 + t * (LIMIT - 2) / NTHREADS,
				   2 + (t + 1) * (LIMIT - 2) / NTHREADS, 0, 0};
		if (pthread_create(&th[t], NULL, count_primes, &r[t])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int t = 0; t < NTHREADS; t++) {
		pthread_join(th[t], NULL);
		printf("range [%ld, %ld): %ld primes, sum %lld\n", r[t].lo,
		       r[t].hi, r[t].count, r[t].sum);
		total += r[t].count;
	}
	printf("total %ld\n", total);
	fprintf(stderr, "output: exiting with 3\n");
	return total == n ? 3 : 1;
}
