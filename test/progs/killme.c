/*
 * killme - runs until killed: a few threads each create and join a short
 * child every millisecond, forever, so the tracer keeps writing.  A test
 * SIGKILLs it; alarm() ends it after 60 s should the test not.
 *
 * Prints "ready <pid>" once all four threads run.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void *leaf(void *arg) { return arg; }

static sem_t running;

static void *churn(void *arg)
{
	const struct timespec ms = {0, 1000000};

	sem_post(&running);
	for (;;) {
		pthread_t th;

		if (pthread_create(&th, NULL, leaf, NULL) == 0)
			pthread_join(th, NULL);
		nanosleep(&ms, NULL);
	}
	return arg;
}

int main(void)
{
	pthread_t th;

	alarm(60);
	sem_init(&running, 0, 0);
	for (int i = 0; i < 4; i++)
		if (pthread_create(&th, NULL, churn, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < 4; i++)
		sem_wait(&running);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
