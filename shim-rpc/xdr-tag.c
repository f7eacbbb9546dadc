/*
 * xdr-tag.c - the tag inside an XDR stream.
 *
 * Position arithmetic is used only on memory streams (UDP, raw): on a
 * record stream (TCP) XDR_GETPOS costs an lseek() and means nothing, and
 * writing never runs out of room there anyway.
 */
#include "internal.h"

static const struct xdr_ops *mem_ops(void)
{
	static const struct xdr_ops *ops;

	if (!ops) {
		static char byte;
		XDR x;

		xdrmem_create(&x, &byte, 1, XDR_ENCODE);
		ops = x.x_ops;
	}
	return ops;
}

int causal_xdr_put_tag(XDR *xdrs, const struct causal_tag *tag)
{
	uint8_t buf[CAUSAL_TAG_LEN];
	int is_mem = xdrs->x_ops == mem_ops();
	u_int pos = is_mem ? XDR_GETPOS(xdrs) : 0;

	causal_tag_encode(tag, buf);
	if (XDR_PUTBYTES(xdrs, (char *)buf, CAUSAL_TAG_LEN))
		return 1;
	if (is_mem)
		XDR_SETPOS(xdrs, pos);
	return 0;
}

int causal_xdr_get_tag(XDR *xdrs, uint32_t xid, struct causal_tag *tag)
{
	uint8_t buf[CAUSAL_TAG_LEN];

	/* past the end of a TCP record or a datagram this fails at once:
	 * an untagged message from an untraced peer costs nothing */
	if (!XDR_GETBYTES(xdrs, (char *)buf, CAUSAL_TAG_LEN))
		return CAUSAL_TAG_ABSENT;
	return causal_tag_decode(buf, sizeof(buf), xid, tag);
}
