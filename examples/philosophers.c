/*
 * philosophers - the dining philosophers of the Chitra paper's case study
 * (Section 3 of 003_8aa74f40d6f2adc4.txt), with pthread mutexes as forks,
 * for `ccsg pes` to model from the LOCK records (docs/pes.md, "Program
 * execution sequences").
 *
 *   philosophers [-n N] [-x THINK_US] [-e EAT_US] [-m MEALS]
 *                (defaults: 3 philosophers, 1000 us thinking, 2000 us
 *                eating, 200 meals each)
 *
 * Philosopher i (a thread) thinks for x us, takes fork i then fork
 * i+1 mod N (the last one the other way round, so that they never
 * deadlock), eats, puts both down, and so on.  Each measures itself how
 * long it took to acquire its forks (CLOCK_MONOTONIC before the first
 * lock and after the second) and prints, once all have eaten,
 * "philosopher I tid OS_TID meals M acquire_mean_ns A", then "fairness
 * F": the largest mean acquisition time over the smallest.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_PHIL 16

struct phil {
	int i;
	pid_t os_tid;
	long meals;
	int64_t acquire_ns;
};

static pthread_mutex_t fork_of[MAX_PHIL];
static int n = 3;
static long think_us = 1000, eat_us = 2000, meals = 200;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *dine(void *arg)
{
	struct phil *p = arg;
	int a = p->i, b = (p->i + 1) % n;

	if (p->i == n - 1) { /* the last takes them the other way round */
		a = b;
		b = p->i;
	}
	p->os_tid = (pid_t)syscall(SYS_gettid);
	for (long m = 0; m < meals; m++) {
		int64_t t0;

		usleep((useconds_t)think_us);
		t0 = now_ns();
		pthread_mutex_lock(&fork_of[a]);
		pthread_mutex_lock(&fork_of[b]);
		p->acquire_ns += now_ns() - t0;
		usleep((useconds_t)eat_us);
		pthread_mutex_unlock(&fork_of[b]);
		pthread_mutex_unlock(&fork_of[a]);
		p->meals++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct phil p[MAX_PHIL] = { { 0 } };
	pthread_t th[MAX_PHIL];
	double lo = 0, hi = 0;
	int opt;

	while ((opt = getopt(argc, argv, "n:x:e:m:")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			break;
		case 'x':
			think_us = atol(optarg);
			break;
		case 'e':
			eat_us = atol(optarg);
			break;
		case 'm':
			meals = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: philosophers [-n N] [-x THINK_US] "
					"[-e EAT_US] [-m MEALS]\n");
			return 2;
		}
	}
	if (n < 2 || n > MAX_PHIL || think_us < 0 || eat_us < 0 ||
	    meals < 1) {
		fprintf(stderr, "philosophers: N from 2 to %d, times >= 0, "
				"meals >= 1\n",
			MAX_PHIL);
		return 2;
	}
	for (int i = 0; i < n; i++)
		pthread_mutex_init(&fork_of[i], NULL);
	for (int i = 0; i < n; i++) {
		p[i].i = i;
		if (pthread_create(&th[i], NULL, dine, &p[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < n; i++) {
		double mean = (double)p[i].acquire_ns / (double)p[i].meals;

		printf("philosopher %d tid %d meals %ld acquire_mean_ns %.0f\n",
		       i, (int)p[i].os_tid, p[i].meals, mean);
		lo = i == 0 || mean < lo ? mean : lo;
		hi = mean > hi ? mean : hi;
	}
	printf("fairness %.3f\n", lo > 0 ? hi / lo : 0.0);
	return 0;
}
