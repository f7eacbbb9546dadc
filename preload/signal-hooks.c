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
 *
 * The sampler's signal (sampler.h) is hidden the same way: the program is
 * shown SIG_DFL for it, and before the program sets a disposition for it,
 * or blocks it with sigprocmask() or pthread_sigmask(), the sampler moves
 * off it or stops its source (sampler-signal.c).  The library's own calls
 * of the mask functions (to start its threads with every signal blocked)
 * pass straight through.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "sampler.h"

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
	if (act)
		causal_sampler_program_sets(sig);
	ret = causal_real.sigaction(sig,
				    causal_signals_substitute(sig, act, &buf),
				    oldact);
	if (ret == 0 && oldact) {
		causal_signals_view(oldact);
		causal_sampler_view(oldact);
	}
	return ret;
}

typedef sighandler_t (*signal_fn)(int, sighandler_t);

static sighandler_t call_signal(signal_fn real, int sig, sighandler_t h)
{
	if (!real) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	causal_sampler_program_sets(sig);
	return causal_sampler_view_handler(causal_signals_view_handler(
		real(sig, causal_signals_substitute_handler(sig, h))));
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

typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);

/* The real mask function, with the sampler told before and after (but
 * for the library's own calls); the result and errno are the real call's. */
static int call_mask(mask_fn real, const void *caller, int how,
		     const sigset_t *set, sigset_t *oldset)
{
	sigset_t was;
	int ret, err;

	if (causal_sampler_library_code(caller))
		return real(how, set, oldset);
	causal_sampler_mask_before(how, set);
	ret = real(how, set, &was);
	err = errno;
	if (ret == 0 && oldset)
		*oldset = was;
	causal_sampler_mask_after(how, set, ret == 0 ? &was : NULL);
	errno = err;
	return ret;
}

CAUSAL_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *oldset)
{
	causal_real_resolve();
	if (!causal_real.sigprocmask) {
		errno = ENOSYS;
		return -1;
	}
	return call_mask(causal_real.sigprocmask, __builtin_return_address(0),
			 how, set, oldset);
}

CAUSAL_EXPORT int pthread_sigmask(int how, const sigset_t *set,
				  sigset_t *oldset)
{
	causal_real_resolve();
	if (!causal_real.pthread_sigmask)
		return ENOSYS;
	return call_mask(causal_real.pthread_sigmask,
			 __builtin_return_address(0), how, set, oldset);
}
