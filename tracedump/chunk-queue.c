/*
 * chunk-queue.c - the bounded queue between the merge reader and the
 * merge store (contract in chunk-queue.h).
 *
 * One mutex guards the slots and the free list; the reader blocks on
 * not_full and the store on not_empty.  Chunks go round between the two
 * threads rather than being freed, as each is some 200 KiB.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "chunk-queue.h"

int chunk_queue_init(struct chunk_queue *q)
{
	memset(q, 0, sizeof(*q));
	if (pthread_mutex_init(&q->lock, NULL))
		return -ENOMEM;
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	return 0;
}

static void chunk_free(struct chunk *c)
{
	proc_release(&c->p);
	free(c->buf);
	free(c);
}

void chunk_queue_release(struct chunk_queue *q)
{
	struct chunk *c;

	for (size_t i = 0; i < q->n; i++)
		chunk_free(q->slot[(q->head + i) % CHUNK_QUEUE_LEN]);
	while ((c = q->free)) {
		q->free = c->next_free;
		chunk_free(c);
	}
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
	pthread_mutex_destroy(&q->lock);
}

struct chunk *chunk_queue_get(struct chunk_queue *q)
{
	struct chunk *c;

	pthread_mutex_lock(&q->lock);
	if ((c = q->free))
		q->free = c->next_free;
	pthread_mutex_unlock(&q->lock);
	if (!c && !(c = calloc(1, sizeof(*c))))
		return NULL;
	c->n = 0;
	c->used = 0;
	c->eof = false;
	return c;
}

void chunk_queue_put(struct chunk_queue *q, struct chunk *c)
{
	proc_release(&c->p);
	pthread_mutex_lock(&q->lock);
	c->next_free = q->free;
	q->free = c;
	pthread_mutex_unlock(&q->lock);
}

int chunk_queue_push(struct chunk_queue *q, struct chunk *c)
{
	pthread_mutex_lock(&q->lock);
	while (q->n == CHUNK_QUEUE_LEN && !q->cancel)
		pthread_cond_wait(&q->not_full, &q->lock);
	if (q->cancel) {
		pthread_mutex_unlock(&q->lock);
		if (c)
			chunk_free(c);
		return -ECANCELED;
	}
	q->slot[(q->head + q->n++) % CHUNK_QUEUE_LEN] = c;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

struct chunk *chunk_queue_pop(struct chunk_queue *q)
{
	struct chunk *c;

	pthread_mutex_lock(&q->lock);
	while (!q->n)
		pthread_cond_wait(&q->not_empty, &q->lock);
	c = q->slot[q->head];
	q->head = (q->head + 1) % CHUNK_QUEUE_LEN;
	q->n--;
	pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->lock);
	return c;
}

void chunk_queue_cancel(struct chunk_queue *q)
{
	pthread_mutex_lock(&q->lock);
	__atomic_store_n(&q->cancel, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&q->not_full);
	pthread_mutex_unlock(&q->lock);
}
