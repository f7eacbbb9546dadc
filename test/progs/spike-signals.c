/*
 * spike-signals - a program that uses the signals the sampler of sporadic
 * bottlenecks would take (docs/tracing.md, "Sporadic bottlenecks"): the
 * tracer must never let a sample reach it, nor show it a handler it never
 * installed.  Each mode burns CPU_MS of its own CPU time (so that a sampler
 * at any rate fires many times) around what it does with the signal, then
 * prints what it saw, one "key=value" a line.
 *
 *   spike-signals signalfd CPU_MS   block every signal, read them with a
 *                                   signalfd; send itself SIGUSR1 from a
 *                                   second thread: read=10 and nothing else
 *   spike-signals handler CPU_MS    SIGRTMAX-3: its disposition (dfl=1 when
 *                                   SIG_DFL with no flags and an empty
 *                                   mask), then a handler, raised once:
 *                                   calls=1; sigaction shows that handler
 *   spike-signals block CPU_MS      block SIGRTMAX-3 only, then take what
 *                                   is pending of it (pending=0), queue one
 *                                   and wait for it (waited=1, code SI_QUEUE)
 *   spike-signals every CPU_MS      a handler on every real-time signal,
 *                                   each raised once: calls=N, N the number
 *                                   of real-time signals
 *   spike-signals kill CPU_MS       send itself SIGRTMAX-3 without a
 *                                   handler: dies of it, as untraced
 *   spike-signals movekill CPU_MS   block SIGRTMAX-3 (the sampler moves
 *                                   off it), unblock it, then send it
 *                                   itself: dies of it, as untraced
 *   spike-signals exec CPU_MS       exec /bin/true after burning: the new
 *                                   image must not die of a sample
 *   spike-signals fds CPU_MS        with 3 threads burning: the lowest
 *                                   descriptor open() gives (low=3), the
 *                                   perf events it holds and the lowest
 *                                   number among them (perf=N perf_low=F,
 *                                   -1 without), the same in a fork child
 *                                   (child_perf=N)
 *   spike-signals closeall CPU_MS   close every descriptor from 3 on (a
 *                                   daemon would), then burn again
 *   spike-signals vfork CPU_MS      a vfork child blocks every signal and
 *                                   sets SIGRTMAX-3's disposition before
 *                                   it exits: the parent is unchanged
 *
 * Built with frame pointers (Makefile) for the sampler's stacks.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t calls[65];
static volatile unsigned long work;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void burn(uint64_t ms)
{
	uint64_t end = cpu_ns() + ms * 1000000;

	while (cpu_ns() < end)
		for (int i = 0; i < 10000; i++)
			work++;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	calls[sig]++;
}

static int install(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

static void *send_usr1(void *arg)
{
	(void)arg;
	burn(50);
	kill(getpid(), SIGUSR1);
	return NULL;
}

static int mode_signalfd(uint64_t ms)
{
	struct signalfd_siginfo si;
	sigset_t all;
	pthread_t t;
	int fd, got = 0;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	fd = signalfd(-1, &all, SFD_CLOEXEC);
	if (fd < 0)
		return perror("signalfd"), 1;
	burn(ms);
	pthread_create(&t, NULL, send_usr1, NULL);
	burn(ms);
	pthread_join(t, NULL);
	/* blocking reads until SIGUSR1: everything before it is printed */
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		printf("read=%u\n", si.ssi_signo);
		if (si.ssi_signo == SIGUSR1 || ++got > 100)
			break;
	}
	return 0;
}

static int mode_handler(uint64_t ms)
{
	int sig = SIGRTMAX - 3;
	struct sigaction old;

	burn(ms);
	sigaction(sig, NULL, &old);
	printf("dfl=%d\n", old.sa_handler == SIG_DFL && !old.sa_flags &&
				   sigisemptyset(&old.sa_mask));
	if (install(sig))
		return perror("sigaction"), 1;
	burn(ms);
	raise(sig);
	burn(ms);
	sigaction(sig, NULL, &old);
	printf("calls=%d\nmine=%d\n", (int)calls[sig],
	       old.sa_sigaction == on_signal);
	return 0;
}

static int mode_block(uint64_t ms)
{
	int sig = SIGRTMAX - 3, pending = 0, waited;
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	sigset_t one;

	burn(ms);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_BLOCK, &one, NULL);
	burn(ms);
	while (sigtimedwait(&one, &si, &zero) == sig)
		pending++;
	sigqueue(getpid(), sig, (union sigval){ .sival_int = 7 });
	waited = sigwaitinfo(&one, &si) == sig;
	printf("pending=%d\nwaited=%d\ncode_queue=%d\n", pending, waited,
	       si.si_code == SI_QUEUE);
	return 0;
}

/* The perf events among our descriptors: how many, the lowest number. */
static int perf_fds(int *lowest)
{
	char path[64], link[256];
	int n = 0;

	*lowest = -1;
	for (int fd = 0; fd < 65536; fd++) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (!strstr(link, "perf_event"))
			continue;
		if (!n++)
			*lowest = fd;
	}
	return n;
}

static void *burner(void *arg)
{
	burn((uint64_t)(uintptr_t)arg);
	return NULL;
}

static int mode_fds(uint64_t ms)
{
	pthread_t t[3];
	int low, n, fd, status = 0;
	pid_t child;

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, burner, (void *)(uintptr_t)ms);
	burn(ms / 2);
	fd = dup(0);
	printf("low=%d\n", fd);
	close(fd);
	n = perf_fds(&low);
	printf("perf=%d\nperf_low=%d\n", n, low);
	child = fork();
	if (child == 0) {
		n = perf_fds(&low);
		printf("child_perf=%d\n", n);
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, &status, 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int mode_every(uint64_t ms)
{
	int n = 0, sum = 0;

	burn(ms);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++, n++)
		if (install(sig))
			return perror("sigaction"), 1;
	burn(ms);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		raise(sig);
	burn(ms);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sum += calls[sig];
	printf("signals=%d\ncalls=%d\n", n, sum);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	uint64_t ms = argc > 2 ? strtoull(argv[2], NULL, 10) : 300;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "signalfd"))
		return mode_signalfd(ms);
	if (!strcmp(mode, "handler"))
		return mode_handler(ms);
	if (!strcmp(mode, "block"))
		return mode_block(ms);
	if (!strcmp(mode, "every"))
		return mode_every(ms);
	if (!strcmp(mode, "fds"))
		return mode_fds(ms);
	if (!strcmp(mode, "exec")) {
		burn(ms);
		execl("/bin/true", "true", (char *)NULL);
		return 3;
	}
	if (!strcmp(mode, "vfork")) {
		int status = 0;
		pid_t child;

		burn(ms);
		child = vfork();
		if (child == 0) {
			sigset_t all;

			sigfillset(&all);
			sigprocmask(SIG_BLOCK, &all, NULL);
			signal(SIGRTMAX - 3, SIG_IGN);
			_exit(0);
		}
		waitpid(child, &status, 0);
		burn(ms);
		printf("vforked=%d\n", WIFEXITED(status));
		return 0;
	}
	if (!strcmp(mode, "closeall")) {
		burn(ms);
		syscall(SYS_close_range, 3, ~0u, 0);
		burn(ms);
		puts("closed");
		return 0;
	}
	if (!strcmp(mode, "movekill")) {
		sigset_t one;

		sigemptyset(&one);
		sigaddset(&one, SIGRTMAX - 3);
		burn(ms);
		sigprocmask(SIG_BLOCK, &one, NULL);
		burn(ms);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		kill(getpid(), SIGRTMAX - 3);
		burn(ms);
		puts("alive");
		return 0;
	}
	if (!strcmp(mode, "kill")) {
		burn(ms);
		kill(getpid(), SIGRTMAX - 3);
		burn(ms);
		puts("alive");
		return 0;
	}
	fprintf(stderr, "usage: spike-signals signalfd|handler|block|every|"
			"kill|movekill|exec|fds|closeall|vfork "
			"[CPU_MS]\n");
	return 2;
}
