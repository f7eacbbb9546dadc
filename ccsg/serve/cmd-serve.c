/*
 * cmd-serve.c - `ccsg serve`: the viewer (docs/viewer.md) as a local web
 * application.  libmicrohttpd serves the page (web/, built into the
 * binary), d3 from Debian's node-d3 and the JSON API of api.h, from one
 * thread of its own: the API's state needs no lock.  The main thread
 * waits for SIGINT or SIGTERM and stops the daemon.
 *
 * Everything that can be wrong with the input (the database, a .x file,
 * a --change, the address) is said in one line before anything is
 * served.  The socket is made here, not by libmicrohttpd, so that a port
 * in use is reported with its reason.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "cmds.h"
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
#define MAX_PARAMS 64

enum { SERVE_LISTEN = OPT_LONG + 100 };

static const struct opt serve_opts[] = {
	CLI_OPT_DB,
	CLI_OPT_IDL,
	CLI_OPT_GROUPS,
	{ "listen", SERVE_LISTEN, "ADDR:PORT",
	  "listen on ADDR:PORT (default 127.0.0.1:8080; port 0: any free "
	  "one)" },
	{ "change", CLI_CHANGE, "SPEC",
	  "the impact specification the CCDG shows first (as ccsg impact's)" },
	OPT_END
};

struct server {
	struct viewer v;
	char *d3;
	size_t d3_len;
	int loopback; /* refuse Host names other than loopback ones */
};

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

/* Host header of a loopback server: a page of another site that a DNS
 * name rebound to 127.0.0.1 must not read the trace. */
static int host_ok(struct MHD_Connection *conn)
{
	const char *h =
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
	size_t n;

	if (!h)
		return 1;
	n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":");
	return (n == 9 && !strncasecmp(h, "localhost", 9)) ||
	       (n == 5 && !strncmp(h, "[::1]", 5)) ||
	       (n >= 4 && !strncmp(h, "127.", 4) &&
		strspn(h, "0123456789.") == n);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	static int started;
	struct server *s = cls;
	struct params p = { .n = 0 };
	struct api_response rs;
	struct api_request rq;

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
	if (s->loopback && !host_ok(conn))
		return respond_error(conn, 403, "not a loopback host name");
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
	viewer_handle(&s->v, &rq, &rs);
	if (!rs.body)
		return respond_error(conn, 500, "out of memory");
	return respond(conn, rs.status, "application/json", rs.body, rs.len,
		       MHD_RESPMEM_MUST_FREE);
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
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64) ||
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

/* --listen and --change (cli_parse() checked the line). */
static void serve_options(int argc, char **argv, const char **listen_spec,
			  const char **change)
{
	struct opt_parser p;
	const char *v;
	int c;

	opt_init(&p, &cmd_serve, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		if (c == SERVE_LISTEN)
			*listen_spec = v;
		else if (c == CLI_CHANGE)
			*change = v;
	}
}

static int run_serve(int argc, char **argv)
{
	const char *listen_spec = "127.0.0.1:8080", *change = NULL;
	struct server srv = { .d3 = NULL };
	struct MHD_Daemon *d = NULL;
	struct session s;
	struct cli o;
	char url[128];
	sigset_t stop;
	int fd, ret = 1, sig;

	if (cli_parse(&o, &cmd_serve, argc, argv, 0))
		return o.status;
	serve_options(argc, argv, &listen_spec, &change);
	if ((fd = listen_on(listen_spec, url, sizeof(url), &srv.loopback)) <
	    0) {
		free(o.idl);
		return 1;
	}
	if (session_open(&s, &o, 1))
		goto out_session;
	if (viewer_init(&srv.v, &s.graph, &s.names, change))
		goto out_viewer;
	srv.d3 = read_d3(&srv.d3_len);
	/* the daemon's thread inherits the mask: the signals come here */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	d = MHD_start_daemon(MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD, 0,
			     NULL, NULL, handle, &srv, MHD_OPTION_LISTEN_SOCKET,
			     fd, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)256,
			     MHD_OPTION_END);
	if (!d) {
		fail("cannot start the http server on '%s'", listen_spec);
		goto out_viewer;
	}
	fd = -1; /* the daemon's now */
	printf("ccsg serve: the viewer of '%s' is at %s\n", o.db, url);
	if (!srv.loopback)
		printf("ccsg serve: listening beyond this host: anyone who "
		       "reaches %s reads the trace\n",
		       url);
	printf("ccsg serve: Ctrl-C stops it\n");
	fflush(stdout);
	while (sigwait(&stop, &sig))
		;
	MHD_stop_daemon(d);
	ret = 0;
out_viewer:
	viewer_release(&srv.v);
out_session:
	session_close(&s);
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
	"[--change SPEC]",
	"serve the viewer: the IDT, DSCG, CCSG and CCDG in the browser "
	"(default http://127.0.0.1:8080/)",
	serve_opts,
};
