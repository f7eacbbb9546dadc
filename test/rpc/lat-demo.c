/*
 * lat-demo - serves and calls LAT_PROG (lat.x) for the latency
 * end-to-end suite (check-e2e-latency.c).
 *
 *   lat-demo -r READY [-n PORT]
 *   lat-demo -P PORT [-c CALLS] [-b US] [-s US] [-d DEPTH] [-f FANOUT]
 *            [-t MS] [-T MS]
 *
 * Without -P it serves: one TCP transport on a free port of 127.0.0.1, not
 * registered with rpcbind, served by the main thread.  READY gets "pid PID\ntcp
 * PORT\nudp 0\n" once serving (demo-server's ready file).  -n: the next
 * hop's TCP port, connected to before serving.  Each procedure burns
 * burn_us of CPU, sleeps sleep_us, then, depth > 0, calls the next hop
 * fanout times (WORK_A, WORK_B, WORK_C in turn, with depth - 1).
 * SIGTERM: exit 0; SIGPIPE ignored (a reply to a client that left).
 *
 * With -P it calls: CALLS calls (default 1) to 127.0.0.1:PORT, WORK_A, WORK_B,
 * WORK_C in turn, of the request -b -s -d -f, with a timeout of -t MS
 * (default 60 s); -T the timeout of the calls below (0: 60 s).  Exits 0
 * whatever the calls' outcome.
 *
 * What the programs measure themselves goes to stdout, a line each, in
 * the order it happened on each thread:
 *   call pid P tid T ns W status S   the wall time around one stub call
 *                                    (CLOCK_MONOTONIC), client or server
 *   start pid P tid T                a procedure began
 *   serve pid P tid T own_ns O       it ended: O the wall time of its own
 *                                    burn and sleep, its calls apart
 */
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#include "demo-common.h"
#include "lat.h"

void lat_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

static CLIENT *next_clnt;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static CLIENT *connect_tcp(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int sock = RPC_ANYSOCK;

	return clnttcp_create(&sin, LAT_PROG, LAT_VERS, &sock, 0, 0);
}

/* Call k of a sequence (its stub: k % 3, a call site each), measured. */
static int call_one(CLIENT *cl, int k, work_req *req, int timeout_ms)
{
	struct timeval tv = { 60, 0 };
	enum clnt_stat st;
	long long t0;
	int res = -1;

	if (timeout_ms > 0) {
		tv.tv_sec = timeout_ms / 1000;
		tv.tv_usec = (timeout_ms % 1000) * 1000;
	}
	clnt_control(cl, CLSET_TIMEOUT, (char *)&tv);
	t0 = now_ns();
	switch (k % 3) {
	case 0:
		st = work_a_1(req, &res, cl);
		break;
	case 1:
		st = work_b_1(req, &res, cl);
		break;
	default:
		st = work_c_1(req, &res, cl);
		break;
	}
	printf("call pid %d tid %d ns %lld status %s\n", (int)getpid(),
	       demo_gettid(), now_ns() - t0, demo_stat_name(st));
	return st == RPC_SUCCESS ? res : 0;
}

static bool_t work(work_req *req, int *result)
{
	long long t0 = now_ns(), own;
	struct timespec nap = { req->sleep_us / 1000000,
				(req->sleep_us % 1000000) * 1000L };
	int made = 0;

	printf("start pid %d tid %d\n", (int)getpid(), demo_gettid());
	demo_burn_us(req->burn_us);
	while (nanosleep(&nap, &nap) && errno == EINTR)
		;
	own = now_ns() - t0;
	if (req->depth > 0 && next_clnt) {
		work_req down = *req;

		down.depth--;
		for (int k = 0; k < req->fanout; k++)
			made += 1 + call_one(next_clnt, k, &down,
					     req->next_timeout_ms);
	}
	printf("serve pid %d tid %d own_ns %lld\n", (int)getpid(),
	       demo_gettid(), own);
	*result = made;
	return TRUE;
}

bool_t work_a_1_svc(work_req *req, int *result, struct svc_req *rq)
{
	(void)rq;
	return work(req, result);
}

bool_t work_b_1_svc(work_req *req, int *result, struct svc_req *rq)
{
	(void)rq;
	return work(req, result);
}

bool_t work_c_1_svc(work_req *req, int *result, struct svc_req *rq)
{
	(void)rq;
	return work(req, result);
}

int lat_prog_1_freeresult(SVCXPRT *transp, xdrproc_t xres, caddr_t res)
{
	(void)transp;
	xdr_free(xres, res);
	return 1;
}

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static int serve(const char *ready, int next_port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int sock = socket(AF_INET, SOCK_STREAM, 0);
	SVCXPRT *x;
	FILE *f;

	if (sock < 0 || bind(sock, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(sock, 16) ||
	    getsockname(sock, (struct sockaddr *)&sin, &len)) {
		perror("lat-demo: socket");
		return 1;
	}
	x = svctcp_create(sock, 0, 0);
	if (!x || !svc_register(x, LAT_PROG, LAT_VERS, lat_prog_1, 0)) {
		fprintf(stderr, "lat-demo: cannot serve\n");
		return 1;
	}
	if (next_port > 0 && !(next_clnt = connect_tcp(next_port))) {
		clnt_pcreateerror("lat-demo: next hop");
		return 1;
	}
	signal(SIGTERM, on_term);
	/* a reply to a client that gave up and left is not our end */
	signal(SIGPIPE, SIG_IGN);
	if (ready) { /* whole when it appears: written aside, renamed */
		char tmp[4096];

		snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
		f = fopen(tmp, "w");
		if (!f ||
		    fprintf(f, "pid %d\ntcp %d\nudp 0\n", (int)getpid(),
			    ntohs(sin.sin_port)) < 0 ||
		    fclose(f) || rename(tmp, ready)) {
			perror("lat-demo: ready file");
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

static int number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0 || v > 100000000) {
		fprintf(stderr, "lat-demo: bad number '%s'\n", s);
		exit(2);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	work_req req = { .burn_us = 0 };
	int opt, port = 0, next_port = 0, calls = 1, timeout_ms = 0;
	const char *ready = NULL;
	CLIENT *cl;

	setvbuf(stdout, NULL, _IOLBF, 0); /* a killed server's lines too */
	while ((opt = getopt(argc, argv, "r:n:P:c:b:s:d:f:t:T:")) != -1) {
		switch (opt) {
		case 'r':
			ready = optarg;
			break;
		case 'n':
			next_port = number(optarg);
			break;
		case 'P':
			port = number(optarg);
			break;
		case 'c':
			calls = number(optarg);
			break;
		case 'b':
			req.burn_us = number(optarg);
			break;
		case 's':
			req.sleep_us = number(optarg);
			break;
		case 'd':
			req.depth = number(optarg);
			break;
		case 'f':
			req.fanout = number(optarg);
			break;
		case 't':
			timeout_ms = number(optarg);
			break;
		case 'T':
			req.next_timeout_ms = number(optarg);
			break;
		default:
			fprintf(stderr, "usage: lat-demo -r READY [-n PORT] | "
					"-P PORT [-cbsdftT N]\n");
			return 2;
		}
	}
	if (!port)
		return serve(ready, next_port);
	if (!(cl = connect_tcp(port))) {
		clnt_pcreateerror("lat-demo: call");
		return 1;
	}
	for (int k = 0; k < calls; k++)
		call_one(cl, k, &req, timeout_ms);
	clnt_destroy(cl);
	return 0;
}
