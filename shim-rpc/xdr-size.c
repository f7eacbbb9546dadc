/*
 * xdr-size.c - a call's argument and result sizes, counted on the call's
 * own pass over them (xdr-size.h).
 *
 * Scalars have one size whatever their value: no counting at all, the
 * whole of what tracing an int -> int procedure adds beyond the null
 * procedure stays as small as it was.  (libtirpc encodes a long in 4
 * bytes whatever it holds: beyond 32 bits it sends the low ones.)
 */
#include <arpa/inet.h>
#include <string.h>

#include "xdr-size.h"
#include "xdr-tag.h"

/* Function pointers compare as void (*)(void), the type any converts to. */
typedef void (*any_fn)(void);

static const struct {
	any_fn proc;
	uint32_t bytes;
} fixed[] = {
	/* the likeliest first: a miss costs a structure one comparison each */
	{ (any_fn)xdr_void, 0 },    { (any_fn)xdr_int, 4 },
	{ (any_fn)xdr_u_int, 4 },   { (any_fn)xdr_bool, 4 },
	{ (any_fn)xdr_enum, 4 },    { (any_fn)xdr_hyper, 8 },
	{ (any_fn)xdr_u_hyper, 8 }, { (any_fn)xdr_double, 8 },
	{ (any_fn)xdr_float, 4 },   { (any_fn)xdr_short, 4 },
	{ (any_fn)xdr_u_short, 4 }, { (any_fn)xdr_char, 4 },
	{ (any_fn)xdr_u_char, 4 },  { (any_fn)xdr_long, 4 },
	{ (any_fn)xdr_u_long, 4 },
};

/*
 * The stream's operations for one run: the original's, each counting
 * what it moved.  On the caller's stack; the stream points at ops, the
 * first member, so each operation finds its counter from the stream.
 */
struct counting {
	struct xdr_ops ops;
	const struct xdr_ops *orig;
	uint64_t bytes;
	/* copying them too (NULL: not): an encoder fills the room x_inline
	 * gave it after the call, so that is copied at the next operation */
	struct causal_xdr_capture *cap;
	const void *pending;
	u_int pending_n;
};

static struct counting *counting_of(XDR *x)
{
	return (struct counting *)(void *)x->x_ops;
}

static void capture(struct counting *c, const void *p, u_int n)
{
	struct causal_xdr_capture *cap = c->cap;

	if (n > cap->max - cap->len)
		n = cap->max - cap->len;
	memcpy(cap->buf + cap->len, p, n);
	cap->len += n;
}

/* Before any operation: what the encoder wrote where x_inline pointed. */
static void capture_pending(struct counting *c)
{
	if (c->pending) {
		capture(c, c->pending, c->pending_n);
		c->pending = NULL;
	}
}

static bool_t counted(XDR *x, bool_t ok, u_int n)
{
	if (ok)
		counting_of(x)->bytes += n;
	return ok;
}

/* A long as XDR puts it on the wire: its low 32 bits, big-endian. */
static void capture_long(struct counting *c, bool_t ok, const long *v)
{
	uint32_t be = htonl((uint32_t)*v);

	if (ok && c->cap)
		capture(c, &be, sizeof(be));
}

static bool_t c_getlong(XDR *x, long *v)
{
	struct counting *c = counting_of(x);
	bool_t ok = counted(x, c->orig->x_getlong(x, v), BYTES_PER_XDR_UNIT);

	capture_long(c, ok, v);
	return ok;
}

static bool_t c_putlong(XDR *x, const long *v)
{
	struct counting *c = counting_of(x);

	if (c->cap)
		capture_pending(c);
	capture_long(c, TRUE, v);
	return counted(x, c->orig->x_putlong(x, v), BYTES_PER_XDR_UNIT);
}

static bool_t c_getbytes(XDR *x, char *buf, u_int n)
{
	struct counting *c = counting_of(x);
	bool_t ok = counted(x, c->orig->x_getbytes(x, buf, n), n);

	if (ok && c->cap)
		capture(c, buf, n);
	return ok;
}

static bool_t c_putbytes(XDR *x, const char *buf, u_int n)
{
	struct counting *c = counting_of(x);

	if (c->cap) {
		capture_pending(c);
		capture(c, buf, n);
	}
	return counted(x, c->orig->x_putbytes(x, buf, n), n);
}

static int32_t *c_inline(XDR *x, u_int n)
{
	struct counting *c = counting_of(x);
	int32_t *p;

	if (c->cap)
		capture_pending(c);
	p = c->orig->x_inline(x, n);
	counted(x, p != NULL, n);
	if (p && c->cap && x->x_op == XDR_DECODE)
		capture(c, p, n);
	else if (p && c->cap) {
		c->pending = p;
		c->pending_n = n;
	}
	return p;
}

static uint32_t run_counted(XDR *xdrs, xdrproc_t proc, void *p, bool_t *ok,
			    struct causal_xdr_capture *cap)
{
	struct counting c = { .ops = *xdrs->x_ops,
			      .orig = xdrs->x_ops,
			      .cap = cap };

	/* an operation the stream lacks stays missing */
#define COUNT_OP(op, fn)                                                       \
	if (c.orig->op)                                                        \
		c.ops.op = fn;
	COUNT_OP(x_getlong, c_getlong)
	COUNT_OP(x_putlong, c_putlong)
	COUNT_OP(x_getbytes, c_getbytes)
	COUNT_OP(x_putbytes, c_putbytes)
	COUNT_OP(x_inline, c_inline)
#undef COUNT_OP
	xdrs->x_ops = &c.ops;
	*ok = proc(xdrs, p);
	xdrs->x_ops = c.orig;
	if (cap)
		capture_pending(&c);
	return c.bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)c.bytes;
}

bool_t causal_xdr_run(XDR *xdrs, xdrproc_t proc, void *p, uint32_t *bytes)
{
	any_fn f = (any_fn)proc;
	u_int pos;
	bool_t ok;

	*bytes = 0;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (f == fixed[i].proc) {
			ok = proc(xdrs, p);
			*bytes = ok ? fixed[i].bytes : 0;
			return ok;
		}
	if (xdrs->x_op == XDR_FREE)
		return proc(xdrs, p);
	if (causal_xdr_is_mem(xdrs)) {
		/* its position is where it writes or reads next, exactly */
		pos = XDR_GETPOS(xdrs);
		ok = proc(xdrs, p);
		if (ok && XDR_GETPOS(xdrs) >= pos)
			*bytes = XDR_GETPOS(xdrs) - pos;
		return ok;
	}
	*bytes = run_counted(xdrs, proc, p, &ok, NULL);
	if (!ok)
		*bytes = 0;
	return ok;
}

bool_t causal_xdr_run_capture(XDR *xdrs, xdrproc_t proc, void *p,
			      uint32_t *bytes, struct causal_xdr_capture *cap)
{
	u_int pos, n;
	bool_t ok;

	*bytes = 0;
	cap->len = 0;
	if (xdrs->x_op == XDR_FREE)
		return causal_xdr_run(xdrs, proc, p, bytes);
	if (causal_xdr_is_mem(xdrs)) {
		/* what it wrote or read lies in its buffer (x_base: its
		 * start, libtirpc's xdr_mem.c) from pos on */
		pos = XDR_GETPOS(xdrs);
		ok = proc(xdrs, p);
		if (ok && XDR_GETPOS(xdrs) >= pos && xdrs->x_base) {
			*bytes = XDR_GETPOS(xdrs) - pos;
			n = *bytes < cap->max ? *bytes : cap->max;
			memcpy(cap->buf, (const char *)xdrs->x_base + pos, n);
			cap->len = n;
		}
		return ok;
	}
	*bytes = run_counted(xdrs, proc, p, &ok, cap);
	if (!ok)
		*bytes = 0;
	return ok;
}
