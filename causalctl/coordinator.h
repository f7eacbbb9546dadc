/*
 * coordinator.h - the monitoring coordinator of Figure 9 of the
 * monitoring paper (`causalctl serve`) and the requests the user's
 * commands send it (`causalctl on|off|select|status`).  The protocol is
 * include/causal/monitor-proto.h's, sealed over TCP as
 * include/causal/monitor-auth.h says.
 *
 * Engine code: returns 0 or a negative errno, says what went wrong with
 * fail(), never exits.
 */
#ifndef CAUSAL_CTL_COORDINATOR_H
#define CAUSAL_CTL_COORDINATOR_H

#include <stddef.h>
#include <stdint.h>

#include "causal/monitor-proto.h"

struct coord_opts {
	const char *socket; /* the Unix socket; NULL: the default one */
	int tcp;	    /* listen on TCP too */
	const char *host;   /* its address; NULL: 127.0.0.1 */
	uint16_t port;	    /* 0: any, said on stdout and in the ready file */
	const char *key;    /* the key file (TCP), CAUSAL_COORDINATOR_KEY */
	const char *ready;  /* written "socket PATH\nport N\n" once
			     * listening; or NULL */
};

/*
 * Listen and serve until SIGTERM or SIGINT: keep the events published
 * (numbered from 1), send each consumer those it may see, in order, and
 * record what each acknowledges.  Who may do what, the limits, and what
 * is refused: docs/causalctl.md, "The coordinator".  Malformed messages
 * are rejected and counted; a connection that sends more than a few is
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
 * A publication "on TYPES" | "off TYPES" | "select H I F on|off", as a
 * command sent it (cut up in place): 0 with the event's canonical text in
 * out, else -1 (said to nobody: the coordinator answers it).
 */
int coord_check_publish(char *rest, char *out, size_t size);

/*
 * Send one request line (without its "\n") to the coordinator at where
 * (`local`, a socket path, or HOST[:PORT] over TCP with the key of
 * CAUSAL_COORDINATOR_KEY) and read its reply up to "END", "OK ..." or
 * "ERR ..."; *reply is malloc'ed, NUL-terminated, one message a line.
 * 0, or -errno (said with fail()): -EINVAL for a bad address or a
 * missing key (bad usage), another for a coordinator that cannot be
 * reached, is not to be trusted or does not answer.
 */
int coord_request(const char *where, const char *request, char **reply);

/*
 * HOST[:PORT] -> host (size bytes), port (default 7350; 0 only if
 * zero_ok: "any port", to listen on); 0 or -EINVAL.
 */
int coord_hostport(const char *s, char *host, size_t size, uint16_t *port,
		   int zero_ok);

/* ---- tail keep's broadcast (coord-keep.c) ------------------------------ */

#define COORD_KEEP_PEERS 1024  /* peers whose KEEP rate is followed */
#define COORD_KEEP_RECENT 4096 /* chains broadcast lately, not again */

struct coord_keep_peer {
	int uid;	  /* the Unix socket's user; -1: TCP */
	uint8_t addr[16]; /* TCP: the address */
	uint64_t at;	  /* its last KEEP */
	struct causal_mon_bucket bucket;
};

struct coord_keeps {
	struct coord_keep_peer peers[COORD_KEEP_PEERS];
	size_t npeers;
	uint8_t recent[COORD_KEEP_RECENT][CAUSAL_CHAIN_ID_LEN];
	uint64_t nrecent; /* chains ever broadcast */
};

/*
 * May the peer (uid, addr) send one more KEEP at now_ns?  All its
 * processes together: CAUSAL_MON_KEEP_PEER_RATE at once, then as many a
 * second.  1, or 0 (over the cap: the KEEP is dropped, counted).
 */
int coord_keeps_admit(struct coord_keeps *k, int uid, const uint8_t addr[16],
		      uint64_t now_ns);

/* 1 if chain was not among the last COORD_KEEP_RECENT broadcast (it now
 * is), else 0: already sent to everyone. */
int coord_keeps_new(struct coord_keeps *k,
		    const uint8_t chain[CAUSAL_CHAIN_ID_LEN]);

/* ---- listening (coord-listen.c) ----------------------------------------- */

/*
 * The default Unix socket of a coordinator run by this user into path
 * (monitor-proto.h: root's, or the user's own).
 */
int coord_default_socket(char *path, size_t size);

/*
 * Listen on the Unix socket at path, made for it: the directory of root's
 * default made if missing (mode 0755), a stale socket removed, one a
 * coordinator answers on refused; mode 0666 for root's coordinator (who
 * may do what is decided by the peer's credentials), else 0600.  The
 * socket (non-blocking), or -errno (said with fail()).  *ino: the
 * socket file's, for coord_unlisten().
 */
int coord_listen_unix(const char *path, unsigned long *ino);

/* Remove the socket file at path if it is still ours (ino). */
void coord_unlisten(const char *path, unsigned long ino);

/*
 * Listen on TCP at host (NULL: 127.0.0.1), port (0: any): the socket
 * (non-blocking), *bound the port taken, shown "ADDR:PORT" as it is
 * reached, *loopback whether only this host can; or -errno (said).
 */
int coord_listen_tcp(const char *host, uint16_t port, uint16_t *bound,
		     char *shown, size_t size, int *loopback);

/*
 * How many connections the coordinator may hold: up to want, within the
 * open files it may have (its soft limit raised to the hard one if need
 * be), a few kept for itself.
 */
size_t coord_max_conns(size_t want);

#endif
