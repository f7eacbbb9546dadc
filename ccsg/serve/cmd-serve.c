/*
 * cmd-serve.c - `ccsg serve`: the viewer (docs/viewer.md) as a local web
 * application.  libmicrohttpd serves the page (web/, built into the
 * binary), d3 from Debian's node-d3 and the JSON API of api.h.  One
 * thread does everything: it waits on the daemon's epoll descriptor, a
 * signalfd for SIGINT and SIGTERM, and the next deadline of the guard
 * (guard.h), then lets the daemon run.  So the API's state, the guard's
 * lists and the daemon's connections need no lock, and the guard may shut
 * a connection's socket knowing the daemon is not using it.
 *
 * Everything that can be wrong with the input (the database, a .x file,
 * a --change, --diff's B, the address) is said in one line before
 * anything is served.  With --follow, a thread of cmd-follow.c watches the
 * store and hands new models over through a descriptor the loop waits
 * on too: the loop swaps them in between two requests.  The socket is made
 * here, not by libmicrohttpd, so that a port in use is reported with its
 * reason.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "cmds.h"
#include "diff/diff.h"
#include "follow.h"
#include "guard.h"
#include "usage.h"

/* The page's files (web/, embedded by web/embed.py). */
struct web_asset {
	const char *path, *type;
	const unsigned char *data;
	size_t len;
};
extern const struct web_asset web_assets[];
extern const size_t web_nassets;

#define D3_PATH "/usr/share/nodejs/d3/dist/d3.min.js"
#define MAX_PARAMS 128

/*
 * The guard's limits (guard.h, docs/viewer.md): a browser opens at most 6
 * connections to a server, and sends a request in milliseconds.  The
 * daemon's own limits are twice the guard's, a margin for connections
 * the guard closed and the daemon has not yet let go.
 */
static const struct guard_limits serve_limits = {
	.per_ip = 32,
	.total = 256,
	.request_ms = 10000,
	.send_ms = 60000,
};
#define IDLE_TIMEOUT_S 20	 /* the daemon's: no byte either way */
#define MEMORY_LIMIT (64 * 1024) /* a request's line and headers */

enum {
	SERVE_LISTEN = OPT_LONG + 100,
	SERVE_DIFF,
	SERVE_FOLLOW,
	SERVE_LAST,
	SERVE_REFRESH
};

static const struct opt serve_opts[] = {
	CLI_OPT_DB,
	CLI_OPT_IDL,
	CLI_OPT_GROUPS,
	{ "listen", SERVE_LISTEN, "ADDR:PORT",
	  "listen on ADDR:PORT (default 127.0.0.1:8080; port 0: any free "
	  "one)" },
	{ "change", CLI_CHANGE, "SPEC",
	  "the impact specification the CCDG shows first (as ccsg impact's)" },
	{ "diff", SERVE_DIFF, "B",
	  "colour the CCSG by the change from this trace to B (a trace or "
	  "store URL), as ccsg diff compares them" },
	{ "follow", SERVE_FOLLOW, NULL,
	  "show the last minutes of a growing trace, built again when the "
	  "store changes" },
	{ "last", SERVE_LAST, "MINUTES",
	  "with --follow: the minutes before the newest event shown "
	  "(default 10)" },
	{ "refresh", SERVE_REFRESH, "SECONDS",
	  "with --follow: how often the store is looked at (default 5)" },
	OPT_END
};

struct server {
	struct serve_model *m; /* what requests are answered from */
	struct follow *follow; /* --follow, or NULL */
	int follow_fd;	       /* readable: follow_take() */
	struct guard guard;
	char *d3;
	size_t d3_len;
	int loopback; /* refuse Host names other than loopback ones */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct guard_conn *conn_guard(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

/* ---- requests
 * ---------------------------------------------------------------- */

struct params {
	struct api_param v[MAX_PARAMS];
	size_t n;
	int overflow;
};

static enum MHD_Result add_param(void *cls, enum MHD_ValueKind kind,
				 const char *key, const char *value)
{
	struct params *p = cls;

	(void)kind;
	if (p->n == MAX_PARAMS) {
		p->overflow = 1;
		return MHD_NO;
	}
	p->v[p->n++] = (struct api_param){ key ? key : "", value };
	return MHD_YES;
}

static enum MHD_Result respond(struct MHD_Connection *conn, int status,
			       const char *type, void *body, size_t len,
			       enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(conn, (unsigned)status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result respond_error(struct MHD_Connection *conn, int status,
				     const char *msg)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "{\"error\": \"%s\"}\n", msg);

	return respond(conn, status, "application/json", buf, (size_t)n,
		       MHD_RESPMEM_MUST_COPY);
}

static const char *header(struct MHD_Connection *conn, const char *name)
{
	return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

/* Host header of a loopback server: a page of another site that a DNS
 * name rebound to 127.0.0.1 must not read the trace. */
static int host_ok(struct MHD_Connection *conn)
{
	const char *h = header(conn, "Host");

	return !h || guard_loopback_host(h);
}

/* A page of another site may link to the viewer, never use its API nor
 * send it anything but a GET. */
static int origin_ok(struct MHD_Connection *conn)
{
	return guard_same_origin(header(conn, "Host"), header(conn, "Origin"),
				 header(conn, "Sec-Fetch-Site"));
}

/* The answer to a request read whole. */
static enum MHD_Result answer(struct server *s, struct MHD_Connection *conn,
			      const char *url, const char *method)
{
	struct params p = { .n = 0 };
	struct api_response rs;
	struct api_request rq;

	if (s->loopback && !host_ok(conn))
		return respond_error(conn, 403, "not a loopback host name");
	if ((!strncmp(url, "/api/", 5) ||
	     (strcmp(method, "GET") && strcmp(method, "HEAD"))) &&
	    !origin_ok(conn))
		return respond_error(conn, 403,
				     "a request from another site's page");
	if (strncmp(url, "/api/", 5)) {
		if (strcmp(method, "GET") && strcmp(method, "HEAD"))
			return respond_error(conn, 405, "method not allowed");
		if (!strcmp(url, "/d3.min.js")) {
			if (!s->d3)
				return respond_error(conn, 404,
						     "d3 is not installed "
						     "(node-d3: " D3_PATH ")");
			return respond(conn, 200, "text/javascript", s->d3,
				       s->d3_len, MHD_RESPMEM_PERSISTENT);
		}
		for (size_t i = 0; i < web_nassets; i++)
			if (!strcmp(url, web_assets[i].path) ||
			    (!strcmp(url, "/") &&
			     !strcmp(web_assets[i].path, "/index.html")))
				return respond(conn, 200, web_assets[i].type,
					       (void *)web_assets[i].data,
					       web_assets[i].len,
					       MHD_RESPMEM_PERSISTENT);
		return respond_error(conn, 404, "no such page");
	}
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_param, &p);
	if (p.overflow)
		return respond_error(conn, 400, "too many parameters");
	rq = (struct api_request){ method, url, p.v, p.n };
	viewer_handle(&s->m->v, &rq, &rs);
	if (!rs.body)
		return respond_error(conn, 500, "out of memory");
	return respond(conn, rs.status, "application/json", rs.body, rs.len,
		       MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	static int started;
	struct server *s = cls;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	if (!*con_cls) { /* the headers: wait for the body, if any */
		*con_cls = &started;
		return MHD_YES;
	}
	if (*upload_data_size) { /* a body is read and ignored */
		*upload_data_size = 0;
		return MHD_YES;
	}
	ret = answer(s, conn, url, method);
	guard_answering(&s->guard, conn_guard(conn), now_ms());
	return ret;
}

/* ---- connections: the guard told of each ------------------------------- */

static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct server *s = cls;
	const union MHD_ConnectionInfo *fd, *a;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		guard_closed(&s->guard, *socket_context);
		*socket_context = NULL;
		return;
	}
	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	a = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	*socket_context = fd ? guard_open(&s->guard, fd->connect_fd,
					  a ? a->client_addr : NULL, now_ms())
			     : NULL;
}

/* A request ended: its answer gone, or not (libmicrohttpd's timeout, an
 * error), when the connection is reset as it closes (guard_reset()). */
static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct server *s = cls;
	const union MHD_ConnectionInfo *fd;

	(void)con_cls;
	if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK &&
	    (fd = MHD_get_connection_info(conn,
					  MHD_CONNECTION_INFO_CONNECTION_FD)))
		guard_reset(fd->connect_fd);
	guard_answered(&s->guard, conn_guard(conn), now_ms());
}

/*
 * The loop: the daemon's descriptors, the signals and the guard's next
 * deadline, until SIGINT or SIGTERM.  0, or -1 after a message.
 */
static int serve_loop(struct server *s, struct MHD_Daemon *d,
		      const sigset_t *stop)
{
	const union MHD_DaemonInfo *ep =
		MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD);
	struct pollfd p[3] = {
		{ .fd = ep ? ep->epoll_fd : -1, .events = POLLIN },
		{ .fd = signalfd(-1, stop, SFD_CLOEXEC), .events = POLLIN },
		{ .fd = s->follow_fd, .events = POLLIN } /* -1: ignored */
	};
	int ret = 0;

	if (p[0].fd < 0 || p[1].fd < 0) {
		ret = fail("cannot wait for requests: %s", strerror(errno));
		goto out;
	}
	for (;;) {
		int64_t wait = guard_tick(&s->guard, now_ms());
		MHD_UNSIGNED_LONG_LONG mhd;

		if (MHD_get_timeout(d, &mhd) == MHD_YES &&
		    (wait < 0 || mhd < (MHD_UNSIGNED_LONG_LONG)wait))
			wait = (int64_t)mhd;
		if (poll(p, 3, wait < 0 || wait > INT32_MAX ? -1 : (int)wait) <
			    0 &&
		    errno != EINTR) {
			ret = fail("cannot wait for requests: %s",
				   strerror(errno));
			break;
		}
		if (p[1].revents)
			break;
		if (p[2].fd >= 0 && p[2].revents) /* between two requests */
			s->m = follow_take(s->follow, s->m);
		MHD_run(d);
	}
out:
	if (p[1].fd >= 0)
		close(p[1].fd);
	return ret;
}

/* ---- set-up
 * ------------------------------------------------------------------ */

/* d3 from node-d3, read once; NULL (and a warning) when absent. */
static char *read_d3(size_t *len)
{
	int fd = open(D3_PATH, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	ssize_t n = 0;

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0 ||
	    !(buf = malloc((size_t)st.st_size)) ||
	    (n = read(fd, buf, (size_t)st.st_size)) != st.st_size) {
		warning("cannot read d3 '%s': %s; the page needs it (apt-get "
			"install node-d3)",
			D3_PATH, n >= 0 ? strerror(errno) : "short read");
		free(buf);
		buf = NULL;
	}
	if (fd >= 0)
		close(fd);
	*len = buf ? (size_t)st.st_size : 0;
	return buf;
}

/*
 * Listen on spec ("ADDR:PORT", "[V6ADDR]:PORT"): the socket, or -1 after
 * one line.  *loopback: the address is a loopback one.
 */
static int listen_on(const char *spec, char *url, size_t len, int *loopback)
{
	char host[256];
	const char *colon = strrchr(spec, ':'), *port;
	struct addrinfo hints = { 0 }, *ai = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char addr[INET6_ADDRSTRLEN];
	int fd = -1, one = 1, rc;
	size_t hl;

	if (!colon || colon == spec || !colon[1] ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    strlen(colon + 1) > 5 || atoi(colon + 1) > 65535)
		return fail("--listen takes ADDR:PORT (a port from 0 to "
			    "65535), not '%s'",
			    spec);
	port = colon + 1;
	hl = (size_t)(colon - spec);
	if (spec[0] == '[' && spec[hl - 1] == ']') {
		spec++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return fail("--listen: address too long '%s'", spec);
	memcpy(host, spec, hl);
	host[hl] = '\0';
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if ((rc = getaddrinfo(host, port, &hints, &ai)))
		return fail("cannot listen on '%s': %s", host,
			    gai_strerror(rc));
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, SOMAXCONN) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		rc = errno;
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return fail("cannot listen on '%s:%s': %s", host, port,
			    strerror(rc));
	}
	freeaddrinfo(ai);
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, addr, sizeof(addr));
		snprintf(url, len, "http://[%s]:%u/", addr,
			 ntohs(a->sin6_port));
		*loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, addr, sizeof(addr));
		snprintf(url, len, "http://%s:%u/", addr, ntohs(a->sin_port));
		*loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	return fd;
}

/*
 * --diff B: `ccsg diff A B`'s report (diff.h) made once, with the
 * command's defaults, and handed to the viewer.  0, or -1 after a
 * message.
 */
static int serve_diff(struct viewer *v, const struct cli *o, const char *b)
{
	struct cli d = *o;
	struct diff_report r;

	d.workers = 1; /* the diff watches each chain */
	if (diff_compare(&r, &d, o->db, b, 0.01, 0.05))
		return -1;
	return viewer_set_diff(v, &r);
}

/* What serve takes beyond report's options. */
struct serve_args {
	const char *listen, *change, *diff;
	int follow, db_given;
	struct follow_opts fo;
	const char *last, *refresh; /* as given, or NULL */
};

/* A number of --last or --refresh in [lo, hi]: 0, or 2 after one line. */
static int serve_number(const char *opt, const char *v, double lo, double hi,
			double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (errno || end == v || *end || !(*out >= lo && *out <= hi))
		return opt_bad(&cmd_serve,
			       "--%s takes a number from %g to %g, "
			       "not '%s'",
			       opt, lo, hi, v);
	return 0;
}

/* --listen, --change, --diff and --follow's (cli_parse() checked the
 * line): 0, or 2 after one line. */
static int serve_options(int argc, char **argv, struct serve_args *a)
{
	struct opt_parser p;
	const char *v;
	int c;

	opt_init(&p, &cmd_serve, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		if (c == SERVE_LISTEN)
			a->listen = v;
		else if (c == CLI_CHANGE)
			a->change = v;
		else if (c == SERVE_DIFF)
			a->diff = v;
		else if (c == SERVE_FOLLOW)
			a->follow = 1;
		else if (c == CLI_DB)
			a->db_given = 1;
		else if (c == SERVE_LAST)
			a->last = v;
		else if (c == SERVE_REFRESH)
			a->refresh = v;
	}
	if ((a->last || a->refresh) && !a->follow)
		return opt_bad(&cmd_serve, "--%s needs --follow",
			       a->last ? "last" : "refresh");
	if (a->follow && !a->db_given)
		return opt_bad(&cmd_serve,
			       "--follow needs --db: the store to follow");
	if (a->follow && a->diff)
		return opt_bad(&cmd_serve, "--follow and --diff do not go "
					   "together");
	if (a->last &&
	    serve_number("last", a->last, 0.01, 525600, &a->fo.last_min))
		return 2;
	if (a->refresh &&
	    serve_number("refresh", a->refresh, 0.1, 3600, &a->fo.refresh_s))
		return 2;
	return 0;
}

/* The first model: built, or following the store.  0, or -1 after a
 * message. */
static int serve_model(struct server *srv, const struct cli *o,
		       const struct serve_args *a)
{
	if (a->follow) {
		srv->follow =
			follow_start(o, a->change, &a->fo, &srv->follow_fd);
		if (srv->follow)
			srv->m = follow_take(srv->follow, NULL);
		return srv->follow ? 0 : -1;
	}
	srv->m = serve_model_build(o, a->change, NULL);
	return !srv->m || (a->diff && serve_diff(&srv->m->v, o, a->diff)) ? -1
									  : 0;
}

static int run_serve(int argc, char **argv)
{
	struct serve_args a = {
		.listen = "127.0.0.1:8080",
		.fo = { FOLLOW_LAST_MIN, FOLLOW_REFRESH_S },
	};
	struct server srv = { .d3 = NULL, .follow_fd = -1 };
	struct MHD_Daemon *d = NULL;
	struct cli o;
	char url[128];
	sigset_t stop;
	int fd, ret = 1;

	if (cli_parse(&o, &cmd_serve, argc, argv, 0))
		return o.status;
	if ((ret = serve_options(argc, argv, &a))) {
		free(o.idl);
		return ret;
	}
	ret = 1;
	if ((fd = listen_on(a.listen, url, sizeof(url), &srv.loopback)) < 0) {
		free(o.idl);
		return 1;
	}
	if (serve_model(&srv, &o, &a))
		goto out;
	srv.d3 = read_d3(&srv.d3_len);
	guard_init(&srv.guard, &serve_limits);
	/* the signals come through a signalfd to the loop (--follow's
	 * thread takes none: follow_main()) */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	d = MHD_start_daemon(
		MHD_USE_EPOLL, 0, NULL, NULL, handle, &srv,
		MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)IDLE_TIMEOUT_S, MHD_OPTION_CONNECTION_LIMIT,
		2 * serve_limits.total, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		2 * serve_limits.per_ip, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)MEMORY_LIMIT, MHD_OPTION_NOTIFY_CONNECTION,
		on_connection, &srv, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
		&srv, MHD_OPTION_END);
	if (!d) {
		fail("cannot start the http server on '%s'", a.listen);
		goto out;
	}
	fd = -1; /* the daemon's now */
	printf("ccsg serve: the viewer of '%s' is at %s\n", o.db, url);
	if (a.follow)
		printf("ccsg serve: following it: the last %g min, looked at "
		       "every %g s\n",
		       a.fo.last_min, a.fo.refresh_s);
	if (!srv.loopback)
		printf("ccsg serve: listening beyond this host: anyone who "
		       "reaches %s reads the trace\n",
		       url);
	printf("ccsg serve: Ctrl-C stops it\n");
	fflush(stdout);
	ret = serve_loop(&srv, d, &stop) ? 1 : 0;
	MHD_stop_daemon(d);
out:
	follow_stop(srv.follow);
	serve_model_free(srv.m);
	if (fd >= 0)
		close(fd);
	free(srv.d3);
	free(o.idl);
	return ret;
}

const struct command cmd_serve = {
	"serve",
	run_serve,
	"[--db PATH] [--idl FILE.x]... [--groups FILE] [--listen ADDR:PORT] "
	"[--change SPEC] [--diff B] [--follow [--last MINUTES] "
	"[--refresh SECONDS]]",
	"serve the viewer: the IDT, DSCG, CCSG and CCDG in the browser "
	"(default http://127.0.0.1:8080/)",
	serve_opts,
};
