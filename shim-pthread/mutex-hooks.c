/*
 * mutex-hooks.c - the LOCK records (records.def): when a thread starts
 * waiting for a mutex or a rwlock, acquires it and releases it, with the
 * lock's address, as LTTng-UST's pthread wrapper records them.
 *
 * Monitoring type `locks` (docs/tracing.md, "Locks"): off unless named, because
 * a program may take a lock millions of times a second.  Off, a wrapper is one
 * relaxed load, a branch and a jump to glibc's own function (called by the
 * __pthread_* name libc exports for old binaries, bound at link time: no
 * lookup, even before the library started); what records is a function of its
 * own, so that the path with the type off saves no registers.  On, an
 * uncontended lock is a trylock that succeeds (one ACQUIRED record); a busy one
 * WAIT, then glibc's blocking call, then ACQUIRED or FAILED.  The library's own
 * locks never come here (real.h: causal_mutex_lock), nor a lock taken inside a
 * hook.  Not recorded: rwlock trylocks and timed rwlocks, condition variables
 * (the mutex a wait releases and takes back inside glibc).
 */
#include <errno.h>

#include "monitor.h"
#include "probe.h"
#include "real.h"

static inline int locks_on(void)
{
	return __builtin_expect((causal_mon_types() & CAUSAL_MON_LOCKS) != 0,
				0);
}

/*
 * The calling thread's buffer, with the hook guard set; NULL (nothing to
 * record) inside a hook, in a thread not traced, or before the library
 * runs.
 */
static struct causal_tbuf *enter(void)
{
	struct causal_tbuf *tb;

	if (causal_self.in_hook || !causal_running())
		return NULL;
	causal_self.in_hook = 1;
	tb = causal_thread_current();
	if (!tb)
		causal_self.in_hook = 0;
	return tb;
}

static void leave(void)
{
	causal_self.in_hook = 0;
}

static void record_at(struct causal_tbuf *tb, unsigned op, const void *lock,
		      unsigned kind, uint64_t at)
{
	uint64_t pending;
	struct rec_lock *r = (void *)causal_record_begin_at(
		tb, CAUSAL_REC_LOCK, sizeof(struct rec_lock), &pending, at);

	if (!r)
		return;
	r->hdr.aux = op;
	r->lock = (uint64_t)(uintptr_t)lock;
	r->kind = (uint8_t)kind;
	causal_record_commit(tb, pending);
}

static void record(struct causal_tbuf *tb, unsigned op, const void *lock,
		   unsigned kind)
{
	record_at(tb, op, lock, kind, causal_now_ns());
}

/* 0, or EOWNERDEAD (a robust mutex: held, its owner died): acquired. */
static inline int acquired(int err)
{
	return err == 0 || err == EOWNERDEAD;
}

/*
 * Take a lock with try, then, if it was busy, with block: the records
 * around them.  try_busy is the status try gives for a busy lock.
 */
#define TAKE(tb, lock, kind, try, block)                                       \
	({                                                                     \
		int err_ = (try);                                              \
		if (err_ == EBUSY) {                                           \
			record((tb), CAUSAL_LOCK_WAIT, (lock), (kind));        \
			err_ = (block);                                        \
		}                                                              \
		record((tb),                                                   \
		       acquired(err_) ? CAUSAL_LOCK_ACQUIRED                   \
				      : CAUSAL_LOCK_FAILED,                    \
		       (lock), (kind));                                        \
		err_;                                                          \
	})

/* pthread_mutex_lock with its records: only with the type `locks` on */
static __attribute__((noinline)) int mutex_lock_recorded(pthread_mutex_t *m)
{
	struct causal_tbuf *tb;
	int saved, err;

	if (!(tb = enter()))
		return causal_glibc_mutex_lock(m);
	saved = errno;
	err = TAKE(tb, m, CAUSAL_LOCK_MUTEX, causal_glibc_mutex_trylock(m),
		   causal_glibc_mutex_lock(m));
	leave();
	errno = saved;
	return err;
}

CAUSAL_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	return locks_on() ? mutex_lock_recorded(m) : causal_glibc_mutex_lock(m);
}

/* pthread_mutex_trylock with its records: only with the type `locks` on */
static __attribute__((noinline)) int mutex_trylock_recorded(pthread_mutex_t *m)
{
	struct causal_tbuf *tb;
	int saved, err;

	if (!(tb = enter()))
		return causal_glibc_mutex_trylock(m);
	saved = errno;
	err = causal_glibc_mutex_trylock(m);
	record(tb, acquired(err) ? CAUSAL_LOCK_ACQUIRED : CAUSAL_LOCK_FAILED, m,
	       CAUSAL_LOCK_MUTEX);
	leave();
	errno = saved;
	return err;
}

CAUSAL_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	return locks_on() ? mutex_trylock_recorded(m)
			  : causal_glibc_mutex_trylock(m);
}

CAUSAL_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m,
					  const struct timespec *abstime)
{
	struct causal_tbuf *tb;
	int saved, err;

	causal_real_resolve();
	if (!causal_real.pthread_mutex_timedlock)
		return ENOSYS;
	if (!locks_on() || !(tb = enter()))
		return causal_real.pthread_mutex_timedlock(m, abstime);
	saved = errno;
	err = TAKE(tb, m, CAUSAL_LOCK_MUTEX, causal_glibc_mutex_trylock(m),
		   causal_real.pthread_mutex_timedlock(m, abstime));
	leave();
	errno = saved;
	return err;
}

/* pthread_mutex_unlock with its records: only with the type `locks` on */
static __attribute__((noinline)) int mutex_unlock_recorded(pthread_mutex_t *m)
{
	struct causal_tbuf *tb;
	uint64_t at;
	int saved, err;

	if (!(tb = enter()))
		return causal_glibc_mutex_unlock(m);
	saved = errno;
	/* stamped before: another thread may take it as soon as it is
	 * given back, and its acquired must not come first */
	at = causal_now_ns();
	err = causal_glibc_mutex_unlock(m);
	if (!err)
		record_at(tb, CAUSAL_LOCK_RELEASED, m, CAUSAL_LOCK_MUTEX, at);
	leave();
	errno = saved;
	return err;
}

CAUSAL_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	return locks_on() ? mutex_unlock_recorded(m)
			  : causal_glibc_mutex_unlock(m);
}

/* pthread_rwlock_rdlock with its records: only with the type `locks` on */
static __attribute__((noinline)) int rwlock_rdlock_recorded(pthread_rwlock_t *l)
{
	struct causal_tbuf *tb;
	int saved, err;

	causal_real_resolve();
	if (!causal_real.pthread_rwlock_tryrdlock || !(tb = enter()))
		return causal_glibc_rwlock_rdlock(l);
	saved = errno;
	err = TAKE(tb, l, CAUSAL_LOCK_READ,
		   causal_real.pthread_rwlock_tryrdlock(l),
		   causal_glibc_rwlock_rdlock(l));
	leave();
	errno = saved;
	return err;
}

CAUSAL_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	return locks_on() ? rwlock_rdlock_recorded(l)
			  : causal_glibc_rwlock_rdlock(l);
}

/* pthread_rwlock_wrlock with its records: only with the type `locks` on */
static __attribute__((noinline)) int rwlock_wrlock_recorded(pthread_rwlock_t *l)
{
	struct causal_tbuf *tb;
	int saved, err;

	causal_real_resolve();
	if (!causal_real.pthread_rwlock_trywrlock || !(tb = enter()))
		return causal_glibc_rwlock_wrlock(l);
	saved = errno;
	err = TAKE(tb, l, CAUSAL_LOCK_WRITE,
		   causal_real.pthread_rwlock_trywrlock(l),
		   causal_glibc_rwlock_wrlock(l));
	leave();
	errno = saved;
	return err;
}

CAUSAL_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	return locks_on() ? rwlock_wrlock_recorded(l)
			  : causal_glibc_rwlock_wrlock(l);
}

/* pthread_rwlock_unlock with its records: only with the type `locks` on */
static __attribute__((noinline)) int rwlock_unlock_recorded(pthread_rwlock_t *l)
{
	struct causal_tbuf *tb;
	uint64_t at;
	int saved, err;

	if (!(tb = enter()))
		return causal_glibc_rwlock_unlock(l);
	saved = errno;
	/* stamped before: another thread may take it as soon as it is
	 * given back, and its acquired must not come first */
	at = causal_now_ns();
	err = causal_glibc_rwlock_unlock(l);
	if (!err)
		record_at(tb, CAUSAL_LOCK_RELEASED, l, CAUSAL_LOCK_RWLOCK, at);
	leave();
	errno = saved;
	return err;
}

CAUSAL_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	return locks_on() ? rwlock_unlock_recorded(l)
			  : causal_glibc_rwlock_unlock(l);
}
