/*
 * monitor-auth.h - the monitoring channel over TCP, authenticated both
 * ways with a shared secret (docs/causalctl.md, "The coordinator
 * protocol"): the contract the coordinator (`causalctl serve`), its
 * commands and libcausal.so's consumer thread are written against.
 *
 * The key is the whole content of a file readable by its owner only
 * (CAUSAL_COORDINATOR_KEY).  A connection starts with a challenge: the
 * client sends "AUTH 2 NONCE" (16 random bytes in hex, the only line
 * sent bare); the coordinator answers with a nonce of its own, in its
 * first sealed line, "AUTH 2 NONCE".  From then on every line, each way,
 * is sealed: "MAC MESSAGE", MAC the HMAC-SHA256 (64 hex digits) under the
 * key of
 *
 *     "causal-mon 2" | 'c' or 's' (who sent it) | the client's nonce |
 *     the coordinator's nonce | the line's number (8 bytes, big endian,
 *     from 0 each way) | MESSAGE
 *
 * so a line is good for one connection (both nonces are fresh), one
 * place in it (its number) and one direction: a recorded line replayed,
 * reordered or reflected does not check.  The client checks the
 * coordinator's first line before it sends anything but its nonce.
 *
 * HMAC-SHA256 is nettle's (libnettle, linked into libcausal.so: no global
 * state, no allocation).  Nothing here allocates or uses stdio; it runs
 * on the consumer thread of the traced process, never on a hook path.
 */
#ifndef CAUSAL_MONITOR_AUTH_H
#define CAUSAL_MONITOR_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include <nettle/hmac.h>

#define CAUSAL_MON_NONCE 16   /* bytes of each side's nonce */
#define CAUSAL_MON_MAC_HEX 64 /* the MAC in front of a sealed line */
#define CAUSAL_MON_KEY_MIN 16 /* bytes of a key file, at least */
#define CAUSAL_MON_KEY_MAX 4096

struct causal_mon_key {
	struct hmac_sha256_ctx hmac; /* keyed; reset after each MAC */
};

/* One connection's side of the channel. */
struct causal_mon_auth {
	struct causal_mon_key *key;
	uint8_t nonce[2][CAUSAL_MON_NONCE]; /* the client's, the server's */
	uint64_t sealed, opened;	    /* lines sealed, lines opened */
	int server; /* 1: this side is the coordinator */
};

/*
 * Read the key file at path: a regular file (not followed if a link,
 * opened without blocking), owned by the effective user, readable by
 * that user only (no group or other bit), of CAUSAL_MON_KEY_MIN to
 * CAUSAL_MON_KEY_MAX bytes.  0, or -1 with why (size bytes) saying what
 * is wrong ("readable by others: chmod 600 it", an errno's text...).
 */
int causal_mon_key_load(const char *path, struct causal_mon_key *key, char *why,
			size_t size);

/*
 * The client: a fresh nonce into a, and its first line (bare, no "\n")
 * "AUTH 2 NONCE" into line.  0, or -1 when no random bytes were had.
 */
int causal_mon_auth_client(struct causal_mon_auth *a,
			   struct causal_mon_key *key, char *line, size_t size);

/*
 * The coordinator: take rest, the fields after "AUTH" of a client's
 * first line ("2 NONCE"), make a nonce of its own and seal its answer
 * "AUTH 2 NONCE" into out (with its "\n").  0, or -1 (a bad version or
 * nonce: the peer is not one of ours; no random bytes).
 */
int causal_mon_auth_server(struct causal_mon_auth *a,
			   struct causal_mon_key *key, char *rest, char *out,
			   size_t size);

/*
 * The client: the coordinator's first line (without its "\n"; cut up in
 * place).  0 when it is "AUTH 2 NONCE" sealed with the key for this
 * connection; -1 otherwise (then send nothing more).
 */
int causal_mon_auth_check(struct causal_mon_auth *a, char *line);

/* Seal msg (no "\n") into out as "MAC msg\n"; 0, or -1 if out is short. */
int causal_mon_seal(struct causal_mon_auth *a, const char *msg, char *out,
		    size_t size);

/*
 * Open a sealed line (without its "\n"; cut in place): the message,
 * pointing into line, when its MAC is the one the next line from the
 * other side must have; NULL otherwise (forged, replayed, out of order,
 * or not sealed).
 */
char *causal_mon_open(struct causal_mon_auth *a, char *line);

#endif
