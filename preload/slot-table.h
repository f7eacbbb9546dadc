/*
 * slot-table.h - a lock-free set of nonzero 64-bit keys in a table of
 * atomic words (open addressing, linear probing), for what a probe
 * numbers the first time it meets it: call sites (sites.c), serving
 * objects (shim-rpc/objects.c).  A probe finds or claims a key's slot
 * with loads and at most one compare-and-swap, never waiting for another
 * thread; two threads meeting a new key at once get the same slot.
 * Slots are never freed.
 */
#ifndef CAUSAL_SLOT_TABLE_H
#define CAUSAL_SLOT_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define CAUSAL_SLOT_NONE ((size_t)-1)

/*
 * The slot of key (not 0) in table[size] (size a power of two), looking
 * at no more than max slots from start on; *claimed is set when this
 * call took the slot (the caller then records the key's first meeting).
 * CAUSAL_SLOT_NONE when those slots hold other keys.
 */
static inline size_t causal_slot_claim(_Atomic uint64_t *table, size_t size,
				       size_t start, unsigned max, uint64_t key,
				       int *claimed)
{
	size_t i = start & (size - 1);

	*claimed = 0;
	for (unsigned n = 0; n < max; n++, i = (i + 1) & (size - 1)) {
		uint64_t seen =
			atomic_load_explicit(&table[i], memory_order_relaxed);

		if (seen == key)
			return i;
		if (seen)
			continue;
		if (atomic_compare_exchange_strong_explicit(
			    &table[i], &seen, key, memory_order_relaxed,
			    memory_order_relaxed)) {
			*claimed = 1;
			return i;
		}
		if (seen == key) /* another thread, for the same key */
			return i;
	}
	return CAUSAL_SLOT_NONE;
}

/*
 * Each page of the table written once (a write of what is there), at
 * load: so that no probe takes the page fault of the first write to a
 * page (some 2-3 us, once per page).
 */
static inline void causal_slot_touch(_Atomic uint64_t *table, size_t size)
{
	for (size_t i = 0; i < size; i += 4096 / sizeof(*table))
		atomic_fetch_or_explicit(&table[i], 0, memory_order_relaxed);
}

#endif
