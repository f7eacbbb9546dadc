/*
 * demo-client - calls demo-server (demo.x) through rpcgen's client stubs
 * (say_it_1(), burn_1(), ...), for the RPC end-to-end suites and benchmark.
 *
 *   demo-client [-p tcp|udp] [-P PORT] [-H HOST] [-u PATH] [-c HOW] CMD ARG...
 *
 * -c  how the client handle is made (default clnttcp_create for tcp,
 *     clntudp_create for udp): clnt_create, clnt_create_timed,
 *     clnt_create_vers, clnt_create_vers_timed, clnt_tp_create,
 *     clnt_tp_create_timed (these ask rpcbind on HOST), clnt_tli_create,
 *     clnt_vc_create, clnt_dg_create, clnttcp_create, clntudp_create,
 *     clntudp_bufcreate, clntunix_create (-u PATH); or no handle at all:
 *     rpc_call, callrpc (the simplified interface; `say` only).
 *
 * Commands, each printing one line per fact ("tid T" is the gettid() of
 * the calling thread):
 *   say X            SAY_IT(X)                 "say X = Y status S tid T"
 *   siblings X       SAY_IT, TWICE, DEMO_NULL in sequence, one line each
 *   burn US          BURN(US), a chain of hops "burn US hops H status S tid T"
 *   spawn N          SPAWN(N)                  "spawn N = SUM status S tid T"
 *   recurse X        RECURSE(X)                "recurse X = R status S tid T"
 *   callback V       CALLBACK on our own DEMOCB_PROG, served by a thread
 *                    "callback V = R status S tid T", "notify tid T value V"
 *   threads T N      T threads, one handle each, N SAY_IT calls each
 *                    "thread tid T ok K" per thread
 *   pair T US PORT2  T threads, each a chain of its own: BURN(10) on the
 *                    server of -P, then BURN(US) on the TCP server of
 *                    127.0.0.1:PORT2 (a fast sibling before a slow call):
 *                    "pair tid T ok K" per thread
 *   noproc           clnt_call of procedure 99   "noproc status S tid T"
 *   timeout MS TMO   SLEEP_MS(MS) with a TMO ms timeout, then, once the
 *                    server is done, SAY_IT(7): "timeout status S tid T",
 *                    "after = 8 status S"
 *   oneway X         clnt_call of SAY_IT(X) with a zero timeout (no reply
 *                    awaited), then say_it_1(X): "oneway status S tid T",
 *                    "after = Y status S"
 *   sleep MS         SLEEP_MS(MS)              "sleep status S tid T"
 *   batch N          N batched ADD(2^i) calls (clnt_call with NULL results
 *                    and a zero timeout: queued, not sent), then TOTAL,
 *                    which sends them all: "batched I status S" each,
 *                    "batch N total T status S tid T"
 *   fill A R         FILL with A data bytes, asking R bytes back (sizes
 *                    that nearly fill a UDP datagram): "fill A R got G
 *                    ok K status S tid T"
 *   broadcast X      SAY_IT(X) broadcast on UDP (-c rpc_broadcast_exp, the
 *                    default, or clnt_broadcast), the first reply taken:
 *                    "broadcast X = Y replies R status S tid T"
 *   steps PATH       a long-running client for the selective-monitoring
 *                    suites: for N = 1, 2, ... waits for the file
 *                    PATH.N, runs the command it holds ("say X",
 *                    "siblings X", "burn X", "spawn X"), then writes
 *                    PATH.N.done; "stop" ends it
 *   periodic say|burn|sleep N US  N calls of SAY_IT, of BURN(200) (200 us
 *                    of the server's CPU) or of SLEEP_MS(1), one every US
 *                    microseconds on the monotonic clock (absolute
 *                    deadlines, so the period holds on average):
 *                    "periodic KIND calls N period_ns P" (P the mean
 *                    interval between the calls' starts, as it came out)
 *   bench null|say N N calls on one handle:
 *                    "bench KIND calls N client_cpu_ns C server_cpu_ns S
 * wall_ns W" S is the clnt_stat's enumerator name.  Exit status 0 when every
 * call came back as the command expects (a failure for noproc, timeout, sleep).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "demo-common.h"
#include "demo.h"
#include "democb.h"

/* rpcgen's dispatch function (democb_svc.c); its header does not say so */
void democb_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

static const char *proto = "tcp", *host = "127.0.0.1", *how, *unix_path;
static int port;

static struct sockaddr_in server_sin(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(port)};

	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		demo_die("demo-client: '%s' is not an IPv4 address", host);
	return sin;
}

static struct netconfig *netconf(void)
{
	struct netconfig *nc = getnetconfigent(proto);

	if (!nc)
		demo_die("demo-client: no netconfig '%s'", proto);
	return nc;
}

static void set_timeout(CLIENT *c, int ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	clnt_control(c, CLSET_TIMEOUT, (char *)&tv);
}

/* A new handle on DEMO_PROG, made the way -c says. */
static CLIENT *make_client(void)
{
	struct sockaddr_in sin = server_sin();
	struct netbuf nb = {sizeof(sin), sizeof(sin), &sin};
	struct timeval tv = {5, 0};
	int sock = RPC_ANYSOCK;
	rpcvers_t vers;
	CLIENT *c = NULL;

	if (!strcmp(how, "clnt_create"))
		c = clnt_create(host, DEMO_PROG, DEMO_VERS, proto);
	else if (!strcmp(how, "clnt_create_timed"))
		c = clnt_create_timed(host, DEMO_PROG, DEMO_VERS, proto, &tv);
	else if (!strcmp(how, "clnt_create_vers"))
		c = clnt_create_vers(host, DEMO_PROG, &vers, DEMO_VERS,
				     DEMO_VERS, proto);
	else if (!strcmp(how, "clnt_create_vers_timed"))
		c = clnt_create_vers_timed(host, DEMO_PROG, &vers, DEMO_VERS,
					   DEMO_VERS, proto, &tv);
	else if (!strcmp(how, "clnt_tp_create"))
		c = clnt_tp_create(host, DEMO_PROG, DEMO_VERS, netconf());
	else if (!strcmp(how, "clnt_tp_create_timed"))
		c = clnt_tp_create_timed(host, DEMO_PROG, DEMO_VERS, netconf(),
					 &tv);
	else if (!strcmp(how, "clnt_tli_create"))
		c = clnt_tli_create(RPC_ANYFD, netconf(), &nb, DEMO_PROG,
				    DEMO_VERS, 0, 0);
	else if (!strcmp(how, "clnt_vc_create"))
		c = clnt_vc_create(socket(AF_INET, SOCK_STREAM, 0), &nb,
				   DEMO_PROG, DEMO_VERS, 0, 0);
	else if (!strcmp(how, "clnt_dg_create"))
		c = clnt_dg_create(socket(AF_INET, SOCK_DGRAM, 0), &nb,
				   DEMO_PROG, DEMO_VERS, 0, 0);
	else if (!strcmp(how, "clnttcp_create"))
		c = clnttcp_create(&sin, DEMO_PROG, DEMO_VERS, &sock, 0, 0);
	else if (!strcmp(how, "clntudp_create"))
		c = clntudp_create(&sin, DEMO_PROG, DEMO_VERS, tv, &sock);
	else if (!strcmp(how, "clntudp_bufcreate"))
		c = clntudp_bufcreate(&sin, DEMO_PROG, DEMO_VERS, tv, &sock,
				      4096, 4096);
	else if (!strcmp(how, "clntunix_create")) {
		struct sockaddr_un sun = {.sun_family = AF_UNIX};

		if (!unix_path)
			demo_die("demo-client: clntunix_create needs -u PATH");
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", unix_path);
		c = clntunix_create(&sun, DEMO_PROG, DEMO_VERS, &sock, 0, 0);
	} else
		demo_die("demo-client: unknown handle path '%s'", how);
	if (!c) {
		clnt_pcreateerror(how);
		exit(1);
	}
	/* clnt_dg_create's default total timeout is unbounded */
	set_timeout(c, 25000);
	return c;
}

static int cmd_say(int x)
{
	enum clnt_stat s;
	int y = 0;

	if (!strcmp(how, "rpc_call"))
		s = rpc_call(host, DEMO_PROG, DEMO_VERS, SAY_IT,
			     (xdrproc_t)xdr_int, (char *)&x, (xdrproc_t)xdr_int,
			     (char *)&y, proto);
	else if (!strcmp(how, "callrpc"))
		s = callrpc(host, DEMO_PROG, DEMO_VERS, SAY_IT,
			    (xdrproc_t)xdr_int, (char *)&x, (xdrproc_t)xdr_int,
			    (char *)&y);
	else {
		CLIENT *c = make_client();

		s = say_it_1(&x, &y, c);
		clnt_destroy(c);
	}
	printf("say %d = %d status %s tid %d\n", x, y, demo_stat_name(s),
	       demo_gettid());
	return s == RPC_SUCCESS && y == x + 1;
}

static int cmd_siblings(int x)
{
	CLIENT *c = make_client();
	enum clnt_stat s1, s2, s3;
	int y1 = 0, y2 = 0;

	s1 = say_it_1(&x, &y1, c);
	printf("sibling say_it_1 %d = %d status %s tid %d\n", x, y1,
	       demo_stat_name(s1), demo_gettid());
	s2 = twice_1(&x, &y2, c);
	printf("sibling twice_1 %d = %d status %s tid %d\n", x, y2,
	       demo_stat_name(s2), demo_gettid());
	s3 = demo_null_1(NULL, NULL, c);
	printf("sibling demo_null_1 status %s tid %d\n", demo_stat_name(s3),
	       demo_gettid());
	clnt_destroy(c);
	return s1 == RPC_SUCCESS && s2 == RPC_SUCCESS && s3 == RPC_SUCCESS &&
	       y1 == x + 1 && y2 == 2 * x;
}

/* BURN, SPAWN, RECURSE: one call, its result printed. */
static int cmd_one(const char *name, int x)
{
	CLIENT *c = make_client();
	enum clnt_stat s;
	int y = 0;

	if (!strcmp(name, "burn"))
		s = burn_1(&x, &y, c);
	else if (!strcmp(name, "spawn"))
		s = spawn_1(&x, &y, c);
	else
		s = recurse_1(&x, &y, c);
	if (!strcmp(name, "burn"))
		printf("burn %d hops %d status %s tid %d\n", x, y,
		       demo_stat_name(s), demo_gettid());
	else
		printf("%s %d = %d status %s tid %d\n", name, x, y,
		       demo_stat_name(s), demo_gettid());
	clnt_destroy(c);
	return s == RPC_SUCCESS && y >= 0;
}

/* The commands of a step file, one at a time (see `steps`). */
static int cmd_steps(const char *path)
{
	int ok = 1;

	for (int n = 1;; n++) {
		char name[4096], word[32] = "";
		int x = 0, waited;
		FILE *f = NULL;

		snprintf(name, sizeof(name), "%s.%d", path, n);
		for (waited = 0; waited < 6000 && !(f = fopen(name, "r"));
		     waited++)
			poll(NULL, 0, 10);
		if (!f)
			demo_die("demo-client: no step file '%s'", name);
		if (fscanf(f, "%31s %d", word, &x) < 1)
			demo_die("demo-client: bad step file '%s'", name);
		fclose(f);
		if (!strcmp(word, "stop"))
			return ok;
		if (!strcmp(word, "say"))
			ok &= cmd_say(x);
		else if (!strcmp(word, "siblings"))
			ok &= cmd_siblings(x);
		else if (!strcmp(word, "burn") || !strcmp(word, "spawn"))
			ok &= cmd_one(word, x);
		else
			demo_die("demo-client: unknown step '%s'", word);
		snprintf(name, sizeof(name), "%s.%d.done", path, n);
		f = fopen(name, "w");
		if (!f || fclose(f))
			demo_die("demo-client: cannot write '%s'", name);
	}
}

/* --- the callback program, served by a thread of this client ----------- */

static volatile int cb_done;

bool_t notify_1_svc(int *x, int *result, struct svc_req *rq)
{
	(void)rq;
	printf("notify tid %d value %d\n", demo_gettid(), *x);
	*result = *x + 1000;
	return TRUE;
}

int democb_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xdr_result,
			     caddr_t result)
{
	(void)xprt;
	xdr_free(xdr_result, result);
	return 1;
}

/* Nothing else serves in this process: poll every service descriptor. */
static void *cb_serve(void *arg)
{
	struct pollfd pfd[64];

	while (!cb_done) {
		int n = 0, r;

		for (int i = 0; i < svc_max_pollfd && n < 64; i++)
			if (svc_pollfd[i].fd >= 0) {
				pfd[n] = svc_pollfd[i];
				pfd[n++].revents = 0;
			}
		r = poll(pfd, n, 50);
		if (r > 0)
			svc_getreq_poll(pfd, r);
	}
	return arg;
}

static int cmd_callback(int v)
{
	SVCXPRT *x = svctcp_create(RPC_ANYSOCK, 0, 0);
	cb_req req = {0, v};
	enum clnt_stat s;
	pthread_t th;
	CLIENT *c;
	int y = 0;

	if (!x || !svc_register(x, DEMOCB_PROG, DEMOCB_VERS, democb_prog_1, 0))
		demo_die("demo-client: cannot serve DEMOCB_PROG");
	req.port = x->xp_port;
	if (pthread_create(&th, NULL, cb_serve, NULL))
		demo_die("demo-client: pthread_create failed");
	c = make_client();
	s = callback_1(&req, &y, c);
	printf("callback %d = %d status %s tid %d\n", v, y, demo_stat_name(s),
	       demo_gettid());
	clnt_destroy(c);
	cb_done = 1;
	pthread_join(th, NULL);
	return s == RPC_SUCCESS && y == v + 1000;
}

/* --- many threads ----------------------------------------------------------
 */

static int calls_per_thread;

static void *caller(void *arg)
{
	CLIENT *c = make_client();
	int ok = 0;

	for (int i = 0; i < calls_per_thread; i++) {
		int y = 0;

		if (say_it_1(&i, &y, c) == RPC_SUCCESS && y == i + 1)
			ok++;
	}
	clnt_destroy(c);
	printf("thread tid %d ok %d\n", demo_gettid(), ok);
	*(int *)arg = ok;
	return NULL;
}

static int cmd_threads(int n, int calls)
{
	pthread_t th[64];
	int ok[64], all = 1;

	if (n < 1 || n > 64)
		demo_die("demo-client: 1 to 64 threads");
	calls_per_thread = calls;
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, caller, &ok[i]))
			demo_die("demo-client: pthread_create failed");
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		all &= ok[i] == calls;
	}
	return all;
}

static int pair_us, pair_port;

/* One thread of `pair`: a fast BURN here, then a slow one at PORT2. */
static void *pair_caller(void *arg)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(pair_port) };
	int sock = RPC_ANYSOCK, x = 10, y = 0, *ok = arg;
	CLIENT *c = make_client(), *c2;

	*ok = burn_1(&x, &y, c) == RPC_SUCCESS;
	clnt_destroy(c);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	c2 = clnttcp_create(&sin, DEMO_PROG, DEMO_VERS, &sock, 0, 0);
	if (!c2)
		demo_die("demo-client: cannot reach PORT2");
	x = pair_us;
	*ok += burn_1(&x, &y, c2) == RPC_SUCCESS;
	clnt_destroy(c2);
	printf("pair tid %d ok %d\n", demo_gettid(), *ok);
	return NULL;
}

static int cmd_pair(int n, int us, int port2)
{
	pthread_t th[64];
	int ok[64], all = 1;

	if (n < 1 || n > 64 || port2 <= 0)
		demo_die("demo-client: pair 1 to 64 threads, US, PORT2");
	pair_us = us;
	pair_port = port2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, pair_caller, &ok[i]))
			demo_die("demo-client: pthread_create failed");
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		all &= ok[i] == 2;
	}
	return all;
}

/* --- failures --------------------------------------------------------------
 */

static int cmd_noproc(void)
{
	struct timeval tv = {25, 0};
	CLIENT *c = make_client();
	enum clnt_stat s;

	xdrproc_t none = (xdrproc_t)(void (*)(void))xdr_void;

	s = clnt_call(c, 99, none, NULL, none, NULL, tv);
	printf("noproc status %s tid %d\n", demo_stat_name(s), demo_gettid());
	clnt_destroy(c);
	return s == RPC_PROCUNAVAIL;
}

static int cmd_timeout(int ms, int tmo)
{
	CLIENT *c = make_client();
	enum clnt_stat s1, s2;
	int x = 7, y = 0;

	set_timeout(c, tmo);
	s1 = sleep_ms_1(&ms, &y, c);
	printf("timeout status %s tid %d\n", demo_stat_name(s1), demo_gettid());
	/* let the late reply come and go: the next call must skip it */
	usleep((ms + 300) * 1000);
	set_timeout(c, 25000);
	s2 = say_it_1(&x, &y, c);
	printf("after = %d status %s\n", y, demo_stat_name(s2));
	clnt_destroy(c);
	return s1 == RPC_TIMEDOUT && s2 == RPC_SUCCESS && y == 8;
}

/*
 * A zero timeout on clnt_call() itself (CLSET_TIMEOUT 0 is not the same:
 * the reply is still read) sends without awaiting a reply: RPC_TIMEDOUT.
 */
static int cmd_oneway(int x)
{
	xdrproc_t xint = (xdrproc_t)xdr_int;
	struct timeval zero = {0, 0};
	CLIENT *c = make_client();
	enum clnt_stat s1, s2;
	int y = 0;

	s1 = clnt_call(c, SAY_IT, xint, (char *)&x, xint, (char *)&y, zero);
	printf("oneway status %s tid %d\n", demo_stat_name(s1), demo_gettid());
	s2 = say_it_1(&x, &y, c);
	printf("after = %d status %s\n", y, demo_stat_name(s2));
	clnt_destroy(c);
	return s1 == RPC_TIMEDOUT && s2 == RPC_SUCCESS && y == x + 1;
}

static int cmd_sleep(int ms)
{
	CLIENT *c = make_client();
	enum clnt_stat s;
	int y = 0;

	s = sleep_ms_1(&ms, &y, c);
	printf("sleep status %s tid %d\n", demo_stat_name(s), demo_gettid());
	clnt_destroy(c);
	return s != RPC_SUCCESS;
}

/* --- batching, datagram sizes, broadcast ----------------------------------
 */

static int cmd_batch(int n)
{
	struct timeval zero = {0, 0};
	CLIENT *c = make_client();
	enum clnt_stat s;
	int ok = 1, total = -1;

	if (n < 1 || n > 30)
		demo_die("demo-client: 1 to 30 batched calls");
	for (int i = 0; i < n; i++) {
		int x = 1 << i;

		/* NULL results and a zero timeout: clnt_vc queues the call */
		s = clnt_call(c, ADD, (xdrproc_t)xdr_int, (char *)&x, NULL,
			      NULL, zero);
		printf("batched %d status %s\n", i, demo_stat_name(s));
		ok &= s == RPC_SUCCESS;
	}
	s = total_1(NULL, &total, c);
	printf("batch %d total %d status %s tid %d\n", n, total,
	       demo_stat_name(s), demo_gettid());
	clnt_destroy(c);
	return ok && s == RPC_SUCCESS && total == (1 << n) - 1;
}

static int cmd_fill(int args, int reply)
{
	fill_req req = {{(u_int)args, calloc(1, args + 1)}, reply};
	blob res = {0, NULL};
	CLIENT *c = make_client();
	enum clnt_stat s;
	unsigned sum = 0;
	int ok;

	for (int i = 0; i < args; i++) {
		req.data.blob_val[i] = (char)(i * 7);
		sum += (unsigned char)req.data.blob_val[i];
	}
	s = fill_1(&req, &res, c);
	ok = s == RPC_SUCCESS && res.blob_len == (u_int)reply;
	for (u_int i = 0; ok && i < res.blob_len; i++)
		ok = res.blob_val[i] == (char)(i + sum);
	printf("fill %d %d got %u ok %d status %s tid %d\n", args, reply,
	       res.blob_len, ok, demo_stat_name(s), demo_gettid());
	xdr_free((xdrproc_t)xdr_blob, (char *)&res);
	free(req.data.blob_val);
	clnt_destroy(c);
	return ok;
}

static int bc_replies;

static bool_t bc_each(caddr_t res, const struct netbuf *from,
		      const struct netconfig *nc)
{
	(void)res, (void)from, (void)nc;
	bc_replies++;
	return TRUE; /* the first reply will do */
}

static bool_t bc_each_old(caddr_t res, struct sockaddr_in *from)
{
	(void)res, (void)from;
	bc_replies++;
	return TRUE;
}

static int cmd_broadcast(int x)
{
	enum clnt_stat s;
	int y = 0;

	if (!strcmp(how, "clnt_broadcast"))
		s = clnt_broadcast(DEMO_PROG, DEMO_VERS, SAY_IT,
				   (xdrproc_t)xdr_int, (char *)&x,
				   (xdrproc_t)xdr_int, (char *)&y,
				   (resultproc_t)bc_each_old);
	else
		/* waits 0.5 + 1 + 2 + 4 s at most */
		s = rpc_broadcast_exp(DEMO_PROG, DEMO_VERS, SAY_IT,
				      (xdrproc_t)xdr_int, (char *)&x,
				      (xdrproc_t)xdr_int, (char *)&y,
				      (resultproc_t)bc_each, 500, 4000, "udp");
	printf("broadcast %d = %d replies %d status %s tid %d\n", x, y,
	       bc_replies, demo_stat_name(s), demo_gettid());
	return s == RPC_SUCCESS && y == x + 1;
}

/* --- the benchmark ---------------------------------------------------------
 */

static long long wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmd_bench(const char *kind, int n)
{
	int null = !strcmp(kind, "null"), bad = 0;
	quad_t srv0 = 0, srv1 = 0;
	long long cpu0, cpu1, t0, t1;
	CLIENT *c = make_client();

	if (cpu_ns_1(NULL, &srv0, c) != RPC_SUCCESS)
		demo_die("demo-client: CPU_NS failed");
	cpu0 = demo_process_cpu_ns();
	t0 = wall_ns();
	for (int i = 0; i < n; i++) {
		int y;

		if (null)
			bad += demo_null_1(NULL, NULL, c) != RPC_SUCCESS;
		else
			bad += say_it_1(&i, &y, c) != RPC_SUCCESS || y != i + 1;
	}
	t1 = wall_ns();
	cpu1 = demo_process_cpu_ns();
	if (cpu_ns_1(NULL, &srv1, c) != RPC_SUCCESS)
		demo_die("demo-client: CPU_NS failed");
	clnt_destroy(c);
	printf("bench %s calls %d client_cpu_ns %lld server_cpu_ns %lld "
	       "wall_ns %lld\n",
	       kind, n, cpu1 - cpu0, (long long)(srv1 - srv0), t1 - t0);
	return bad == 0;
}

static int cmd_periodic(const char *kind, int n, int us)
{
	int burn = !strcmp(kind, "burn"), sleep = !strcmp(kind, "sleep");
	int bad = 0;
	long long first = 0, last = 0;
	struct timespec at;
	CLIENT *c = make_client();

	clock_gettime(CLOCK_MONOTONIC, &at);
	for (int i = 0; i < n; i++) {
		int y;

		at.tv_nsec += (long)us * 1000;
		while (at.tv_nsec >= 1000000000) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at,
				       NULL) == EINTR)
			;
		last = wall_ns();
		if (!i)
			first = last;
		if (burn) {
			int us_cpu = 200;

			bad += burn_1(&us_cpu, &y, c) != RPC_SUCCESS;
		} else if (sleep) {
			int ms = 1;

			bad += sleep_ms_1(&ms, &y, c) != RPC_SUCCESS || y != 1;
		} else {
			bad += say_it_1(&i, &y, c) != RPC_SUCCESS || y != i + 1;
		}
	}
	clnt_destroy(c);
	printf("periodic %s calls %d period_ns %lld\n", kind, n,
	       n > 1 ? (last - first) / (n - 1) : 0);
	return bad == 0;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int opt, ok;

	while ((opt = getopt(argc, argv, "p:P:H:u:c:")) != -1) {
		switch (opt) {
		case 'p':
			proto = optarg;
			break;
		case 'P':
			port = atoi(optarg);
			break;
		case 'H':
			host = optarg;
			break;
		case 'u':
			unix_path = optarg;
			break;
		case 'c':
			how = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	if (!how)
		how =
		    !strcmp(proto, "udp") ? "clntudp_create" : "clnttcp_create";
	setvbuf(stdout, NULL, _IOLBF, 0);
	cmd = argv[optind];
#define ARG(i) (optind + (i) < argc ? atoi(argv[optind + (i)]) : 0)
	if (!strcmp(cmd, "say"))
		ok = cmd_say(ARG(1));
	else if (!strcmp(cmd, "siblings"))
		ok = cmd_siblings(ARG(1));
	else if (!strcmp(cmd, "burn") || !strcmp(cmd, "spawn") ||
		 !strcmp(cmd, "recurse"))
		ok = cmd_one(cmd, ARG(1));
	else if (!strcmp(cmd, "callback"))
		ok = cmd_callback(ARG(1));
	else if (!strcmp(cmd, "threads"))
		ok = cmd_threads(ARG(1), ARG(2));
	else if (!strcmp(cmd, "pair"))
		ok = cmd_pair(ARG(1), ARG(2), ARG(3));
	else if (!strcmp(cmd, "noproc"))
		ok = cmd_noproc();
	else if (!strcmp(cmd, "timeout"))
		ok = cmd_timeout(ARG(1), ARG(2));
	else if (!strcmp(cmd, "oneway"))
		ok = cmd_oneway(ARG(1));
	else if (!strcmp(cmd, "sleep"))
		ok = cmd_sleep(ARG(1));
	else if (!strcmp(cmd, "batch"))
		ok = cmd_batch(ARG(1));
	else if (!strcmp(cmd, "fill"))
		ok = cmd_fill(ARG(1), ARG(2));
	else if (!strcmp(cmd, "broadcast"))
		ok = cmd_broadcast(ARG(1));
	else if (!strcmp(cmd, "steps") && optind + 1 < argc)
		ok = cmd_steps(argv[optind + 1]);
	else if (!strcmp(cmd, "bench") && optind + 2 < argc)
		ok = cmd_bench(argv[optind + 1], ARG(2));
	else if (!strcmp(cmd, "periodic") && optind + 3 < argc)
		ok = cmd_periodic(argv[optind + 1], ARG(2), ARG(3));
	else
		goto usage;
#undef ARG
	return ok ? 0 : 1;
usage:
	fprintf(stderr, "usage: demo-client [-p tcp|udp] [-P PORT] [-H HOST] "
			"[-u PATH] [-c HOW] CMD ARG... (see the source)\n");
	return 2;
}
