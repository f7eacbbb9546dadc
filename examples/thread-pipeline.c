/*
 * thread-pipeline - the bundled example: a three-stage pipeline of worker
 * threads, the kind of program causal is for.
 *
 *   source --q1--> 3 checksum workers --q2--> 2 mixing workers --q3--> sink
 *
 * main starts the source, the sink and a "pool" thread, which starts the
 * five workers, so the thread tree has three levels.  The checksum stage
 * is light and the mixing stage heavy: the trace shows where the CPU goes.
 *
 *   thread-pipeline [BLOCKS]      (default 2000)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4096
#define QLEN 16
#define CHECKERS 3
#define MIXERS 2

struct item {
	long seq;
	uint64_t sum;
	unsigned char data[BLOCK];
};

/* A bounded queue; a NULL item tells one consumer to stop. */
struct queue {
	struct item *slot[QLEN];
	int head, len;
	pthread_mutex_t lock;
	pthread_cond_t more, room;
};

static struct queue q1, q2, q3;
static long blocks = 2000;

static void queue_init(struct queue *q)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->room, NULL);
}

static void queue_put(struct queue *q, struct item *it)
{
	pthread_mutex_lock(&q->lock);
	while (q->len == QLEN)
		pthread_cond_wait(&q->room, &q->lock);
	q->slot[(q->head + q->len++) % QLEN] = it;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
}

static struct item *queue_get(struct queue *q)
{
	struct item *it;

	pthread_mutex_lock(&q->lock);
	while (q->len == 0)
		pthread_cond_wait(&q->more, &q->lock);
	it = q->slot[q->head];
	q->head = (q->head + 1) % QLEN;
	q->len--;
	pthread_cond_signal(&q->room);
	pthread_mutex_unlock(&q->lock);
	return it;
}

static void *source(void *arg)
{
	uint64_t x = 88172645463325252ull; /* xorshift64 */

	for (long i = 0; i < blocks; i++) {
		struct item *it = malloc(sizeof(*it));

		it->seq = i;
		for (int j = 0; j < BLOCK; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			it->data[j] = (unsigned char)x;
		}
		queue_put(&q1, it);
	}
	for (int i = 0; i < CHECKERS; i++)
		queue_put(&q1, NULL);
	return arg;
}

/* Light stage: a Fletcher-style checksum of the block. */
static void *checker(void *arg)
{
	struct item *it;

	while ((it = queue_get(&q1))) {
		uint64_t a = 1, b = 0;

		for (int j = 0; j < BLOCK; j++) {
			a = (a + it->data[j]) % 65521;
			b = (b + a) % 65521;
		}
		it->sum = b << 16 | a;
		queue_put(&q2, it);
	}
	return arg;
}

/* Heavy stage: many rounds of mixing the checksum with the data. */
static void *mixer(void *arg)
{
	struct item *it;

	while ((it = queue_get(&q2))) {
		for (int r = 0; r < 256; r++)
			for (int j = 0; j < BLOCK; j += 8)
				it->sum =
				    (it->sum ^ it->data[j]) * 0x100000001b3ull;
		queue_put(&q3, it);
	}
	queue_put(&q3, NULL);
	return arg;
}

/* Start the workers; stop the mixers once every checker is done. */
static void *pool(void *arg)
{
	pthread_t th[CHECKERS + MIXERS];

	for (int i = 0; i < CHECKERS; i++)
		pthread_create(&th[i], NULL, checker, NULL);
	for (int i = 0; i < MIXERS; i++)
		pthread_create(&th[CHECKERS + i], NULL, mixer, NULL);
	for (int i = 0; i < CHECKERS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < MIXERS; i++)
		queue_put(&q2, NULL);
	for (int i = 0; i < MIXERS; i++)
		pthread_join(th[CHECKERS + i], NULL);
	return arg;
}

static void *sink(void *arg)
{
	uint64_t digest = 0;
	long n = 0;
	int stops = 0;

	while (stops < MIXERS) {
		struct item *it = queue_get(&q3);

		if (!it) {
			stops++;
			continue;
		}
		/* Order-independent, so the result is deterministic. */
		digest += it->sum * (uint64_t)(it->seq + 1);
		n++;
		free(it);
	}
	printf("processed %ld blocks, digest %016llx\n", n,
	       (unsigned long long)digest);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t src, snk, pl;

	if (argc > 1)
		blocks = atol(argv[1]);
	queue_init(&q1);
	queue_init(&q2);
	queue_init(&q3);
	pthread_create(&snk, NULL, sink, NULL);
	pthread_create(&pl, NULL, pool, NULL);
	pthread_create(&src, NULL, source, NULL);
	pthread_join(src, NULL);
	pthread_join(pl, NULL);
	pthread_join(snk, NULL);
	return 0;
}
