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
	int bad_next;	  /* given a next record that is not the next */
	int twos;	  /* records taken two at a time */
	int twos_wrapped; /* of them: the second at the ring's start */
};

static void see(struct seen *s, const struct causal_rec *rec,
		const struct causal_rec *next)
{
	if (rec->aux != s->next)
		s->out_of_order++;
	if (next && next->aux != rec->aux + 1)
		s->bad_next++;
	s->next = rec->aux + 1;
	s->count++;
}

static int collect(const struct causal_rec *rec, const struct causal_rec *next,
		   void *arg)
{
	see(arg, rec, next);
	return 0;
}

/* Stops at a record with no next one. */
static int refuse_odd_alone(const struct causal_rec *rec,
			    const struct causal_rec *next, void *arg)
{
	(void)rec, (void)arg;
	return next ? 0 : 1;
}

/* Takes a record with an even aux and the next one together. */
static int collect_twos(const struct causal_rec *rec,
			const struct causal_rec *next, void *arg)
{
	struct seen *s = arg;

	see(s, rec, next);
	if (!(rec->aux & 1) && next) {
		see(s, next, NULL);
		s->twos++;
		s->twos_wrapped += (const void *)next < (const void *)rec;
		return CAUSAL_RING_TAKE_TWO;
	}
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

/* The writer joins a record and the next: across a wrap, past the pad. */
START_TEST(two_records_taken_together_across_a_wrap)
{
	static uint8_t mem[256];
	struct causal_ring ring;
	struct seen s = { 0 };
	uint32_t i;

	causal_ring_init(&ring, mem, sizeof(mem));
	/* 48-byte records: 0-3 and 4 fill 240 bytes; 5 goes to the start,
	 * after a pad of 16 */
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(put(&ring, i, 48), 0);
	ck_assert_int_eq(causal_ring_drain(&ring, collect_twos, &s), 4);
	ck_assert_int_eq(s.twos, 2);
	ck_assert_int_eq(put(&ring, 4, 48), 0);
	/* alone: nothing committed after it yet */
	ck_assert_int_eq(causal_ring_drain(&ring, refuse_odd_alone, &s), 0);
	ck_assert_int_eq(put(&ring, 5, 48), 0);
	ck_assert_int_eq(causal_ring_drain(&ring, collect_twos, &s), 2);
	ck_assert_int_eq(s.twos_wrapped, 1);
	/* and on, lap after lap */
	for (i = 6; i < 100; i++) {
		ck_assert_int_eq(put(&ring, i, 40 + 8 * (i % 3)), 0);
		if (i % 3 == 2)
			causal_ring_drain(&ring, collect_twos, &s);
	}
	causal_ring_drain(&ring, collect_twos, &s);
	ck_assert_int_eq(s.count, 100);
	ck_assert_int_eq(s.out_of_order, 0);
	ck_assert_int_eq(s.bad_next, 0);
	ck_assert_int_gt(s.twos, 20);
	ck_assert(causal_ring_empty(&ring));
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

/* A drain that, half way, has a producer put a record in a full ring. */
struct refill {
	struct causal_ring *ring;
	int seen, put_at, put_ok;
};

static int put_midway(const struct causal_rec *rec,
		      const struct causal_rec *next, void *arg)
{
	struct refill *r = arg;

	(void)rec, (void)next;
	if (++r->seen == r->put_at)
		r->put_ok = put(r->ring, 9999, 32) == 0;
	return 0;
}

START_TEST(a_long_drain_gives_space_back_as_it_goes)
{
	static uint8_t mem[1 << 16];
	struct causal_ring ring;
	/* past CAUSAL_RING_RELEASE bytes of 32-byte records */
	struct refill r = { &ring, 0, CAUSAL_RING_RELEASE / 32 + 2, 0 };
	uint32_t i;

	causal_ring_init(&ring, mem, sizeof(mem));
	for (i = 0; put(&ring, i, 32) == 0; i++)
		;
	ck_assert_uint_eq(i, sizeof(mem) / 32);
	/* the producer need not wait for the end of the drain */
	causal_ring_drain(&ring, put_midway, &r);
	ck_assert_int_eq(r.put_ok, 1);
	ck_assert_uint_eq(causal_ring_used(&ring), 32); /* the late record */
}
END_TEST

static int refuse_fifth(const struct causal_rec *rec,
			const struct causal_rec *next, void *arg)
{
	struct seen *s = arg;

	if (rec->aux == 4 && s->count == 4) {
		s->out_of_order = -1; /* refused once */
		return 1;
	}
	return collect(rec, next, arg);
}

START_TEST(a_budget_or_a_refusal_stops_the_drain)
{
	static uint8_t mem[1024];
	struct causal_ring ring;
	struct seen s = { 0 };
	uint32_t i;

	causal_ring_init(&ring, mem, sizeof(mem));
	for (i = 0; i < 10; i++)
		put(&ring, i, 32);
	/* a budget of 3 records' bytes takes 3 */
	ck_assert_int_eq(causal_ring_drain_some(&ring, 96, collect, &s), 3);
	ck_assert_uint_eq(causal_ring_used(&ring), 7 * 32);
	/* a refused record stays, and comes first next time */
	ck_assert_int_eq(causal_ring_drain_some(&ring, UINT64_MAX,
						refuse_fifth, &s), 1);
	ck_assert_int_eq(s.out_of_order, -1);
	ck_assert_uint_eq(causal_ring_used(&ring), 6 * 32);
	s.out_of_order = 0;
	ck_assert_int_eq(causal_ring_drain(&ring, collect, &s), 6);
	ck_assert_int_eq(s.count, 10);
	ck_assert_int_eq(s.out_of_order, 0);
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
		causal_ring_drain(&ring, collect_twos, &s);
	pthread_join(th, NULL);
	ck_assert_int_eq(s.count, (int)p.n);
	/* the next record, while the producer writes on */
	ck_assert_int_eq(s.bad_next, 0);
	ck_assert_int_gt(s.twos, 0);
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
	tcase_add_test(tc, two_records_taken_together_across_a_wrap);
	tcase_add_test(tc, damaged_size_stops_the_drain);
	tcase_add_test(tc, a_long_drain_gives_space_back_as_it_goes);
	tcase_add_test(tc, a_budget_or_a_refusal_stops_the_drain);
	tcase_add_test(tc, concurrent_producer_and_consumer_lose_nothing);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}
