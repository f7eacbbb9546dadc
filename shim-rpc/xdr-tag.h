/*
 * xdr-tag.h - the causality tag inside an XDR stream: written after the
 * arguments or results, read after them.
 *
 * The rule for reading (the tag comes from the network): the tracer never
 * makes a server or a client wait on the network.  A tag is read only from
 * bytes already received: in libtirpc's input buffer, or already in the
 * connection's socket (looked at with MSG_PEEK | MSG_DONTWAIT).  A tag the
 * message announces but whose bytes have not all arrived is not waited
 * for: it counts as CAUSAL_TAG_INCOMPLETE, and nothing of the stream is
 * consumed, so libtirpc goes on with the rest of the record exactly as it
 * does untraced.
 *
 * This module neither interposes nor keeps state but a cache of libtirpc's
 * operation tables, so the unit tests and the fuzz target link it alone
 * (with libtirpc).
 */
#ifndef CAUSAL_SHIM_RPC_XDR_TAG_H
#define CAUSAL_SHIM_RPC_XDR_TAG_H

#include <rpc/rpc.h>

#include "tag.h"

/* Is this a memory stream (UDP, raw) rather than a record stream (TCP)? */
int causal_xdr_is_mem(const XDR *xdrs);

/* While arguments are encoded: the call's xid on a memory stream, where
 * the header sits at the start of the buffer; else 0 (tag not bound). */
uint32_t causal_xdr_call_xid(const XDR *xdrs);

/* Append the tag; on a stream with no room left (UDP size limit) rewind to
 * where it was and send the message untagged.  Returns 1 if sent. */
int causal_xdr_put_tag(XDR *xdrs, const struct causal_tag *tag);

/* What causal_xdr_read_ready() found. */
enum causal_xdr_read {
	CAUSAL_XDR_END = 0,		/* the message ends first: not read */
	CAUSAL_XDR_READ = 1,		/* read */
	CAUSAL_XDR_NOT_YET = 2,		/* announced, not all received */
};

/*
 * Read the next len bytes (at most CAUSAL_TAG_LEN) of the message, only if
 * they have been received: fd is the connection under a record stream
 * (-1: libtirpc's buffer only).  Nothing is consumed unless all len bytes
 * are read.  Returns enum causal_xdr_read.
 */
int causal_xdr_read_ready(XDR *xdrs, void *out, u_int len, int fd);

/* Read a tag after the decoded body; enum causal_tag_status. */
int causal_xdr_get_tag(XDR *xdrs, uint32_t xid, int fd,
		       struct causal_tag *tag);

/*
 * An error reply (unknown program or procedure, undecodable arguments):
 * the arguments cannot be decoded, but the tag, if any, ends the message.
 * Scan what is left of it, 4 bytes at a time as XDR aligns them, for a
 * valid tag of this call, never past CAUSAL_TAG_SCAN_MAX bytes.  OK, or
 * INCOMPLETE when the scan stopped at bytes not yet received, else ABSENT.
 */
#define CAUSAL_TAG_SCAN_MAX 65536
int causal_xdr_scan_tag(XDR *xdrs, uint32_t xid, int fd,
			struct causal_tag *tag);

/*
 * The decision under causal_xdr_read_ready() on a record stream, pure so
 * that it can be tested and fuzzed alone.  The input after the read
 * position is buf (nbuf bytes, libtirpc's buffer) then sock (nsock bytes,
 * still in the socket); frag bytes are left in the current fragment, the
 * last of the record if last.  Can the next len bytes of the record,
 * across as many fragment headers as they span, be read from these bytes
 * alone?  Returns enum causal_xdr_read: END when the record ends first
 * (or a fragment header libtirpc refuses comes first), NOT_YET when it
 * goes on past what was received.
 */
int causal_rec_ready(long frag, int last, const uint8_t *buf, size_t nbuf,
		     const uint8_t *sock, size_t nsock, size_t len);

/* Socket bytes causal_rec_ready() may need past the buffer: len bytes and
 * a 4-byte header for each byte at worst (a fragment holds at least one). */
#define CAUSAL_REC_PEEK_MAX (5 * CAUSAL_TAG_LEN)

#endif
