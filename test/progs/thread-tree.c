/*
 * thread-tree - a tree of threads: main spawns FANOUT threads, each of
 * which spawns FANOUT more, down to DEPTH levels.
 *
 *   thread-tree [DEPTH [FANOUT]]      (default 3 3)
 *
 * Prints "main <os_tid>" and, for every other thread,
 * "thread <os_tid> parent <os_tid of its creator>", then
 * "threads <count>" (main excluded).  Every thread waits on one barrier
 * before it returns, so all of them are alive at once and no kernel tid
 * is reused within a run: the os_tids identify the threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int depth = 3, fanout = 3;
static pthread_barrier_t all_alive;

struct node {
	int level;
	pid_t parent;
};

/*
 * Create a node's children, wait until the whole tree is alive, then join
 * them.  Joining before the barrier would deadlock it.
 */
static void *node_main(void *arg);

static void grow(int level)
{
	pthread_t *th = calloc(fanout, sizeof(*th));
	struct node *n = calloc(fanout, sizeof(*n));
	int kids = level < depth ? fanout : 0;

	if (!th || !n) {
		perror("calloc");
		exit(1);
	}

	for (int i = 0; i < kids; i++) {
		n[i].level = level + 1;
		n[i].parent = gettid();
		if (pthread_create(&th[i], NULL, node_main, &n[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	if (level > 0)
		pthread_barrier_wait(&all_alive);
	for (int i = 0; i < kids; i++)
		pthread_join(th[i], NULL);
	free(th);
	free(n);
}

static void *node_main(void *arg)
{
	struct node *n = arg;

	printf("thread %d parent %d\n", (int)gettid(), (int)n->parent);
	grow(n->level);
	return NULL;
}

int main(int argc, char **argv)
{
	int total = 0, width = 1;

	if (argc > 1)
		depth = atoi(argv[1]);
	if (argc > 2)
		fanout = atoi(argv[2]);
	if (depth < 1 || fanout < 1) {
		fprintf(stderr, "usage: thread-tree [DEPTH [FANOUT]]\n");
		return 2;
	}
	for (int d = 1; d <= depth; d++)
		total += width *= fanout;

	/* Line-buffered even into a file, so lines never interleave. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("main %d\n", (int)gettid());
	pthread_barrier_init(&all_alive, NULL, total);
	grow(0);
	printf("threads %d\n", total);
	return 0;
}
