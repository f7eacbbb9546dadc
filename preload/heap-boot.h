/*
 * heap-boot.h - the bootstrap area of the allocation wrappers (heap.c):
 * blocks handed out while the real allocator is not known yet, because
 * looking it up (dlsym) asked for memory (glibc before 2.34 allocates its
 * dlerror state there; later ones when a lookup fails), as lttng-ust's
 * libc wrapper does it.  A static area, a bump pointer moved with one
 * compare-and-swap: no lock, no system call, safe from any thread.
 * Blocks are never reused, so they start zeroed (calloc), and a block's
 * size is kept just before it (realloc copies that much).  free() must
 * test causal_boot_owns() first: such a block never reaches the real
 * free.
 */
#ifndef CAUSAL_HEAP_BOOT_H
#define CAUSAL_HEAP_BOOT_H

#include <stddef.h>
#include <stdint.h>

#define CAUSAL_BOOT_BYTES (16 * 1024)

/* hidden in the declaration too: the wrappers reach it without the GOT */
#define CAUSAL_BOOT_HIDDEN __attribute__((visibility("hidden")))

extern CAUSAL_BOOT_HIDDEN unsigned char causal_boot_heap[CAUSAL_BOOT_BYTES];

/* Is p a block of the bootstrap area (NULL is not)? */
static inline int causal_boot_owns(const void *p)
{
	return (uintptr_t)p - (uintptr_t)causal_boot_heap < CAUSAL_BOOT_BYTES;
}

/*
 * n bytes aligned to align (a power of two; less than 16 is 16), zeroed;
 * NULL with errno ENOMEM when the area is used up or align is over 4096.
 */
void *causal_boot_alloc(size_t n, size_t align);

/* The size a bootstrap block was asked with. */
size_t causal_boot_size(const void *p);

#endif
