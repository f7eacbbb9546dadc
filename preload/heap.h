/*
 * heap.h - heap memory per thread (Section 2.4 and 5.2.1 of the
 * monitoring paper; the CPU paper's Equations 1-4 with bytes instead of
 * nanoseconds).
 *
 * heap.c interposes malloc, calloc, realloc, reallocarray, free,
 * posix_memalign, aligned_alloc, memalign, valloc and pvalloc and keeps
 * running counters per thread in initial-exec TLS: bytes and blocks
 * allocated and freed (malloc_usable_size of each block), live bytes
 * (allocated - freed by this thread) and their peak.  No record is
 * written per allocation: the RPC probes and the thread start and end
 * records sample the counters (CAUSAL_HEAP_FILL), as they sample the
 * thread's CPU clock, and the analysis takes differences.
 *
 * Rules of attribution:
 *  - a block freed by another thread than the one that allocated it is
 *    freed bytes of the freeing thread;
 *  - realloc is a free of the old block and an allocation of the new one
 *    (both counted, moved or not);
 *  - nothing is counted while causal_self.in_hook is set: the tracer's
 *    own threads (writer, flusher) and its hooks allocate uncounted;
 *  - blocks handed out before the real allocator is known (dlsym calls
 *    calloc) come from a static bootstrap area, are never counted, and
 *    are never passed to the real free or realloc.
 *
 * The process's live bytes are the sum of every thread's; each thread
 * adds its own change to a process-wide total once it reaches
 * CAUSAL_HEAP_PUBLISH bytes either way (and when it ends), so the peak of
 * the process is the peak of that total: short of the true peak by less
 * than CAUSAL_HEAP_PUBLISH bytes per thread, and costing the hot path one
 * comparison, not an atomic operation per call.
 */
#ifndef CAUSAL_HEAP_H
#define CAUSAL_HEAP_H

#include <stdint.h>

#define CAUSAL_HEAP_PUBLISH (16 * 1024)

/*
 * What each thread counts: causal_self.heap (probe.h), in the same
 * initial-exec TLS block as the recursion guard the wrappers test.  Its
 * live bytes are alloc_bytes - freed_bytes.
 */
struct causal_heap_tls {
	uint64_t alloc_bytes, freed_bytes; /* usable sizes */
	uint64_t allocs, frees;		   /* blocks */
	int64_t peak;			   /* the highest live so far */
	int64_t published;		   /* live when last added to the
					    * process total */
};

/*
 * The accounting state: 0 while memory accounting is off, else the
 * number of the period it has been on since (1: on since the process
 * started, never switched off; each switch on takes the next number).
 * Two samples whose epochs are equal and not 0 bound an interval during
 * which every allocation and free of the thread was counted.
 */
extern _Atomic uint32_t causal_heap_state;

static inline uint32_t causal_heap_epoch(void)
{
	return __atomic_load_n((uint32_t *)&causal_heap_state,
			       __ATOMIC_RELAXED);
}

/*
 * Memory accounting on (default) or off, for the whole process, at any
 * time from any thread.  Off, the allocation wrappers cost one
 * predictable branch more than the allocator, and the probes record
 * heap_epoch 0 with zero counters: absent, not zero bytes.
 */
void causal_heap_set_enabled(int on);

/*
 * Fill a record's heap fields (needs probe.h) (records.def,
 * CAUSAL_FIELDS_HEAP) with this thread's counters: heap_epoch as
 * causal_heap_epoch(), and zeros when it is 0.
 */
#define CAUSAL_HEAP_FILL(r) CAUSAL_HEAP_FILL_IF(r, 1)

/*
 * The same for an RPC probe: only if on (the call is monitored with
 * memory), else heap_epoch 0 and zeros, as when accounting is off.
 */
#define CAUSAL_HEAP_FILL_IF(r, on)                                             \
	do {                                                                   \
		uint32_t epoch_ = (on) ? causal_heap_epoch() : 0;              \
		const struct causal_heap_tls *h_ = &causal_self.heap;          \
                                                                               \
		(r)->heap_epoch = epoch_;                                      \
		(r)->alloc_bytes = epoch_ ? h_->alloc_bytes : 0;               \
		(r)->freed_bytes = epoch_ ? h_->freed_bytes : 0;               \
		(r)->allocs = epoch_ ? h_->allocs : 0;                         \
		(r)->frees = epoch_ ? h_->frees : 0;                           \
	} while (0)

/* This thread's live change goes into the process total (thread end). */
void causal_heap_publish(void);
/* The highest process total seen (PROCESS_END). */
uint64_t causal_heap_process_peak(void);

/* The tracer's own allocations: never counted, whatever the guard. */
void *causal_own_calloc(size_t n, size_t size);
void causal_own_free(void *p);

#endif
