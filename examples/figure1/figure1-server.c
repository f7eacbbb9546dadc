/*
 * figure1-server - serves the components of Figure 1 of the CPU paper
 * (figure1.x) through rpcgen's dispatch function fig1_prog_1().
 *
 *   figure1-server [-R ROLES] [-r READY] [-b PORT] [-c PORT] [-d PORT]
 *
 * -R  the components this process serves, letters of ABCD (default ABCD):
 *     A foo, B times, C what_to_say, D say_it.  A request for another
 *     component fails (system error).  The paper's four-host deployment
 *     runs one server per letter, its two-host one "AB" and "CD".
 * -r  written once serving: "pid PID\ntcp PORT\nudp PORT\n"
 * -b  UDP port of times (default: this server's own, when it serves B)
 * -c  TCP port of what_to_say, -d TCP port of say_it (default: our own
 *     TCP port, when we serve C / D); all on 127.0.0.1.  Only foo calls
 *     out, so only a server of A needs them.  -d takes several ports
 *     (-d P1,P2): say_it served on several hosts, foo's calls in turn.
 *
 * FIG1_SCALE (environment) scales the CPU each component burns, per
 * component, in this process: FIG1_SCALE='say_it=0.8' burns 20% less in
 * say_it, 'times=1.5,say_it=0.8' also half as much again in times.  The
 * names are foo, times, what_to_say, say_it and thread (each of
 * what_to_say's threads); a factor is a number in (0, 100].  It is how a
 * change of code or of processor is simulated on one host, to check
 * `ccsg impact`'s predictions (make example-impact).
 *
 * foo calls times over UDP and the others over TCP, wherever they are:
 * as in demo-server, TCP and UDP are served by a thread each, so when A
 * and B share a process, foo (served over TCP) can call times in its own
 * process (served over UDP) without deadlock.  The program is the same in
 * every deployment; only where the letters run changes.
 *
 * One line per component invocation on stdout: "NAME tid T us U cpu C"
 * (U the CPU it burned, C all the CPU its thread used in the invocation
 * but in its calls to other components, by its own clock), and
 * one per thread as it ends: "cpu ROLE tid T us U" (U all the CPU the
 * thread used), so that what the CCSG shows can be checked against what
 * the program measured itself.  Latency likewise: "wall NAME ns N" per
 * invocation (N its wall time, CLOCK_MONOTONIC, but in its calls to
 * other components), and foo's "latency NAME ns N" per call it makes (N
 * the wall time around the stub call).  On SIGTERM it finishes the request at
 * hand and exits 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "figure1-cpu.h"
#include "figure1.h" /* rpcgen's, of figure1.x */

#define FIG1_MAX_SAY 4 /* servers of say_it foo can call */

/* rpcgen's dispatch function (figure1_svc.c); its header does not say so */
void fig1_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

static volatile sig_atomic_t stopping;
static const char *roles = "ABCD";
static int tcp_port, udp_port, udp_fd = -1;
static int times_port, what_port;
static int say_port[FIG1_MAX_SAY], nsay;
/* foo's, made at start; say_it's in turn */
static CLIENT *times_clnt, *what_clnt, *say_clnt[FIG1_MAX_SAY];

/* FIG1_SCALE: the factor of each component, in enum order */
enum { S_FOO, S_TIMES, S_WHAT, S_SAY, S_THREAD, S_N };
static const char *const scale_name[S_N] = { "foo", "times", "what_to_say",
					     "say_it", "thread" };
static double scale[S_N] = { 1, 1, 1, 1, 1 };

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("figure1-server: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static int serves(char role)
{
	return strchr(roles, role) != NULL;
}

/* us of component c, as FIG1_SCALE scales it */
static int scaled(int c, int us)
{
	return (int)(us * scale[c] + 0.5);
}

/* An invocation that started when its thread's CPU clock read cpu0_ns
 * ends, having burned us. */
static void said(const char *name, int us, long long cpu0_ns)
{
	printf("%s tid %d us %d cpu %lld\n", name, (int)gettid(), us,
	       (fig1_thread_cpu_ns() - cpu0_ns) / 1000);
}

/* The thread is about to end: all the CPU it used. */
static void spent(const char *role)
{
	printf("cpu %s tid %d us %lld\n", role, (int)gettid(),
	       fig1_thread_cpu_ns() / 1000);
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(port)};

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sin;
}

static CLIENT *tcp_client(int port)
{
	struct sockaddr_in sin = loopback(port);
	int sock = RPC_ANYSOCK;
	CLIENT *c = clnttcp_create(&sin, FIG1_PROG, FIG1_VERS, &sock, 0, 0);

	if (!c)
		die("%s", clnt_spcreateerror("clnttcp_create"));
	return c;
}

static CLIENT *udp_client(int port)
{
	struct sockaddr_in sin = loopback(port);
	struct timeval retry = {2, 0}; /* well above any component's CPU */
	int sock = RPC_ANYSOCK;
	CLIENT *c = clntudp_create(&sin, FIG1_PROG, FIG1_VERS, retry, &sock);

	if (!c)
		die("%s", clnt_spcreateerror("clntudp_create"));
	return c;
}

/* ---- the components ----------------------------------------------------- */

/* A call that began at wall time t0 returned st: its latency, as the
 * caller measured it. */
static enum clnt_stat waited(const char *name, long long t0, enum clnt_stat st)
{
	printf("latency %s ns %lld\n", name, fig1_wall_ns() - t0);
	return st;
}

/* An invocation that began at wall time t0 (calls_ns of it in calls)
 * ends. */
static void walled(const char *name, long long t0, long long calls_ns)
{
	printf("wall %s ns %lld\n", name, fig1_wall_ns() - t0 - calls_ns);
}

/* foo's calls: times, what_to_say, then say_it as often as times said;
 * the number of calls made, or -1 when one failed. */
static int foo_calls(void)
{
	phrase text = NULL;
	int n = 0, i = -1;
	long long t0 = fig1_wall_ns();

	if (waited("times", t0, times_1(NULL, &n, times_clnt)) != RPC_SUCCESS)
		goto out;
	t0 = fig1_wall_ns();
	if (waited("what_to_say", t0, what_to_say_1(NULL, &text, what_clnt)) !=
	    RPC_SUCCESS)
		goto out;
	for (i = 0; i < n; i++) {
		say_req req = {.text = text, .n = i};
		int len;

		t0 = fig1_wall_ns();
		if (waited("say_it", t0,
			   say_it_1(&req, &len, say_clnt[i % nsay])) !=
		    RPC_SUCCESS) {
			i = -1;
			break;
		}
	}
out:
	xdr_free((xdrproc_t)xdr_phrase, (char *)&text);
	return i;
}

bool_t foo_1_svc(void *argp, int *result, struct svc_req *rq)
{
	long long cpu0 = fig1_thread_cpu_ns(), calls0, wall0 = fig1_wall_ns(),
		  calls_ns;

	(void)argp, (void)rq;
	if (!serves('A'))
		return FALSE;
	fig1_burn_us(scaled(S_FOO, FIG1_FOO_US) / 2);
	calls0 = fig1_thread_cpu_ns();
	calls_ns = fig1_wall_ns();
	*result = foo_calls();
	calls_ns = fig1_wall_ns() - calls_ns;
	/* its calls' own CPU (their stubs) is not foo's: not counted */
	cpu0 += fig1_thread_cpu_ns() - calls0;
	fig1_burn_us(scaled(S_FOO, FIG1_FOO_US) -
		     scaled(S_FOO, FIG1_FOO_US) / 2);
	said("foo", scaled(S_FOO, FIG1_FOO_US), cpu0);
	walled("foo", wall0, calls_ns);
	return TRUE;
}

bool_t times_1_svc(void *argp, int *result, struct svc_req *rq)
{
	long long cpu0 = fig1_thread_cpu_ns(), wall0 = fig1_wall_ns();

	(void)argp, (void)rq;
	if (!serves('B'))
		return FALSE;
	fig1_burn_us(scaled(S_TIMES, FIG1_TIMES_US));
	*result = FIG1_SAY_TIMES;
	said("times", scaled(S_TIMES, FIG1_TIMES_US), cpu0);
	walled("times", wall0, 0);
	return TRUE;
}

/* what_to_say's threads: each burns its share and ends */
static void *helper(void *arg)
{
	long long cpu0 = fig1_thread_cpu_ns();

	fig1_burn_us(scaled(S_THREAD, FIG1_THREAD_US));
	said("thread", scaled(S_THREAD, FIG1_THREAD_US), cpu0);
	spent("helper");
	return arg;
}

bool_t what_to_say_1_svc(void *argp, phrase *result, struct svc_req *rq)
{
	long long cpu0 = fig1_thread_cpu_ns(), wall0 = fig1_wall_ns();
	int us = scaled(S_WHAT, FIG1_WHAT_TO_SAY_US);
	pthread_t th[FIG1_THREADS];

	(void)argp, (void)rq;
	if (!serves('C'))
		return FALSE;
	/* the threads are spawned in the middle of its execution */
	fig1_burn_us(us / 2);
	for (int i = 0; i < FIG1_THREADS; i++)
		if (pthread_create(&th[i], NULL, helper, NULL))
			die("pthread_create failed");
	fig1_burn_us(us - us / 2);
	for (int i = 0; i < FIG1_THREADS; i++)
		pthread_join(th[i], NULL);
	*result = strdup("hello, world"); /* freed by xdr_free after the reply */
	said("what_to_say", us, cpu0);
	walled("what_to_say", wall0, 0);
	return *result != NULL;
}

bool_t say_it_1_svc(say_req *req, int *result, struct svc_req *rq)
{
	long long cpu0 = fig1_thread_cpu_ns(), wall0 = fig1_wall_ns();
	static const int us[] = FIG1_SAY_IT_US_INIT;
	int n = req->n < 0 ? 0 : req->n % 3;

	(void)rq;
	if (!serves('D'))
		return FALSE;
	fig1_burn_us(scaled(S_SAY, us[n]));
	*result = req->text ? (int)strlen(req->text) : 0;
	said("say_it", scaled(S_SAY, us[n]), cpu0);
	walled("say_it", wall0, 0);
	return TRUE;
}

int fig1_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xdr_result, caddr_t result)
{
	(void)xprt;
	xdr_free(xdr_result, result);
	return 1;
}

/* ---- serving ------------------------------------------------------------ */

/*
 * Serve the descriptors of svc_pollfd that `mine` accepts until SIGTERM.
 * Only the TCP thread adds or removes descriptors (accept, close), so it
 * may read svc_pollfd while the UDP thread polls its one socket.
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
			die("poll: %s", strerror(errno));
		if (r > 0)
			svc_getreq_poll(pfd, r);
	}
}

static int udp_only(int fd) { return fd == udp_fd; }
static int not_udp(int fd) { return fd != udp_fd; }

static void *serve_udp(void *arg)
{
	serve(udp_only);
	spent("udp");
	return arg;
}

/* FIG1_SCALE="NAME=FACTOR,...": the factors of scale[] */
static void read_scale(const char *env)
{
	char buf[512], *item, *save = NULL;

	if (!env)
		return;
	if (strlen(env) >= sizeof(buf))
		die("FIG1_SCALE is too long");
	strcpy(buf, env);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '='), *end;
		double f;
		int c;

		if (!eq)
			die("FIG1_SCALE: '%s' is not NAME=FACTOR", item);
		*eq = '\0';
		for (c = 0; c < S_N && strcmp(scale_name[c], item); c++)
			;
		if (c == S_N)
			die("FIG1_SCALE: no component '%s' (foo, times, "
			    "what_to_say, say_it, thread)",
			    item);
		f = strtod(eq + 1, &end);
		if (end == eq + 1 || *end || !(f > 0 && f <= 100))
			die("FIG1_SCALE: the factor of %s is a number in "
			    "(0, 100], not '%s'",
			    item, eq + 1);
		scale[c] = f;
	}
}

/* -d P1,P2...: the servers of say_it foo calls in turn */
static void read_say_ports(const char *arg)
{
	char buf[256], *item, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	nsay = 0;
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (nsay == FIG1_MAX_SAY)
			die("-d: at most %d ports", FIG1_MAX_SAY);
		if ((say_port[nsay++] = atoi(item)) <= 0)
			die("-d: bad port '%s'", item);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_term};
	const char *ready = NULL;
	SVCXPRT *t, *u;
	pthread_t th;
	int opt;

	while ((opt = getopt(argc, argv, "R:r:b:c:d:")) != -1) {
		switch (opt) {
		case 'R':
			roles = optarg;
			break;
		case 'r':
			ready = optarg;
			break;
		case 'b':
			times_port = atoi(optarg);
			break;
		case 'c':
			what_port = atoi(optarg);
			break;
		case 'd':
			read_say_ports(optarg);
			break;
		default:
			die("usage: figure1-server [-R ROLES] [-r READY] "
			    "[-b PORT] [-c PORT] [-d PORT[,PORT]...]");
		}
	}
	if (!*roles || roles[strspn(roles, "ABCD")])
		die("roles are letters of ABCD, not '%s'", roles);
	read_scale(getenv("FIG1_SCALE"));
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	t = svctcp_create(RPC_ANYSOCK, 0, 0);
	u = svcudp_create(RPC_ANYSOCK);
	if (!t || !u)
		die("svctcp_create / svcudp_create failed");
	if (!svc_register(t, FIG1_PROG, FIG1_VERS, fig1_prog_1, 0) ||
	    !svc_register(u, FIG1_PROG, FIG1_VERS, fig1_prog_1, 0))
		die("svc_register failed");
	tcp_port = t->xp_port;
	udp_port = u->xp_port;
	udp_fd = u->xp_fd;

	if (serves('A')) {
		times_port = times_port ? times_port : serves('B') ? udp_port : 0;
		what_port = what_port ? what_port : serves('C') ? tcp_port : 0;
		if (!nsay && serves('D'))
			say_port[nsay++] = tcp_port;
		if (!times_port || !what_port || !nsay)
			die("foo needs -b, -c and -d for the roles it does "
			    "not serve");
		/* made before serving, so none of it counts in foo's CPU */
		times_clnt = udp_client(times_port);
		if (what_port == tcp_port)
			die("foo cannot call this server over TCP: serve C "
			    "elsewhere");
		what_clnt = tcp_client(what_port);
		for (int i = 0; i < nsay; i++) {
			if (say_port[i] == tcp_port)
				die("foo cannot call this server over TCP: "
				    "serve D elsewhere");
			say_clnt[i] = tcp_client(say_port[i]);
		}
	}
	if (pthread_create(&th, NULL, serve_udp, NULL))
		die("pthread_create failed");
	if (ready) {
		char tmp[4096];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
		f = fopen(tmp, "w");
		if (!f ||
		    fprintf(f, "pid %d\ntcp %d\nudp %d\n", (int)getpid(),
			    tcp_port, udp_port) < 0 ||
		    fclose(f) || rename(tmp, ready))
			die("cannot write '%s': %s", ready, strerror(errno));
	}
	serve(not_udp);
	pthread_join(th, NULL);
	spent("main");
	return 0;
}
