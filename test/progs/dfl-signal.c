/*
 * dfl-signal - a program that handles a fatal signal, sets it back to
 * SIG_DFL explicitly (as GNU timeout does before raising the signal it
 * forwarded) and dies of it.
 *
 *   dfl-signal SIG HOW WHO
 *     SIG  TERM | INT | SEGV
 *     HOW  signal:    signal(SIG, handler), then signal(SIG, SIG_DFL)
 *          sigaction: the same with sigaction(), SIG_DFL given with
 *                     SA_SIGINFO | SA_RESTART | SA_ONSTACK and SIGUSR1
 *                     in the mask
 *     WHO  main | thread: the thread that takes the signal; it spins,
 *          while three others block SIG and keep creating short threads
 *
 * Prints what it is told of SIG's action ("old", "again", "view" lines:
 * the same traced or not), then "ready <pid>" once every thread runs.
 * TERM and INT: the caller sends SIG, which only the victim can take.
 * SEGV: the victim writes through a null pointer 30 ms after "ready".
 * alarm() ends it after 60 s should nothing else.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int sig, segv, victim_is_main;
static sem_t running;
static volatile unsigned long spins;
static atomic_int ready;	/* "ready" is printed */

static void caught(int s) { (void)s; }

static void *leaf(void *arg) { return arg; }

static void *churn(void *arg)
{
	const struct timespec ms = {0, 1000000};

	sem_post(&running);
	for (;;) {
		pthread_t th;

		if (pthread_create(&th, NULL, leaf, NULL) == 0)
			pthread_join(th, NULL);
		nanosleep(&ms, NULL);
	}
	return arg;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Take SIG, busy; a SEGV victim faults 30 ms after "ready". */
static void victim(void)
{
	sigset_t set;
	double start = 0;

	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	if (!victim_is_main)
		sem_post(&running);
	for (;;) {
		spins++;
		if (!segv || (spins & 1023) || !atomic_load(&ready))
			continue;
		if (!start)
			start = now_ms();
		else if (now_ms() - start > 30)
			*(volatile int *)0 = 1;
	}
}

static void *victim_thread(void *arg)
{
	/* main prints "ready" once this one runs */
	victim();
	return arg;
}

static void set_default(const char *how)
{
	struct sigaction sa, old;
	sighandler_t prev;

	if (!strcmp(how, "signal")) {
		signal(sig, caught);
		prev = signal(sig, SIG_DFL);
		printf("old %s\n", prev == caught ? "caught" : "other");
		prev = signal(sig, SIG_DFL);
		printf("again %s\n", prev == SIG_DFL ? "dfl" : "other");
	} else {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = caught;
		sa.sa_flags = SA_RESTART;
		sigaction(sig, &sa, NULL);
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = NULL; /* SIG_DFL */
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGUSR1);
		sigaction(sig, &sa, &old);
		printf("old %s\n", old.sa_handler == caught ? "caught" : "other");
	}
	sigaction(sig, NULL, &old);
	printf("view dfl %d flags %#x usr1 %d restorer %s\n",
	       old.sa_handler == SIG_DFL, (unsigned)old.sa_flags,
	       sigismember(&old.sa_mask, SIGUSR1),
	       old.sa_restorer ? "set" : "null");
}

int main(int argc, char **argv)
{
	const struct rlimit no_core = {0, 0};
	pthread_t th;
	sigset_t set;

	if (argc != 4) {
		fprintf(stderr, "usage: dfl-signal TERM|INT|SEGV "
				"signal|sigaction main|thread\n");
		return 2;
	}
	sig = !strcmp(argv[1], "TERM") ? SIGTERM
	      : !strcmp(argv[1], "INT") ? SIGINT
	      : !strcmp(argv[1], "SEGV") ? SIGSEGV : 0;
	if (!sig) {
		fprintf(stderr, "dfl-signal: unknown signal '%s'\n", argv[1]);
		return 2;
	}
	segv = sig == SIGSEGV;
	victim_is_main = !strcmp(argv[3], "main");
	setvbuf(stdout, NULL, _IOLBF, 0);
	setrlimit(RLIMIT_CORE, &no_core); /* no core file left behind */
	alarm(60);
	set_default(argv[2]);

	sem_init(&running, 0, 0);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* the threads inherit it */
	for (int i = 0; i < 3; i++)
		if (pthread_create(&th, NULL, churn, NULL)) {
			perror("pthread_create");
			return 1;
		}
	if (!victim_is_main &&
	    pthread_create(&th, NULL, victim_thread, NULL)) {
		perror("pthread_create");
		return 1;
	}
	for (int i = 0; i < 3 + !victim_is_main; i++)
		sem_wait(&running);
	printf("ready %d\n", (int)getpid());
	atomic_store(&ready, 1);
	if (victim_is_main)
		victim();
	for (;;)
		pause();
}
