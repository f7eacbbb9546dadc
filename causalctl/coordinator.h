/*
 * coordinator.h - the monitoring coordinator of Figure 9 of the
 * monitoring paper (`causalctl serve`) and the requests the user's
 * commands send it (`causalctl on|off|select|status`).  The protocol is
 * include/causal/monitor-proto.h's.
 *
 * Engine code: returns 0 or a negative errno, says what went wrong with
 * fail(), never exits.
 */
#ifndef CAUSAL_CTL_COORDINATOR_H
#define CAUSAL_CTL_COORDINATOR_H

#include <stddef.h>
#include <stdint.h>

struct coord_opts {
	const char *host;  /* address to listen on; NULL: every one */
	uint16_t port;	   /* 0: any, said in the ready file */
	const char *ready; /* written "port N\n" once listening; or NULL */
};

/*
 * Listen and serve until SIGTERM or SIGINT: keep the events published
 * (numbered from 1), send each consumer those it has not applied, in
 * order, and record what each acknowledges.  Malformed messages are
 * rejected and counted; a connection that sends more than a few is
 * closed.  Returns 0 once stopped, or -errno if it cannot listen.
 */
int coord_serve(const struct coord_opts *o);

/*
 * The canonical list of monitoring types of the words given ("cpu",
 * "cpu,latency", "all"), comma-separated into out; -EINVAL (said with
 * fail()) for an unknown or empty one.
 */
int coord_types(int n, char *const words[], char *out, size_t size);

/* A program or procedure number: decimal or 0x, at most 32 bits. */
int coord_is_number(const char *s);

/*
 * Check a selection {host, interface, function, on|off} as the
 * processes will read it (monitor.h): host a name or `*`; interface `*`
 * or a number (decimal or 0x); function `*`, a number or a C name.
 * -EINVAL (said with fail()) when malformed.
 */
int coord_selection(const char *host, const char *iface, const char *func,
		    const char *on);

/*
 * Send one request line (without its "\n") to the coordinator at
 * HOST[:PORT] and read its reply up to "END", "OK ..." or "ERR ...";
 * *reply is malloc'ed, NUL-terminated.  0, or -errno (said with fail()).
 */
int coord_request(const char *where, const char *request, char **reply);

/* HOST[:PORT] -> host (size bytes), port; 0 or -EINVAL. */
int coord_hostport(const char *s, char *host, size_t size, uint16_t *port);

#endif
