#include "ring.h"

void causal_ring_init(struct causal_ring *ring, void *data, uint64_t capacity)
{
	atomic_init(&ring->head, 0);
	atomic_init(&ring->tail, 0);
	ring->tail_seen = 0;
	ring->capacity = capacity;
	ring->data = data;
}

/* A record that fits in head - at bytes, as the producer writes them: a
 * size it cannot have written means memory damage.  A pad may be as short
 * as 8 bytes (only type and size are written). */
static int ring_rec_ok(const struct causal_rec *rec, uint64_t room)
{
	return rec->size >= 8 && rec->size <= room && !(rec->size & 7) &&
	       (rec->type == CAUSAL_REC_PAD || rec->size >= sizeof(*rec));
}

/* The record committed after the one ending at `at`, past a pad; NULL if
 * none is, or it is damaged (its own turn will say so).  *end: where it
 * ends. */
static const struct causal_rec *ring_next(const struct causal_ring *ring,
					  uint64_t at, uint64_t head,
					  uint64_t *end)
{
	const struct causal_rec *rec;

	for (int i = 0; i < 2 && at < head; i++) {
		rec = (const void *)(ring->data + (at & (ring->capacity - 1)));
		if (!ring_rec_ok(rec, head - at))
			return NULL;
		at += rec->size;
		if (rec->type != CAUSAL_REC_PAD) {
			*end = at;
			return rec;
		}
	}
	return NULL;
}

int causal_ring_drain_some(struct causal_ring *ring, uint64_t budget,
			   causal_ring_fn fn, void *arg)
{
	uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
	uint64_t released = tail, end = head;
	int n = 0;

	if (budget < head - tail)
		end = tail + budget;
	while (tail < end) {
		const struct causal_rec *rec =
			(const void *)(ring->data + (tail & (ring->capacity - 1)));

		/* damaged: stop reading this ring rather than walk off it */
		if (!ring_rec_ok(rec, head - tail)) {
			tail = head; /* discard the rest */
			break;
		}
		if (rec->type != CAUSAL_REC_PAD) {
			uint64_t next_end = 0;
			const struct causal_rec *next = ring_next(
				ring, tail + rec->size, head, &next_end);
			int rc = fn(rec, next, arg);

			if (rc == CAUSAL_RING_TAKE_TWO && next) {
				tail = next_end;
				n += 2;
			} else if (rc) {
				break;
			} else {
				tail += rec->size;
				n++;
			}
		} else {
			tail += rec->size;
		}
		if (tail - released >= CAUSAL_RING_RELEASE) {
			/* release: the producer may reuse the bytes only after
			 * we read them */
			atomic_store_explicit(&ring->tail, tail,
					      memory_order_release);
			released = tail;
		}
	}
	if (tail != released)
		atomic_store_explicit(&ring->tail, tail, memory_order_release);
	return n;
}

int causal_ring_drain(struct causal_ring *ring, causal_ring_fn fn, void *arg)
{
	return causal_ring_drain_some(ring, UINT64_MAX, fn, arg);
}

void causal_ring_reset(struct causal_ring *ring)
{
	atomic_store_explicit(&ring->head, 0, memory_order_relaxed);
	atomic_store_explicit(&ring->tail, 0, memory_order_relaxed);
	ring->tail_seen = 0;
}
