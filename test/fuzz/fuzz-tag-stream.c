/*
 * fuzz-tag-stream.c - libFuzzer target for reading the causality tag off
 * the network as the shim does (shim-rpc/xdr-tag.c, linked with
 * libtirpc): off a TCP record stream (libtirpc's xdrrec over a socket
 * holding what the input says was received: record marks, fragments of
 * any size, a last fragment announced and cut) and off a UDP datagram
 * (xdrmem), after the arguments (causal_xdr_get_tag) or on the error path
 * (causal_xdr_scan_tag).
 *
 * Input: flags (bit 0 datagram, bit 1 scan, bit 2 the peer has closed,
 * bit 3 no connection given), libtirpc's buffer size (100 + 4 * byte),
 * the arguments' length (u16, mod 2048), the bytes received (u16), the
 * xid (u32), then the bytes sent.
 *
 * Each outcome is checked against a model that walks the bytes sent as
 * libtirpc's xdrrec_getbytes does: the tag read is the 48 payload bytes
 * after the arguments when all were received (decoded by
 * causal_tag_decode), 'incomplete' when the record goes on past what was
 * received, 'absent' when it ends first.  No read may wait (the socket
 * is non-blocking: a read that would block aborts), nothing is consumed
 * unless the tag is read (once the rest is received the same read gives
 * the whole record's answer), and a tag read leaves the stream just after
 * it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xdr-tag.h"

#define HEAD 10
#define WIRE_MAX 4096

enum { F_DGRAM = 1, F_SCAN = 2, F_CLOSED = 4, F_NOFD = 8 };

/* ---- the model --------------------------------------------------------- */

struct model {
	const uint8_t *w;
	size_t n;		/* bytes received */
	size_t pos;		/* next one */
	long frag;		/* left in the fragment, as libtirpc's fbtbc */
	int last;
};

/* Take len payload bytes into out (if not NULL) as xdrrec_getbytes:
 * 1 taken, 0 the record ends first (or a header of 0, which libtirpc
 * refuses), -1 the record goes on past the bytes received. */
static int model_take(struct model *m, uint8_t *out, size_t len)
{
	while (len) {
		size_t take;

		if (!m->frag) {
			uint32_t h;

			if (m->last)
				return 0;
			if (m->n - m->pos < 4)
				return -1;
			h = (uint32_t)m->w[m->pos] << 24 |
			    (uint32_t)m->w[m->pos + 1] << 16 |
			    (uint32_t)m->w[m->pos + 2] << 8 | m->w[m->pos + 3];
			m->pos += 4;
			if (!h)
				return 0;
			m->last = (h & 0x80000000u) != 0;
			m->frag = (long)(h & 0x7fffffffu);
			continue;
		}
		take = (size_t)m->frag < len ? (size_t)m->frag : len;
		if (take > m->n - m->pos)
			return -1;
		if (out) {
			memcpy(out, m->w + m->pos, take);
			out += take;
		}
		m->pos += take;
		m->frag -= (long)take;
		len -= take;
	}
	return 1;
}

/* The status causal_xdr_get_tag must give, and where it leaves m. */
static int model_get_tag(struct model *m, uint32_t xid, struct causal_tag *t)
{
	struct model at = *m;
	uint8_t buf[CAUSAL_TAG_LEN];
	int r = model_take(m, buf, sizeof(buf));

	if (r > 0)
		return causal_tag_decode(buf, sizeof(buf), xid, t);
	*m = at;
	return r < 0 ? CAUSAL_TAG_INCOMPLETE : CAUSAL_TAG_ABSENT;
}

/* The status causal_xdr_scan_tag must give. */
static int model_scan(struct model *m, uint32_t xid, struct causal_tag *t)
{
	uint8_t win[CAUSAL_TAG_LEN];
	size_t have = 0;

	for (size_t read = 0; read < CAUSAL_TAG_SCAN_MAX; read += 4) {
		struct model at = *m;
		int r;

		if (have == sizeof(win)) {
			memmove(win, win + 4, sizeof(win) - 4);
			have -= 4;
		}
		r = model_take(m, win + have, 4);
		if (r <= 0) {
			*m = at;
			return r < 0 ? CAUSAL_TAG_INCOMPLETE
				     : CAUSAL_TAG_ABSENT;
		}
		have += 4;
		if (have == sizeof(win) &&
		    causal_tag_decode(win, have, xid, t) == CAUSAL_TAG_OK)
			return CAUSAL_TAG_OK;
	}
	return CAUSAL_TAG_ABSENT;
}

static void same_tag(int st, const struct causal_tag *a,
		     const struct causal_tag *b)
{
	if (st == CAUSAL_TAG_OK &&
	    (memcmp(a->chain, b->chain, sizeof(a->chain)) ||
	     a->event_no != b->event_no || a->xid != b->xid ||
	     a->flags != b->flags))
		abort();
}

/* ---- a record stream over a socket ------------------------------------- */

struct source {
	int sv[2];
	int strict;		/* a read that would wait aborts */
};

static int source_read(void *h, void *buf, int len)
{
	struct source *s = h;
	ssize_t n = read(s->sv[0], buf, (size_t)len);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && s->strict)
		abort(); /* the tracer made libtirpc wait on the network */
	return n > 0 ? (int)n : -1;
}

static int source_write(void *h, void *buf, int len)
{
	(void)h;
	(void)buf;
	return len;
}

static void send_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			abort(); /* the harness: WIRE_MAX fits a socket */
		p += w;
		n -= (size_t)w;
	}
}

static int tag_op(XDR *x, int scan, uint32_t xid, int fd,
		  struct causal_tag *t)
{
	return scan ? causal_xdr_scan_tag(x, xid, fd, t)
		    : causal_xdr_get_tag(x, xid, fd, t);
}

static int model_op(struct model *m, int scan, uint32_t xid,
		    struct causal_tag *t)
{
	return scan ? model_scan(m, xid, t) : model_get_tag(m, xid, t);
}

static void fuzz_record(int flags, u_int recvsize, size_t args,
			uint32_t xid, const uint8_t *wire, size_t n,
			size_t got)
{
	struct model m = {wire, got, 0, 0, 0}, all;
	struct causal_tag t, mt;
	uint8_t argbuf[2048 + 4];
	struct source s = {{-1, -1}, 0};
	int scan = flags & F_SCAN, ok, st, want, fd;
	XDR x;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, s.sv) ||
	    fcntl(s.sv[0], F_SETFL, O_NONBLOCK) < 0)
		abort();
	send_all(s.sv[1], wire, got);
	if (flags & F_CLOSED) {
		close(s.sv[1]);
		s.sv[1] = -1;
	}
	fd = flags & F_NOFD ? -1 : s.sv[0];
	xdrrec_create(&x, 0, recvsize, &s, source_read, source_write);
	x.x_op = XDR_DECODE;
	/* svc_vc_recv, then the arguments: libtirpc's own reads, which may
	 * fail on bytes not received (a real server would wait there) */
	if (!xdrrec_skiprecord(&x))
		abort(); /* a fresh stream: nothing to skip */
	ok = xdr_opaque(&x, (char *)argbuf, (u_int)args);
	if ((model_take(&m, NULL, (args + 3) & ~(size_t)3) > 0) != !!ok)
		abort();
	if (!ok)
		goto out;

	/* the tag: never a read that waits */
	s.strict = 1;
	all = m;
	all.n = n;
	/* an xid given is ignored: TCP tags are bound to none */
	st = tag_op(&x, scan, xid, fd, &t);
	want = model_op(&m, scan, 0, &mt);
	if (fd < 0) {
		/* libtirpc's buffer alone: no more than the model */
		if (st != CAUSAL_TAG_INCOMPLETE && st != want)
			abort();
		if (st == CAUSAL_TAG_INCOMPLETE)
			goto out;
	} else if (st != want) {
		abort();
	}
	same_tag(st, &t, &mt);
	if (st == CAUSAL_TAG_INCOMPLETE && !scan && s.sv[1] >= 0) {
		/* nothing consumed: once all is received, the same read
		 * gives what the whole record holds */
		send_all(s.sv[1], wire + got, n - got);
		st = tag_op(&x, 0, xid, fd, &t);
		want = model_op(&all, 0, 0, &mt);
		if (st != want)
			abort();
		same_tag(st, &t, &mt);
		m = all;
	} else if (st == CAUSAL_TAG_ABSENT && !scan && m.pos == all.pos) {
		/* nothing consumed: asked again, the same answer */
		if (tag_op(&x, 0, xid, fd, &t) != CAUSAL_TAG_ABSENT)
			abort();
	}
	if (!scan && fd >= 0 && st != CAUSAL_TAG_INCOMPLETE &&
	    st != CAUSAL_TAG_ABSENT) {
		/* read: the stream stands just after the tag */
		uint8_t next[4], mnext[4];
		int r = causal_xdr_read_ready(&x, next, 4, fd);
		int mr = model_take(&m, mnext, 4);

		if (r != (mr > 0	   ? CAUSAL_XDR_READ
			  : mr < 0 ? CAUSAL_XDR_NOT_YET
				   : CAUSAL_XDR_END) ||
		    (mr > 0 && memcmp(next, mnext, 4)))
			abort();
	}
out:
	XDR_DESTROY(&x);
	close(s.sv[0]);
	if (s.sv[1] >= 0)
		close(s.sv[1]);
}

/* ---- a datagram ---------------------------------------------------------- */

static void fuzz_datagram(int flags, size_t args, uint32_t xid,
			  const uint8_t *dg, size_t n)
{
	uint8_t argbuf[2048 + 4], *copy = malloc(n ? n : 1);
	size_t at = (args + 3) & ~(size_t)3;
	struct causal_tag t, mt;
	struct model m;
	int st, want;
	XDR x;

	if (!copy)
		abort();
	memcpy(copy, dg, n);
	xdrmem_create(&x, (char *)copy, (u_int)n, XDR_DECODE);
	if (!xdr_opaque(&x, (char *)argbuf, (u_int)args)) {
		if (at <= n)
			abort();
		goto out;
	}
	/* a datagram as one last fragment, all received */
	m = (struct model){dg + at, n - at, 0, (long)(n - at), 1};
	st = flags & F_SCAN ? causal_xdr_scan_tag(&x, xid, -1, &t)
			    : causal_xdr_get_tag(&x, xid, -1, &t);
	want = flags & F_SCAN ? model_scan(&m, xid, &mt)
			      : model_get_tag(&m, xid, &mt);
	if (st != want || st == CAUSAL_TAG_INCOMPLETE)
		abort();
	same_tag(st, &t, &mt);
	if (XDR_GETPOS(&x) != at + m.pos)
		abort(); /* read: just after the tag; else not moved */
out:
	XDR_DESTROY(&x);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t args, got, n;
	uint32_t xid;
	int flags;

	if (size < HEAD)
		return 0;
	flags = data[0];
	args = ((size_t)data[2] << 8 | data[3]) % 2048;
	got = (size_t)data[4] << 8 | data[5];
	xid = (uint32_t)data[6] << 24 | (uint32_t)data[7] << 16 |
	      (uint32_t)data[8] << 8 | data[9];
	n = size - HEAD;
	if (n > WIRE_MAX)
		n = WIRE_MAX;
	if (got > n)
		got = n;
	if (flags & F_DGRAM)
		fuzz_datagram(flags, args, xid, data + HEAD, n);
	else
		fuzz_record(flags, 100 + 4 * (u_int)data[1], args, xid,
			    data + HEAD, n, got);
	return 0;
}
