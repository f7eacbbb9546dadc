/*
 * many-records - 64 threads, each creating and joining K short-lived
 * children one after the other: a burst of thread records, most of them
 * (THREAD_SPAWN) in the 64 parents' buffers.
 *
 *   many-records [K [PARENTS]]      (default 50 64)
 *
 * Prints "threads <n>": every thread created, main excluded.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int k = 50;

static void *leaf(void *arg)
{
	return arg;
}

static void *parent(void *arg)
{
	for (int i = 0; i < k; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, leaf, NULL)) {
			perror("pthread_create");
			exit(1);
		}
		pthread_join(th, NULL);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int parents = 64;
	pthread_t *th;

	if (argc > 1)
		k = atoi(argv[1]);
	if (argc > 2)
		parents = atoi(argv[2]);
	if (k < 0 || parents < 1) {
		fprintf(stderr, "usage: many-records [K [PARENTS]]\n");
		return 2;
	}
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
