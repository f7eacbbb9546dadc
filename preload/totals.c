/*
 * totals.c - the per-thread tables of exact totals (totals.h) and their
 * CALL_TOTALS records.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "encode.h"
#include "internal.h"
#include "totals.h"

struct totals_slot {
	_Atomic uint32_t used; /* the key is set (release: writer reads) */
	struct causal_totals_key key;
	_Atomic uint64_t calls, failures, cpu_ns, alloc_bytes, latency_ns;
	uint64_t written; /* writer: calls at the last record */
	_Atomic uint32_t hist[CAUSAL_HIST_BUCKETS];
};

struct causal_totals {
	_Atomic uint32_t tid; /* the thread it counts for (0: resetting) */
	_Atomic uint64_t lost;
	uint64_t lost_written;
	struct totals_slot slot[CAUSAL_TOTALS_SLOTS];
};

/* The calling thread's table, and the buffer it was made for. */
static CAUSAL_TLS struct causal_totals *mine;
static CAUSAL_TLS struct causal_tbuf *mine_for;
/* Its slot of the last key counted on each side: a thread mostly repeats
 * the call before, found then with one comparison and no hashing (NULL
 * whenever the table is made, taken over or reset). */
static CAUSAL_TLS struct totals_slot *last[2];
static uint64_t last_report_ns;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

int causal_totals_every_call(void)
{
	return causal_g.cfg.sample != CAUSAL_DEFAULT_SAMPLE;
}

/* Counters only this thread writes: a relaxed load and store, no lock
 * prefix (the writer's reads are relaxed too). */
#define BUMP(var, by)                                                          \
	atomic_store_explicit(                                                 \
		&(var),                                                        \
		atomic_load_explicit(&(var), memory_order_relaxed) + (by),     \
		memory_order_relaxed)

static void reset(struct causal_totals *t)
{
	unsigned i;

	atomic_store_explicit(&t->tid, 0, memory_order_release);
	for (i = 0; i < CAUSAL_TOTALS_SLOTS; i++)
		if (atomic_load_explicit(&t->slot[i].used,
					 memory_order_relaxed))
			memset(&t->slot[i], 0, sizeof(t->slot[i]));
	t->lost = 0;
	t->lost_written = 0;
}

/* In a fork child: the parent's counts are the parent's. */
static void after_fork_child(void)
{
	if (mine)
		reset(mine);
	mine_for = NULL;
	last[0] = last[1] = NULL;
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}

/* The calling thread's table, made or taken over (a recycled buffer's
 * table counted for another thread); NULL without memory. */
static struct causal_totals *table(void)
{
	struct causal_tbuf *tb = causal_self.tbuf;
	struct causal_totals *t;

	if (!tb)
		return NULL;
	if (mine && mine_for == tb)
		return mine;
	t = atomic_load_explicit(&tb->totals, memory_order_acquire);
	if (!t) {
		pthread_once(&atfork_once, register_atfork);
		/* once per buffer, which its threads then share in turn */
		t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t == MAP_FAILED)
			return NULL;
		atomic_store_explicit(&tb->totals, t, memory_order_release);
	} else if (atomic_load_explicit(&t->tid, memory_order_relaxed) !=
		   tb->tid) {
		reset(t);
	}
	atomic_store_explicit(&t->tid, tb->tid, memory_order_release);
	mine = t;
	mine_for = tb;
	last[0] = last[1] = NULL;
	return t;
}

static uint32_t hash_key(const struct causal_totals_key *k)
{
	uint64_t h =
		((uint64_t)k->prog << 32 | k->proc) * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)k->caller_prog << 32 | k->caller_proc) *
	     0xc2b2ae3d27d4eb4full;
	h ^= (uint64_t)(k->vers ^ k->caller_vers << 8 ^ k->side << 16);
	return (uint32_t)(h >> 40);
}

static struct totals_slot *slot_of(struct causal_totals *t,
				   const struct causal_totals_key *k)
{
	uint32_t i = hash_key(k), n;

	for (n = 0; n < CAUSAL_TOTALS_SLOTS; n++, i++) {
		struct totals_slot *s = &t->slot[i % CAUSAL_TOTALS_SLOTS];

		if (!atomic_load_explicit(&s->used, memory_order_relaxed)) {
			s->key = *k;
			atomic_store_explicit(&s->used, 1,
					      memory_order_release);
			return s;
		}
		if (!memcmp(&s->key, k, sizeof(*k)))
			return s;
	}
	return NULL;
}

void causal_totals_count(const struct causal_totals_key *k,
			 const struct causal_totals_add *a)
{
	struct causal_totals *t = table();
	struct totals_slot **cached = &last[k->side & 1], *s = *cached;

	if (!t)
		return;
	if (!s || memcmp(&s->key, k, sizeof(*k))) {
		s = slot_of(t, k);
		if (!s) {
			BUMP(t->lost, 1);
			return;
		}
		*cached = s;
	}
	BUMP(s->calls, 1);
	BUMP(s->failures, a->failed);
	BUMP(s->cpu_ns, a->cpu_ns);
	BUMP(s->alloc_bytes, a->alloc_bytes);
	if (a->has_latency) {
		BUMP(s->latency_ns, a->latency_ns);
		BUMP(s->hist[causal_hist_bucket(a->latency_ns)], 1);
	}
}

/* ---- the writer's side --------------------------------------------------- */

/* The widest record: its fields, and every bucket as [n, count]. */
#define TOTALS_RECORD_MAX (256 + 19 * CAUSAL_HIST_BUCKETS)

/* the writer is one at a time (its lock, or the final flush) */
static uint64_t counts[CAUSAL_HIST_BUCKETS];

/* 0, or -1 when the frame had no room (the next round writes it) */
static int write_slot(struct causal_log_file *lf, uint32_t tid,
		      struct totals_slot *s, uint64_t lost, int final)
{
	const struct causal_totals_key *k = &s->key;
	struct rec_call_totals r = {
		.hdr = { .type = CAUSAL_REC_CALL_TOTALS,
			 .tid = tid,
			 .mono_ns = causal_now_ns() },
		.side = (uint8_t)k->side,
		.prog = k->prog,
		.vers = k->vers,
		.proc = k->proc,
		.caller_prog = k->caller_prog,
		.caller_vers = k->caller_vers,
		.caller_proc = k->caller_proc,
		.lost = lost,
	};
	unsigned b;

	r.calls = atomic_load_explicit(&s->calls, memory_order_relaxed);
	r.failures = atomic_load_explicit(&s->failures, memory_order_relaxed);
	r.cpu_ns = atomic_load_explicit(&s->cpu_ns, memory_order_relaxed);
	r.alloc_bytes =
		atomic_load_explicit(&s->alloc_bytes, memory_order_relaxed);
	r.latency_ns =
		atomic_load_explicit(&s->latency_ns, memory_order_relaxed);
	for (b = 0; b < CAUSAL_HIST_BUCKETS; b++)
		counts[b] =
			atomic_load_explicit(&s->hist[b], memory_order_relaxed);
	r.latency = (struct rec_counts){ counts, CAUSAL_HIST_BUCKETS };
	if (final)
		causal_log_file_reserve(lf, TOTALS_RECORD_MAX);
	else if (causal_log_file_room(lf, TOTALS_RECORD_MAX))
		return -1;
	causal_encode_record(&lf->pk, &r.hdr);
	causal_log_file_count(lf, CAUSAL_REC_CALL_TOTALS);
	s->written = r.calls;
	return 0;
}

static int report_table(struct causal_tbuf *tb, int force, int final)
{
	struct causal_totals *t =
		atomic_load_explicit(&tb->totals, memory_order_acquire);
	uint64_t lost;
	unsigned i;

	int ret = 0;

	if (!t ||
	    atomic_load_explicit(&t->tid, memory_order_acquire) != tb->tid)
		return 0;
	lost = atomic_load_explicit(&t->lost, memory_order_relaxed);
	for (i = 0; i < CAUSAL_TOTALS_SLOTS; i++) {
		struct totals_slot *s = &t->slot[i];

		if (!atomic_load_explicit(&s->used, memory_order_acquire))
			continue;
		if (!force && lost == t->lost_written &&
		    atomic_load_explicit(&s->calls, memory_order_relaxed) ==
			    s->written)
			continue;
		if (write_slot(&causal_g.log, tb->tid, s, lost, final))
			ret = -1;
		else
			t->lost_written = lost;
	}
	return ret;
}

int causal_totals_report(struct causal_tbuf *tb, int final)
{
	static int due;
	int dead = atomic_load_explicit(&tb->state, memory_order_acquire) ==
		   CAUSAL_TBUF_DEAD;

	/* every second (decided at the first buffer of a pass), when its
	 * thread has ended (before the buffer is recycled), at the end */
	if (tb == causal_tbufs_first()) {
		uint64_t now = causal_now_ns();

		due = now - last_report_ns >= 1000000000ull;
		if (due)
			last_report_ns = now;
	}
	if (final || dead || due)
		return report_table(tb, 0, final);
	return 0;
}

void causal_segment_opened(void)
{
	struct causal_tbuf *tb;

	for (tb = causal_tbufs_first(); tb; tb = tb->next_all)
		if (atomic_load_explicit(&tb->state, memory_order_acquire) !=
		    CAUSAL_TBUF_FREE)
			(void)report_table(tb, 1, 1);
}
