/*
 * malloc-cost - what tracing adds to a malloc + free pair, measured in one
 * process: batches of pairs through malloc()/free(), which the tracer
 * interposes when preloaded, alternate with batches through glibc's own
 * entry points __libc_malloc()/__libc_free(), which it never sees (the
 * allocator an untraced program calls).  Both see the same machine state
 * (load, CPU frequency, caches), so their ratio holds on a busy machine.
 * Two patterns:
 *
 *   pingpong  each block is freed at once: blocks of 16 to 256 bytes, a
 *             cycle of sizes, always served from glibc's per-thread
 *             cache (tcache).  The cheapest pair there is (about 8 ns),
 *             so the wrapper's own cost weighs most;
 *   working   SLOTS blocks stay live: each pair frees a block picked at
 *             random and allocates one of a random size (16 to 1024
 *             bytes) in its place, as a program holding a working set
 *             of objects does.
 *
 * Each block is written and read.
 *
 *   malloc-cost [ROUNDS [PAIRS [SLOTS]]]   (default 1000 rounds of 10000
 *                                           pairs; SLOTS 0: pingpong,
 *                                           else working)
 *
 * A round is one batch of each kind, back to back, in alternating order.
 * Prints "malloc-cost <pairs> pairs plain <ns> wrapped <ns> ratio <r>":
 * the fastest batch of each kind in ns per pair, and the median over the
 * rounds of wrapped / plain.  A batch is a millisecond or less, so most
 * rounds run without being preempted; the median drops those that were.
 * Untraced, both kinds are glibc's (the ratio shows the method's noise).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "paired-batches.h"

/* glibc's allocator under its own names (exported since 2.2.5) */
extern void *__libc_malloc(size_t n);
extern void __libc_free(void *p);

static unsigned sum;
static long slots;

struct pool {
	unsigned char **block;
	uint64_t rng;
};

static uint64_t next_rand(struct pool *pl)
{
	/* xorshift64: the same sequence for both kinds */
	pl->rng ^= pl->rng << 13;
	pl->rng ^= pl->rng >> 7;
	pl->rng ^= pl->rng << 17;
	return pl->rng;
}

/* One batch of n pairs; its time in ns, or -1 when memory runs out. */
static int64_t batch_of(void *(*volatile alloc)(size_t),
			void (*volatile release)(void *), struct pool *pl,
			long n)
{
	int64_t t0 = pb_mono_ns();

	for (long i = 0; i < n; i++) {
		unsigned char *p;

		if (slots) {
			uint64_t r = next_rand(pl);
			unsigned char **slot = &pl->block[r % (uint64_t)slots];

			release(*slot);
			p = *slot = alloc(16 + (size_t)((r >> 32) & 1008));
		} else {
			p = alloc(16 + (size_t)(i & 15) * 16);
		}
		if (!p)
			return -1;
		p[0] = (unsigned char)i;
		sum += p[0];
		if (!slots)
			release(p);
	}
	return pb_mono_ns() - t0;
}

/* What pb_run() needs: the two pools and the pairs a batch. */
struct pools {
	struct pool wrapped, plain;
	long pairs;
};

/* A batch through malloc()/free() (the tracer's when preloaded) or
 * through glibc's own entry points, each kind with its own pool. */
static int64_t batch(int wrapped, void *arg)
{
	struct pools *p = arg;

	return wrapped ? batch_of(malloc, free, &p->wrapped, p->pairs)
		       : batch_of(__libc_malloc, __libc_free, &p->plain,
				  p->pairs);
}

static int pool_init(struct pool *pl, void *(*alloc)(size_t))
{
	pl->rng = 88172645463325252ull;
	if (!slots)
		return 0;
	pl->block = __libc_malloc((size_t)slots * sizeof(*pl->block));
	if (!pl->block)
		return -1;
	for (long i = 0; i < slots; i++)
		if (!(pl->block[i] =
			      alloc(16 + (size_t)(next_rand(pl) & 1008))))
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long batches = argc > 1 ? atol(argv[1]) : 1000;
	struct pools pools = { .pairs = argc > 2 ? atol(argv[2]) : 10000 };
	int64_t plain, wrapped;
	double *ratio, median;

	slots = argc > 3 ? atol(argv[3]) : 0;
	if (batches < 1 || pools.pairs < 1 || slots < 0) {
		fprintf(stderr,
			"usage: malloc-cost [ROUNDS [PAIRS [SLOTS]]]\n");
		return 2;
	}
	ratio = __libc_malloc((size_t)batches * sizeof(*ratio));
	if (!ratio || pool_init(&pools.wrapped, malloc) ||
	    pool_init(&pools.plain, __libc_malloc)) {
		perror("malloc");
		return 1;
	}
	median = pb_run(batches, batch, &pools, ratio, &plain, &wrapped);
	if (median < 0) {
		perror("malloc");
		return 1;
	}
	printf("malloc-cost %ld pairs plain %.2f wrapped %.2f ratio %.3f "
	       "sum %u\n",
	       batches * pools.pairs, (double)plain / (double)pools.pairs,
	       (double)wrapped / (double)pools.pairs, median, sum);
	__libc_free(ratio);
	return 0;
}
