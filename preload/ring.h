/*
 * ring.h - a single-producer / single-consumer byte ring of records.
 *
 * The producer is the thread that owns the buffer (the probe hot path):
 * reserving and committing a record takes no lock, makes no system call and
 * never allocates.  The consumer is the background writer.  Records are
 * contiguous: one that does not fit before the end of the ring is preceded
 * by a padding record and placed at the start.
 *
 * Every record starts with struct causal_rec and its size is a multiple of 8.
 */
#ifndef CAUSAL_RING_H
#define CAUSAL_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define CAUSAL_REC_PAD 0 /* internal: padding up to the end of the ring */
/* in causal_rec.reserved: held for tail keep (keep.h), not written yet */
#define CAUSAL_REC_HELD 1u

struct causal_rec {
	uint16_t type;		/* enum causal_record_type, or CAUSAL_REC_PAD */
	uint16_t reserved;	/* CAUSAL_REC_HELD, or 0 */
	uint32_t size;		/* bytes, this header included, multiple of 8 */
	uint32_t tid;
	uint32_t aux;		/* type-specific small field */
	uint64_t mono_ns;
};

struct causal_ring {
	_Atomic uint64_t head;	/* bytes ever committed; producer-owned */
	uint64_t tail_seen;	/* producer: tail when it last read it */
	char pad0[48];		/* keep producer and consumer lines apart */
	_Atomic uint64_t tail;	/* bytes ever consumed; consumer-owned */
	char pad1[56];
	uint64_t capacity;	/* a power of two */
	uint8_t *data;
};

#define CAUSAL_REC_ALIGN(n) (((n) + 7u) & ~(size_t)7u)

void causal_ring_init(struct causal_ring *ring, void *data, uint64_t capacity);

/*
 * Room for a record of `size` bytes (already aligned), or NULL when the ring
 * is full.  Fill the record, then causal_ring_commit(ring, *pending) it.
 * *pending is set to the bytes the commit will advance the head by: size,
 * plus the padding record when the record wraps to the start.
 * causal_ring_commit() returns an upper bound of the bytes the ring holds
 * once committed (committed and not yet consumed, as of the last tail the
 * producer read), so the caller can decide to wake the consumer, after
 * causal_ring_refresh() when the bound says so.  The producer reads the
 * consumer's cache line only then, or when the ring looks full.
 */
static inline struct causal_rec *causal_ring_reserve(struct causal_ring *ring,
						      uint32_t size,
						      uint64_t *pending)
{
	uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
	uint64_t tail = ring->tail_seen;
	uint64_t off = head & (ring->capacity - 1);
	uint64_t to_end = ring->capacity - off;
	uint64_t need = size;

	if (size > to_end)
		need += to_end; /* pad to the end, then wrap */
	if (head + need - tail > ring->capacity) {
		/* the consumer's line only when the last view is too full:
		 * the bytes before a tail once seen stay free for us */
		tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
		ring->tail_seen = tail;
		if (head + need - tail > ring->capacity)
			return NULL;
	}
	if (size > to_end) {
		struct causal_rec *pad = (struct causal_rec *)(ring->data + off);

		/* to_end may be 8: only type and size fit, and suffice */
		pad->type = CAUSAL_REC_PAD;
		pad->size = (uint32_t)to_end;
		off = 0;
	}
	*pending = need;
	return (struct causal_rec *)(ring->data + off);
}

/* Returns at least the bytes the ring holds (from the last tail seen):
 * causal_ring_refresh() tells exactly. */
static inline uint64_t causal_ring_commit(struct causal_ring *ring,
					  uint64_t pending)
{
	uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);

	/* release: the consumer sees the record's bytes before the new head */
	atomic_store_explicit(&ring->head, head + pending, memory_order_release);
	return head + pending - ring->tail_seen;
}

/* Producer: read the consumer's tail again; the bytes the ring holds. */
static inline uint64_t causal_ring_refresh(struct causal_ring *ring)
{
	uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);

	ring->tail_seen = tail;
	return atomic_load_explicit(&ring->head, memory_order_relaxed) - tail;
}

/*
 * Consumer side: calls fn for each committed record, in order; returns how
 * many it consumed.  fn is given the record and the one committed after
 * it (NULL if none yet), and returns 0 to consume the record,
 * CAUSAL_RING_TAKE_TWO to consume both (the writer joins a probe's start
 * and end), any other value to stop before it (the record stays, and is
 * given again by the next drain).
 * At most `budget` bytes of the ring are consumed in one call (a second
 * record taken with the first may go past it).
 *
 * Space goes back to the producer every CAUSAL_RING_RELEASE bytes, not
 * only at the end: a long drain (or a consumer descheduled in the middle
 * of one) never holds the whole ring.
 */
typedef int (*causal_ring_fn)(const struct causal_rec *rec,
			      const struct causal_rec *next, void *arg);
#define CAUSAL_RING_TAKE_TWO 2
int causal_ring_drain_some(struct causal_ring *ring, uint64_t budget,
			   causal_ring_fn fn, void *arg);

/* Everything committed so far (fn never stops it). */
int causal_ring_drain(struct causal_ring *ring, causal_ring_fn fn, void *arg);

#define CAUSAL_RING_RELEASE 4096

/* Bytes committed and not yet consumed. */
static inline uint64_t causal_ring_used(struct causal_ring *ring)
{
	return atomic_load_explicit(&ring->head, memory_order_acquire) -
	       atomic_load_explicit(&ring->tail, memory_order_relaxed);
}

/* Throw away everything (after fork, the parent's records are not ours). */
void causal_ring_reset(struct causal_ring *ring);

static inline int causal_ring_empty(struct causal_ring *ring)
{
	return atomic_load_explicit(&ring->head, memory_order_acquire) ==
	       atomic_load_explicit(&ring->tail, memory_order_relaxed);
}

#endif
