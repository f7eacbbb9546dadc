/*
 * xdr-size.h - the bytes a call's arguments or results take on the wire
 * (the probes' args_bytes and results_bytes).
 *
 * This module neither interposes nor keeps state, so the unit tests link
 * it alone (with libtirpc).
 */
#ifndef CAUSAL_SHIM_RPC_XDR_SIZE_H
#define CAUSAL_SHIM_RPC_XDR_SIZE_H

#include <rpc/rpc.h>
#include <stdint.h>

/*
 * The bytes proc encodes *p in: none for no procedure and xdr_void; the
 * fixed size of XDR's scalar types (RFC 4506: int, unsigned int, bool,
 * enum, float, and long, short, char as libtirpc sends them, 4 bytes;
 * hyper, unsigned hyper and double 8), which rpcgen passes as they are
 * for a procedure of one scalar; else xdr_sizeof(), a pass over the data.
 */
static inline uint32_t causal_xdr_size(xdrproc_t proc, void *p);

/* causal_xdr_size() past its inline answer for no procedure and xdr_void
 * (every call's results on one side or the other of a null procedure):
 * proc is not NULL. */
uint32_t causal_xdr_size_of(xdrproc_t proc, void *p);

static inline uint32_t causal_xdr_size(xdrproc_t proc, void *p)
{
	if (!proc || (void (*)(void))proc == (void (*)(void))xdr_void)
		return 0;
	return causal_xdr_size_of(proc, p);
}

#endif
