/*
 * diag-server - the servers of the planted bottlenecks (diag.x): one
 * program, serving every procedure of DIAG_PROG over TCP; which a
 * deployment uses depends only on who calls it.
 *
 *   diag-server [-r READY] [-c PORT]...
 *
 * -r: once serving, write "pid P\ntcp T\n" to READY (atomically).
 * -c: REQUEST calls these backends in turn, each by its procedure
 *     NAME:PORT, NAME one of locked, work, fetch (on 127.0.0.1, TCP).
 *
 * REQUEST burns 1 ms of CPU, then calls its backends.  LOCKED asks the
 * flusher thread to flush (the flusher takes the table's lock and holds
 * it across a slow section of DIAG_HOLD_US, sleeping), then takes the
 * lock itself, so it waits for the flush, and burns 1 ms under it.  WORK
 * burns DIAG_BURN_US of CPU.  FETCH answers at once.  Every invocation
 * prints "NAME tid T cpu_us C wall_us W" (its thread's CPU and wall time
 * in it, but in its calls); REQUEST also "call I ns N" per backend call
 * (I its place among the -c, N the wall time around the stub call, as
 * the client's).  On SIGTERM it finishes the request at hand
 * and exits 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "diag-knobs.h"
#include "diag.h" /* rpcgen's, of diag.x */

#define MAX_BACKENDS 8

/* rpcgen's dispatch function (diag_svc.c); its header does not say so */
void diag_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

static volatile sig_atomic_t stopping;
static long hold_us, burn_us;
static struct backend {
	int proc;
	CLIENT *clnt;
} backends[MAX_BACKENDS];
static int nbackends;

/* LOCKED's: the table and its flusher */
static pthread_mutex_t table = PTHREAD_MUTEX_INITIALIZER;
static sem_t flush_asked, flush_started;

static void die(const char *msg)
{
	fprintf(stderr, "diag-server: %s\n", msg);
	exit(1);
}

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/* An invocation that began at cpu0, wall0 ends; calls_ns in calls. */
static void done(const char *name, long long cpu0, long long wall0,
		 long long calls_ns)
{
	printf("%s tid %d cpu_us %lld wall_us %lld\n", name, (int)gettid(),
	       (diag_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 1000,
	       (diag_ns(CLOCK_MONOTONIC) - wall0 - calls_ns) / 1000);
}

static void *flusher(void *arg)
{
	for (;;) {
		while (sem_wait(&flush_asked))
			;
		pthread_mutex_lock(&table);
		sem_post(&flush_started);
		diag_sleep_us(hold_us); /* the slow section, lock held */
		pthread_mutex_unlock(&table);
	}
	return arg;
}

bool_t request_1_svc(int *n, int *res, struct svc_req *rq)
{
	long long cpu0 = diag_ns(CLOCK_THREAD_CPUTIME_ID),
		  wall0 = diag_ns(CLOCK_MONOTONIC), calls = 0;
	enum clnt_stat (*const stub[])(int *, int *, CLIENT *) = {
		[LOCKED] = locked_1, [WORK] = work_1, [FETCH] = fetch_1
	};

	(void)rq;
	diag_burn_us(1000);
	*res = *n;
	for (int i = 0; i < nbackends; i++) {
		long long t0 = diag_ns(CLOCK_MONOTONIC);
		int r = -1;

		if (stub[backends[i].proc](n, &r, backends[i].clnt) !=
			    RPC_SUCCESS ||
		    r != *n)
			*res = -1;
		t0 = diag_ns(CLOCK_MONOTONIC) - t0;
		printf("call %d ns %lld\n", i, t0);
		calls += t0;
	}
	done("request", cpu0, wall0, calls);
	return TRUE;
}

bool_t locked_1_svc(int *n, int *res, struct svc_req *rq)
{
	long long cpu0 = diag_ns(CLOCK_THREAD_CPUTIME_ID),
		  wall0 = diag_ns(CLOCK_MONOTONIC);

	(void)rq;
	sem_post(&flush_asked);
	while (sem_wait(&flush_started))
		;
	pthread_mutex_lock(&table); /* waits for the flush */
	diag_burn_us(1000);
	pthread_mutex_unlock(&table);
	*res = *n;
	done("locked", cpu0, wall0, 0);
	return TRUE;
}

bool_t work_1_svc(int *n, int *res, struct svc_req *rq)
{
	long long cpu0 = diag_ns(CLOCK_THREAD_CPUTIME_ID),
		  wall0 = diag_ns(CLOCK_MONOTONIC);

	(void)rq;
	diag_burn_us(burn_us);
	*res = *n;
	done("work", cpu0, wall0, 0);
	return TRUE;
}

bool_t fetch_1_svc(int *n, int *res, struct svc_req *rq)
{
	long long cpu0 = diag_ns(CLOCK_THREAD_CPUTIME_ID),
		  wall0 = diag_ns(CLOCK_MONOTONIC);

	(void)rq;
	*res = *n;
	done("fetch", cpu0, wall0, 0);
	return TRUE;
}

int diag_prog_1_freeresult(SVCXPRT *transp, xdrproc_t xdr_result,
			   caddr_t result)
{
	(void)transp;
	xdr_free(xdr_result, result);
	return 1;
}

/* -c NAME:PORT */
static void add_backend(const char *arg)
{
	static const char *const names[] = {
		[LOCKED] = "locked", [WORK] = "work", [FETCH] = "fetch"
	};
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const char *colon = strchr(arg, ':');
	int sock = RPC_ANYSOCK, proc = 0;
	struct timeval timeout = { 60, 0 };
	struct backend *b;

	for (int p = LOCKED; p <= FETCH; p++)
		if (colon && (size_t)(colon - arg) == strlen(names[p]) &&
		    !strncmp(arg, names[p], colon - arg))
			proc = p;
	if (!proc || atoi(colon + 1) <= 0 || nbackends == MAX_BACKENDS)
		die("-c takes NAME:PORT, NAME one of locked, work, fetch");
	sin.sin_port = htons(atoi(colon + 1));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	b = &backends[nbackends++];
	b->proc = proc;
	b->clnt = clnttcp_create(&sin, DIAG_PROG, DIAG_VERS, &sock, 0, 0);
	if (!b->clnt)
		die(clnt_spcreateerror("clnttcp_create"));
	clnt_control(b->clnt, CLSET_TIMEOUT, (char *)&timeout);
}

/* Serve svc_pollfd until SIGTERM. */
static void serve(void)
{
	struct pollfd pfd[256];

	while (!stopping) {
		int n = 0, r;

		for (int i = 0; i < svc_max_pollfd && n < 256; i++)
			if (svc_pollfd[i].fd >= 0) {
				pfd[n] = svc_pollfd[i];
				pfd[n++].revents = 0;
			}
		r = poll(pfd, n, 100);
		if (r < 0 && errno != EINTR)
			die("poll failed");
		if (r > 0)
			svc_getreq_poll(pfd, r);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	const char *ready = NULL;
	pthread_t th;
	SVCXPRT *t;
	int opt;

	while ((opt = getopt(argc, argv, "r:c:")) != -1) {
		if (opt == 'r')
			ready = optarg;
		else if (opt == 'c')
			add_backend(optarg);
		else
			die("usage: diag-server [-r READY] [-c NAME:PORT]...");
	}
	hold_us = diag_knob("DIAG_HOLD_US", 40000);
	burn_us = diag_knob("DIAG_BURN_US", 10000);
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (sem_init(&flush_asked, 0, 0) || sem_init(&flush_started, 0, 0) ||
	    pthread_create(&th, NULL, flusher, NULL))
		die("cannot start the flusher");
	t = svctcp_create(RPC_ANYSOCK, 0, 0);
	if (!t || !svc_register(t, DIAG_PROG, DIAG_VERS, diag_prog_1, 0))
		die("cannot serve over TCP");
	if (ready) {
		char tmp[4096];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
		f = fopen(tmp, "w");
		if (!f ||
		    fprintf(f, "pid %d\ntcp %d\n", (int)getpid(), t->xp_port) <
			    0 ||
		    fclose(f) || rename(tmp, ready))
			die("cannot write the ready file");
	}
	serve();
	return 0;
}
