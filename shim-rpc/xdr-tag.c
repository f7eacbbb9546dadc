/*
 * xdr-tag.c - the tag inside an XDR stream (xdr-tag.h has the rule).
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
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>

#include "xdr-tag.h"

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

/* Byte i of buf then sock, as one sequence. */
static uint8_t byte_at(const uint8_t *buf, size_t nbuf, const uint8_t *sock,
		       size_t i)
{
	return i < nbuf ? buf[i] : sock[i - nbuf];
}

int causal_rec_ready(long frag, int last, const uint8_t *buf, size_t nbuf,
		     const uint8_t *sock, size_t nsock, size_t len)
{
	size_t pos = 0, have = nbuf + nsock;

	if (frag < 0)
		return CAUSAL_XDR_END;
	/* as xdrrec_getbytes: the rest of this fragment, then a header
	 * (libtirpc's set_input_fragment), and so on; each fragment but
	 * the last holds at least one byte, so this ends within len rounds */
	for (;;) {
		size_t take = (size_t)frag < len ? (size_t)frag : len;
		uint32_t header = 0;

		if (take > have - pos)
			return CAUSAL_XDR_NOT_YET;
		pos += take;
		len -= take;
		if (!len)
			return CAUSAL_XDR_READ;
		if (last)
			return CAUSAL_XDR_END;
		if (have - pos < 4)
			return CAUSAL_XDR_NOT_YET;
		for (int i = 0; i < 4; i++)
			header = header << 8 |
				 byte_at(buf, nbuf, sock, pos++);
		if (!header)
			return CAUSAL_XDR_END; /* refused: the read fails */
		last = (header & 0x80000000u) != 0;
		frag = (long)(header & 0x7fffffffu);
	}
}

/*
 * The decision on a record stream: from libtirpc's buffer, and when that
 * is not enough and fd is given, from what waits in the socket.
 */
static int rec_ready(const XDR *xdrs, u_int len, int fd)
{
	const struct recstream_view *r = (const void *)xdrs->x_private;
	uint8_t peek[CAUSAL_REC_PEEK_MAX];
	const uint8_t *buf;
	size_t nbuf;
	ssize_t n;
	int st, saved_errno;

	if (!r || !r->in_base || r->in_finger < r->in_base ||
	    r->in_boundry < r->in_finger ||
	    r->in_boundry > r->in_base + r->in_size || r->fbtbc < 0 ||
	    len > CAUSAL_TAG_LEN)
		return CAUSAL_XDR_END; /* a state we do not understand */
	buf = (const uint8_t *)r->in_finger;
	nbuf = (size_t)(r->in_boundry - r->in_finger);
	st = causal_rec_ready(r->fbtbc, r->last_frag, buf, nbuf, NULL, 0, len);
	if (st != CAUSAL_XDR_NOT_YET || fd < 0)
		return st;
	/* received but not yet read by libtirpc: its read will not wait
	 * (nothing there is EAGAIN, which the program must not see) */
	saved_errno = errno;
	do
		n = recv(fd, peek, sizeof(peek), MSG_PEEK | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	errno = saved_errno;
	if (n <= 0)
		return CAUSAL_XDR_NOT_YET;
	return causal_rec_ready(r->fbtbc, r->last_frag, buf, nbuf, peek,
				(size_t)n, len);
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
	int st;

	/* a datagram is all there: past its end this fails at once */
	if (causal_xdr_is_mem(xdrs))
		return XDR_GETBYTES(xdrs, out, len) ? CAUSAL_XDR_READ
						    : CAUSAL_XDR_END;
	/* a record stream: XDR_GETBYTES would read the socket for bytes a
	 * peer announced and never sent, and the reply would wait on them;
	 * it is called only when they are all received */
	pthread_once(&rec_ops_once, find_rec_ops);
	if (xdrs->x_ops == rec_ops_found) {
		st = rec_ready(xdrs, len, fd);
		if (st != CAUSAL_XDR_READ)
			return st;
		return XDR_GETBYTES(xdrs, out, len) ? CAUSAL_XDR_READ
						    : CAUSAL_XDR_END;
	}
	/* a stream of another kind: only what it holds in memory */
	p = XDR_INLINE(xdrs, len);
	if (!p)
		return CAUSAL_XDR_END;
	memcpy(out, p, len);
	return CAUSAL_XDR_READ;
}

int causal_xdr_get_tag(XDR *xdrs, uint32_t xid, int fd,
		       struct causal_tag *tag)
{
	uint8_t buf[CAUSAL_TAG_LEN];

	/* a record stream (TCP) holds only this message: its tags are not
	 * bound to an xid (sent as 0), nothing stale can be read there */
	if (!causal_xdr_is_mem(xdrs))
		xid = 0;
	switch (causal_xdr_read_ready(xdrs, buf, CAUSAL_TAG_LEN, fd)) {
	case CAUSAL_XDR_READ:
		return causal_tag_decode(buf, sizeof(buf), xid, tag);
	case CAUSAL_XDR_NOT_YET:
		return CAUSAL_TAG_INCOMPLETE;
	default:
		/* the message ends before: an untraced peer */
		return CAUSAL_TAG_ABSENT;
	}
}

int causal_xdr_scan_tag(XDR *xdrs, uint32_t xid, int fd,
			struct causal_tag *tag)
{
	uint8_t win[CAUSAL_TAG_LEN];
	size_t have = 0, read;

	if (!causal_xdr_is_mem(xdrs))
		xid = 0;
	for (read = 0; read < CAUSAL_TAG_SCAN_MAX; read += 4) {
		int st;

		if (have == sizeof(win)) {
			memmove(win, win + 4, sizeof(win) - 4);
			have -= 4;
		}
		st = causal_xdr_read_ready(xdrs, win + have, 4, fd);
		if (st == CAUSAL_XDR_NOT_YET)
			return CAUSAL_TAG_INCOMPLETE;
		if (st != CAUSAL_XDR_READ)
			break;
		have += 4;
		if (have == sizeof(win) &&
		    causal_tag_decode(win, have, xid, tag) == CAUSAL_TAG_OK)
			return CAUSAL_TAG_OK;
	}
	return CAUSAL_TAG_ABSENT;
}
