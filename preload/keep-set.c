/*
 * keep-set.c - which chains tail keep keeps (keep.h), and what is slow.
 *
 * The kept set is a fixed open-addressed table: any thread adds a chain
 * (rare: a slow or failed chain), the writer alone reads and tidies it.
 * A slot is claimed with a compare-and-swap and published once filled;
 * a full neighbourhood drops the chain, counted (its records then expire
 * unkept, as the KEEP record shows).  A chain this process keeps itself
 * is marked to be announced: the consumer thread (keep-cast.c) tells the
 * coordinator; one the coordinator told of is not announced again.
 */
#include <stdatomic.h>
#include <string.h>

#include "keep.h"

#define KEEP_SLOTS 4096 /* a power of two */
#define KEEP_PROBES 16

enum { SLOT_FREE, SLOT_BUSY, SLOT_READY };

struct kept {
	_Atomic uint32_t state;
	_Atomic uint32_t announce; /* 1: the consumer is to announce it */
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	uint64_t at; /* when kept */
};

static struct kept kept[KEEP_SLOTS];
static _Atomic uint64_t version;
/* chains not kept for want of a slot (written in the KEEP record) */
_Atomic uint64_t causal_keep_set_full;

/*
 * The p99 histogram: 8 buckets per power of two (12% wide), counted by
 * every thread with relaxed adds; the writer turns it into p99_ns.
 */
#define HIST_SUB 8
#define HIST_BUCKETS (64 * HIST_SUB)
#define P99_MIN_CALLS 100

static _Atomic uint32_t hist[HIST_BUCKETS];
static _Atomic uint64_t p99_ns; /* 0: not enough calls yet */

static uint32_t slot_of(const uint8_t *chain)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < CAUSAL_CHAIN_ID_LEN; i++)
		h = (h ^ chain[i]) * 16777619u;
	return h & (KEEP_SLOTS - 1);
}

static int same(const struct kept *k, const uint8_t *chain)
{
	return atomic_load_explicit(&k->state, memory_order_acquire) ==
		       SLOT_READY &&
	       !memcmp(k->chain, chain, CAUSAL_CHAIN_ID_LEN);
}

static void add(const uint8_t chain[CAUSAL_CHAIN_ID_LEN], uint32_t announce)
{
	uint32_t at = slot_of(chain);

	for (int i = 0; i < KEEP_PROBES; i++) {
		struct kept *k = &kept[(at + (uint32_t)i) & (KEEP_SLOTS - 1)];
		uint32_t free_state = SLOT_FREE;

		if (same(k, chain))
			return;
		if (!atomic_compare_exchange_strong(&k->state, &free_state,
						    SLOT_BUSY))
			continue;
		memcpy(k->chain, chain, CAUSAL_CHAIN_ID_LEN);
		k->at = causal_now_ns();
		atomic_store_explicit(&k->announce, announce,
				      memory_order_relaxed);
		atomic_store_explicit(&k->state, SLOT_READY,
				      memory_order_release);
		atomic_fetch_add_explicit(&version, 1, memory_order_release);
		return;
	}
	atomic_fetch_add_explicit(&causal_keep_set_full, 1,
				  memory_order_relaxed);
}

void causal_keep_chain(const uint8_t chain[CAUSAL_CHAIN_ID_LEN])
{
	add(chain, causal_g.cfg.coordinator[0] != '\0');
}

void causal_keep_learn(const uint8_t chain[CAUSAL_CHAIN_ID_LEN])
{
	add(chain, 0);
}

int causal_keep_announce_next(uint8_t chain[CAUSAL_CHAIN_ID_LEN])
{
	for (int i = 0; i < KEEP_SLOTS; i++) {
		struct kept *k = &kept[i];
		uint32_t yes = 1;

		if (atomic_load_explicit(&k->state, memory_order_acquire) !=
			    SLOT_READY ||
		    !atomic_compare_exchange_strong(&k->announce, &yes, 0))
			continue;
		memcpy(chain, k->chain, CAUSAL_CHAIN_ID_LEN);
		return 1;
	}
	return 0;
}

int causal_keep_kept(const uint8_t chain[CAUSAL_CHAIN_ID_LEN])
{
	uint32_t at = slot_of(chain);

	for (int i = 0; i < KEEP_PROBES; i++)
		if (same(&kept[(at + (uint32_t)i) & (KEEP_SLOTS - 1)], chain))
			return 1;
	return 0;
}

uint64_t causal_keep_version(void)
{
	return atomic_load_explicit(&version, memory_order_acquire);
}

static unsigned bucket_of(uint64_t ns)
{
	unsigned e = ns ? 63u - (unsigned)__builtin_clzll(ns) : 0;

	if (e < 3)
		return (unsigned)ns; /* 0..7: exact */
	return e * HIST_SUB + (unsigned)((ns >> (e - 3)) & (HIST_SUB - 1));
}

static uint64_t bucket_low(unsigned b)
{
	unsigned e = b / HIST_SUB, sub = b % HIST_SUB;

	if (e < 3)
		return b;
	return (uint64_t)(HIST_SUB + sub) << (e - 3);
}

int causal_keep_slow(uint64_t ns)
{
	uint64_t limit = causal_g.cfg.keep_slower_ns;

	if (limit != CAUSAL_KEEP_P99)
		return ns > limit;
	atomic_fetch_add_explicit(&hist[bucket_of(ns)], 1,
				  memory_order_relaxed);
	limit = atomic_load_explicit(&p99_ns, memory_order_relaxed);
	return limit && ns > limit;
}

/* The lower bound of the bucket the 99th percentile falls in. */
static void update_p99(void)
{
	uint64_t total = 0, seen = 0;
	unsigned b;

	for (b = 0; b < HIST_BUCKETS; b++)
		total += atomic_load_explicit(&hist[b], memory_order_relaxed);
	if (total < P99_MIN_CALLS)
		return;
	for (b = 0; b < HIST_BUCKETS; b++) {
		seen += atomic_load_explicit(&hist[b], memory_order_relaxed);
		if (seen * 100 >= total * 99)
			break;
	}
	atomic_store_explicit(&p99_ns, bucket_low(b + 1), memory_order_relaxed);
}

void causal_keep_tidy(uint64_t now)
{
	uint64_t ttl = 2 * causal_g.cfg.keep_window_ns;

	for (int i = 0; i < KEEP_SLOTS; i++) {
		struct kept *k = &kept[i];

		if (atomic_load_explicit(&k->state, memory_order_acquire) ==
			    SLOT_READY &&
		    k->at + ttl < now)
			atomic_store_explicit(&k->state, SLOT_FREE,
					      memory_order_release);
	}
	if (causal_g.cfg.keep_slower_ns == CAUSAL_KEEP_P99)
		update_p99();
}
