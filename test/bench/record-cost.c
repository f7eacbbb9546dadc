/*
 * record-cost.c - cost of one record on the probe hot path.
 *
 * Runs the library's own inline emit path (causal_record_begin/commit from
 * preload/internal.h over preload/ring.c) in a loop while a consumer thread
 * drains, as the background writer does: asleep on a futex until a ring
 * an eighth full wakes it (the commit's own test), pinned to the CPU of
 * the thread that woke it (writer.c).  The producer's own CPU clock times
 * the loop, so the consumer's draining (the writer's cost, bench-writer)
 * is not counted, the wake-ups the producer makes are.  Prints ns per
 * record next to the cost of the CLOCK_MONOTONIC read every record
 * includes.
 *
 * A consumer that drained in a spin on the other CPU (this benchmark
 * before) measured the cache lines of the ring going back and forth
 * between two CPUs, 30 to 100 ns a record depending on where the
 * scheduler put the threads: no writer does that.
 */
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "short-slice.h"

static _Atomic int wakes;
static _Atomic uint32_t wake_word;

/* The real writer lives in writer.c; its wake, without the pinning. */
void causal_writer_wake(void)
{
	if (atomic_load_explicit(&wake_word, memory_order_relaxed) == 0 &&
	    atomic_exchange_explicit(&wake_word, 1, memory_order_relaxed) ==
		    0) {
		atomic_fetch_add_explicit(&wakes, 1, memory_order_relaxed);
		syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
	}
}

static _Atomic int stop;
static uint64_t consumed;

static int count(const struct causal_rec *rec, const struct causal_rec *next,
		 void *arg)
{
	(void)rec, (void)next;
	(void)arg;
	consumed++;
	return 0;
}

static void *consumer(void *arg)
{
	struct causal_tbuf *tb = arg;
	/* the writer's period, were no wake to come */
	struct timespec period = { 0, 1000000 };

	causal_ask_short_slice();
	while (!atomic_load(&stop)) {
		if (atomic_load_explicit(&wake_word, memory_order_relaxed) == 0)
			syscall(SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, 0,
				&period, NULL, 0);
		atomic_store_explicit(&wake_word, 0, memory_order_relaxed);
		causal_ring_drain(&tb->ring, count, NULL);
	}
	causal_ring_drain(&tb->ring, count, NULL);
	return NULL;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Both threads on the CPU this one runs on, as the writer is pinned. */
static void pin_here(pthread_t other)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	if (cpu < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	pthread_setaffinity_np(other, sizeof(one), &one);
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
	uint64_t i, t0, t1, c0, c1, pending, dropped, sink = 0;
	pthread_t th;

	causal_ring_init(&tb->ring, (uint8_t *)(tb + 1), ring_bytes);
	tb->tid = 1;
	pthread_create(&th, NULL, consumer, tb);
	pin_here(th);

	t0 = causal_now_ns();
	for (i = 0; i < n; i++)
		sink += causal_now_ns();
	t1 = causal_now_ns();
	c0 = thread_cpu_ns();
	for (i = 0; i < n; i++) {
		struct causal_rec *r = causal_record_begin(
			tb, CAUSAL_REC_THREAD_SPAWN, sizeof(*r), &pending);

		if (r) {
			r->aux = (uint32_t)i;
			causal_record_commit(tb, pending);
		}
	}
	c1 = thread_cpu_ns();
	atomic_store(&stop, 1);
	atomic_store(&wake_word, 1);
	syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(th, NULL);
	dropped = atomic_load(&tb->dropped);

	printf("record: %.1f ns per record (CLOCK_MONOTONIC read alone: %.1f "
	       "ns; "
	       "%llu records, %llu consumed, %llu dropped, %d wakes)%s\n",
	       per_op_ns(c0, c1, n), per_op_ns(t0, t1, n),
	       (unsigned long long)n, (unsigned long long)consumed,
	       (unsigned long long)dropped, atomic_load(&wakes),
	       sink == 1 ? "" : "");
	return consumed + dropped == n ? 0 : 1;
}
