/*
 * thread-limit N STACK_KB - N threads alive at once, each with a stack of
 * STACK_KB KiB, as a program under a memory limit (ulimit -v) makes them.
 *
 * Prints "main" first, then "created K" (how many pthread_create() made
 * before the first failure, or N) and, on a failure, "failed-at I ERR".
 * Every thread waits until all are made, then returns its number; main
 * joins them and prints "joined K".  Exits 0 when all N were made, else 1.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int released;

static void *worker(void *arg)
{
	pthread_mutex_lock(&lock);
	while (!released)
		pthread_cond_wait(&go, &lock);
	pthread_mutex_unlock(&lock);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc == 3 ? atoi(argv[1]) : 0,
	    stack_kb = argc == 3 ? atoi(argv[2]) : 0;
	pthread_attr_t attr;
	pthread_t *th;
	int made = 0, joined = 0, err = 0;

	if (n <= 0 || stack_kb <= 0) {
		fprintf(stderr, "usage: thread-limit N STACK_KB\n");
		return 2;
	}
	printf("main\n");
	fflush(stdout);
	th = calloc((size_t)n, sizeof(*th));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)stack_kb * 1024);
	for (; made < n; made++) {
		err = pthread_create(&th[made], &attr, worker,
				     (void *)(long)made);
		if (err)
			break;
	}
	printf("created %d\n", made);
	if (err)
		printf("failed-at %d %s\n", made, strerror(err));
	pthread_mutex_lock(&lock);
	released = 1;
	pthread_cond_broadcast(&go);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < made; i++)
		if (pthread_join(th[i], NULL) == 0)
			joined++;
	printf("joined %d\n", joined);
	return made == n ? 0 : 1;
}
