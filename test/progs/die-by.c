/*
 * die-by SIG - a program that dies of SIG, delivered as it would be in
 * life, the action left at its default:
 *
 *   ALRM     alarm(1), then pause()
 *   VTALRM   setitimer(ITIMER_VIRTUAL, 20 ms), then spin
 *   PROF     setitimer(ITIMER_PROF, 20 ms), then spin
 *   TRAP     a breakpoint instruction (int3 on x86), else raise()
 *   IO       O_ASYNC on a pipe it owns, then a write into the pipe
 *   PWR, STKFLT and any other name: raise()
 *   RTMIN+K, RTMAX-K: raise() of that real-time signal
 *
 * Prints "main" and "signal N" (the number) before the signal comes, and
 * makes no core file.  alarm() ends it after 60 s should nothing else.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

static int number(const char *name)
{
	static const struct {
		const char *name;
		int sig;
	} named[] = {
		{ "ALRM", SIGALRM },	 { "VTALRM", SIGVTALRM },
		{ "PROF", SIGPROF },	 { "TRAP", SIGTRAP },
		{ "IO", SIGIO },	 { "PWR", SIGPWR },
		{ "STKFLT", SIGSTKFLT },
	};

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(name, named[i].name))
			return named[i].sig;
	if (!strncmp(name, "RTMIN+", 6))
		return SIGRTMIN + atoi(name + 6);
	if (!strncmp(name, "RTMAX-", 6))
		return SIGRTMAX - atoi(name + 6);
	return 0;
}

static void timer(int which)
{
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	volatile unsigned long spins = 0;

	setitimer(which, &it, NULL);
	for (;;)
		spins++;
}

static void async_io(void)
{
	int p[2];

	if (pipe(p))
		return;
	fcntl(p[0], F_SETOWN, getpid());
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_ASYNC);
	if (write(p[1], "x", 1) != 1)
		return;
	pause();
}

int main(int argc, char **argv)
{
	const struct rlimit no_core = { 0, 0 };
	int sig = argc == 2 ? number(argv[1]) : 0;

	if (sig <= 0 || sig > SIGRTMAX) {
		fprintf(stderr, "usage: die-by ALRM|VTALRM|PROF|TRAP|IO|PWR|"
				"STKFLT|RTMIN+K|RTMAX-K\n");
		return 2;
	}
	setrlimit(RLIMIT_CORE, &no_core);
	printf("main\nsignal %d\n", sig);
	fflush(stdout);
	if (sig != SIGALRM)
		alarm(60);
	if (sig == SIGALRM) {
		alarm(1);
		for (;;)
			pause();
	}
	if (sig == SIGVTALRM)
		timer(ITIMER_VIRTUAL);
	if (sig == SIGPROF)
		timer(ITIMER_PROF);
	if (sig == SIGIO)
		async_io();
#if defined(__x86_64__) || defined(__i386__)
	if (sig == SIGTRAP)
		__asm__ volatile("int3");
#endif
	raise(sig);
	pause();
	return 1;
}
