/*
 * lttng-rpc.so - a peer for bench-peers: LTTng-UST recording two events
 * a call on each side of a null RPC, where causal records a probe's start
 * and end.  Preloaded into the untraced demo client and server, it
 * replaces xdr_void, which libtirpc runs for a null call's arguments and
 * results and as a stand-in in the messages around them (the client
 * encodes once then decodes twice, the server decodes once then encodes
 * twice, and frees): one event where the coding turns from one direction
 * to the other, so two a call and side, at its start and its end.
 * So the loop shows what a tracer of LTTng's craft costs for the records
 * alone: no causality tag on the wire, no CPU clock, no compression (its
 * consumer daemon writes the buffers, on whatever CPU it gets).
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng-rpc-tp.h"

#include <rpc/xdr.h>

static const unsigned char chain[20] = { 0xca, 0x05, 0xa1 };
static uint64_t event, calls;
static enum xdr_op last_op = XDR_FREE;

/* libtirpc declares xdr_void(void) but calls it as any xdrproc_t: under
 * another C name, so that its arguments can be declared */
bool_t peer_xdr_void(XDR *xdrs, void *unused) __asm__("xdr_void");

bool_t peer_xdr_void(XDR *xdrs, void *unused)
{
	(void)unused;
	if (xdrs && xdrs->x_op != XDR_FREE && xdrs->x_op != last_op) {
		last_op = xdrs->x_op;
		lttng_ust_tracepoint(causal_peer_rpc, probe, chain, ++event,
				     calls++ / 2);
	}
	return TRUE;
}
