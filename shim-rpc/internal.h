/*
 * internal.h - what the modules of shim-rpc share.
 *
 * The four probes of Figure 2 of the monitoring paper, by interposition:
 * the stub is the client's call through its CLIENT handle (cl_ops->cl_call,
 * swapped for ours when the handle is made), the skeleton the server's
 * dispatch of a request (xp_ops, swapped in xprt_register): skeleton start
 * when xp_getargs returns, skeleton end when xp_reply is entered (or
 * xp_stat, for procedures that send no reply).
 */
#ifndef CAUSAL_SHIM_RPC_INTERNAL_H
#define CAUSAL_SHIM_RPC_INTERNAL_H

#include <rpc/rpc.h>
#include <sys/socket.h>

#include "monitor.h"
#include "probe.h"
#include "real.h"
#include "sites.h"
#include "ids.h"
#include "tag.h"
#include "tail-keep.h"
#include "totals-calls.h"
#include "xdr-size.h"
#include "xdr-tag.h"

/* Fill the shared part of a probe record (reserved with
 * causal_record_begin_at(), stamped with the probe's entry). */
static inline void causal_probe_fill(struct rec_rpc_probe *p,
				     const uint8_t *chain, uint64_t event_no,
				     uint64_t function_id)
{
	memcpy(p->chain, chain, CAUSAL_CHAIN_ID_LEN);
	/* only an unsampled chain held by tail keep records (keep.h) */
	p->hdr.reserved = causal_self.ctx.unsampled ? CAUSAL_REC_HELD : 0;
	p->event = event_no;
	p->function = function_id;
}

/* Copy a netbuf's address into a record; returns the bytes copied. */
static inline uint32_t causal_copy_addr(uint8_t *dst, const void *buf,
					size_t len)
{
	if (!buf || !len)
		return 0;
	if (len > CAUSAL_SOCKADDR_MAX)
		len = CAUSAL_SOCKADDR_MAX;
	memcpy(dst, buf, len);
	return (uint32_t)len;
}

/* Transport from a socket address family and the handle's kind. */
static inline int causal_rpc_transport(const void *addr, size_t len,
				       int datagram)
{
	sa_family_t family = AF_UNSPEC;

	if (addr && len >= sizeof(sa_family_t))
		memcpy(&family, addr, sizeof(family));
	if (family == AF_LOCAL)
		return CAUSAL_TRANSPORT_UNIX;
	return datagram ? CAUSAL_TRANSPORT_UDP : CAUSAL_TRANSPORT_TCP;
}

/* ---- serving instances (objects.c) ------------------------------------- */

/* The object id of (local address, prog, vers, transport), with an
 * RPC_OBJECT record the first time. */
uint64_t causal_rpc_object(struct causal_tbuf *tb, const SVCXPRT *xprt,
			   uint32_t prog, uint32_t vers, int transport);

#endif
