/*
 * heap.c - the allocation wrappers and the per-thread heap counters
 * (heap.h says what is counted and how it is attributed).
 *
 * The hot path: the allocator through a pointer found once with
 * dlsym(RTLD_NEXT), then, when accounting is on and the thread is not in
 * a hook, malloc_usable_size() of the block and a few additions to the
 * thread's initial-exec TLS (global-dynamic TLS may itself call malloc).
 * No lock, no record, no atomic operation but a relaxed load, except
 * once per CAUSAL_HEAP_PUBLISH bytes of live change.  errno is the
 * allocator's: nothing here sets it.
 *
 * The early-start problem: dlsym() may call calloc() (glibc allocates its
 * dlerror state), which is our calloc, before the real one is known.
 * Calls made while this thread resolves are served from a static
 * bootstrap area, as lttng-ust's libc wrapper does; such a block is never
 * counted, freeing it does nothing, and realloc() copies it into a real
 * block.  The table is resolved on the first call of any wrapper, whether
 * or not the rest of the library has started: programs allocate before
 * main and in constructors, ours included.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heap-boot.h"
#include "heap.h"
#include "internal.h"

_Atomic uint32_t causal_heap_state = 1;
static _Atomic uint32_t last_epoch = 1;
static _Atomic int64_t process_live;
static _Atomic int64_t process_peak;

/*
 * The real functions.  Until they are known each entry is its first_*
 * function, which resolves the table and then calls the real one, so the
 * hot path tests nothing before its jump.
 */
static void *first_malloc(size_t n);
static void first_free(void *p);
static void *first_calloc(size_t n, size_t size);
static void *first_realloc(void *p, size_t n);
static int first_posix_memalign(void **out, size_t align, size_t n);

static struct {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*usable)(void *);
} real = {
	.malloc = first_malloc,
	.calloc = first_calloc,
	.realloc = first_realloc,
	.free = first_free,
	.posix_memalign = first_posix_memalign,
};
static _Atomic int resolved;

/* the thread is looking the real allocator up (dlsym may call us) */
static CAUSAL_TLS int resolving;

/*
 * Usable sizes without a call: glibc's chunk header (the size, with the
 * flags in its low three bits, just before the block; mmapped chunks
 * have a header of 16 bytes) gives what malloc_usable_size() computes.
 * Used only when the real allocator is glibc's own on x86-64 (no memory
 * tagging) and the check at resolution agrees with malloc_usable_size()
 * on blocks of every kind; else the call.
 */
static int inline_usable;

static inline size_t glibc_usable(const void *p)
{
	size_t hdr;

	memcpy(&hdr, (const unsigned char *)p - sizeof(size_t), sizeof(hdr));
	/* IS_MMAPPED (2): 16 bytes of header, else 8 */
	return (hdr & ~(size_t)7) - 8 - ((hdr & 2) << 2);
}

static inline size_t usable(void *p)
{
	return inline_usable ? glibc_usable(p) : real.usable(p);
}

extern void *__libc_malloc(size_t n);
extern void __libc_free(void *p);

static void check_inline_usable(void)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	static const size_t sizes[] = { 0,    1,    24,	    25,	    100,
					1000, 4096, 200000, 1 << 20 };
	void *p;
	int ok = real.malloc == __libc_malloc && real.free == __libc_free;

	for (size_t i = 0; ok && i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (!(p = real.malloc(sizes[i])))
			return;
		ok = glibc_usable(p) == real.usable(p);
		real.free(p);
	}
	inline_usable = ok;
#endif
}

#define RESOLVE(name) (__typeof__(real.name))dlsym(RTLD_NEXT, #name)

/*
 * Find the real allocator; 0 when it is known, -1 when the caller must
 * use the bootstrap area (this thread is resolving: dlsym called us, or
 * there is no allocator to find).  Two threads may resolve at once: they
 * find the same pointers.
 */
static int resolve(void)
{
	int saved_errno = errno;
	void *(*m)(size_t);
	void (*f)(void *);
	size_t (*u)(void *);

	if (atomic_load_explicit(&resolved, memory_order_acquire))
		return 0;
	if (resolving)
		return -1;
	resolving = 1;
	m = RESOLVE(malloc);
	f = RESOLVE(free);
	u = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
	if (!m || !f || !u) {
		resolving = 0;
		errno = saved_errno;
		return -1;
	}
	real.usable = u;
	real.calloc = RESOLVE(calloc);
	real.realloc = RESOLVE(realloc);
	real.posix_memalign = RESOLVE(posix_memalign);
	real.aligned_alloc = RESOLVE(aligned_alloc);
	real.memalign = RESOLVE(memalign);
	real.valloc = RESOLVE(valloc);
	real.pvalloc = RESOLVE(pvalloc);
	real.malloc = m;
	real.free = f;
	check_inline_usable();
	atomic_store_explicit(&resolved, 1, memory_order_release);
	resolving = 0;
	errno = saved_errno;
	return 0;
}

/* ---- counting ---------------------------------------------------------- */

void causal_heap_set_enabled(int on)
{
	uint32_t cur = atomic_load(&causal_heap_state);

	if (!on) {
		atomic_store(&causal_heap_state, 0);
		return;
	}
	/* off -> on starts a new period: intervals across it are not whole */
	while (!cur && !atomic_compare_exchange_weak(
			       &causal_heap_state, &cur,
			       atomic_fetch_add(&last_epoch, 1) + 1))
		;
}

static inline int64_t live_of(const struct causal_heap_tls *h)
{
	return (int64_t)(h->alloc_bytes - h->freed_bytes);
}

void causal_heap_publish(void)
{
	struct causal_heap_tls *h = &causal_self.heap;
	int64_t live = live_of(h), delta = live - h->published, total, peak;

	if (!delta)
		return;
	total = atomic_fetch_add_explicit(&process_live, delta,
					  memory_order_relaxed) +
		delta;
	h->published = live;
	peak = atomic_load_explicit(&process_peak, memory_order_relaxed);
	while (total > peak &&
	       !atomic_compare_exchange_weak_explicit(
		       &process_peak, &peak, total, memory_order_relaxed,
		       memory_order_relaxed))
		;
}

/*
 * A fork child is a process of its own: its heap starts as the parent's
 * at the fork, its peak there (not the parent's earlier highs).  The
 * other threads' changes not yet in the total are a copy's, never
 * counted again: the child's total is short of them, as a thread's
 * unpublished bytes always are.
 */
static void heap_atfork_child(void)
{
	causal_heap_publish();
	atomic_store(&process_peak, atomic_load(&process_live));
}

uint64_t causal_heap_process_peak(void)
{
	causal_heap_publish();
	return (uint64_t)atomic_load(&process_peak);
}

static inline int counting(void)
{
	return __builtin_expect(causal_heap_epoch() != 0, 1);
}

/* A block of n usable bytes was allocated by this thread. */
static inline void count_alloc_n(size_t n)
{
	struct causal_heap_tls *h = &causal_self.heap;
	int64_t live;

	h->alloc_bytes += n;
	h->allocs++;
	live = live_of(h);
	if (live > h->peak)
		h->peak = live;
	if (__builtin_expect(live - h->published >= CAUSAL_HEAP_PUBLISH, 0))
		causal_heap_publish();
}

static inline void count_alloc(void *p)
{
	if (p && !causal_self.in_hook)
		count_alloc_n(usable(p));
}

static inline void count_free_n(size_t n)
{
	struct causal_heap_tls *h = &causal_self.heap;

	h->freed_bytes += n;
	h->frees++;
	if (__builtin_expect(h->published - live_of(h) >= CAUSAL_HEAP_PUBLISH,
			     0))
		causal_heap_publish();
}

/* ---- the first calls: resolve, or serve from the bootstrap area ---------- */

static void *first_malloc(size_t n)
{
	return resolve() ? causal_boot_alloc(n, 16) : malloc(n);
}

static void first_free(void *p)
{
	if (!resolve())
		free(p);
	/* else a block from nowhere we know: leak it, never crash */
}

static void *first_calloc(size_t n, size_t size)
{
	if (!resolve())
		return calloc(n, size);
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return causal_boot_alloc(n * size, 16); /* static storage: zero */
}

static void *first_realloc(void *p, size_t n)
{
	void *q;

	if (!resolve())
		return realloc(p, n);
	q = causal_boot_alloc(n, 16);
	if (q && p && causal_boot_owns(p))
		memcpy(q, p, causal_boot_size(p) < n ? causal_boot_size(p) : n);
	return q;
}

static int first_posix_memalign(void **out, size_t align, size_t n)
{
	if (!resolve())
		return posix_memalign(out, align, n);
	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	*out = causal_boot_alloc(n, align);
	return *out ? 0 : ENOMEM;
}

/* ---- the wrappers ------------------------------------------------------- */

/*
 * Accounting off, each wrapper is a test and a jump to the real function;
 * on, the work is in a function of its own (so the off path needs no
 * stack frame).
 */
/* Before resolution, the real entry is first_malloc(), which resolves
 * and calls malloc() again (or serves a bootstrap block, never counted). */
static __attribute__((noinline)) void *malloc_counted(size_t n)
{
	void *p;

	if (!atomic_load_explicit(&resolved, memory_order_relaxed))
		return real.malloc(n);
	p = real.malloc(n);
	count_alloc(p);
	return p;
}

CAUSAL_EXPORT void *malloc(size_t n)
{
	if (!counting())
		return real.malloc(n);
	return malloc_counted(n);
}

static __attribute__((noinline)) void free_counted(void *p)
{
	if (!atomic_load_explicit(&resolved, memory_order_relaxed)) {
		real.free(p); /* first_free */
		return;
	}
	if (p && !causal_self.in_hook)
		count_free_n(usable(p));
	real.free(p);
}

CAUSAL_EXPORT void free(void *p)
{
	/* free(NULL) does nothing; glibc makes some 20 such calls as each
	 * thread exits, through the PLT (its per-thread state) */
	if (!p)
		return;
	if (__builtin_expect(causal_boot_owns(p), 0))
		return; /* never the real free's */
	if (!counting())
		return real.free(p);
	free_counted(p);
}

static __attribute__((noinline)) void *calloc_counted(size_t n, size_t size)
{
	void *p;

	if (!atomic_load_explicit(&resolved, memory_order_relaxed))
		return real.calloc(n, size);
	p = real.calloc(n, size);
	count_alloc(p);
	return p;
}

CAUSAL_EXPORT void *calloc(size_t n, size_t size)
{
	if (!counting())
		return real.calloc(n, size);
	return calloc_counted(n, size);
}

CAUSAL_EXPORT void *realloc(void *p, size_t n)
{
	size_t old = 0;
	void *q;

	if (__builtin_expect(causal_boot_owns(p), 0)) {
		/* a bootstrap block moves to the real heap (never freed) */
		q = malloc(n);
		if (q)
			memcpy(q, p,
			       causal_boot_size(p) < n ? causal_boot_size(p)
						       : n);
		return q;
	}
	if (!counting() || causal_self.in_hook ||
	    !atomic_load_explicit(&resolved, memory_order_relaxed))
		return real.realloc(p, n);
	if (p)
		old = usable(p);
	q = real.realloc(p, n);
	if (q) {
		if (p)
			count_free_n(old);
		count_alloc(q);
	} else if (p && !n) {
		count_free_n(old); /* glibc: realloc(p, 0) frees p */
	}
	return q;
}

CAUSAL_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, n * size);
}

CAUSAL_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int ret = real.posix_memalign(out, align, n);

	if (!ret && counting() &&
	    atomic_load_explicit(&resolved, memory_order_relaxed))
		count_alloc(*out);
	return ret;
}

/* The other aligned allocators: one shape, one body. */
#define ALIGNED_WRAPPER(name, params, args, boot_align)                        \
	CAUSAL_EXPORT void *name params                                        \
	{                                                                      \
		void *p;                                                       \
                                                                               \
		if (resolve())                                                 \
			return causal_boot_alloc(n, boot_align);               \
		if (!real.name) {                                              \
			errno = ENOSYS;                                        \
			return NULL;                                           \
		}                                                              \
		p = real.name args;                                            \
		if (counting())                                                \
			count_alloc(p);                                        \
		return p;                                                      \
	}

ALIGNED_WRAPPER(aligned_alloc, (size_t align, size_t n), (align, n), align)
ALIGNED_WRAPPER(memalign, (size_t align, size_t n), (align, n), align)
ALIGNED_WRAPPER(valloc, (size_t n), (n), 4096)
ALIGNED_WRAPPER(pvalloc, (size_t n), (n), 4096)

/* ---- the tracer's own ---------------------------------------------------- */

void *causal_own_calloc(size_t n, size_t size)
{
	return resolve() ? NULL : real.calloc(n, size);
}

void causal_own_free(void *p)
{
	if (p && !causal_boot_owns(p) && !resolve())
		real.free(p);
}

/*
 * CAUSAL_MONITOR without memory (`cpu,latency,semantics`, `none`) starts
 * the process with memory accounting off, from its first allocation: read
 * here by a constructor of its own, before the library's start-up, so
 * that the allocations of the program's constructors follow it (a bad
 * value is the library's to report: its default, all, keeps accounting
 * on).  It also registers the fork handler.  The run-time switch (the
 * coordinator) goes through causal_heap_set_enabled() as well.
 * CAUSAL_MEMORY, the second knob this once had, is no longer read: said
 * once, so that a process that set it does not count memory unawares.
 */
__attribute__((constructor(101))) static void heap_env(void)
{
	const char *v = getenv("CAUSAL_MONITOR");
	uint32_t types;

	pthread_atfork(NULL, NULL, heap_atfork_child);
	if (v && !causal_parse_monitor(v, &types) &&
	    !(types & CAUSAL_MON_MEMORY))
		causal_heap_set_enabled(0);
	v = getenv("CAUSAL_MEMORY");
	if (v)
		causal_say("causal: CAUSAL_MEMORY is no longer read, not '", v,
			   "'; CAUSAL_MONITOR says whether memory is on", NULL);
}
