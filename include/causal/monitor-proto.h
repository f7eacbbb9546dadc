/*
 * monitor-proto.h - the channel between the monitoring coordinator
 * (`causalctl serve`) and its consumers (libcausal.so's consumer thread)
 * and commands (`causalctl on|off|select|status`): the contract both
 * sides are written against.  docs/causalctl.md ("The coordinator protocol")
 * describes it in full.
 *
 * One message a line: printable ASCII, fields separated by one space,
 * ended by "\n", at most CAUSAL_MON_LINE_MAX bytes with it (over TCP,
 * sealed: CAUSAL_MON_WIRE_MAX with the MAC in front, monitor-auth.h).
 * Anything else is malformed: rejected and counted, never acted on.
 *
 * Two ways in: the coordinator's Unix socket, where the kernel says who
 * the peer is (SO_PEERCRED), and TCP, where each side proves it holds
 * the key of CAUSAL_COORDINATOR_KEY (monitor-auth.h) before anything
 * else is said.  A consumer applies nothing from a coordinator that is
 * neither run by root nor by its own user (Unix), or that does not prove
 * the key (TCP).
 *
 *   consumer -> coordinator
 *     HELLO 3 UUID HOST PID INSTANCE APPLIED EXE   once, first (or 2)
 *     ACK SEQ                    event SEQ applied (or skipped: SKIP)
 *     BAD SEQ                    event SEQ rejected (malformed), skipped
 *     DROP SEQ                   event SEQ dropped: over the rate cap
 *     PING                       every second: still here
 *     KEEP CHAIN DROPPED         (3) this process keeps chain CHAIN
 *   coordinator -> consumer
 *     WELCOME 3 INSTANCE         once, first (2 to a HELLO 2)
 *     EVENT SEQ on TYPES         TYPES: a comma-separated list
 *     EVENT SEQ off TYPES
 *     EVENT SEQ select HOST INTERFACE FUNCTION on|off
 *     SKIP SEQ                   the events up to SEQ are not for you
 *                                (another user's): nothing to apply
 *     KEPT CHAIN                 (3) a process kept chain CHAIN: write
 *                                your held part of it
 *   command -> coordinator, one request a connection
 *     PUBLISH on TYPES | PUBLISH off TYPES
 *     PUBLISH select HOST INTERFACE FUNCTION on|off
 *                                -> OK SEQ | ERR MESSAGE
 *     STATUS                     -> STATE INSTANCE SEQ MALFORMED DENIED
 *                                   LIMITED KEEPS KEEPS_CUT, one PROC
 *                                   HOST PID UID APPLIED CONNECTED
 *                                   SEEN_MS BAD DROPPED EXE KEEPS
 *                                   KEEPS_DROPPED KEEPS_CUT per process
 *                                   the asker may see, then END (an
 *                                   older coordinator: no KEEPS...)
 *   coordinator -> anyone        ERR MESSAGE, then it hangs up: a
 *                                request refused (a limit, no right, an
 *                                old protocol)
 *
 * INSTANCE is the coordinator's random id (16 hex digits; "-" when a
 * consumer has never met one): its events are numbered 1, 2, ... for its
 * life.  A consumer says which instance its APPLIED counts in, and gets
 * every event after it (all of them, from another instance).  UID is
 * the owner of a process connected on the Unix socket, "-" over TCP.
 */
#ifndef CAUSAL_MONITOR_PROTO_H
#define CAUSAL_MONITOR_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "causal/log-format.h"

/* 3 adds tail keep's KEEP and KEPT; a coordinator still serves the
 * consumers that say HELLO 2 (no KEEP, no KEPT) */
#define CAUSAL_MON_PROTO_VERSION 3
#define CAUSAL_MON_DEFAULT_PORT 7350
#define CAUSAL_MON_LINE_MAX 512
/* a sealed line: the MAC (monitor-auth.h's CAUSAL_MON_MAC_HEX), a space */
#define CAUSAL_MON_WIRE_MAX (CAUSAL_MON_LINE_MAX + 64 + 1)

/*
 * Where the coordinator's Unix socket is: CAUSAL_COORDINATOR=local names
 * the first of these that answers, for a process of effective user UID:
 * the user's own coordinator (UID not 0), then root's.  `causalctl serve`
 * makes the first of them its user may (root: CAUSAL_MON_SOCKET).
 */
#define CAUSAL_MON_LOCAL "local"
#define CAUSAL_MON_SOCKET "/run/causal/coordinator.sock"
#define CAUSAL_MON_USER_SOCKET "/run/user/UID/causal-coordinator.sock"

/*
 * Reading a message: util/monitor-proto.c, the one parser of both sides,
 * in libcausal.so (hidden: the consumer thread) and in causalctl.  Pure:
 * no global state, no allocation, no stdio, no errno, as everything that
 * runs inside the traced process.  Each function that takes a `char *`
 * cuts it up in place (NULs for the spaces); the fields it gives back
 * point into it.
 */

/*
 * The kind of the message in line (its first field), with *rest the
 * fields after it; NULL (malformed) when the line holds a byte that is
 * not printable ASCII, or starts with a space or nothing.
 */
char *causal_mon_kind(char *line, char **rest);

/*
 * The next field of *s, *s moved past it and its space.  NULL at the end
 * of *s, and at an empty field (a space where a field should start: *s
 * is then moved past that space).  A caller takes the fields it wants,
 * then checks that *s is empty: a message with more fields, or a space
 * too many in the middle, is malformed.
 */
char *causal_mon_field(char **s);

/* A decimal number (SEQ, PID, APPLIED) below 2^64, s whole: 0 with *v,
 * or -1 (NULL, empty, a sign, a space, anything else). */
int causal_mon_u64(const char *s, uint64_t *v);

/*
 * An event as published: the text of an EVENT to a consumer, of a
 * PUBLISH from a command.  The words are the line's own, unchecked: what
 * each may be, the coordinator checks for the command that sent it (and
 * says why to it), a consumer for itself (preload/monitor-rules.c).
 */
struct causal_mon_event {
	unsigned kind; /* CAUSAL_MONITOR_ON, _OFF or _SELECT (enums.def) */
	char *types;   /* on, off: TYPES, a comma-separated list */
	char *host, *iface, *func; /* select: HOST INTERFACE FUNCTION */
	char *on;		   /* select: the last word, on|off */
};

/*
 * "on TYPES", "off TYPES" or "select HOST INTERFACE FUNCTION on|off":
 * 0 with ev filled, or -1 (another first word, another number of words).
 */
int causal_mon_event_parse(char *text, struct causal_mon_event *ev);

/* An INTERFACE or FUNCTION as a number (a program's, a procedure's):
 * decimal or 0x hex, below 2^32.  0 with *v, or -1. */
int causal_mon_number(const char *s, uint32_t *v);

/* A FUNCTION as a name: a C identifier, as rpcgen names a procedure's
 * stub (say_it_1 calls say_it).  1 or 0. */
int causal_mon_is_name(const char *s);

/*
 * Connecting, the consumer's and the commands' one way: a TCP connection
 * to the first of the addresses res (getaddrinfo's list) that answers
 * within timeout_ms each.  The connected socket (non-blocking,
 * close-on-exec), or -1 with *err the last address's error (ETIMEDOUT
 * when it did not answer in time; untouched when no socket could be
 * made).
 */
struct addrinfo;
int causal_mon_dial(const struct addrinfo *res, int timeout_ms, int *err);

/*
 * Send text whole on non-blocking socket fd, waiting at most timeout_ms
 * each time the socket takes no more: 0, or -1 (an error, or a peer that
 * reads nothing for that long; the connection is then given up).
 */
int causal_mon_send_all(int fd, const char *text, int timeout_ms);

/*
 * The i-th socket CAUSAL_COORDINATOR=local names for effective user uid
 * (i from 0), into path (size bytes); 0, or -1 past the last.
 */
int causal_mon_local_socket(int i, unsigned uid, char *path, size_t size);

/*
 * A connection to the Unix socket at path (non-blocking, close-on-exec),
 * or -1 with *err.  Never waits: the socket answers at once or not.
 */
int causal_mon_dial_unix(const char *path, int *err);

/*
 * Whom the other end of Unix socket fd runs as (SO_PEERCRED, taken when
 * it connected or listened): 0 with *uid, or -1.
 */
int causal_mon_peer_uid(int fd, unsigned *uid);

/*
 * Tail keep's broadcast (protocol 3; docs/causalctl.md): a consumer says
 * KEEP CHAIN DROPPED when its process keeps a chain (DROPPED: the KEEPs
 * it did not send so far, over CAUSAL_MON_KEEP_RATE); the coordinator
 * says KEPT CHAIN to every other consumer of protocol 3.  CHAIN is the
 * chain id in CAUSAL_MON_CHAIN_HEX lowercase hex digits.
 */
#define CAUSAL_MON_CHAIN_HEX (2 * CAUSAL_CHAIN_ID_LEN)
/* KEEPs a consumer sends: this many at once, then this many a second */
#define CAUSAL_MON_KEEP_RATE 64
/* KEEPs the coordinator takes from one peer (a user, an address), all
 * its processes together: this many at once, then this many a second */
#define CAUSAL_MON_KEEP_PEER_RATE 256

/* s, exactly CAUSAL_MON_CHAIN_HEX lowercase hex digits: 0 with chain, or
 * -1. */
int causal_mon_chain(const char *s, uint8_t chain[CAUSAL_CHAIN_ID_LEN]);
/* chain as CAUSAL_MON_CHAIN_HEX lowercase hex digits and a NUL. */
void causal_mon_chain_hex(const uint8_t chain[CAUSAL_CHAIN_ID_LEN],
			  char out[CAUSAL_MON_CHAIN_HEX + 1]);

/*
 * A token bucket: burst messages at once, then rate a second (now_ns on
 * the monotonic clock).  1 if one more may go (a token taken), 0 if it is
 * over the cap.  Zeroed: full.  One thread at a time.
 */
struct causal_mon_bucket {
	uint64_t tokens, since; /* thousandths of a message; when counted */
	int started;
};
int causal_mon_bucket_take(struct causal_mon_bucket *b, uint64_t now_ns,
			   unsigned burst, unsigned rate);

#endif
