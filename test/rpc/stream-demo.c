/*
 * stream-demo - serves and calls STREAM_PROG (stream.x) for the fork
 * end-to-end suite (check-e2e-rpc-fork.c).
 *
 *   stream-demo serve -r READY
 *   stream-demo call -P PORT -n COUNT -s SIZE [-H] [-k CALLS] [-b BATCHED]
 *
 * serve: one TCP transport on 127.0.0.1 (a port of the kernel's choice),
 * not registered with rpcbind, served by the main thread.  READY gets
 * "pid PID tcp PORT" once serving.  FORKED forks as Debian's ypserv does
 * in YPPROC_ALL: the child sends the reply with svc_sendreply() and an
 * encoder of its own that streams the records out of a cursor (each one
 * encoded moves the cursor on, as ypserv's reads its database), writes
 * "child PID" on stdout and _exits; the serving process returns FALSE, so
 * its dispatch sends nothing.  HERE streams the same reply from the
 * serving process.  BATCHED adds its arguments to a tally and sends no
 * reply; TALLY returns the tally and starts a new one.  SIGTERM: exit 0.
 *
 * call: on one connection to 127.0.0.1:PORT, BATCHED calls batched
 * (default none: count 0 .. BATCHED - 1, size SIZE), then CALLS (default
 * 1) calls for COUNT records of SIZE bytes, FORKED and HERE in turn
 * (HERE first with -H), each reply decoded record by record as libnsl's
 * yp_all does (its decoder counts the ends of the stream it sees: 1
 * unless someone ran it again).  Prints for each "stream records N bytes
 * B hash H ends E" (B the data bytes, H FNV-1a over every record's seq
 * and data), then "expected hash H" for the records asked for; after
 * batched calls, TALLY's "tally calls N hash H" and "expected tally hash
 * H".  Exits 0 when every call succeeded.
 */
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>

#include "demo-common.h"
#include "stream.h"

void stream_prog_1(struct svc_req *rqstp, SVCXPRT *transp);

#define MAX_SIZE 4096

static void fill(unsigned seq, unsigned size, char *buf)
{
	for (unsigned i = 0; i < size; i++)
		buf[i] = (char)((seq * 31 + i) & 0xff);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

#define FNV_SEED 0xcbf29ce484222325ULL

static uint64_t rec_hash(uint64_t h, unsigned seq, const char *data,
			 unsigned size)
{
	h = fnv(h, &seq, sizeof(seq));
	return fnv(h, data, size);
}

/* ---- serve --------------------------------------------------------------- */

/* What is left to send: each record encoded moves it on. */
struct cursor {
	unsigned next, count, size;
};

/* The reply, streamed: TRUE and a record while the cursor has one, then
 * FALSE (ypserv's xdr_ypresp_all: encoding only). */
static bool_t xdr_stream_out(XDR *xdrs, struct cursor *c)
{
	static char buf[MAX_SIZE];
	bool_t more = TRUE;

	if (xdrs->x_op != XDR_ENCODE)
		return TRUE;
	for (; c->next < c->count; c->next++) {
		char *p = buf;
		unsigned seq = c->next;

		fill(seq, c->size, buf);
		if (!xdr_bool(xdrs, &more) || !xdr_u_int(xdrs, &seq) ||
		    !xdr_bytes(xdrs, &p, &c->size, MAX_SIZE))
			return FALSE;
	}
	more = FALSE;
	return xdr_bool(xdrs, &more);
}

static bool_t stream_reply_now(const stream_req *req, struct svc_req *rq)
{
	struct cursor c = { 0, req->count,
			    req->size > MAX_SIZE ? MAX_SIZE : req->size };

	if (!svc_sendreply(rq->rq_xprt, (xdrproc_t)xdr_stream_out, (caddr_t)&c))
		svcerr_systemerr(rq->rq_xprt);
	return FALSE; /* sent: the dispatch sends nothing more */
}

bool_t forked_1_svc(stream_req *req, stream_reply *res, struct svc_req *rq)
{
	char line[64];
	int n;

	*res = NULL; /* freed by the dispatch, as results are */
	switch (fork()) {
	case -1:
		return FALSE;
	case 0:
		break;
	default:
		return FALSE; /* the child replies */
	}
	stream_reply_now(req, rq);
	n = snprintf(line, sizeof(line), "child %d\n", (int)getpid());
	if (write(1, line, (size_t)n) != n)
		_exit(1);
	_exit(0);
}

bool_t here_1_svc(stream_req *req, stream_reply *res, struct svc_req *rq)
{
	*res = NULL;
	return stream_reply_now(req, rq);
}

static stream_tally tally = { 0, FNV_SEED };

static uint64_t req_hash(uint64_t h, const stream_req *req)
{
	h = fnv(h, &req->count, sizeof(req->count));
	return fnv(h, &req->size, sizeof(req->size));
}

bool_t batched_1_svc(stream_req *req, void *res, struct svc_req *rq)
{
	(void)res;
	(void)rq;
	tally.calls++;
	tally.hash = req_hash(tally.hash, req);
	return FALSE; /* a batched call gets no reply */
}

bool_t tally_1_svc(void *arg, stream_tally *res, struct svc_req *rq)
{
	(void)arg;
	(void)rq;
	*res = tally;
	tally = (stream_tally){ 0, FNV_SEED }; /* the next client's own */
	return TRUE;
}

int stream_prog_1_freeresult(SVCXPRT *transp, xdrproc_t xres, caddr_t res)
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

static int serve(const char *ready)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int sock = socket(AF_INET, SOCK_STREAM, 0);
	SVCXPRT *x;
	char text[64];

	if (sock < 0 || bind(sock, (struct sockaddr *)&sin, sizeof(sin)) ||
	    getsockname(sock, (struct sockaddr *)&sin, &len) ||
	    listen(sock, 16)) {
		perror("stream-demo: socket");
		return 1;
	}
	x = svctcp_create(sock, 0, 0);
	if (!x ||
	    !svc_register(x, STREAM_PROG, STREAM_VERS, stream_prog_1, 0)) {
		fprintf(stderr, "stream-demo: cannot serve\n");
		return 1;
	}
	signal(SIGCHLD, SIG_IGN); /* the children reap themselves */
	signal(SIGTERM, on_term);
	snprintf(text, sizeof(text), "pid %d tcp %d\n", (int)getpid(),
		 ntohs(sin.sin_port));
	demo_write_ready(ready, text); /* whole, or not there */
	while (!stopping) {
		int n = poll(svc_pollfd, (nfds_t)svc_max_pollfd, 100);

		if (n > 0)
			svc_getreq_poll(svc_pollfd, n);
	}
	return 0;
}

/* ---- call ---------------------------------------------------------------- */

struct received {
	unsigned records, ends;
	unsigned long long bytes;
	uint64_t hash;
};

/* The reply, decoded record by record (libnsl's __xdr_ypresp_all): each
 * end of the stream it sees is counted. */
static bool_t xdr_stream_in(XDR *xdrs, struct received *r)
{
	static char buf[MAX_SIZE];

	for (;;) {
		bool_t more = FALSE;
		unsigned seq, size = 0;
		char *p = buf;

		if (!xdr_bool(xdrs, &more))
			return FALSE;
		if (!more) {
			r->ends++;
			return TRUE;
		}
		if (!xdr_u_int(xdrs, &seq) ||
		    !xdr_bytes(xdrs, &p, &size, MAX_SIZE))
			return FALSE;
		r->records++;
		r->bytes += size;
		r->hash = rec_hash(r->hash, seq, buf, size);
	}
}

static unsigned number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > 1000000) {
		fprintf(stderr, "stream-demo: bad number '%s'\n", s);
		exit(2);
	}
	return (unsigned)v;
}

/* BATCHED n times, batched: sent when the next call is. */
static int batch(CLIENT *cl, const stream_req *req, unsigned n, uint64_t *want)
{
	static const struct timeval now = { 0, 0 };

	for (unsigned i = 0; i < n; i++) {
		stream_req b = { i, req->size };

		if (clnt_call(cl, BATCHED, (xdrproc_t)xdr_stream_req,
			      (caddr_t)&b, NULL, NULL, now) != RPC_SUCCESS) {
			clnt_perror(cl, "stream-demo: batched");
			return 1;
		}
		*want = req_hash(*want, &b);
	}
	return 0;
}

/* TALLY, after n batched calls. */
static int tally_call(CLIENT *cl, unsigned n, uint64_t want)
{
	struct timeval timeout = { 60, 0 };
	stream_tally got = { 0, 0 };

	if (clnt_call(cl, TALLY, (xdrproc_t)(void (*)(void))xdr_void, NULL,
		      (xdrproc_t)xdr_stream_tally, (caddr_t)&got,
		      timeout) != RPC_SUCCESS) {
		clnt_perror(cl, "stream-demo: tally");
		return 1;
	}
	printf("tally calls %u hash %016llx\n", got.calls,
	       (unsigned long long)got.hash);
	printf("expected tally calls %u hash %016llx\n", n,
	       (unsigned long long)want);
	return 0;
}

/* One FORKED (HERE) call, its reply streamed in. */
static int stream_call(CLIENT *cl, stream_req *req, int here)
{
	struct timeval timeout = { 60, 0 };
	struct received r = { .hash = FNV_SEED };

	if (clnt_call(cl, here ? HERE : FORKED, (xdrproc_t)xdr_stream_req,
		      (caddr_t)req, (xdrproc_t)xdr_stream_in, (caddr_t)&r,
		      timeout) != RPC_SUCCESS) {
		clnt_perror(cl, "stream-demo");
		return 1;
	}
	printf("stream records %u bytes %llu hash %016llx ends %u\n", r.records,
	       r.bytes, (unsigned long long)r.hash, r.ends);
	return 0;
}

static int call(int port, stream_req *req, int here, unsigned calls,
		unsigned batched)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int sock = RPC_ANYSOCK;
	uint64_t want = FNV_SEED, tally_want = FNV_SEED;
	static char buf[MAX_SIZE];
	CLIENT *cl;

	cl = clnttcp_create(&sin, STREAM_PROG, STREAM_VERS, &sock, 0, 0);
	if (!cl) {
		clnt_pcreateerror("stream-demo");
		return 1;
	}
	if (batch(cl, req, batched, &tally_want))
		return 1;
	for (unsigned i = 0; i < calls; i++)
		if (stream_call(cl, req, here ^ (int)(i & 1)))
			return 1;
	for (unsigned seq = 0; seq < req->count; seq++) {
		fill(seq, req->size, buf);
		want = rec_hash(want, seq, buf, req->size);
	}
	printf("expected hash %016llx\n", (unsigned long long)want);
	if (batched && tally_call(cl, batched, tally_want))
		return 1;
	clnt_destroy(cl);
	return 0;
}

int main(int argc, char **argv)
{
	stream_req req = { 0, 0 };
	const char *ready = NULL;
	int opt, port = 0, here = 0;
	unsigned calls = 1, batched = 0;

	if (argc < 2 || (strcmp(argv[1], "serve") && strcmp(argv[1], "call"))) {
		fprintf(stderr, "usage: stream-demo serve|call OPTIONS\n");
		return 2;
	}
	optind = 2;
	while ((opt = getopt(argc, argv, "r:P:n:s:Hk:b:")) != -1) {
		switch (opt) {
		case 'r':
			ready = optarg;
			break;
		case 'P':
			port = (int)number(optarg);
			break;
		case 'n':
			req.count = number(optarg);
			break;
		case 's':
			req.size = number(optarg);
			if (req.size > MAX_SIZE) {
				fprintf(stderr, "stream-demo: -s over %d\n",
					MAX_SIZE);
				return 2;
			}
			break;
		case 'H':
			here = 1;
			break;
		case 'k':
			calls = number(optarg);
			break;
		case 'b':
			batched = number(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!strcmp(argv[1], "serve")) {
		if (!ready) {
			fprintf(stderr, "stream-demo: serve needs -r READY\n");
			return 2;
		}
		return serve(ready);
	}
	if (!port) {
		fprintf(stderr, "stream-demo: call needs -P PORT\n");
		return 2;
	}
	return call(port, &req, here, calls, batched);
}
