/*
 * signal-hooks.c - keep our fatal-signal handler invisible, and in place.
 *
 * Where the program asks for SIG_DFL on a fatal signal, our handler goes in
 * instead (signals.c), with the program's flags and mask; wherever our
 * handler is installed, the program is told what it would have been told
 * without us.  Every other disposition (SIG_IGN, the program's handlers)
 * passes through untouched and replaces ours as it would the default.
 *
 * glibc's signal(), bsd_signal() and ssignal() are one function (BSD
 * semantics), sysv_signal() and __sysv_signal() another (what signal()
 * becomes in strict ISO C programs), sigset() a third: each is called
 * with our handler in place of SIG_DFL, so the kernel ends up with exactly
 * the flags and mask that function would have given the default action.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

CAUSAL_EXPORT int sigaction(int sig, const struct sigaction *act,
			    struct sigaction *oldact)
{
	struct sigaction buf;
	int ret;

	causal_real_resolve();
	if (!causal_real.sigaction) {
		errno = ENOSYS;
		return -1;
	}
	ret = causal_real.sigaction(sig,
				    causal_signals_substitute(sig, act, &buf),
				    oldact);
	if (ret == 0 && oldact)
		causal_signals_view(oldact);
	return ret;
}

typedef sighandler_t (*signal_fn)(int, sighandler_t);

static sighandler_t call_signal(signal_fn real, int sig, sighandler_t h)
{
	if (!real) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	return causal_signals_view_handler(
		real(sig, causal_signals_substitute_handler(sig, h)));
}

CAUSAL_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	causal_real_resolve();
	return call_signal(causal_real.signal, sig, handler);
}

CAUSAL_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	causal_real_resolve();
	return call_signal(causal_real.signal, sig, handler);
}

CAUSAL_EXPORT sighandler_t ssignal(int sig, sighandler_t handler)
{
	causal_real_resolve();
	return call_signal(causal_real.signal, sig, handler);
}

CAUSAL_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	causal_real_resolve();
	return call_signal(causal_real.sysv_signal, sig, handler);
}

CAUSAL_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
	causal_real_resolve();
	return call_signal(causal_real.sysv_signal, sig, handler);
}

/* SIG_HOLD is neither SIG_DFL nor ours: it passes through both ways. */
CAUSAL_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	causal_real_resolve();
	return call_signal(causal_real.sigset, sig, disp);
}
