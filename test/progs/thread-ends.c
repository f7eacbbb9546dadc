/*
 * thread-ends - one thread for each way a thread can end:
 *
 *   returned   its start routine returns
 *   exited     it calls pthread_exit() from a nested function
 *   cancelled  main cancels it while it blocks in pause()
 *   at_exit    it is still blocked in read() when main returns
 *
 * Prints "thread <os_tid> end <how>" for each, once the first three have
 * been joined, and exits 0.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct worker {
	const char *how;
	void *(*fn)(void *);
	pid_t os_tid;
	pthread_t th;
};

static sem_t started;
static int never[2]; /* a pipe nobody writes to */

static void *returns(void *arg)
{
	struct worker *w = arg;

	w->os_tid = gettid();
	sem_post(&started);
	return NULL;
}

static void leave(void) { pthread_exit(NULL); }

static void *exits(void *arg)
{
	struct worker *w = arg;

	w->os_tid = gettid();
	sem_post(&started);
	leave();
	return arg; /* not reached */
}

static void *waits_for_cancel(void *arg)
{
	struct worker *w = arg;

	w->os_tid = gettid();
	sem_post(&started);
	for (;;)
		pause();
	return NULL;
}

static void *blocks(void *arg)
{
	struct worker *w = arg;
	char c;

	w->os_tid = gettid();
	sem_post(&started);
	if (read(never[0], &c, 1) >= 0)
		fprintf(stderr, "thread-ends: unexpected read\n");
	return NULL;
}

int main(void)
{
	struct worker w[] = {
	    {"returned", returns, 0, 0},
	    {"exited", exits, 0, 0},
	    {"cancelled", waits_for_cancel, 0, 0},
	    {"at_exit", blocks, 0, 0},
	};
	int n = sizeof(w) / sizeof(w[0]);

	if (pipe(never) || sem_init(&started, 0, 0)) {
		perror("thread-ends");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if (pthread_create(&w[i].th, NULL, w[i].fn, &w[i])) {
			perror("pthread_create");
			return 1;
		}
		sem_wait(&started);
	}
	pthread_cancel(w[2].th);
	for (int i = 0; i < 3; i++)
		pthread_join(w[i].th, NULL);
	for (int i = 0; i < n; i++)
		printf("thread %d end %s\n", (int)w[i].os_tid, w[i].how);
	return 0; /* w[3] is still blocked in read() */
}
