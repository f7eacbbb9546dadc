/*
 * xdr-size.c - a call's argument and result sizes, counted on the call's
 * own pass over them (xdr-size.h).
 *
 * Scalars have one size whatever their value: no counting at all, the
 * whole of what tracing an int -> int procedure adds beyond the null
 * procedure stays as small as it was.  (libtirpc encodes a long in 4
 * bytes whatever it holds: beyond 32 bits it sends the low ones.)
 */
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
};

static struct counting *counting_of(XDR *x)
{
	return (struct counting *)(void *)x->x_ops;
}

static bool_t counted(XDR *x, bool_t ok, u_int n)
{
	if (ok)
		counting_of(x)->bytes += n;
	return ok;
}

static bool_t c_getlong(XDR *x, long *v)
{
	return counted(x, counting_of(x)->orig->x_getlong(x, v),
		       BYTES_PER_XDR_UNIT);
}

static bool_t c_putlong(XDR *x, const long *v)
{
	return counted(x, counting_of(x)->orig->x_putlong(x, v),
		       BYTES_PER_XDR_UNIT);
}

static bool_t c_getbytes(XDR *x, char *buf, u_int n)
{
	return counted(x, counting_of(x)->orig->x_getbytes(x, buf, n), n);
}

static bool_t c_putbytes(XDR *x, const char *buf, u_int n)
{
	return counted(x, counting_of(x)->orig->x_putbytes(x, buf, n), n);
}

static int32_t *c_inline(XDR *x, u_int n)
{
	int32_t *p = counting_of(x)->orig->x_inline(x, n);

	counted(x, p != NULL, n);
	return p;
}

static uint32_t run_counted(XDR *xdrs, xdrproc_t proc, void *p, bool_t *ok)
{
	struct counting c = { .ops = *xdrs->x_ops, .orig = xdrs->x_ops };

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
	*bytes = run_counted(xdrs, proc, p, &ok);
	if (!ok)
		*bytes = 0;
	return ok;
}
