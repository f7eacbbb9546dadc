/*
 * heap-boot.c - the bootstrap area of the allocation wrappers
 * (heap-boot.h).
 */
#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <string.h>

#include "heap-boot.h"

alignas(4096) unsigned char causal_boot_heap[CAUSAL_BOOT_BYTES];
static _Atomic size_t boot_used;

void *causal_boot_alloc(size_t n, size_t align)
{
	size_t used, start, end;

	if (align < 16)
		align = 16;
	if (align > 4096 || (align & (align - 1)) || n > CAUSAL_BOOT_BYTES) {
		errno = ENOMEM;
		return NULL;
	}
	used = atomic_load_explicit(&boot_used, memory_order_relaxed);
	do {
		/* the size goes in the size_t before the block */
		start = (used + sizeof(size_t) + align - 1) & ~(align - 1);
		end = start + n;
		if (end > CAUSAL_BOOT_BYTES) {
			errno = ENOMEM;
			return NULL;
		}
	} while (!atomic_compare_exchange_weak_explicit(&boot_used, &used, end,
							memory_order_relaxed,
							memory_order_relaxed));
	memcpy(causal_boot_heap + start - sizeof(size_t), &n, sizeof(n));
	return causal_boot_heap + start;
}

size_t causal_boot_size(const void *p)
{
	size_t n;

	memcpy(&n, (const unsigned char *)p - sizeof(size_t), sizeof(n));
	return n;
}
