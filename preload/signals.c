/*
 * signals.c - best-effort flush when a fatal signal ends the process.
 *
 * A handler is installed only where the program left the default action
 * (which would kill it without running exit handlers).  It writes the last
 * frame, restores the default action and raises the signal again, so the
 * process dies exactly as it would have.  The program never sees our
 * handler: sigaction()/signal() report SIG_DFL in its place (signal-hooks.c),
 * and installing its own handler simply replaces ours.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static const int fatal_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGABRT, SIGFPE, SIGSEGV, SIGBUS,
	SIGPIPE, SIGTERM, SIGXCPU, SIGXFSZ, SIGSYS, SIGUSR1, SIGUSR2,
};

static void fatal_handler(int sig)
{
	int saved = errno;
	struct sigaction dfl;

	causal_writer_finish(CAUSAL_END_SIGNAL, sig, 1);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	causal_real.sigaction(sig, &dfl, NULL);
	errno = saved;
	/* SA_NODEFER: not blocked here, so this kills us with sig now;
	 * a fault re-executes the faulting instruction under SIG_DFL */
	raise(sig);
}

int causal_signals_is_ours(sighandler_t h)
{
	return h == fatal_handler;
}

void causal_signals_install(void)
{
	size_t i;

	if (!causal_real.sigaction)
		return;
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old, sa;

		if (causal_real.sigaction(fatal_signals[i], NULL, &old) ||
		    (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = fatal_handler;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_RESTART;
		causal_real.sigaction(fatal_signals[i], &sa, NULL);
	}
}
