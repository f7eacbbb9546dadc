/*
 * many-records - 64 threads, each creating K short-lived children: a burst
 * of thread records, K THREAD_SPAWN of them in each parent's buffer.
 *
 *   many-records [-h] [K [PARENTS]]      (default 50 64)
 *
 * By default each parent creates and joins its children one at a time.
 * With -h (hold) a parent creates all K first, the children waiting until
 * the last one exists, then joins them: no child ends while the parent is
 * spawning, so nothing but the flush timer gets the tracer's writer to
 * drain the parent's buffer.  Eight parents at a time do that, so that the
 * writer has several full buffers to drain at once, but at most 8 * K
 * children are alive.
 *
 * Prints "threads <n>": every thread created, main excluded.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int k = 50, hold;
static sem_t turns; /* parents spawning at once, with -h */
#define TURNS 8

struct batch {
	pthread_mutex_t lock;
	pthread_cond_t go;
	int released;
};

static void *leaf(void *arg)
{
	struct batch *b = arg;

	if (b) {
		pthread_mutex_lock(&b->lock);
		while (!b->released)
			pthread_cond_wait(&b->go, &b->lock);
		pthread_mutex_unlock(&b->lock);
	}
	return NULL;
}

static void spawn(pthread_t *th, pthread_attr_t *attr, void *arg)
{
	if (pthread_create(th, attr, leaf, arg)) {
		perror("pthread_create");
		exit(1);
	}
}

static void *parent(void *arg)
{
	struct batch b = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			  0};
	pthread_attr_t attr;
	pthread_t *th;

	if (!hold) {
		for (int i = 0; i < k; i++) {
			pthread_t one;

			spawn(&one, NULL, NULL);
			pthread_join(one, NULL);
		}
		return arg;
	}
	th = calloc(k, sizeof(*th));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	sem_wait(&turns);
	for (int i = 0; i < k; i++)
		spawn(&th[i], &attr, &b);
	pthread_mutex_lock(&b.lock);
	b.released = 1;
	pthread_cond_broadcast(&b.go);
	pthread_mutex_unlock(&b.lock);
	for (int i = 0; i < k; i++)
		pthread_join(th[i], NULL);
	sem_post(&turns);
	pthread_attr_destroy(&attr);
	free(th);
	return arg;
}

int main(int argc, char **argv)
{
	int parents = 64, a = 1;
	pthread_t *th;

	if (argc > 1 && !strcmp(argv[1], "-h")) {
		hold = 1;
		a++;
	}
	if (argc > a)
		k = atoi(argv[a]);
	if (argc > a + 1)
		parents = atoi(argv[a + 1]);
	if (k < 0 || parents < 1) {
		fprintf(stderr, "usage: many-records [-h] [K [PARENTS]]\n");
		return 2;
	}
	sem_init(&turns, 0, TURNS);
	th = calloc(parents, sizeof(*th));
	for (int i = 0; i < parents; i++)
		if (pthread_create(&th[i], NULL, parent, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < parents; i++)
		pthread_join(th[i], NULL);
	printf("threads %d\n", parents + parents * k);
	free(th);
	return 0;
}
