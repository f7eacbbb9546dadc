/*
 * signal-hooks.c - keep our fatal-signal handler invisible.
 *
 * Where we installed it, the program asked for nothing and must keep seeing
 * SIG_DFL; whatever the program installs replaces it as it would have
 * replaced the default.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

CAUSAL_EXPORT int sigaction(int sig, const struct sigaction *act,
			    struct sigaction *oldact)
{
	int ret;

	causal_real_resolve();
	if (!causal_real.sigaction) {
		errno = ENOSYS;
		return -1;
	}
	ret = causal_real.sigaction(sig, act, oldact);
	if (ret == 0 && oldact && !(oldact->sa_flags & SA_SIGINFO) &&
	    causal_signals_is_ours(oldact->sa_handler)) {
		memset(oldact, 0, sizeof(*oldact));
		oldact->sa_handler = SIG_DFL;
	}
	return ret;
}

CAUSAL_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	sighandler_t old;

	causal_real_resolve();
	if (!causal_real.signal) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	old = causal_real.signal(sig, handler);
	return causal_signals_is_ours(old) ? SIG_DFL : old;
}
