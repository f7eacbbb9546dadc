/*
 * record-cost.c - cost of one record on the probe hot path.
 *
 * Runs the library's own inline emit path (causal_record_begin/commit from
 * preload/internal.h over preload/ring.c) in a loop while a consumer thread
 * drains, as the background writer would, and prints ns per record next to
 * the cost of the CLOCK_MONOTONIC read every record includes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <sys/mman.h>

#include "internal.h"

/* The real writer lives in writer.c; here a consumer thread drains. */
static _Atomic int wakes;
void causal_writer_wake(void)
{
	atomic_fetch_add_explicit(&wakes, 1, memory_order_relaxed);
}

static _Atomic int stop;
static uint64_t consumed;

static int count(const struct causal_rec *rec, void *arg)
{
	(void)rec;
	(void)arg;
	consumed++;
	return 0;
}

static void *consumer(void *arg)
{
	struct causal_tbuf *tb = arg;

	/* drain as fast as possible: this measures the producer, not drops */
	while (!atomic_load(&stop))
		if (!causal_ring_drain(&tb->ring, count, NULL))
			sched_yield();
	causal_ring_drain(&tb->ring, count, NULL);
	return NULL;
}

static double per_op_ns(uint64_t t0, uint64_t t1, uint64_t n)
{
	return (double)(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
	size_t ring_bytes = 1 << 20;
	struct causal_tbuf *tb = mmap(NULL, sizeof(*tb) + ring_bytes,
				      PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t i, t0, t1, t2, pending, dropped, sink = 0;
	pthread_t th;

	causal_ring_init(&tb->ring, (uint8_t *)(tb + 1), ring_bytes);
	tb->tid = 1;
	pthread_create(&th, NULL, consumer, tb);

	t0 = causal_now_ns();
	for (i = 0; i < n; i++)
		sink += causal_now_ns();
	t1 = causal_now_ns();
	for (i = 0; i < n; i++) {
		struct causal_rec *r = causal_record_begin(
			tb, CAUSAL_REC_THREAD_SPAWN, sizeof(*r), &pending);

		if (r) {
			r->aux = (uint32_t)i;
			causal_record_commit(tb, pending);
		}
	}
	t2 = causal_now_ns();
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	dropped = atomic_load(&tb->dropped);

	printf("record: %.1f ns per record (CLOCK_MONOTONIC read alone: %.1f ns; "
	       "%llu records, %llu consumed, %llu dropped, %d wakes)%s\n",
	       per_op_ns(t1, t2, n), per_op_ns(t0, t1, n),
	       (unsigned long long)n, (unsigned long long)consumed,
	       (unsigned long long)dropped, atomic_load(&wakes),
	       sink == 1 ? "" : "");
	return consumed + dropped == n ? 0 : 1;
}
