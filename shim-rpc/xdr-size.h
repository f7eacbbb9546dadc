/*
 * xdr-size.h - the bytes a call's arguments or results take on the wire
 * (the probes' args_bytes and results_bytes).
 *
 * They are counted while libtirpc encodes or decodes them for the call,
 * never by running the program's XDR procedure once more: an encoder may
 * have effects.  Debian's NIS server streams a whole map out of a
 * database cursor in its results encoder (xdr_ypresp_all, YPPROC_ALL);
 * a second pass to size the results (xdr_sizeof) ran the cursor to its
 * end, and the reply itself then said "no more" at once: an empty map.
 * libnsl's decoder of the same results calls the program's callback.
 *
 * This module neither interposes nor keeps state, so the unit tests link
 * it alone (with libtirpc and xdr-tag.c).
 */
#ifndef CAUSAL_SHIM_RPC_XDR_SIZE_H
#define CAUSAL_SHIM_RPC_XDR_SIZE_H

#include <rpc/rpc.h>
#include <stdint.h>

/*
 * Run proc over p on xdrs, once, as libtirpc would have without us, and
 * return its answer; *bytes gets what it encoded or decoded there (0 for
 * no procedure and xdr_void, or when it failed).  The fixed size of XDR's
 * scalar types (RFC 4506: int, unsigned int, bool, enum, float, and long,
 * short, char as libtirpc sends them, 4 bytes; hyper, unsigned hyper and
 * double 8), which rpcgen passes as they are for a procedure of one
 * scalar, is known; a memory stream (UDP, raw) gives its position before
 * and after; any other stream (a TCP record stream) is counted by its
 * operations, which xdrs points at a counting copy of for the run.
 */
bool_t causal_xdr_run(XDR *xdrs, xdrproc_t proc, void *p, uint32_t *bytes);

/* Where a run copies the bytes it moved (values.h): the first max. */
struct causal_xdr_capture {
	uint8_t *buf;
	uint32_t max, len; /* len: copied, at most max */
};

/*
 * causal_xdr_run(), copying the first cap->max bytes encoded or decoded
 * into cap->buf as they go (the same single pass: a memory stream's are
 * read from its buffer after the run, any other stream's as its
 * operations move them).
 */
bool_t causal_xdr_run_capture(XDR *xdrs, xdrproc_t proc, void *p,
			      uint32_t *bytes, struct causal_xdr_capture *cap);

#endif
