#include "ring.h"

void causal_ring_init(struct causal_ring *ring, void *data, uint64_t capacity)
{
	atomic_init(&ring->head, 0);
	atomic_init(&ring->tail, 0);
	ring->tail_seen = 0;
	ring->capacity = capacity;
	ring->data = data;
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

		/* a size the producer cannot have written means memory damage:
		 * stop reading this ring rather than walk off it.  A pad may be
		 * as short as 8 bytes (only type and size are written). */
		if (rec->size < 8 || rec->size > head - tail ||
		    (rec->size & 7) ||
		    (rec->type != CAUSAL_REC_PAD && rec->size < sizeof(*rec))) {
			tail = head; /* damaged: discard the rest */
			break;
		}
		if (rec->type != CAUSAL_REC_PAD) {
			if (fn(rec, arg))
				break;
			n++;
		}
		tail += rec->size;
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
