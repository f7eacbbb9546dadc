/*
 * guard.h - what keeps `ccsg serve` (docs/viewer.md) answering its own
 * users when a client is slow on purpose or a page of another site asks:
 * limits and deadlines on connections, and the checks of a request's
 * origin.  Nothing here knows libmicrohttpd: cmd-serve.c tells the guard
 * when a connection opens, when its answer is queued, when that answer
 * has gone and when it closes, and calls guard_tick() when the deadline
 * guard_tick() named is due.
 *
 * A connection is *waiting* from when it opens, or its last answer went,
 * until its whole request has been read and answered (the answer queued),
 * then *sending* until the answer has gone.  A slow client cannot hold
 * one for long, however little it sends at a time:
 *   - waiting longer than request_ms: closed (a request must arrive whole
 *     within that time, an idle keep-alive connection is closed after it);
 *   - sending longer than send_ms: closed (a client that reads slowly);
 *   - more than per_ip connections from one address (IPv6: one /64), or
 *     more than total in all: the oldest one of that address, or of all,
 *     is closed to make room, by `since` (a waiting one on a tie): one
 *     that has waited longest for its request, or whose answer has taken
 *     longest to go.  A new connection is never the one closed, so a
 *     newcomer is served while the slow ones, however they are slow,
 *     make way; a connection is closed only when per_ip (or total)
 *     newer ones came while it waited or sent.
 * Closing is shutdown(2) of the socket (guard->close_fd): the descriptor
 * stays the server's, which sees the end of the stream and lets it go.
 * A sending one, or a waiting one whose last answer is still queued in
 * the kernel, is reset first (guard_reset()): that answer will not go,
 * and its bytes, queued for a client that does not read, would keep the
 * socket in the kernel, unseen by the client, after the server let it go.
 *
 * All calls come from one thread (the server's loop); times are
 * milliseconds of a monotonic clock.
 */
#ifndef CCSG_SERVE_GUARD_H
#define CCSG_SERVE_GUARD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct guard_limits {
	unsigned per_ip, total;	     /* connections kept, see above */
	int64_t request_ms, send_ms; /* deadlines, see above */
};

struct guard_conn {
	struct guard_conn *prev, *next; /* in its list, oldest first */
	int fd;
	uint8_t addr[16]; /* the address (IPv6: its /64) compared per_ip */
	int64_t since;	  /* opened, answer queued, or answer gone */
	int sending;	  /* in the sending list */
};

struct guard {
	struct guard_limits lim;
	/* sentinels of the two lists, each oldest first */
	struct guard_conn waiting, sending;
	size_t live; /* in the lists: connections not yet told to close */
	/* how connections were told to close, for the log and the tests */
	size_t closed_late, closed_crowd;
	/* shutdown(fd, SHUT_RDWR), after guard_reset(fd) when reset */
	void (*close_fd)(int fd, int reset);
};

void guard_init(struct guard *g, const struct guard_limits *lim);

/*
 * A connection opened on fd from address a at now: its record (the
 * server keeps it with the connection), after the oldest waiting ones
 * are closed if there are too many.  NULL when out of memory: fd is
 * closed then.
 */
struct guard_conn *guard_open(struct guard *g, int fd, const struct sockaddr *a,
			      int64_t now);
/* Its answer is queued: sending. */
void guard_answering(struct guard *g, struct guard_conn *c, int64_t now);
/* Its answer has gone: waiting for the next request. */
void guard_answered(struct guard *g, struct guard_conn *c, int64_t now);
/* The connection is closed (by whoever): c is freed. */
void guard_closed(struct guard *g, struct guard_conn *c);
/* The socket's close will reset the connection (SO_LINGER 0), its
 * queued bytes dropped: for an answer that will not go. */
void guard_reset(int fd);
/*
 * Close the connections past their deadline at now: the milliseconds
 * until the next deadline, or -1 when no connection is open.
 */
int64_t guard_tick(struct guard *g, int64_t now);

/*
 * Requests.  Is host (a Host header, "name[:port]") a loopback name:
 * localhost, 127.x.y.z or [::1]?  A page of another site whose DNS name
 * was rebound to 127.0.0.1 sends its own name.
 */
int guard_loopback_host(const char *host);
/*
 * Does a request come from the server's own page, by its Origin and
 * Sec-Fetch-Site headers (each NULL when absent)?  Sec-Fetch-Site must be
 * same-origin or none (typed by the user); an Origin must be
 * "http://" + host.  A request with neither (a program, not a browser)
 * passes: browsers send Sec-Fetch-Site with every request and Origin
 * with every POST, so a page of another site cannot make one.
 */
int guard_same_origin(const char *host, const char *origin,
		      const char *fetch_site);

#endif
