/*
 * heap-demo - serves and calls HEAP_PROG (heap.x) for the heap memory
 * end-to-end suite (check-e2e-heap.c).
 *
 *   heap-demo serve -p PORT -r READY
 *   heap-demo call -P PORT [-a N] [-g FROM:TO] [-m ALIGN:N] [-G N] [-T N]
 *                  [-o] [-c PORT:N] [-b BYTES]
 *   heap-demo usable N...
 *   heap-demo fork BIG SMALL
 *
 * serve: one TCP transport on 127.0.0.1:PORT, not registered with
 * rpcbind, served by the main thread; a second thread, the reaper, frees
 * the blocks implementations give it and allocates those they take from
 * it.  READY gets "pid PID" once serving.  SIGTERM: exit 0.
 *
 * call: WORK on 127.0.0.1:PORT with the plan (heap.x): -a malloc+free of
 * N bytes, -g realloc growth, -m posix_memalign, -G a block given to the
 * server's reaper, -T a block taken from it, -o one of each other
 * allocation function, -c a CHILD call to PORT allocating N bytes.
 * -b: first allocate BYTES (a block kept over the call, freed after), the
 * peak heap of this process.  Prints "work alloc A freed F child_alloc
 * CA child_freed CF" (as the implementations measured with
 * malloc_usable_size) and "big usable U".
 *
 * usable: malloc_usable_size() of a block of each N bytes, on one line.
 * fork: allocates and frees BIG bytes, forks; the child allocates and
 * frees SMALL bytes.  Prints "fork child PID".
 */
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "demo-common.h"
#include "heap.h"

void heap_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

/* ---- the reaper: the other thread of a cross-thread free ---------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static void *given;	 /* for the reaper to free */
static size_t take_size; /* for the reaper to allocate */
static void *taken;	 /* what it allocated */

static void *reaper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!given && !take_size)
			pthread_cond_wait(&cond, &lock);
		if (given) {
			free(given);
			given = NULL;
		}
		if (take_size) {
			taken = malloc(take_size);
			memset(taken, 1, take_size);
			take_size = 0;
		}
		pthread_cond_broadcast(&cond);
	}
	return NULL;
}

static void give(void *p)
{
	pthread_mutex_lock(&lock);
	given = p;
	pthread_cond_broadcast(&cond);
	while (given)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void *take(size_t n)
{
	void *p;

	pthread_mutex_lock(&lock);
	take_size = n;
	pthread_cond_broadcast(&cond);
	while (take_size)
		pthread_cond_wait(&cond, &lock);
	p = taken;
	taken = NULL;
	pthread_mutex_unlock(&lock);
	return p;
}

/* ---- the implementations ------------------------------------------------ */

static CLIENT *child_clnt;
static int child_clnt_port;

static CLIENT *connect_tcp(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int sock = RPC_ANYSOCK;

	return clnttcp_create(&sin, HEAP_PROG, HEAP_VERS, &sock, 0, 0);
}

/* What the tracer counts of p: its usable size. */
static unsigned long long use(void *p, unsigned long long *sum)
{
	unsigned long long n = p ? malloc_usable_size(p) : 0;

	*sum += n;
	return n;
}

static void touch(void *p, size_t n)
{
	if (p && n)
		memset(p, 0x5a, n);
}

static void work(const heap_plan *pl, heap_got *got)
{
	unsigned long long a = 0, f = 0;
	void *p, *q;

	memset(got, 0, sizeof(*got));
	if (pl->alloc) {
		p = malloc(pl->alloc);
		touch(p, pl->alloc);
		use(p, &a);
		use(p, &f);
		free(p);
	}
	if (pl->grow_from) {
		p = malloc(pl->grow_from);
		touch(p, pl->grow_from);
		use(p, &a);
		use(p, &f); /* realloc frees the old block ... */
		q = realloc(p, pl->grow_to);
		use(q, &a); /* ... and allocates the new one */
		touch(q, pl->grow_to);
		use(q, &f);
		free(q);
	}
	if (pl->align) {
		if (posix_memalign(&p, pl->align, pl->aligned))
			p = NULL;
		touch(p, pl->aligned);
		use(p, &a);
		use(p, &f);
		free(p);
	}
	if (pl->others) {
		void *v[6] = {
			calloc(3, 100),		reallocarray(NULL, 4, 50),
			aligned_alloc(64, 256), memalign(128, 300),
			valloc(1000),		pvalloc(5000)
		};

		for (int i = 0; i < 6; i++) {
			use(v[i], &a);
			use(v[i], &f);
			free(v[i]);
		}
	}
	if (pl->give) {
		p = malloc(pl->give);
		touch(p, pl->give);
		use(p, &a);
		give(p); /* freed by the reaper: not this thread's */
	}
	if (pl->take) {
		p = take(pl->take); /* allocated by the reaper */
		use(p, &f);
		free(p);
	}
	if (pl->child_port > 0) {
		heap_plan cp = { .alloc = pl->child_alloc };
		heap_got cg;

		if (!child_clnt || child_clnt_port != pl->child_port) {
			/* made before the call would count it: not here */
			fprintf(stderr, "heap-demo: no client for port %d\n",
				pl->child_port);
			exit(1);
		}
		memset(&cg, 0, sizeof(cg));
		if (child_1(&cp, &cg, child_clnt) != RPC_SUCCESS) {
			clnt_perror(child_clnt, "heap-demo: CHILD");
			exit(1);
		}
		got->child_alloc = cg.alloc + cg.child_alloc;
		got->child_freed = cg.freed + cg.child_freed;
	}
	got->alloc = a;
	got->freed = f;
}

bool_t work_1_svc(heap_plan *pl, heap_got *got, struct svc_req *rq)
{
	(void)rq;
	work(pl, got);
	return TRUE;
}

bool_t child_1_svc(heap_plan *pl, heap_got *got, struct svc_req *rq)
{
	(void)rq;
	work(pl, got);
	return TRUE;
}

int heap_prog_1_freeresult(SVCXPRT *transp, xdrproc_t xres, caddr_t res)
{
	(void)transp;
	xdr_free(xres, res);
	return 1;
}

/* ---- serve --------------------------------------------------------------- */

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static int serve(int port, const char *ready, int child_port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, sock = socket(AF_INET, SOCK_STREAM, 0);
	pthread_t th;
	SVCXPRT *x;
	char text[64];

	if (sock < 0 ||
	    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(sock, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(sock, 16)) {
		perror("heap-demo: socket");
		return 1;
	}
	x = svctcp_create(sock, 0, 0);
	if (!x || !svc_register(x, HEAP_PROG, HEAP_VERS, heap_prog_1, 0)) {
		fprintf(stderr, "heap-demo: cannot serve\n");
		return 1;
	}
	if (child_port > 0) {
		child_clnt = connect_tcp(child_port);
		child_clnt_port = child_port;
		if (!child_clnt) {
			clnt_pcreateerror("heap-demo: child");
			return 1;
		}
	}
	pthread_create(&th, NULL, reaper, NULL);
	snprintf(text, sizeof(text), "pid %d\n", (int)getpid());
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f || fputs(text, f) == EOF || fclose(f)) {
			perror("heap-demo: ready file");
			return 1;
		}
	}
	while (!stopping) {
		int n = poll(svc_pollfd, (nfds_t)svc_max_pollfd, 100);

		if (n > 0)
			svc_getreq_poll(svc_pollfd, n);
	}
	return 0;
}

/* ---- call ---------------------------------------------------------------- */

static unsigned parse_u(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end && *end != ':') {
		fprintf(stderr, "heap-demo: bad number '%s'\n", s);
		exit(2);
	}
	return (unsigned)v;
}

static unsigned after_colon(const char *s)
{
	const char *c = strchr(s, ':');

	if (!c) {
		fprintf(stderr, "heap-demo: expected A:B, not '%s'\n", s);
		exit(2);
	}
	return parse_u(c + 1);
}

int main(int argc, char **argv)
{
	heap_plan pl;
	heap_got got;
	int opt, port = 0, child_port = 0;
	const char *ready = NULL;
	size_t big = 0;
	void *bigp = NULL;
	CLIENT *cl;

	if (argc == 4 && !strcmp(argv[1], "fork")) {
		/* a peak in the parent before the fork; a smaller one in the
		 * child; "fork child PID" */
		size_t before = parse_u(argv[2]), after = parse_u(argv[3]);
		void *p = malloc(before);
		int status;
		pid_t pid;

		touch(p, before);
		free(p);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			p = malloc(after);
			touch(p, after);
			free(p);
			exit(0);
		}
		printf("fork child %d\n", (int)pid);
		return pid > 0 && waitpid(pid, &status, 0) == pid &&
				       WIFEXITED(status) && !WEXITSTATUS(status)
			       ? 0
			       : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "usable")) {
		/* what this program's allocator gives: the tests' expectations
		 * (a sanitized test's own malloc is not this one) */
		for (int i = 2; i < argc; i++) {
			void *p = malloc(parse_u(argv[i]));

			printf("%s%zu", i > 2 ? " " : "",
			       malloc_usable_size(p));
			free(p);
		}
		putchar('\n');
		return 0;
	}
	if (argc < 2 || (strcmp(argv[1], "serve") && strcmp(argv[1], "call"))) {
		fprintf(stderr, "usage: heap-demo serve|call|usable OPTIONS\n");
		return 2;
	}
	memset(&pl, 0, sizeof(pl));
	optind = 2;
	while ((opt = getopt(argc, argv, "p:r:n:P:a:g:m:G:T:oc:b:")) != -1) {
		switch (opt) {
		case 'p':
			port = (int)parse_u(optarg);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'n':
			child_port = (int)parse_u(optarg);
			break;
		case 'P':
			port = (int)parse_u(optarg);
			break;
		case 'a':
			pl.alloc = parse_u(optarg);
			break;
		case 'g':
			pl.grow_from = parse_u(optarg);
			pl.grow_to = after_colon(optarg);
			break;
		case 'm':
			pl.align = parse_u(optarg);
			pl.aligned = after_colon(optarg);
			break;
		case 'G':
			pl.give = parse_u(optarg);
			break;
		case 'T':
			pl.take = parse_u(optarg);
			break;
		case 'o':
			pl.others = 1;
			break;
		case 'c':
			pl.child_port = (int)parse_u(optarg);
			pl.child_alloc = after_colon(optarg);
			break;
		case 'b':
			big = parse_u(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!strcmp(argv[1], "serve")) {
		struct sigaction sa = { .sa_handler = on_term };

		sigaction(SIGTERM, &sa, NULL);
		return serve(port, ready, child_port);
	}
	if (big) {
		bigp = malloc(big);
		touch(bigp, big);
		printf("big usable %zu\n", malloc_usable_size(bigp));
	}
	cl = connect_tcp(port);
	if (!cl) {
		clnt_pcreateerror("heap-demo: connect");
		return 1;
	}
	memset(&got, 0, sizeof(got));
	if (work_1(&pl, &got, cl) != RPC_SUCCESS) {
		clnt_perror(cl, "heap-demo: WORK");
		return 1;
	}
	printf("work alloc %llu freed %llu child_alloc %llu child_freed %llu\n",
	       (unsigned long long)got.alloc, (unsigned long long)got.freed,
	       (unsigned long long)got.child_alloc,
	       (unsigned long long)got.child_freed);
	clnt_destroy(cl);
	free(bigp);
	return 0;
}
