/*
 * demo-server - serves DEMO_PROG (demo.x) through rpcgen's dispatch
 * function demo_prog_1(), for the RPC end-to-end suites and benchmark.
 *
 *   demo-server [-m MODE] [-b N] [-r READY] [-n PORT] [-u PATH] [-1] [-y]
 *
 * -m  how the service is created and registered (default svc_register):
 *     svc_register       svctcp_create + svcudp_create, svc_register(.., 0)
 *                        (no rpcbind); one serving thread per transport
 *     svc_register_pmap  the same, registered with the portmapper
 *                        (svc_register(.., IPPROTO_TCP / IPPROTO_UDP))
 *     svc_create         svc_create(.., "netpath"), rpcbind
 *     svc_tp_create      svc_tp_create on "tcp", rpcbind
 *     svc_tli_create     svc_tli_create on "udp" + svc_reg(.., nconf), rpcbind
 *     svc_vc_create      own TCP socket, svc_vc_create + svc_reg(.., NULL)
 *     svc_dg_create      own UDP socket, svc_dg_create + svc_reg(.., NULL)
 *     unix               svcunix_create on -u PATH + svc_register(.., 0)
 *     raw                svc_raw_create + svc_register(.., 0), then calls
 *                        itself through clnt_raw_create in this process:
 *                        SAY_IT(41) and FILL(100, 50), prints
 *                        "raw say 41 = Y status S" and "raw fill ok K
 *                        status S", and exits (no ready file: nothing
 *                        to wait for)
 * -b  with -m raw: then N calls of the null procedure and N of SAY_IT
 *     through memory (no kernel, no network: what the probes add per
 *     call, client and server side in one thread), printing each loop's
 *     process CPU: "rawbench null calls N cpu_ns C failed F"
 * -r  written once serving: "pid PID\ntcp PORT\nudp PORT\n" (0: not served
 *     or only known to rpcbind)
 * -n  TCP port on 127.0.0.1 of the next hop, for BURN and SPAWN
 * -1  one serving thread even in svc_register mode (the benchmark)
 * -y  BURN ends with a 1 us sleep: its thread is switched out and in
 *     before the skeleton ends (the bpf clock's test reads a fresh slot)
 * -d  a BURN of 1000 us or more then sleeps MS ms, after its next hop
 *     replied (a planted slow call: tail keep's test)
 *
 * libtirpc has no multithreaded server mode, so in svc_register mode each
 * transport gets its own thread polling only its own descriptors with
 * svc_getreq_poll(): an implementation serving a TCP call can then call
 * this very server over UDP (RECURSE) without deadlock.
 *
 * Facts for the tests go to stdout, one line each: "burn tid T us U cpu0
 * C0 cpu1 C1" (the thread's CPU clock before and after the burn),
 * "spawn tid T", "recurse tid T x X", "sleeping MS".  On SIGTERM the server
 * finishes the request at hand, unregisters, prints "cpu_ns N" (its
 * process CPU) and exits 0.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "demo-common.h"
#include "demo.h"
#include "democb.h"

/* rpcgen's dispatch function (demo_svc.c); its header does not say so */
void demo_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

static volatile sig_atomic_t stopping;
static int tcp_port, udp_port, next_port, burn_sleeps, slow_ms;
static int udp_fd = -1; /* the UDP transport's, svc_register mode */

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/*
 * A client handle per serving thread and target: implementations of
 * different threads call out at the same time.
 */
static CLIENT *tcp_client(int port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(port)};
	int sock = RPC_ANYSOCK;
	CLIENT *c;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c = clnttcp_create(&sin, DEMO_PROG, DEMO_VERS, &sock, 0, 0);
	if (!c)
		clnt_pcreateerror("demo-server: clnttcp_create");
	return c;
}

static CLIENT *udp_client(int port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(port)};
	struct timeval wait = {1, 0};
	int sock = RPC_ANYSOCK;
	CLIENT *c;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c = clntudp_create(&sin, DEMO_PROG, DEMO_VERS, wait, &sock);
	if (!c)
		clnt_pcreateerror("demo-server: clntudp_create");
	return c;
}

static __thread CLIENT *next_clnt, *self_tcp, *self_udp;

bool_t demo_null_1_svc(void *argp, void *result, struct svc_req *rq)
{
	(void)argp, (void)result, (void)rq;
	return TRUE;
}

bool_t say_it_1_svc(int *x, int *result, struct svc_req *rq)
{
	(void)rq;
	*result = *x + 1;
	return TRUE;
}

bool_t twice_1_svc(int *x, int *result, struct svc_req *rq)
{
	(void)rq;
	*result = 2 * *x;
	return TRUE;
}

bool_t burn_1_svc(int *us, int *result, struct svc_req *rq)
{
	long long cpu0 = demo_thread_cpu_ns(), cpu1;
	int hops = 0;

	(void)rq;
	demo_burn_us(*us);
	cpu1 = demo_thread_cpu_ns();
	/* the thread's own CPU clock around the burn, for the bpf clock's
	 * test to compare the skeleton's readings with */
	printf("burn tid %d us %d cpu0 %lld cpu1 %lld\n", demo_gettid(), *us,
	       cpu0, cpu1);
	if (burn_sleeps)
		usleep(1);
	*result = 1;
	if (!next_port) {
		if (slow_ms && *us >= 1000)
			usleep((useconds_t)slow_ms * 1000);
		return TRUE;
	}
	if (!next_clnt)
		next_clnt = tcp_client(next_port);
	if (!next_clnt || burn_1(us, &hops, next_clnt) != RPC_SUCCESS)
		*result = -1;
	else
		*result = 1 + hops;
	if (slow_ms && *us >= 1000)
		usleep((useconds_t)slow_ms * 1000);
	return TRUE;
}

bool_t sleep_ms_1_svc(int *ms, int *result, struct svc_req *rq)
{
	struct timespec ts = {*ms / 1000, (*ms % 1000) * 1000000L};

	(void)rq;
	printf("sleeping %d\n", *ms);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	*result = *ms;
	return TRUE;
}

/* SPAWN: n SAY_IT calls to the next hop from a thread of their own. */
static void *spawned(void *arg)
{
	int n = *(int *)arg, sum = 0;
	CLIENT *c;

	printf("spawn tid %d\n", demo_gettid());
	c = tcp_client(next_port);
	for (int i = 0; c && i < n; i++) {
		int r;

		if (say_it_1(&i, &r, c) != RPC_SUCCESS) {
			sum = -1;
			break;
		}
		sum += r;
	}
	if (c)
		clnt_destroy(c);
	*(int *)arg = c ? sum : -1;
	return NULL;
}

bool_t spawn_1_svc(int *n, int *result, struct svc_req *rq)
{
	pthread_t th;
	int v = *n;

	(void)rq;
	*result = -1;
	if (!next_port || pthread_create(&th, NULL, spawned, &v))
		return TRUE;
	pthread_join(th, NULL);
	*result = v;
	return TRUE;
}

/* RECURSE: over the other transport of this very server. */
bool_t recurse_1_svc(int *x, int *result, struct svc_req *rq)
{
	int over_udp = rq->rq_xprt->xp_fd == udp_fd, down = *x - 1, r;
	CLIENT **c = over_udp ? &self_tcp : &self_udp;

	printf("recurse tid %d x %d\n", demo_gettid(), *x);
	*result = *x;
	if (*x <= 0)
		return TRUE;
	if (!*c)
		*c = over_udp ? tcp_client(tcp_port) : udp_client(udp_port);
	if (!*c || recurse_1(&down, &r, *c) != RPC_SUCCESS)
		*result = -1;
	else
		*result = *x + r;
	return TRUE;
}

/* CALLBACK: NOTIFY on the caller's own DEMOCB_PROG. */
bool_t callback_1_svc(cb_req *req, int *result, struct svc_req *rq)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(req->port)};
	int sock = RPC_ANYSOCK;
	CLIENT *c;

	(void)rq;
	*result = -1;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c = clnttcp_create(&sin, DEMOCB_PROG, DEMOCB_VERS, &sock, 0, 0);
	if (!c)
		return TRUE;
	if (notify_1(&req->value, result, c) != RPC_SUCCESS)
		*result = -1;
	clnt_destroy(c);
	return TRUE;
}

bool_t cpu_ns_1_svc(void *argp, quad_t *result, struct svc_req *rq)
{
	(void)argp, (void)rq;
	*result = demo_process_cpu_ns();
	return TRUE;
}

/* ADD / TOTAL: calls of one TCP connection are served in order, by one
 * thread; a sum across clients is the test's business */
static int add_sum;

bool_t add_1_svc(int *x, void *result, struct svc_req *rq)
{
	(void)result, (void)rq;
	add_sum += *x;
	return FALSE; /* no reply: what a batched call expects */
}

bool_t total_1_svc(void *argp, int *result, struct svc_req *rq)
{
	(void)argp, (void)rq;
	*result = add_sum;
	add_sum = 0;
	return TRUE;
}

bool_t fill_1_svc(fill_req *req, blob *result, struct svc_req *rq)
{
	unsigned sum = 0;

	(void)rq;
	for (u_int i = 0; i < req->data.blob_len; i++)
		sum += (unsigned char)req->data.blob_val[i];
	result->blob_len = req->reply_len > 0 ? (u_int)req->reply_len : 0;
	result->blob_val = malloc(result->blob_len + 1);
	if (!result->blob_val)
		return FALSE;
	for (u_int i = 0; i < result->blob_len; i++)
		result->blob_val[i] = (char)(i + sum);
	return TRUE;
}

int demo_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xdr_result, caddr_t result)
{
	(void)xprt;
	xdr_free(xdr_result, result);
	return 1;
}

/*
 * Serve the descriptors of svc_pollfd that `mine` accepts until SIGTERM.
 * Only the thread serving TCP ever adds or removes descriptors (accept,
 * close), so it may read svc_pollfd while the UDP thread polls its own.
 */
static void serve(int (*mine)(int fd))
{
	struct pollfd pfd[256];

	while (!stopping) {
		int n = 0, r;

		for (int i = 0; i < svc_max_pollfd && n < 256; i++)
			if (svc_pollfd[i].fd >= 0 && mine(svc_pollfd[i].fd)) {
				pfd[n] = svc_pollfd[i];
				pfd[n++].revents = 0;
			}
		r = poll(pfd, n, 100);
		if (r < 0 && errno != EINTR)
			demo_die("demo-server: poll: %s", strerror(errno));
		if (r > 0)
			svc_getreq_poll(pfd, r);
	}
}

static int any_fd(int fd) { return fd >= 0; }
static int udp_only(int fd) { return fd == udp_fd; }
static int not_udp(int fd) { return fd != udp_fd; }

static void *serve_udp(void *arg)
{
	serve(udp_only);
	return arg;
}

static int local_port(int fd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (getsockname(fd, (struct sockaddr *)&sin, &len) ||
	    sin.sin_family != AF_INET)
		return 0;
	return ntohs(sin.sin_port);
}

static int loopback_socket(int type)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	int fd = socket(AF_INET, type, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    (type == SOCK_STREAM && listen(fd, 64)))
		demo_die("demo-server: socket: %s", strerror(errno));
	return fd;
}

static struct netconfig *netconf(const char *netid)
{
	struct netconfig *nc = getnetconfigent(netid);

	if (!nc)
		demo_die("demo-server: no netconfig '%s'", netid);
	return nc;
}

static long long process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * -m rawbench: n calls of kind through the raw handle; the process's CPU
 * (the tracer's writer thread included) around the loop.  0 or -1.
 */
static int raw_bench(const char *kind, CLIENT *c, int n)
{
	long long cpu0 = process_cpu_ns();
	int bad = 0;

	for (int i = 0; i < n; i++) {
		int x = i, y = 0;

		if (!strcmp(kind, "null"))
			bad += demo_null_1(NULL, NULL, c) != RPC_SUCCESS;
		else
			bad += say_it_1(&x, &y, c) != RPC_SUCCESS || y != x + 1;
	}
	printf("rawbench %s calls %d cpu_ns %lld failed %d\n", kind, n,
	       process_cpu_ns() - cpu0, bad);
	return bad ? -1 : 0;
}

/* -m raw: serve and call in this very process, through memory. */
static int run_raw(int bench_calls)
{
	SVCXPRT *x = svc_raw_create();
	fill_req req = {{100, NULL}, 50};
	blob res = {0, NULL};
	enum clnt_stat s1, s2;
	CLIENT *c;
	int y = 0, ok;
	unsigned sum = 0;

	if (!x || !svc_register(x, DEMO_PROG, DEMO_VERS, demo_prog_1, 0))
		demo_die("demo-server: svc_raw_create/svc_register failed");
	c = clnt_raw_create(DEMO_PROG, DEMO_VERS);
	if (!c) {
		clnt_pcreateerror("demo-server: clnt_raw_create");
		return 1;
	}
	{
		int x41 = 41;

		s1 = say_it_1(&x41, &y, c);
	}
	printf("raw say 41 = %d status %s\n", y, demo_stat_name(s1));
	req.data.blob_val = calloc(1, 100);
	for (int i = 0; i < 100; i++) {
		req.data.blob_val[i] = (char)i;
		sum += i;
	}
	s2 = fill_1(&req, &res, c);
	ok = s2 == RPC_SUCCESS && res.blob_len == 50;
	for (u_int i = 0; ok && i < res.blob_len; i++)
		ok = res.blob_val[i] == (char)(i + sum);
	printf("raw fill ok %d status %s\n", ok, demo_stat_name(s2));
	xdr_free((xdrproc_t)xdr_blob, (char *)&res);
	free(req.data.blob_val);
	if (bench_calls > 0 && s1 == RPC_SUCCESS && ok &&
	    (raw_bench("null", c, bench_calls) ||
	     raw_bench("say", c, bench_calls)))
		ok = 0;
	clnt_destroy(c);
	return s1 == RPC_SUCCESS && y == 42 && ok ? 0 : 1;
}

/* Create and register as mode says; 1 if the two-thread loop applies. */
static int start(const char *mode, const char *unix_path)
{
	SVCXPRT *t = NULL, *u = NULL;

	if (!strcmp(mode, "svc_register") ||
	    !strcmp(mode, "svc_register_pmap")) {
		int pmap = !strcmp(mode, "svc_register_pmap");

		t = svctcp_create(RPC_ANYSOCK, 0, 0);
		u = svcudp_create(RPC_ANYSOCK);
		if (!t || !u)
			demo_die("demo-server: svctcp/svcudp_create failed");
		if (pmap)
			pmap_unset(DEMO_PROG, DEMO_VERS);
		if (!svc_register(t, DEMO_PROG, DEMO_VERS, demo_prog_1,
				  pmap ? IPPROTO_TCP : 0) ||
		    !svc_register(u, DEMO_PROG, DEMO_VERS, demo_prog_1,
				  pmap ? IPPROTO_UDP : 0))
			demo_die("demo-server: svc_register failed");
		tcp_port = t->xp_port;
		udp_port = u->xp_port;
		udp_fd = u->xp_fd;
		return !pmap;
	}
	if (!strcmp(mode, "svc_create")) {
		if (svc_create(demo_prog_1, DEMO_PROG, DEMO_VERS, "netpath") <=
		    0)
			demo_die("demo-server: svc_create failed");
		return 0;
	}
	if (!strcmp(mode, "svc_tp_create")) {
		t = svc_tp_create(demo_prog_1, DEMO_PROG, DEMO_VERS,
				  netconf("tcp"));
		if (!t)
			demo_die("demo-server: svc_tp_create failed");
		tcp_port = local_port(t->xp_fd);
		return 0;
	}
	if (!strcmp(mode, "svc_tli_create")) {
		struct netconfig *nc = netconf("udp");

		u = svc_tli_create(RPC_ANYFD, nc, NULL, 0, 0);
		if (!u)
			demo_die("demo-server: svc_tli_create failed");
		rpcb_unset(DEMO_PROG, DEMO_VERS, nc);
		if (!svc_reg(u, DEMO_PROG, DEMO_VERS, demo_prog_1, nc))
			demo_die("demo-server: svc_reg failed");
		udp_port = local_port(u->xp_fd);
		return 0;
	}
	if (!strcmp(mode, "svc_vc_create")) {
		t = svc_vc_create(loopback_socket(SOCK_STREAM), 0, 0);
		if (!t || !svc_reg(t, DEMO_PROG, DEMO_VERS, demo_prog_1, NULL))
			demo_die("demo-server: svc_vc_create/svc_reg failed");
		tcp_port = local_port(t->xp_fd);
		return 0;
	}
	if (!strcmp(mode, "svc_dg_create")) {
		u = svc_dg_create(loopback_socket(SOCK_DGRAM), 0, 0);
		if (!u ||
		    !svc_register(u, DEMO_PROG, DEMO_VERS, demo_prog_1, 0))
			demo_die("demo-server: svc_dg_create/svc_register "
				 "failed");
		udp_port = local_port(u->xp_fd);
		return 0;
	}
	if (!strcmp(mode, "unix")) {
		if (!unix_path)
			demo_die("demo-server: unix needs -u PATH");
		unlink(unix_path);
		t = svcunix_create(RPC_ANYSOCK, 0, 0, (char *)unix_path);
		if (!t ||
		    !svc_register(t, DEMO_PROG, DEMO_VERS, demo_prog_1, 0))
			demo_die("demo-server: svcunix_create/svc_register "
				 "failed");
		return 0;
	}
	demo_die("demo-server: unknown mode '%s'", mode);
}

int main(int argc, char **argv)
{
	const char *mode = "svc_register", *ready = NULL, *unix_path = NULL;
	struct sigaction sa = {.sa_handler = on_term};
	int opt, one_thread = 0, threads, bench_calls = 0;
	pthread_t th;
	char text[128];

	while ((opt = getopt(argc, argv, "m:b:r:n:u:1yd:")) != -1) {
		switch (opt) {
		case 'm':
			mode = optarg;
			break;
		case 'b':
			bench_calls = atoi(optarg);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'n':
			next_port = atoi(optarg);
			break;
		case 'u':
			unix_path = optarg;
			break;
		case '1':
			one_thread = 1;
			break;
		case 'y':
			burn_sleeps = 1;
			break;
		case 'd':
			slow_ms = atoi(optarg);
			break;
		default:
			demo_die("usage: demo-server [-m MODE] [-b N] [-r "
				 "READY] "
				 "[-n PORT] [-u PATH] [-1] [-y] [-d MS]");
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (!strcmp(mode, "raw"))
		return run_raw(bench_calls);
	threads = start(mode, unix_path) && !one_thread;
	if (threads && pthread_create(&th, NULL, serve_udp, NULL))
		demo_die("demo-server: pthread_create failed");
	snprintf(text, sizeof(text), "pid %d\ntcp %d\nudp %d\n", (int)getpid(),
		 tcp_port, udp_port);
	if (ready)
		demo_write_ready(ready, text);
	serve(threads ? not_udp : any_fd);
	if (threads)
		pthread_join(th, NULL);

	/* Only where rpcbind knows us: unregistering asks it, and without
	 * one running that waits for timeouts. */
	if (!strcmp(mode, "svc_register_pmap"))
		pmap_unset(DEMO_PROG, DEMO_VERS);
	else if (!strcmp(mode, "svc_create") ||
		 !strcmp(mode, "svc_tp_create") ||
		 !strcmp(mode, "svc_tli_create"))
		svc_unreg(DEMO_PROG, DEMO_VERS);
	if (unix_path)
		unlink(unix_path);
	printf("cpu_ns %lld\n", demo_process_cpu_ns());
	return 0;
}
