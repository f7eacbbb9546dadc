/* check-ring.c - the per-thread single-producer/single-consumer ring */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

struct seen {
	uint32_t next;		/* expected aux of the next record */
	int count;
	int out_of_order;
};

static int collect(const struct causal_rec *rec, void *arg)
{
	struct seen *s = arg;

	if (rec->aux != s->next)
		s->out_of_order++;
	s->next = rec->aux + 1;
	s->count++;
	return 0;
}

static int put(struct causal_ring *ring, uint32_t aux, uint32_t size)
{
	uint64_t pending;
	struct causal_rec *r = causal_ring_reserve(ring, size, &pending);

	if (!r)
		return -1;
	r->type = 1;
	r->size = size;
	r->aux = aux;
	causal_ring_commit(ring, pending);
	return 0;
}

START_TEST(fills_then_refuses_then_drains_in_order)
{
	static uint8_t mem[1024];
	struct causal_ring ring;
	struct seen s = { 0 };
	uint32_t i, n = 0;

	causal_ring_init(&ring, mem, sizeof(mem));
	for (i = 0; put(&ring, i, 32) == 0; i++)
		n++;
	ck_assert_uint_eq(n, 1024 / 32); /* exactly full, never overfull */
	ck_assert_int_eq(causal_ring_drain(&ring, collect, &s), (int)n);
	ck_assert_int_eq(s.out_of_order, 0);
	ck_assert(causal_ring_empty(&ring));
}
END_TEST

START_TEST(records_wrap_with_padding)
{
	static uint8_t mem[256];
	struct causal_ring ring;
	struct seen s = { 0 };
	uint32_t i;

	causal_ring_init(&ring, mem, sizeof(mem));
	/* 40-byte records do not divide 256: each lap needs a pad record */
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(put(&ring, i, 40), 0);
		if (i % 3 == 2)
			causal_ring_drain(&ring, collect, &s);
	}
	causal_ring_drain(&ring, collect, &s);
	ck_assert_int_eq(s.count, 100);
	ck_assert_int_eq(s.out_of_order, 0);
}
END_TEST

START_TEST(damaged_size_stops_the_drain)
{
	static uint8_t mem[256];
	struct causal_ring ring;
	struct seen s = { 0 };

	causal_ring_init(&ring, mem, sizeof(mem));
	put(&ring, 0, 32);
	put(&ring, 1, 32);
	((struct causal_rec *)(mem + 32))->size = 12; /* not a multiple of 8 */
	ck_assert_int_eq(causal_ring_drain(&ring, collect, &s), 1);
	ck_assert(causal_ring_empty(&ring));
}
END_TEST

struct producer {
	struct causal_ring *ring;
	uint32_t n;
	uint32_t dropped;
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	uint32_t i = 0;

	while (i < p->n) {
		if (put(p->ring, i, 8 * (3 + i % 5)) == 0)
			i++;
		else
			p->dropped++; /* retry: this test wants every record */
	}
	return NULL;
}

START_TEST(concurrent_producer_and_consumer_lose_nothing)
{
	uint8_t *mem = aligned_alloc(64, 4096);
	struct causal_ring ring;
	struct producer p = { &ring, 200000, 0 };
	struct seen s = { 0 };
	pthread_t th;

	causal_ring_init(&ring, mem, 4096);
	pthread_create(&th, NULL, produce, &p);
	while (s.count < (int)p.n)
		causal_ring_drain(&ring, collect, &s);
	pthread_join(th, NULL);
	ck_assert_int_eq(s.count, (int)p.n);
	ck_assert_int_eq(s.out_of_order, 0);
	free(mem);
}
END_TEST

Suite *ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("spsc");

	tcase_add_test(tc, fills_then_refuses_then_drains_in_order);
	tcase_add_test(tc, records_wrap_with_padding);
	tcase_add_test(tc, damaged_size_stops_the_drain);
	tcase_add_test(tc, concurrent_producer_and_consumer_lose_nothing);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}
