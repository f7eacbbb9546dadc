/*
 * vals-demo - serves and calls VALS_PROG (vals.x) for the values
 * end-to-end suite (check-e2e-values.c).
 *
 *   vals-demo -r READY
 *   vals-demo -P PORT [-u]
 *
 * Without -P it serves one TCP and one UDP transport on free ports of
 * 127.0.0.1, not registered with rpcbind; READY gets "pid PID\ntcp
 * PORT\nudp PORT\n" once serving.  MEASURE answers, for a list of items,
 * the sum of their points' x + y, LIGHT with the note "ok NAME" (the
 * first item's name) or DARK with the code -1 for a name starting with
 * 'd', the tag 1 2 3 4, and seen: the points per item.  ADD answers x +
 * y.  SIGTERM: exit 0.
 *
 * With -P it calls (over UDP with -u, else TCP) MEASURE once with the
 * list alpha {(1,2),(3,4)} big -5000000000 -> beta {} big 7, then ADD
 * (1,10), (2,20), (3,30); exits 1 if an answer is not the one expected.
 */
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#include "demo-common.h"
#include "vals.h"

void vals_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

bool_t measure_1_svc(item *req, answer *res, struct svc_req *rq)
{
	static unsigned int seen[8];
	unsigned int n = 0;

	(void)rq;
	memset(res, 0, sizeof(*res));
	for (item *it = req; it; it = it->next) {
		for (unsigned i = 0; i < it->pts.pts_len; i++)
			res->sum += it->pts.pts_val[i].x + it->pts.pts_val[i].y;
		if (n < 8)
			seen[n++] = it->pts.pts_len;
	}
	if (req->name[0] == 'd') {
		res->out.s = DARK;
		res->out.outcome_u.code = -1;
	} else {
		static char note[VALS_NAME_MAX + 4];

		snprintf(note, sizeof(note), "ok %s", req->name);
		res->out.s = LIGHT;
		res->out.outcome_u.note = note;
	}
	memcpy(res->tag, "\1\2\3\4", 4);
	res->seen.seen_len = n;
	res->seen.seen_val = seen;
	return TRUE;
}

bool_t add_1_svc(point *p, int *res, struct svc_req *rq)
{
	(void)rq;
	*res = p->x + p->y;
	return TRUE;
}

int vals_prog_1_freeresult(SVCXPRT *transp, xdrproc_t xres, caddr_t res)
{
	(void)transp;
	(void)xres;
	(void)res; /* nothing of it was allocated */
	return 1;
}

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static int bound(int type, struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int sock = socket(AF_INET, type, 0);

	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = 0;
	if (sock < 0 || bind(sock, (struct sockaddr *)sin, sizeof(*sin)) ||
	    (type == SOCK_STREAM && listen(sock, 16)) ||
	    getsockname(sock, (struct sockaddr *)sin, &len))
		return -1;
	return sock;
}

static int serve(const char *ready)
{
	struct sockaddr_in tcp, udp;
	int ts = bound(SOCK_STREAM, &tcp), us = bound(SOCK_DGRAM, &udp);
	SVCXPRT *xt = ts >= 0 ? svctcp_create(ts, 0, 0) : NULL;
	SVCXPRT *xu = us >= 0 ? svcudp_create(us) : NULL;
	char tmp[4096];
	FILE *f;

	if (!xt || !xu ||
	    !svc_register(xt, VALS_PROG, VALS_VERS, vals_prog_1, 0) ||
	    !svc_register(xu, VALS_PROG, VALS_VERS, vals_prog_1, 0)) {
		fprintf(stderr, "vals-demo: cannot serve\n");
		return 1;
	}
	signal(SIGTERM, on_term);
	signal(SIGPIPE, SIG_IGN);
	snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
	f = fopen(tmp, "w");
	if (!f ||
	    fprintf(f, "pid %d\ntcp %d\nudp %d\n", (int)getpid(),
		    ntohs(tcp.sin_port), ntohs(udp.sin_port)) < 0 ||
	    fclose(f) || rename(tmp, ready)) {
		perror("vals-demo: ready file");
		return 1;
	}
	while (!stopping) {
		int n = poll(svc_pollfd, (nfds_t)svc_max_pollfd, 100);

		if (n > 0)
			svc_getreq_poll(svc_pollfd, n);
	}
	return 0;
}

static int call(int port, int udp)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval wait = { 5, 0 };
	point pts[2] = { { 1, 2 }, { 3, 4 } };
	item beta = { .name = "beta", .big = 7 };
	item alpha = { .name = "alpha",
		       .pts = { 2, pts },
		       .big = -5000000000LL,
		       .next = &beta };
	int sock = RPC_ANYSOCK, bad = 0;
	answer ans;
	CLIENT *cl =
		udp ? clntudp_create(&sin, VALS_PROG, VALS_VERS, wait, &sock)
		    : clnttcp_create(&sin, VALS_PROG, VALS_VERS, &sock, 0, 0);

	if (!cl) {
		clnt_pcreateerror("vals-demo");
		return 1;
	}
	memset(&ans, 0, sizeof(ans));
	if (measure_1(&alpha, &ans, cl) != RPC_SUCCESS || ans.sum != 10 ||
	    ans.out.s != LIGHT || strcmp(ans.out.outcome_u.note, "ok alpha"))
		bad = 1;
	xdr_free((xdrproc_t)xdr_answer, (char *)&ans);
	for (int k = 1; k <= 3; k++) {
		point p = { k, 10 * k };
		int sum = 0;

		if (add_1(&p, &sum, cl) != RPC_SUCCESS || sum != 11 * k)
			bad = 1;
	}
	clnt_destroy(cl);
	if (bad)
		fprintf(stderr,
			"vals-demo: an answer was not the one expected\n");
	return bad;
}

int main(int argc, char **argv)
{
	const char *ready = NULL;
	int opt, port = 0, udp = 0;

	while ((opt = getopt(argc, argv, "r:P:u")) != -1) {
		switch (opt) {
		case 'r':
			ready = optarg;
			break;
		case 'P':
			port = atoi(optarg);
			break;
		case 'u':
			udp = 1;
			break;
		default:
			fprintf(stderr,
				"usage: vals-demo -r READY | -P PORT [-u]\n");
			return 2;
		}
	}
	if (port > 0)
		return call(port, udp);
	if (!ready) {
		fprintf(stderr, "usage: vals-demo -r READY | -P PORT [-u]\n");
		return 2;
	}
	return serve(ready);
}
