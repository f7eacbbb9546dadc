/*
 * diag-proxy - the network of the planted bottlenecks: a TCP forwarder
 * on 127.0.0.1 that holds every message DIAG_DELAY_US (microseconds,
 * default 25000) before passing it on, in both directions, as a slow
 * link would.  Not traced: it is the network.
 *
 *   diag-proxy READY PORT     (forward to 127.0.0.1:PORT)
 *
 * Once listening it writes "pid P\ntcp T\n" to READY (atomically); each
 * connection gets two threads, one a direction.  A message is what one
 * read returns: an RPC record over loopback comes in one.  SIGTERM ends it.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "diag-knobs.h"

static long delay_us;

struct pipe_ends {
	int from, to;
};

static void *forward(void *arg)
{
	struct pipe_ends *p = arg;
	char buf[65536];
	ssize_t n;

	while ((n = read(p->from, buf, sizeof(buf))) > 0) {
		diag_sleep_us(delay_us);
		for (ssize_t off = 0, w; off < n; off += w)
			if ((w = write(p->to, buf + off, n - off)) <= 0)
				goto out;
	}
out:
	shutdown(p->to, SHUT_WR);
	shutdown(p->from, SHUT_RD);
	return NULL;
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sin;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = loopback(0);
	socklen_t len = sizeof(sin);
	char tmp[4096];
	int ls, port;
	FILE *f;

	if (argc != 3 || (port = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: diag-proxy READY PORT\n");
		return 2;
	}
	delay_us = diag_knob("DIAG_DELAY_US", 25000);
	signal(SIGPIPE, SIG_IGN);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(ls, 16) || getsockname(ls, (struct sockaddr *)&sin, &len)) {
		perror("diag-proxy: listen");
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	if (!(f = fopen(tmp, "w")) ||
	    fprintf(f, "pid %d\ntcp %d\n", (int)getpid(), ntohs(sin.sin_port)) <
		    0 ||
	    fclose(f) || rename(tmp, argv[1])) {
		perror("diag-proxy: ready file");
		return 1;
	}
	for (;;) {
		struct sockaddr_in to = loopback(port);
		struct pipe_ends *p = malloc(2 * sizeof(*p));
		int c = accept(ls, NULL, NULL),
		    s = socket(AF_INET, SOCK_STREAM, 0);
		pthread_t th;

		if (c < 0 || s < 0 || !p ||
		    connect(s, (struct sockaddr *)&to, sizeof(to))) {
			perror("diag-proxy: connect");
			return 1;
		}
		p[0] = (struct pipe_ends){ c, s };
		p[1] = (struct pipe_ends){ s, c };
		if (pthread_create(&th, NULL, forward, &p[0]) ||
		    pthread_detach(th) ||
		    pthread_create(&th, NULL, forward, &p[1]) ||
		    pthread_detach(th)) {
			fprintf(stderr, "diag-proxy: cannot start a thread\n");
			return 1;
		}
	}
}
