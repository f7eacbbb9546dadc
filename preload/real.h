/*
 * real.h - the functions the wrappers stand in front of: the table filled
 * with dlsym(RTLD_NEXT) (real.c), and glibc's mutex functions by the names
 * it exports for old binaries.
 */
#ifndef CAUSAL_REAL_H
#define CAUSAL_REAL_H

#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <time.h>

struct causal_real_table {
	int (*pthread_create)(pthread_t *, const pthread_attr_t *,
			      void *(*)(void *), void *);
	void (*pthread_exit)(void *) __attribute__((noreturn));
	pid_t (*fork)(void);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
	void (*_exit)(int) __attribute__((noreturn));
	void (*_Exit)(int) __attribute__((noreturn));
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	sighandler_t (*signal)(int, sighandler_t); /* = bsd_signal, ssignal */
	sighandler_t (*sysv_signal)(int, sighandler_t); /* = __sysv_signal */
	sighandler_t (*sigset)(int, sighandler_t);
	int (*sigprocmask)(int, const sigset_t *, sigset_t *);
	int (*pthread_sigmask)(int, const sigset_t *, sigset_t *);
	int (*posix_spawn)(pid_t *, const char *,
			   const posix_spawn_file_actions_t *,
			   const posix_spawnattr_t *, char *const[],
			   char *const[]);
	int (*posix_spawnp)(pid_t *, const char *,
			    const posix_spawn_file_actions_t *,
			    const posix_spawnattr_t *, char *const[],
			    char *const[]);
	int (*pthread_mutex_timedlock)(pthread_mutex_t *,
				       const struct timespec *);
	int (*pthread_rwlock_tryrdlock)(pthread_rwlock_t *);
	int (*pthread_rwlock_trywrlock)(pthread_rwlock_t *);
};

/* A function not found stays NULL: its wrapper answers with the API's
 * own error and ENOSYS. */
extern struct causal_real_table causal_real;

/* Fill causal_real once; safe to call from any wrapper at any time. */
void causal_real_resolve(void);

/*
 * glibc's mutex and rwlock functions by the names libc still exports for
 * old binaries (__pthread_mutex_lock@GLIBC_2.2.5 on x86_64: bound at link
 * time, no lookup): the library's own mutexes, which must never go
 * through the LOCK records' wrappers (shim-pthread/mutex-hooks.c) as the
 * program's locks do, and those wrappers' way to the real functions.
 */
#if defined(__x86_64__)
#define CAUSAL_GLIBC_FIRST "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define CAUSAL_GLIBC_FIRST "GLIBC_2.17"
#else
#error "the first glibc symbol version of this architecture is not known"
#endif
/* int causal_glibc_OP(TYPE *), bound to glibc's __pthread_OP */
#define CAUSAL_GLIBC_FN(op, type)                                              \
	int causal_glibc_##op(type *);                                         \
	__asm__(".symver causal_glibc_" #op ", __pthread_" #op                 \
		"@" CAUSAL_GLIBC_FIRST)
CAUSAL_GLIBC_FN(mutex_lock, pthread_mutex_t);
CAUSAL_GLIBC_FN(mutex_trylock, pthread_mutex_t);
CAUSAL_GLIBC_FN(mutex_unlock, pthread_mutex_t);
CAUSAL_GLIBC_FN(rwlock_rdlock, pthread_rwlock_t);
CAUSAL_GLIBC_FN(rwlock_wrlock, pthread_rwlock_t);
CAUSAL_GLIBC_FN(rwlock_unlock, pthread_rwlock_t);
#define causal_mutex_lock(m) causal_glibc_mutex_lock(m)
#define causal_mutex_trylock(m) causal_glibc_mutex_trylock(m)
#define causal_mutex_unlock(m) causal_glibc_mutex_unlock(m)

#endif
