/*
 * sampler-signal.c - the sampler's signal is the library's, never the
 * program's (sampler.h).
 *
 * The program is shown SIG_DFL for it, as the kernel held it before us.
 * When the program sets a disposition for it (sigaction, signal...), or
 * blocks it in a thread (sigprocmask, pthread_sigmask), the sampler first
 * moves to a real-time signal that the program has not touched, that no
 * thread blocks and whose disposition is the default: every source is
 * retargeted (F_SETSIG, or a new timer), then the old signal is set to
 * SIG_IGN, which drops whatever of it is still pending in every thread,
 * and back to the default (the fatal signals' flush, signals.c, standing
 * for it), and only then does the program's call run.
 * With no such signal left: a thread that blocks it is paused (its source
 * stopped before the mask changes, so nothing is left pending for a
 * signalfd or sigwait to read) until it unblocks it; a program that sets
 * a disposition for it stops the sampling.  Each is said once on stderr
 * and in a SPIKE_SAMPLER record.
 *
 * A signal of that number that none of our sources sent (kill, sigqueue,
 * another process) does what it would have done without us: the program
 * sees SIG_DFL, so the process dies of it, its end record written.
 *
 * Moves and pauses take the sampler's lock with every signal blocked, so
 * that a handler of the program's that calls a wrapper never meets it
 * held; the handler itself takes no lock.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "sampler-source.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* The signals the program set a disposition for, since it started. */
static _Atomic uint64_t program_sigs;
static _Atomic int said_paused;
/* The handler (sampler.c), and what each signal had before we took it
 * (SIG_DFL, or a handler of ours standing for it): what it gets back. */
static void (*on_signal)(int, siginfo_t *, void *);
static struct sigaction taken_from[65];

/* The library's own code, between its ELF header and the end of its text. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _etext[] __attribute__((visibility("hidden")));

int causal_sampler_library_code(const void *addr)
{
	return (const char *)addr >= __ehdr_start &&
	       (const char *)addr < _etext;
}

/* ---- the lock, masks ------------------------------------------------------
 */

static int real_mask(int how, const sigset_t *set, sigset_t *old)
{
	causal_real_resolve();
	return causal_real.pthread_sigmask
		       ? causal_real.pthread_sigmask(how, set, old)
		       : ENOSYS;
}

void causal_sampler_lock(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	real_mask(SIG_SETMASK, &all, old);
	causal_mutex_lock(&lock);
}

void causal_sampler_unlock(const sigset_t *old)
{
	causal_mutex_unlock(&lock);
	real_mask(SIG_SETMASK, old, NULL);
}

void causal_sampler_lock_after_fork(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	lock = fresh;
}

uint64_t causal_sampler_mask_bits(const sigset_t *set)
{
	uint64_t bits = 0;

	for (int sig = 1; sig <= 64; sig++)
		if (sigismember(set, sig) == 1)
			bits |= causal_sig_bit(sig);
	return bits;
}

uint64_t causal_sampler_own_mask(void)
{
	sigset_t cur;

	return real_mask(SIG_BLOCK, NULL, &cur)
		       ? 0
		       : causal_sampler_mask_bits(&cur);
}

/* ---- saying what changed ------------------------------------------------- */

void causal_sampler_note(const char *first, ...)
{
	struct causal_sampler *s = &causal_sampler;
	size_t len = 0;
	va_list ap;

	va_start(ap, first);
	for (const char *p = first; p; p = va_arg(ap, const char *)) {
		size_t n = strlen(p);

		if (n > sizeof(s->note) - 1 - len)
			n = sizeof(s->note) - 1 - len;
		memcpy(s->note + len, p, n);
		len += n;
	}
	va_end(ap);
	s->note[len] = '\0';
	atomic_fetch_add_explicit(&s->changes, 1, memory_order_release);
}

static const char *num(char *buf, int v)
{
	char *p = buf + 11;

	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	return p;
}

/* "<why> signal FROM, the sampler's: sampling moved to signal TO", said
 * on stderr and noted for the record. */
static void tell_move(const char *why, int from, int to)
{
	char a[12], b[12];
	const char *f = num(a, from), *t = num(b, to);

	causal_sampler_note(why, " signal ", f,
			    ", the sampler's: sampling moved to signal ", t,
			    NULL);
	causal_say("causal: policy: ", causal_sampler.note, NULL);
}

static void tell(const char *what)
{
	causal_sampler_note(what, NULL);
	causal_say("causal: policy: ", what, NULL);
}

/* ---- choosing, moving, stopping ------------------------------------------ */

static void install_on(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	causal_real.sigaction(sig, &sa, &taken_from[sig]);
}

/* Is sig free for us: not the program's, not blocked, at the default? */
static int usable(int sig, uint64_t taken)
{
	struct sigaction cur;

	if ((atomic_load(&program_sigs) | taken) & causal_sig_bit(sig))
		return 0;
	if (!causal_real.sigaction || causal_real.sigaction(sig, NULL, &cur))
		return 0;
	/* the default, or a handler of the library's standing for it (the
	 * fatal signals' flush, signals.c) */
	return cur.sa_handler == SIG_DFL ||
	       causal_sampler_library_code((const void *)cur.sa_handler);
}

/*
 * A real-time signal free for us, none blocked by `blocked` nor by any
 * sampled thread's mask, not avoid: SIGRTMAX-3 and down, then the top
 * three; 0 when there is none.
 */
static int free_signal(uint64_t blocked, int avoid)
{
	uint64_t taken = blocked | causal_sig_bit(avoid);
	int n = SIGRTMAX - SIGRTMIN + 1;

	for (unsigned i = 0; i < CAUSAL_SAMPLED_THREADS; i++)
		if (atomic_load(&causal_sampled[i].os_tid) > 0)
			taken |= atomic_load(&causal_sampled[i].blocked);
	for (int k = 0; k < n; k++) {
		int sig = k < n - 3 ? SIGRTMAX - 3 - k : SIGRTMAX - (k - n + 3);

		if (usable(sig, taken))
			return sig;
	}
	return 0;
}

/* sig is the program's again: SIG_IGN drops what is pending of it in
 * every thread, then what it had before us. */
static void give_back(int sig)
{
	struct sigaction ign;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	causal_real.sigaction(sig, &ign, NULL);
	causal_real.sigaction(sig, &taken_from[sig], NULL);
}

/* Under the lock. */
static void move_to(int to)
{
	int from = atomic_load(&causal_sampler.signo);

	install_on(to);
	atomic_store(&causal_sampler.signo, to);
	for (unsigned i = 0; i < CAUSAL_SAMPLED_THREADS; i++) {
		struct causal_sampled_thread *st = &causal_sampled[i];

		if (atomic_load(&st->os_tid) <= 0 ||
		    st->source == CAUSAL_SAMPLER_OFF)
			continue;
		causal_source_retarget(st, to);
		if (!(atomic_load(&st->blocked) & causal_sig_bit(to)))
			causal_source_resume(st);
	}
	give_back(from);
}

/* Under the lock. */
static void stop(const char *why)
{
	atomic_store(&causal_sampler.on, 0);
	atomic_store(&causal_sampler.source, CAUSAL_SAMPLER_OFF);
	for (unsigned i = 0; i < CAUSAL_SAMPLED_THREADS; i++)
		if (atomic_load(&causal_sampled[i].os_tid) > 0)
			causal_source_close(&causal_sampled[i]);
	give_back(atomic_load(&causal_sampler.signo));
	tell(why);
}

/* A vfork child runs on its parent's memory and TLS: the sampler's state
 * and the thread's slot are the parent's, not to be changed. */
static int vfork_child(void)
{
	return causal_g.id.pid && getpid() != causal_g.id.pid;
}

static int sampling(void)
{
	return causal_sampler.ring && atomic_load(&causal_sampler.on);
}

int causal_sampler_signal_init(void (*handler)(int, siginfo_t *, void *))
{
	struct causal_sampler *s = &causal_sampler;
	int want = s->policy.signo ? s->policy.signo : SIGRTMAX - 3;
	uint64_t mine = causal_sampler_own_mask();
	int sig = usable(want, mine) ? want : free_signal(mine, 0);

	on_signal = handler;

	if (!sig && usable(want, 0))
		sig = want; /* every one blocked here: paused till unblocked */
	if (!sig) {
		causal_say("causal: policy: the program uses every real-time "
			   "signal; sampling stays off",
			   NULL);
		return -1;
	}
	install_on(sig);
	atomic_store(&s->signo, sig);
	if (sig != want)
		tell_move("the program has", want, sig);
	else
		causal_sampler_note("start", NULL);
	return 0;
}

/* ---- the wrappers' side -------------------------------------------------- */

void causal_sampler_program_sets(int sig)
{
	sigset_t old;
	int to;

	/* a vfork child's dispositions are its own, its memory is ours */
	if (vfork_child())
		return;
	atomic_fetch_or(&program_sigs, causal_sig_bit(sig));
	if (!sampling() || sig != atomic_load(&causal_sampler.signo))
		return;
	causal_sampler_lock(&old);
	if (sampling() && sig == atomic_load(&causal_sampler.signo)) {
		to = free_signal(0, sig);
		if (to) {
			move_to(to);
			tell_move("the program set a disposition for", sig, to);
		} else {
			stop("the program uses every real-time signal: "
			     "sampling stops");
		}
	}
	causal_sampler_unlock(&old);
}

void causal_sampler_view(struct sigaction *sa)
{
	if (on_signal && sa->sa_sigaction == on_signal) {
		memset(sa, 0, sizeof(*sa));
		sa->sa_handler = SIG_DFL;
	}
}

sighandler_t causal_sampler_view_handler(sighandler_t h)
{
	return on_signal && h == (sighandler_t)(void (*)(void))on_signal
		       ? SIG_DFL
		       : h;
}

/* Under the lock: st stops, say so once. */
static void pause_self(struct causal_sampled_thread *st)
{
	causal_source_pause(st);
	if (!atomic_exchange(&said_paused, 1))
		tell("a thread blocks every real-time signal the sampler "
		     "could use: it is not sampled while it does");
}

void causal_sampler_mask_before(int how, const sigset_t *set)
{
	struct causal_sampled_thread *st = causal_sampler_self();
	uint64_t next;
	sigset_t old;
	int sig = atomic_load(&causal_sampler.signo), to;

	if (!st || !sampling() || !set || how == SIG_UNBLOCK ||
	    sigismember(set, sig) != 1 || atomic_load(&st->paused) ||
	    vfork_child())
		return;
	next = causal_sampler_mask_bits(set);
	if (how == SIG_BLOCK)
		next |= causal_sampler_own_mask();
	causal_sampler_lock(&old);
	sig = atomic_load(&causal_sampler.signo);
	if (sampling() && (next & causal_sig_bit(sig)) &&
	    !atomic_load(&st->paused)) {
		atomic_store(&st->blocked, next);
		to = free_signal(next, sig);
		if (to) {
			move_to(to);
			tell_move("the program blocks", sig, to);
		} else {
			pause_self(st);
		}
	}
	/* the program's mask again: what our source sent before it
	 * stopped reaches our handler now, before the block */
	causal_sampler_unlock(&old);
}

/* Take what is pending of sig for this thread (blocked in it now): ours
 * are dropped, anything else queued again as it was. */
static void drain(int sig)
{
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, sig);
	for (int i = 0; i < 64 && sigtimedwait(&one, &si, &zero) == sig; i++)
		if (si.si_code != SI_TIMER && si.si_code != POLL_IN &&
		    si.si_code != POLL_HUP)
			syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), sig,
				&si);
}

void causal_sampler_mask_after(int how, const sigset_t *set,
			       const sigset_t *old)
{
	struct causal_sampled_thread *st = causal_sampler_self();
	uint64_t now, bit, rt;
	sigset_t saved;

	if (!st || !sampling() || !set)
		return; /* a question changes nothing */
	if (!old)
		now = causal_sampler_own_mask();
	else if (how == SIG_BLOCK)
		now = causal_sampler_mask_bits(old) |
		      causal_sampler_mask_bits(set);
	else if (how == SIG_UNBLOCK)
		now = causal_sampler_mask_bits(old) &
		      ~causal_sampler_mask_bits(set);
	else
		now = causal_sampler_mask_bits(set);
	/* only the real-time signals matter (the ones the sampler takes):
	 * the common masks, SIGINT or SIGCHLD, cost nothing more */
	rt = ~0ull << (SIGRTMIN - 1);
	bit = causal_sig_bit(atomic_load(&causal_sampler.signo));
	if (!((now ^ atomic_load(&st->blocked)) & rt) &&
	    !(now & bit) == !atomic_load(&st->paused))
		return;
	if (vfork_child())
		return;
	atomic_store(&st->blocked, now);
	causal_sampler_lock(&saved);
	bit = causal_sig_bit(atomic_load(&causal_sampler.signo));
	if (sampling() && (now & bit) && !atomic_load(&st->paused)) {
		/* blocked by a way we did not see coming (the signal moved
		 * meanwhile): stop, and take what came */
		pause_self(st);
		drain(atomic_load(&causal_sampler.signo));
	} else if (sampling() && !(now & bit)) {
		causal_source_resume(st);
	}
	causal_sampler_unlock(&saved);
}

void causal_sampler_foreign(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *was = &taken_from[sig];

	atomic_store(&causal_sampler.on, 0);
	/*
	 * The flush of a fatal signal (signals.c) stood for the default: run
	 * it here, under our handler, which takes what our sources still
	 * send meanwhile (theirs would kill under the default before the
	 * end record is written); it sets the default and raises the signal,
	 * which kills once this handler returns.
	 */
	if (causal_sampler_library_code((const void *)was->sa_handler)) {
		if (was->sa_flags & SA_SIGINFO)
			was->sa_sigaction(sig, si, uc);
		else
			was->sa_handler(sig);
		return;
	}
	/* as without us: the default, so it kills, once the handler returns
	 * (the signal stays blocked till then) */
	causal_real.sigaction(sig, was, NULL);
	raise(sig);
}

void causal_sampler_before_exec(void)
{
	struct causal_sampled_thread *st = causal_sampler_self();
	sigset_t old;

	if (!st || !sampling() || vfork_child())
		return;
	/* a sample pending across the exec would kill the new image: stop
	 * the source (as if the thread blocked every signal, so that no move
	 * restarts it); what it sent comes at the unlock, to our handler */
	causal_sampler_lock(&old);
	atomic_store(&st->blocked, ~0ull);
	causal_source_pause(st);
	causal_sampler_unlock(&old);
}

void causal_sampler_after_failed_exec(void)
{
	struct causal_sampled_thread *st = causal_sampler_self();
	sigset_t old;

	if (!st || !sampling())
		return;
	causal_sampler_lock(&old);
	atomic_store(&st->blocked, causal_sampler_mask_bits(&old));
	if (!(atomic_load(&st->blocked) &
	      causal_sig_bit(atomic_load(&causal_sampler.signo))))
		causal_source_resume(st);
	causal_sampler_unlock(&old);
}

/* ---- the monitor's check ------------------------------------------------- */

void causal_sampler_check_sources(void)
{
	static _Atomic int said;
	sigset_t old;
	int lost = 0;

	causal_sampler_lock(&old);
	for (unsigned i = 0; i < CAUSAL_SAMPLED_THREADS; i++) {
		struct causal_sampled_thread *st = &causal_sampled[i];

		if (atomic_load(&st->os_tid) <= 0 || atomic_load(&st->fd) < 0 ||
		    causal_source_intact(st))
			continue;
		/* retargeting a lost event gives the thread a timer */
		causal_source_retarget(st, atomic_load(&causal_sampler.signo));
		lost = 1;
	}
	if (lost && !atomic_exchange(&said, 1))
		tell("the program closed the descriptor of a thread's "
		     "sampling event: that thread is sampled by a timer "
		     "from now on");
	causal_sampler_unlock(&old);
}
