/*
 * lttng-threads.so - a peer for bench-peers: LTTng-UST recording two
 * events a thread, where causal records a thread's start and end.
 * Preloaded into create-join, it replaces pthread_create with one that
 * starts the thread in a trampoline (its start routine and argument in a
 * malloc'd block, as a wrapper without a pool of its own must): an event
 * with the thread's id and its creator's before the routine runs, one
 * after it returns.  No more: no kernel tid, no CPU clock, no context
 * inherited from the creator, no heap counters, no compression (its
 * consumer daemon writes the buffers, on whatever CPU it gets).
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng-threads-tp.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct thread_start {
	void *(*routine)(void *);
	void *arg;
	uint64_t parent_tid;
};

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *),
		      void *);

static _Atomic uint64_t next_tid = 1;
static __thread uint64_t self_tid; /* 0: a thread started before us */

static void *trampoline(void *arg)
{
	struct thread_start start = *(struct thread_start *)arg;
	void *ret;

	free(arg);
	self_tid = atomic_fetch_add(&next_tid, 1);
	lttng_ust_tracepoint(causal_peer_thread, start, self_tid,
			     start.parent_tid);
	ret = start.routine(start.arg);
	lttng_ust_tracepoint(causal_peer_thread, end, self_tid);
	return ret;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
		   void *(*routine)(void *), void *arg)
{
	static create_fn *real;
	struct thread_start *start;
	int ret;

	if (!real)
		real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
	start = malloc(sizeof(*start));
	if (!start)
		return real(thread, attr, routine, arg);
	start->routine = routine;
	start->arg = arg;
	start->parent_tid = self_tid;
	ret = real(thread, attr, trampoline, start);
	if (ret)
		free(start);
	return ret;
}
