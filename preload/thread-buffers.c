/*
 * thread-buffers.c - one record ring per thread, from a pool.
 *
 * Buffers are mmap()ed (never the program's malloc: it must see the same
 * heap as untraced) and go back to the pool once the writer has drained
 * a thread's last records, so a program that creates thousands of short
 * threads reuses a handful of buffers.  A buffer is two pieces: its
 * header (struct causal_tbuf, carved from slabs that are never unmapped,
 * since the writer walks the registry without a lock) and its ring,
 * mapped apart, so that the ring's memory can go back to the system when
 * the program needs it: under a memory limit (RLIMIT_AS) a thread whose
 * ring cannot be had, or whose ring would make pthread_create() fail,
 * runs untraced, and is counted (docs/tracing.md, "What the library
 * keeps per thread").
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"
#include "read-file.h"
#include "sampler.h"

static _Atomic(struct causal_tbuf *) registry;	/* every buffer ever made */
static struct causal_tbuf *free_list;		/* under pool_lock */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t dropped_elsewhere;
static _Atomic uint32_t dead_pending;		/* ended, not yet drained */
static size_t ring_bytes;
/*
 * Under a finite RLIMIT_AS the rings together take at most a quarter of
 * the address space the limit leaves once the library has started: the
 * program keeps the rest (docs/tracing.md).  ring_limited 0: no limit.
 */
static int ring_limited;
static uint64_t ring_budget;
static _Atomic uint64_t ring_mapped;
#define CAUSAL_RING_SHARE 4
/* the slab headers are carved from, under pool_lock */
static uint8_t *slab_next, *slab_end;

/* Wake the writer after this many thread ends, so short threads' buffers
 * come back to the pool without waiting for the flush period. */
#define CAUSAL_DEAD_WAKE 64
/* headers per slab: 4 KiB pages of them */
#define CAUSAL_SLAB_BYTES (16u << 10)

static size_t header_bytes(void)
{
	return (sizeof(struct causal_tbuf) + 63) & ~(size_t)63;
}

void causal_tbufs_init(void)
{
	struct rlimit rl;
	uint64_t used = 0;
	char statm[128];

	ring_bytes = (size_t)causal_g.cfg.buffer_kb * 1024;
	ring_limited =
		!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY;
	if (!ring_limited)
		return;
	/* the first number of statm: the address space in use, in pages */
	if (causal_file_read("/proc/self/statm", statm, sizeof(statm), 0) > 0)
		used = strtoull(statm, NULL, 10) * (uint64_t)getpagesize();
	ring_budget = rl.rlim_cur > used
			      ? (rl.rlim_cur - used) / CAUSAL_RING_SHARE
			      : 0;
}

struct causal_tbuf *causal_tbufs_first(void)
{
	return atomic_load_explicit(&registry, memory_order_acquire);
}

uint64_t causal_tbufs_dropped_elsewhere(void)
{
	return atomic_load_explicit(&dropped_elsewhere, memory_order_relaxed);
}

void causal_tbufs_count_lost(uint64_t n)
{
	atomic_fetch_add_explicit(&dropped_elsewhere, n, memory_order_relaxed);
}

void causal_tbufs_lock(void)
{
	causal_mutex_lock(&pool_lock);
}

void causal_tbufs_unlock(void)
{
	causal_mutex_unlock(&pool_lock);
}

static void tbuf_reset(struct causal_tbuf *tb)
{
	causal_ring_reset(&tb->ring);
	atomic_store_explicit(&tb->dropped, 0, memory_order_relaxed);
	tb->dropped_reported = 0;
	tb->end_written = 0;
	tb->tid = 0;
	tb->os_tid = 0;
	atomic_store_explicit(&tb->heap, NULL, memory_order_relaxed);
}

/* Map tb's ring; without one (no memory) its ring is empty, of
 * capacity 0, and takes no record. */
static int ring_map(struct causal_tbuf *tb)
{
	uint64_t was = atomic_fetch_add(&ring_mapped, ring_bytes);
	void *p = MAP_FAILED;

	if (!ring_limited || was + ring_bytes <= ring_budget)
		p = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		atomic_fetch_sub(&ring_mapped, ring_bytes);
		causal_ring_init(&tb->ring, NULL, 0);
		return -ENOMEM;
	}
	causal_ring_init(&tb->ring, p, ring_bytes);
	return 0;
}

/* Give tb's ring back to the system (tb is FREE, or LIVE and unused). */
static void ring_unmap(struct causal_tbuf *tb)
{
	if (tb->ring.data) {
		munmap(tb->ring.data, ring_bytes);
		atomic_fetch_sub(&ring_mapped, ring_bytes);
	}
	causal_ring_init(&tb->ring, NULL, 0);
}

/* A new header, linked into the registry, under pool_lock; NULL when no
 * slab can be mapped. */
static struct causal_tbuf *header_new(void)
{
	struct causal_tbuf *tb, *head;

	if (!slab_next || (size_t)(slab_end - slab_next) < header_bytes()) {
		void *p = mmap(NULL, CAUSAL_SLAB_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		slab_next = p;
		slab_end = slab_next + CAUSAL_SLAB_BYTES;
	}
	tb = (void *)slab_next;
	slab_next += header_bytes();
	causal_ring_init(&tb->ring, NULL, 0);
	atomic_init(&tb->state, CAUSAL_TBUF_LIVE);
	atomic_init(&tb->dropped, 0);
	/* lock-free push: the writer walks the registry without the lock */
	head = atomic_load_explicit(&registry, memory_order_relaxed);
	do
		tb->next_all = head;
	while (!atomic_compare_exchange_weak_explicit(
		&registry, &head, tb, memory_order_release,
		memory_order_relaxed));
	return tb;
}

struct causal_tbuf *causal_tbuf_take(void)
{
	struct causal_tbuf *tb;

	causal_mutex_lock(&pool_lock);
	tb = free_list;
	if (tb)
		free_list = tb->next_free;
	else
		tb = header_new();
	causal_mutex_unlock(&pool_lock);
	if (!tb)
		return NULL;
	tbuf_reset(tb);
	atomic_store_explicit(&tb->state, CAUSAL_TBUF_LIVE,
			      memory_order_release);
	if (!tb->ring.data)
		ring_map(tb);
	return tb;
}

struct causal_tbuf *causal_tbuf_acquire(void)
{
	struct causal_tbuf *tb = causal_tbuf_take();

	if (tb && !tb->ring.data) {
		causal_tbuf_release(tb);
		return NULL;
	}
	return tb;
}

void causal_tbuf_release(struct causal_tbuf *tb)
{
	tbuf_reset(tb);
	causal_mutex_lock(&pool_lock);
	atomic_store_explicit(&tb->state, CAUSAL_TBUF_FREE,
			      memory_order_relaxed);
	tb->next_free = free_list;
	free_list = tb;
	causal_mutex_unlock(&pool_lock);
}

int causal_tbuf_shed(struct causal_tbuf *tb)
{
	struct causal_tbuf *f;
	int shed = !!tb->ring.data;

	/* nothing was written in it: the thread never ran */
	ring_unmap(tb);
	causal_mutex_lock(&pool_lock);
	for (f = free_list; f; f = f->next_free) {
		shed |= !!f->ring.data;
		ring_unmap(f);
	}
	causal_mutex_unlock(&pool_lock);
	return shed;
}

void causal_tbuf_recycle(struct causal_tbuf *tb)
{
	/* whatever the drained buffer lost still counts for the process */
	causal_tbufs_count_lost(atomic_load_explicit(&tb->dropped,
						     memory_order_relaxed));
	atomic_fetch_sub_explicit(&dead_pending, 1, memory_order_relaxed);
	causal_tbuf_release(tb);
}

void causal_tbufs_after_fork(struct causal_tbuf *keep)
{
	struct causal_tbuf *tb;

	pthread_mutex_init(&pool_lock, NULL);
	free_list = NULL;
	atomic_store(&dropped_elsewhere, 0);
	atomic_store(&dead_pending, 0);
	for (tb = causal_tbufs_first(); tb; tb = tb->next_all) {
		/* the parent's unflushed records are the parent's */
		if (tb == keep) {
			tbuf_reset(tb);
			continue;
		}
		tbuf_reset(tb);
		atomic_store(&tb->state, CAUSAL_TBUF_FREE);
		tb->next_free = free_list;
		free_list = tb;
	}
}

void causal_record_simple(struct causal_tbuf *tb, uint16_t type, uint32_t aux)
{
	uint64_t pending;
	struct causal_rec *r = causal_record_begin(tb, type, sizeof(*r),
						   &pending);

	if (!r)
		return;
	r->aux = aux;
	causal_record_commit(tb, pending);
}

/*
 * The kernel's id of the calling thread without a system call where glibc
 * already knows it: glibc keeps it in its thread descriptor (struct
 * pthread, which pthread_self() points at; the kernel writes it there at
 * clone, CLONE_CHILD_SETTID, and fork sets it again), at an offset that
 * is not part of its API.  So the offset is trusted only once checked
 * against gettid(): by the main thread at start-up (causal_tid_init) and
 * again by the first thread started after (a layout that matched the
 * main thread by chance fails there), else every thread asks gettid().
 */
#define CAUSAL_GLIBC_TID_OFFSET 720 /* x86_64, glibc 2.26 to 2.41 at least */

static _Atomic int tid_offset_state; /* 0 unchecked, 1 main ok, 2 ok, -1 no */

static pid_t glibc_tid(void)
{
	const char *self = (const char *)pthread_self();
	pid_t tid;

	memcpy(&tid, self + CAUSAL_GLIBC_TID_OFFSET, sizeof(tid));
	return tid;
}

void causal_tid_init(void)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	atomic_store(&tid_offset_state, glibc_tid() == gettid() ? 1 : -1);
#else
	atomic_store(&tid_offset_state, -1);
#endif
}

pid_t causal_os_tid(void)
{
	int state =
		atomic_load_explicit(&tid_offset_state, memory_order_relaxed);
	pid_t tid;

	if (state == 2)
		return glibc_tid();
	tid = gettid();
	if (state == 1)
		atomic_store_explicit(&tid_offset_state,
				      glibc_tid() == tid ? 2 : -1,
				      memory_order_relaxed);
	return tid;
}

/* The calling thread's CPU clock at CLOCK_MONOTONIC now: the bpf clock's
 * when it has the thread (a new thread's slot holds its first switch-in),
 * else the system call. */
static uint64_t thread_cpu_at(uint64_t now)
{
	uint64_t cpu;

	return causal_cpu_now(now, &cpu) ? cpu : causal_thread_cpu_ns();
}

/*
 * The thread's CPU clock is read here, also for a thread the library saw
 * start: taking 0 (the kernel's clock at clone) charged the thread with
 * glibc's start_thread and its first page faults, milliseconds on a
 * loaded VM, and Equation 2's threads then disagreed with what the
 * programs measured (docs/tracing.md, "Thread start and end").
 */
static void record_thread_start(struct causal_tbuf *tb)
{
	uint64_t pending, now = causal_now_ns();
	struct rec_thread_start *r;
	const struct causal_ctx *ctx = &tb->start_ctx;

	/* cpu: the process's, or the call it was spawned in (monitor.h) */
	causal_self.cpu_at_start =
		!!((causal_mon_types() | ctx->mon) & CAUSAL_MON_CPU);
	tb->cpu_at_start = causal_self.cpu_at_start;
	r = (void *)causal_record_begin_at(tb, CAUSAL_REC_THREAD_START,
					   sizeof(*r), &pending, now);
	if (!r)
		return;
	r->hdr.aux = tb->parent_tid;
	r->os_tid = (uint32_t)tb->os_tid;
	r->marker = ctx->marker;
	r->cpu_ns = causal_self.cpu_at_start ? thread_cpu_at(now) : 0;
	r->mon_off = causal_self.cpu_at_start ? 0 : CAUSAL_MON_CPU;
	r->ctx.set = causal_ctx_active(ctx);
	memcpy(r->ctx.chain, ctx->chain, sizeof(r->ctx.chain));
	r->ctx.event = ctx->event_no;
	r->ctx.function = ctx->function_id;
	CAUSAL_HEAP_FILL(r);
	causal_record_commit(tb, pending);
}

void causal_thread_begin(struct causal_tbuf *tb, int end_by_key)
{
	tb->os_tid = causal_os_tid();
	causal_ctx_inherit(&causal_self.ctx, &tb->start_ctx);
	causal_self.tbuf = tb;
	causal_self.status = CAUSAL_THREAD_LIVE;
	causal_self.exiting = 0;
	atomic_store_explicit(&tb->heap, &causal_self.heap,
			      memory_order_release);
	record_thread_start(tb);
	causal_self.end_by_key = (uint8_t) !!end_by_key;
	if (end_by_key)
		pthread_setspecific(causal_g.end_key, tb);
	causal_sampler_thread_begin(); /* with a policy: its CPU timer */
}

struct causal_tbuf *causal_thread_current(void)
{
	struct causal_tbuf *tb = causal_self.tbuf;

	if (tb)
		return tb;
	if (causal_self.status != CAUSAL_THREAD_UNKNOWN || !causal_running())
		return NULL;
	/* a thread we did not see start: the main thread, or one created
	 * before the library was ready; its parent is unknown */
	tb = causal_tbuf_acquire();
	if (!tb) {
		causal_self.status = CAUSAL_THREAD_ENDED;
		causal_tbufs_count_lost(1);
		return NULL;
	}
	tb->tid = atomic_fetch_add(&causal_g.next_tid, 1);
	tb->parent_tid = 0;
	memset(&tb->start_ctx, 0, sizeof(tb->start_ctx));
	tb->start_ctx.marker = causal_self.ctx.marker;
	causal_thread_begin(tb, 1);
	return tb;
}

struct causal_tbuf *causal_thread_spawn(void *(*fn)(void *), void *arg)
{
	struct causal_tbuf *parent = causal_thread_current(), *child;

	/* without a ring (no memory), the header still carries fn and arg:
	 * the child runs untraced (causal_thread_untraced) */
	child = parent ? causal_tbuf_take() : NULL;
	if (!child)
		return NULL;
	child->tid = atomic_fetch_add(&causal_g.next_tid, 1);
	child->parent_tid = parent->tid;
	child->start_ctx = causal_self.ctx;
	child->start_fn = fn;
	child->start_arg = arg;
	return child;
}

int causal_thread_shed(struct causal_tbuf *child)
{
	return causal_tbuf_shed(child);
}

void causal_thread_spawned(struct causal_tbuf *child, int ret)
{
	if (ret)
		causal_tbuf_release(child);
	else if (child->ring.data)
		causal_record_simple(causal_self.tbuf, CAUSAL_REC_THREAD_SPAWN,
				     child->tid);
}

void causal_thread_untraced(struct causal_tbuf *tb)
{
	static _Atomic int said;

	/* never registered lazily either: its memory is the program's */
	causal_self.status = CAUSAL_THREAD_ENDED;
	causal_tbuf_release(tb);
	/* its start and its end, at least, are not in the log */
	causal_tbufs_count_lost(2);
	if (!atomic_exchange(&said, 1))
		causal_say("causal: no memory for a thread's record buffer: "
			   "the thread runs untraced (counted as dropped "
			   "records)",
			   NULL);
}

void causal_thread_end(uint32_t how)
{
	struct causal_tbuf *tb = causal_self.tbuf;
	struct rec_thread_end *r;
	uint64_t pending, now;

	if (!tb)
		return;
	causal_sampler_thread_end();
	now = causal_now_ns();
	r = (void *)causal_record_begin_at(tb, CAUSAL_REC_THREAD_END,
					   sizeof(*r), &pending, now);
	causal_heap_publish(); /* its live change into the process total */
	if (r) {
		r->hdr.aux = how;
		/* CPU measured at the start is measured to the end */
		r->cpu_ns = causal_self.cpu_at_start ? thread_cpu_at(now) : 0;
		r->mon_off = causal_self.cpu_at_start ? 0 : CAUSAL_MON_CPU;
		CAUSAL_HEAP_FILL(r);
		r->heap_peak = r->heap_epoch ? causal_self.heap.peak : 0;
		causal_ring_commit(&tb->ring, pending);
	}
	atomic_store_explicit(&tb->heap, NULL, memory_order_relaxed);
	if (causal_self.end_by_key)
		pthread_setspecific(causal_g.end_key, NULL);
	causal_self.tbuf = NULL;
	causal_self.status = CAUSAL_THREAD_ENDED;
	/* release: the writer sees DEAD only after the last record */
	atomic_store_explicit(&tb->state, CAUSAL_TBUF_DEAD,
			      memory_order_release);
	if (atomic_fetch_add_explicit(&dead_pending, 1, memory_order_relaxed) +
		    1 >= CAUSAL_DEAD_WAKE)
		causal_writer_wake();
}

void causal_thread_unwound(void *tb)
{
	if (tb && causal_self.tbuf == tb)
		causal_thread_end(causal_self.exiting
					  ? CAUSAL_THREAD_EXITED
					  : CAUSAL_THREAD_CANCELLED);
}
