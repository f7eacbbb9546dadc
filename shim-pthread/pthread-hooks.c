/*
 * pthread-hooks.c - thread parent/child tracing (Section 2.3.4.2 of the
 * monitoring paper).
 *
 * pthread_create hands the new thread a trampoline carrying its start
 * routine, its process-wide id, its parent's id and the causality context
 * active in the parent.  The carrier is the child's own record buffer, taken
 * from the pool by the parent, so creating a thread allocates nothing from
 * the program's heap; when no memory is left for its ring, the carrier
 * has none and the thread runs untraced (thread-buffers.c).  The parent records
 * THREAD_SPAWN, the child THREAD_START and THREAD_END; the trampoline's cleanup
 * handler sees pthread_exit() and cancellation, which never return through it
 * (a pthread_key destructor does for the threads the library did not start).
 */
#include <errno.h>

#include "probe.h"
#include "real.h"

static void *trampoline(void *arg)
{
	struct causal_tbuf *tb = arg;
	void *(*fn)(void *) = tb->start_fn;
	void *fn_arg = tb->start_arg;
	void *ret;

	if (!tb->ring.data) {
		/* no memory for its ring: fn and arg are read, tb goes back */
		causal_thread_untraced(tb);
		return fn(fn_arg);
	}
	causal_thread_begin(tb, 0);
	/* the outermost cleanup handler, after the program's own */
	pthread_cleanup_push(causal_thread_unwound, tb);
	ret = fn(fn_arg);
	pthread_cleanup_pop(0);
	causal_thread_end(CAUSAL_THREAD_RETURNED);
	return ret;
}

CAUSAL_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
				 void *(*start)(void *), void *arg)
{
	struct causal_tbuf *child;
	int saved_errno = errno;
	int ret;

	causal_real_resolve();
	if (!causal_real.pthread_create)
		return ENOSYS;
	causal_ensure_init();
	if (causal_self.in_hook || !causal_running())
		return causal_real.pthread_create(thread, attr, start, arg);

	causal_self.in_hook = 1;
	child = causal_thread_spawn(start, arg);
	if (!child) {
		/* untraced parent (infrastructure, ended) or no memory: the
		 * child registers itself lazily if it is to be traced */
		causal_self.in_hook = 0;
		errno = saved_errno;
		return causal_real.pthread_create(thread, attr, start, arg);
	}
	ret = causal_real.pthread_create(thread, attr, trampoline, child);
	/* under a memory limit our ring may be what the stack lacked: the
	 * program's call must succeed as it would have, the child untraced */
	if (ret == EAGAIN && causal_thread_shed(child))
		ret = causal_real.pthread_create(thread, attr, trampoline,
						 child);
	causal_thread_spawned(child, ret);
	causal_self.in_hook = 0;
	errno = saved_errno;
	return ret;
}

CAUSAL_EXPORT void pthread_exit(void *retval)
{
	causal_real_resolve();
	/* the end tells pthread_exit from cancellation by this */
	causal_self.exiting = 1;
	causal_real.pthread_exit(retval);
}
