/*
 * signals.c - best-effort flush when a fatal signal ends the process.
 *
 * Wherever a fatal signal would take the default action (which kills the
 * process without running exit handlers), our handler is installed in its
 * place: it writes the last frame, restores the default action and raises
 * the signal again, so the process dies exactly as it would have (same
 * signal, same core dump).  That is the case at start-up where the program
 * left the default, and again whenever the program itself asks for SIG_DFL
 * (signal-hooks.c substitutes our handler): GNU timeout, for one, resets
 * SIGTERM to SIG_DFL and raises it.  SIG_IGN and the program's own handlers
 * are never touched.
 *
 * The program never sees our handler.  Three handlers tell the cases apart
 * without any state:
 *   initial_handler  installed at start-up over the initial default: the
 *                    program sees SIG_DFL with no flags and an empty mask,
 *                    as the kernel holds it after exec;
 *   dfl_handler      installed with the flags and mask the program gave
 *   dfl_action       with SIG_DFL (dfl_action when SA_SIGINFO was among
 *                    them): the program sees what the kernel holds, with
 *                    SIG_DFL in place of the handler.  The kernel treats
 *                    flags and mask the same whatever the handler, so that
 *                    is exactly what it would have seen.
 * None of the flags the program may give changes what our handler does:
 * without SA_NODEFER the raised signal stays pending until the handler
 * returns, and is then delivered with the default action.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/*
 * Every signal whose default action ends the process (signal(7): Term and
 * Core), and every real-time signal (SIGRTMIN to SIGRTMAX, whose default
 * is Term too; glibc keeps the two below SIGRTMIN for itself).
 */
static const int fatal_signals[] = {
	SIGHUP,	 SIGINT,  SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT,
	SIGBUS,	 SIGFPE,  SIGUSR1,   SIGSEGV, SIGUSR2, SIGPIPE,
	SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM,
	SIGPROF, SIGIO,	  SIGPWR,    SIGSYS,
};
#define N_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

static int is_fatal(int sig)
{
	size_t i;

	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		return 1;
	for (i = 0; i < N_FATAL; i++)
		if (fatal_signals[i] == sig)
			return 1;
	return 0;
}

static void die_of(int sig)
{
	int saved = errno;
	struct sigaction dfl;

	causal_writer_finish(CAUSAL_END_SIGNAL, sig, 1);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	causal_real.sigaction(sig, &dfl, NULL);
	errno = saved;
	/* unblocked (SA_NODEFER) this kills us now; blocked, when the handler
	 * returns; a fault re-executes the faulting instruction under SIG_DFL */
	raise(sig);
}

static void initial_handler(int sig)
{
	die_of(sig);
}

static void dfl_handler(int sig)
{
	die_of(sig);
}

static void dfl_action(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	die_of(sig);
}

int causal_signals_is_ours(sighandler_t h)
{
	return h == initial_handler || h == dfl_handler ||
	       h == (sighandler_t)(void (*)(void))dfl_action;
}

sighandler_t causal_signals_view_handler(sighandler_t h)
{
	return causal_signals_is_ours(h) ? SIG_DFL : h;
}

void causal_signals_view(struct sigaction *sa)
{
	if (sa->sa_handler == initial_handler) {
		memset(sa, 0, sizeof(*sa));
		sa->sa_handler = SIG_DFL;
	} else if (causal_signals_is_ours(sa->sa_handler)) {
		sa->sa_handler = SIG_DFL;	/* the same word as sa_sigaction */
	}
}

/* Only while tracing: otherwise there is nothing to flush. */
static int substitutes(int sig)
{
	return is_fatal(sig) && causal_running() && causal_real.sigaction;
}

const struct sigaction *causal_signals_substitute(int sig,
						  const struct sigaction *act,
						  struct sigaction *buf)
{
	/* SIG_DFL is 0 in either member of the union */
	if (!act || act->sa_handler != SIG_DFL || !substitutes(sig))
		return act;
	*buf = *act;
	if (act->sa_flags & SA_SIGINFO)
		buf->sa_sigaction = dfl_action;
	else
		buf->sa_handler = dfl_handler;
	return buf;
}

sighandler_t causal_signals_substitute_handler(int sig, sighandler_t h)
{
	return h == SIG_DFL && substitutes(sig) ? dfl_handler : h;
}

/* Our handler in place of the default action of sig, if it has it. */
static void install(int sig)
{
	struct sigaction old, sa;

	if (causal_real.sigaction(sig, NULL, &old) || old.sa_handler != SIG_DFL)
		return;
	if (old.sa_flags || !sigisemptyset(&old.sa_mask)) {
		/* someone (another library's constructor) set SIG_DFL with
		 * flags: keep them, as for the program's own */
		causal_real.sigaction(
			sig, causal_signals_substitute(sig, &old, &sa), NULL);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = initial_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_RESTART;
	causal_real.sigaction(sig, &sa, NULL);
}

void causal_signals_install(void)
{
	size_t i;

	if (!causal_real.sigaction)
		return;
	for (i = 0; i < N_FATAL; i++)
		install(fatal_signals[i]);
	/* before the sampler takes one (lifecycle.c), so it gives this back */
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		install(sig);
}
