/*
 * xdr-tag.c - the tag inside an XDR stream.
 *
 * Position arithmetic is used only on memory streams (UDP, raw): on a
 * record stream (TCP) XDR_GETPOS costs an lseek() and means nothing, and
 * writing never runs out of room there anyway.
 *
 * Binding tags to the call's xid matters on memory streams only: svc_dg
 * decodes over its whole buffer, where a tag of an earlier, longer message
 * may still lie after the arguments of an untagged one.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <string.h>

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

static int no_io(void *handle, void *buf, int len)
{
	(void)handle;
	(void)buf;
	(void)len;
	return -1;
}

static const struct xdr_ops *rec_ops_found;
static pthread_once_t rec_ops_once = PTHREAD_ONCE_INIT;

static void find_rec_ops(void)
{
	XDR x;

	memset(&x, 0, sizeof(x));
	xdrrec_create(&x, 0, 0, NULL, no_io, no_io);
	rec_ops_found = x.x_ops;
	XDR_DESTROY(&x);
}

/*
 * The leading fields of libtirpc's private RECSTREAM (src/xdr_rec.c,
 * unchanged since 1.2), read only to learn how much of the record is
 * already buffered, and only after checking they make sense.
 */
struct recstream_view {
	char *tcp_handle;
	int (*writeit)(void *, void *, int);
	char *out_base, *out_finger, *out_boundry;
	uint32_t *frag_header;
	bool_t frag_sent;
	int (*readit)(void *, void *, int);
	u_long in_size;
	char *in_base, *in_finger, *in_boundry;
	long fbtbc;
	bool_t last_frag;
};

/*
 * How many more bytes the socket must deliver before the next len bytes of
 * this record, in this fragment or across one fragment boundary, are all
 * in the input buffer: 0 when they are; -1 when the record cannot hold
 * them (it ends first) or the stream's state makes no sense.
 */
static long rec_missing(const XDR *xdrs, u_int len)
{
	const struct recstream_view *r = (const void *)xdrs->x_private;
	long have, frag, rest;
	uint32_t header;

	if (!r || !r->in_base || r->in_finger < r->in_base ||
	    r->in_boundry < r->in_finger ||
	    r->in_boundry > r->in_base + r->in_size || r->fbtbc < 0)
		return -1;
	have = r->in_boundry - r->in_finger;
	frag = r->fbtbc;
	if (frag >= (long)len)
		return have >= (long)len ? 0 : (long)len - have;
	if (r->last_frag)
		return -1;
	rest = (long)len - frag;
	if (have >= frag + 4) {
		memcpy(&header, r->in_finger + frag, 4);
		if ((long)(ntohl(header) & 0x7fffffffu) < rest)
			return -1; /* more than two fragments: give up */
	}
	return have >= frag + 4 + rest ? 0 : frag + 4 + rest - have;
}

/* Up to this long for the rest of a record a peer is still sending. */
#define TAG_WAIT_MS 250

/*
 * The tag of a large TCP record may still be on its way when the
 * arguments are decoded: wait for it, but only as long as TAG_WAIT_MS and
 * never inside a read, so a peer that promised bytes and stalls costs at
 * most that, and its tag.
 */
static int rec_wait(const XDR *xdrs, u_int len, int fd)
{
	char peek[CAUSAL_TAG_LEN + 8];
	int waited = 0;
	long missing;

	while ((missing = rec_missing(xdrs, len)) > 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (fd < 0 || missing > (long)sizeof(peek))
			return 0;
		n = recv(fd, peek, (size_t)missing, MSG_PEEK | MSG_DONTWAIT);
		if (n >= missing)
			return 1; /* in the socket: a read will not wait */
		if (waited >= TAG_WAIT_MS || poll(&pfd, 1, 10) < 0)
			return 0;
		waited += 10;
	}
	return missing == 0;
}

int causal_xdr_is_mem(const XDR *xdrs)
{
	return xdrs->x_ops == mem_ops();
}

uint32_t causal_xdr_call_xid(const XDR *xdrs)
{
	const uint8_t *p = (const uint8_t *)xdrs->x_base;

	/* clnt_dg and clnt_raw encode the call header, xid first, at the
	 * start of the buffer their memory stream writes the arguments to */
	if (!causal_xdr_is_mem(xdrs) || !p)
		return 0;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

int causal_xdr_put_tag(XDR *xdrs, const struct causal_tag *tag)
{
	uint8_t buf[CAUSAL_TAG_LEN];
	int is_mem = causal_xdr_is_mem(xdrs);
	u_int pos = is_mem ? XDR_GETPOS(xdrs) : 0;

	causal_tag_encode(tag, buf);
	if (XDR_PUTBYTES(xdrs, (char *)buf, CAUSAL_TAG_LEN))
		return 1;
	if (is_mem)
		XDR_SETPOS(xdrs, pos);
	return 0;
}

int causal_xdr_read_ready(XDR *xdrs, void *out, u_int len, int fd)
{
	const void *p;

	if (causal_xdr_is_mem(xdrs))
		return XDR_GETBYTES(xdrs, out, len);
	/* a record stream: XDR_GETBYTES would read the socket for bytes a
	 * peer never sent (a fragment it promised, then stalled on), and the
	 * reply would wait on it; read only what is buffered or arrived */
	pthread_once(&rec_ops_once, find_rec_ops);
	if (xdrs->x_ops == rec_ops_found && rec_wait(xdrs, len, fd))
		return XDR_GETBYTES(xdrs, out, len);
	p = XDR_INLINE(xdrs, len);
	if (!p)
		return 0;
	memcpy(out, p, len);
	return 1;
}

int causal_xdr_get_tag(XDR *xdrs, uint32_t xid, int fd,
		       struct causal_tag *tag)
{
	uint8_t buf[CAUSAL_TAG_LEN];

	/* a record stream (TCP) holds only this message: its tags are not
	 * bound to an xid (sent as 0), nothing stale can be read there */
	if (!causal_xdr_is_mem(xdrs))
		xid = 0;

	/* past the end of a TCP record or a datagram this fails at once:
	 * an untagged message from an untraced peer costs nothing */
	if (!causal_xdr_read_ready(xdrs, buf, CAUSAL_TAG_LEN, fd))
		return CAUSAL_TAG_ABSENT;
	return causal_tag_decode(buf, sizeof(buf), xid, tag);
}
