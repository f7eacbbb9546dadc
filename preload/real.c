/*
 * real.c - the table of real functions, found with dlsym(RTLD_NEXT).
 *
 * Filled under pthread_once, from the constructor or from whichever wrapper
 * runs first: another library's constructor may call one of our wrappers
 * before our own constructor ran.  A missing function stays NULL and its
 * wrapper answers with the API's own error and ENOSYS.
 */
#include <dlfcn.h>

#include "real.h"

struct causal_real_table causal_real;
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

#define RESOLVE(name) \
	(causal_real.name = (__typeof__(causal_real.name))dlsym(RTLD_NEXT, #name))

static void resolve(void)
{
	RESOLVE(pthread_create);
	RESOLVE(pthread_exit);
	RESOLVE(fork);
	RESOLVE(execve);
	RESOLVE(execvpe);
	RESOLVE(fexecve);
	RESOLVE(_exit);
	RESOLVE(_Exit);
	RESOLVE(sigaction);
	RESOLVE(signal);
	RESOLVE(sysv_signal);
	RESOLVE(sigset);
	RESOLVE(sigprocmask);
	RESOLVE(pthread_sigmask);
	RESOLVE(posix_spawn);
	RESOLVE(posix_spawnp);
	RESOLVE(pthread_mutex_timedlock);
	RESOLVE(pthread_rwlock_tryrdlock);
	RESOLVE(pthread_rwlock_trywrlock);
}

void causal_real_resolve(void)
{
	pthread_once(&resolve_once, resolve);
}
