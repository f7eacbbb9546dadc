/*
 * site-calls - Sun RPC calls from many distinct call sites, through
 * memory (clnt_raw to svc_raw in this process, one thread, no kernel):
 * what the first call of each site costs against its later ones
 * (test/bench/bench-sites.sh), and what it does inside the probes (the
 * suite e2e-sites).
 *
 *   site-calls [-n SITES] [-r ROUNDS] [-w CALLS] [-p] [-m] [-f]
 *
 * -w: CALLS calls first from a site of their own (unreported), so that
 * what every first call of a process meets (a thread buffer's pages
 * touched the first time, cold caches) is behind.  Then round 0 makes
 * the first call of every site, rounds 1.. the later ones, the sites in
 * turn; each call timed on the monotonic clock.  -p: one call from every
 * site before all that, so that round 0 makes each site's second call,
 * in the same place (what a first call is compared with).  Prints one
 * line per site, "site I first_ns F later_ns L" (L the median of its
 * later calls), then "lookups N": how many times the calling thread
 * called dladdr, dladdr1 or dl_iterate_phdr inside the calls (this
 * program defines them, ahead of libc, so every such call in the
 * process comes here first; the call sites' function names are looked
 * up by nothing else).  -m: each first call is marked for strace,
 * write(-1, "begin I") before it and write(-1, "end I") after it
 * (EBADF: nothing is written).  -f: then fork, and the child calls each
 * site once more ("child status S", its wait status, from the parent).
 * Exit status 0 when every call succeeded.
 */
#include <dlfcn.h>
#include <link.h>
#include <rpc/rpc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG 0x20000c9a
#define VERS 1
#define ADD_ONE 1
#define MAX_SITES 32
#define MAX_ROUNDS 1000

static const struct timeval tmo = { 5, 0 };

/* ---- what the process looks up by address ------------------------------- */

static __thread int in_call; /* the calling thread is inside a call */
static long lookups;

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

int dladdr(const void *addr, Dl_info *info)
{
	lookups += in_call;
	return REAL(dladdr)(addr, info);
}

int dladdr1(const void *addr, Dl_info *info, void **extra, int flags)
{
	lookups += in_call;
	return REAL(dladdr1)(addr, info, extra, flags);
}

int dl_iterate_phdr(int (*fn)(struct dl_phdr_info *, size_t, void *),
		    void *data)
{
	lookups += in_call;
	return REAL(dl_iterate_phdr)(fn, data);
}

/* ---- the server: x -> x + 1 --------------------------------------------- */

static void dispatch(struct svc_req *rq, SVCXPRT *x)
{
	int a = 0, r;

	if (rq->rq_proc == NULLPROC) {
		svc_sendreply(x, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		return;
	}
	if (rq->rq_proc != ADD_ONE) {
		svcerr_noproc(x);
		return;
	}
	if (!svc_getargs(x, (xdrproc_t)xdr_int, (char *)&a)) {
		svcerr_decode(x);
		return;
	}
	r = a + 1;
	svc_sendreply(x, (xdrproc_t)xdr_int, (char *)&r);
}

/* ---- the call sites --------------------------------------------------- */

/*
 * Each its own function, so each clnt_call returns to an address of its
 * own: site<N>_call (the constants keep the compiler from folding them
 * into one, the use of y after the call from making it a jump).
 */
#define SITE(n)                                                                \
	__attribute__((noinline)) static int site##n##_call(CLIENT *c, int x)  \
	{                                                                      \
		int y = 0, a = x + n;                                          \
		if (clnt_call(c, ADD_ONE, (xdrproc_t)xdr_int, (char *)&a,      \
			      (xdrproc_t)xdr_int, (char *)&y,                  \
			      tmo) != RPC_SUCCESS)                             \
			return -1;                                             \
		return y - n;                                                  \
	}
/* clang-format off */
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
SITE(8) SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15)
SITE(16) SITE(17) SITE(18) SITE(19) SITE(20) SITE(21) SITE(22) SITE(23)
SITE(24) SITE(25) SITE(26) SITE(27) SITE(28) SITE(29) SITE(30) SITE(31)
SITE(99)

static int (*const sites[MAX_SITES])(CLIENT *, int) = {
	site0_call,  site1_call,  site2_call,  site3_call,  site4_call,
	site5_call,  site6_call,  site7_call,  site8_call,  site9_call,
	site10_call, site11_call, site12_call, site13_call, site14_call,
	site15_call, site16_call, site17_call, site18_call, site19_call,
	site20_call, site21_call, site22_call, site23_call, site24_call,
	site25_call, site26_call, site27_call, site28_call, site29_call,
	site30_call, site31_call,
};
/* clang-format on */

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void mark(const char *what, int site)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%s %d", what, site);

	if (write(-1, buf, (size_t)n) != -1)
		abort();
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static long long took[MAX_SITES][MAX_ROUNDS];

int main(int argc, char **argv)
{
	int nsites = 16, rounds = 20, warm = 0, marks = 0, fork_too = 0,
	    bad = 0;
	int known = 0, opt;
	SVCXPRT *x;
	CLIENT *c;

	while ((opt = getopt(argc, argv, "n:r:w:pmf")) != -1) {
		if (opt == 'n')
			nsites = atoi(optarg);
		else if (opt == 'w')
			warm = atoi(optarg);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'm')
			marks = 1;
		else if (opt == 'f')
			fork_too = 1;
		else if (opt == 'p')
			known = 1;
		else
			return 2;
	}
	if (nsites < 1 || nsites > MAX_SITES || rounds < 2 ||
	    rounds > MAX_ROUNDS) {
		fprintf(stderr, "site-calls: -n 1..%d, -r 2..%d\n", MAX_SITES,
			MAX_ROUNDS);
		return 2;
	}
	x = svc_raw_create();
	if (!x || !svc_register(x, PROG, VERS, dispatch, 0)) {
		fprintf(stderr, "site-calls: svc_raw_create/svc_register\n");
		return 1;
	}
	c = clnt_raw_create(PROG, VERS);
	if (!c) {
		clnt_pcreateerror("site-calls: clnt_raw_create");
		return 1;
	}
	for (int s = 0; known && s < nsites; s++)
		bad += sites[s](c, 0) != 1;
	for (int i = 0; i < warm; i++)
		bad += site99_call(c, i) != i + 1;
	for (int r = 0; r < rounds; r++)
		for (int s = 0; s < nsites; s++) {
			long long t0;
			int y;

			if (marks && !r)
				mark("begin", s);
			in_call = 1;
			t0 = now_ns();
			y = sites[s](c, r);
			took[s][r] = now_ns() - t0;
			in_call = 0;
			if (marks && !r)
				mark("end", s);
			bad += y != r + 1;
		}
	for (int s = 0; s < nsites; s++) {
		qsort(&took[s][1], (size_t)rounds - 1, sizeof(took[s][1]),
		      cmp_ll);
		printf("site %d first_ns %lld later_ns %lld\n", s, took[s][0],
		       took[s][1 + (rounds - 1) / 2]);
	}
	printf("lookups %ld\n", lookups);
	fflush(stdout);
	if (fork_too) {
		int status = -1;
		pid_t pid = fork();

		if (pid == 0) {
			for (int s = 0; s < nsites; s++)
				bad += sites[s](c, 7) != 8;
			exit(bad ? 1 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			bad++;
		printf("child status %d\n", status);
	}
	clnt_destroy(c);
	return bad ? 1 : 0;
}
