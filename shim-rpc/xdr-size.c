/*
 * xdr-size.c - a call's argument and result sizes (xdr-size.h).
 *
 * xdr_sizeof() sets up a stream and walks the data: some 75 instructions
 * for one int, twice a call on each side of an int -> int procedure, the
 * whole of what tracing it adds beyond the null procedure (callgrind).
 * Scalars have one size whatever their value, so they are not walked.
 * (libtirpc encodes a long in 4 bytes whatever it holds: beyond 32 bits
 * it sends the low ones, and xdr_sizeof() says 4.)
 */
#include "xdr-size.h"

/* Function pointers compare as void (*)(void), the type any converts to. */
typedef void (*any_fn)(void);

static const struct {
	any_fn proc;
	uint32_t bytes;
} fixed[] = {
	/* the likeliest first: a miss costs a structure one comparison each */
	{ (any_fn)xdr_int, 4 },	   { (any_fn)xdr_u_int, 4 },
	{ (any_fn)xdr_bool, 4 },   { (any_fn)xdr_enum, 4 },
	{ (any_fn)xdr_hyper, 8 },  { (any_fn)xdr_u_hyper, 8 },
	{ (any_fn)xdr_double, 8 }, { (any_fn)xdr_float, 4 },
	{ (any_fn)xdr_short, 4 },  { (any_fn)xdr_u_short, 4 },
	{ (any_fn)xdr_char, 4 },   { (any_fn)xdr_u_char, 4 },
	{ (any_fn)xdr_long, 4 },   { (any_fn)xdr_u_long, 4 },
};

uint32_t causal_xdr_size_of(xdrproc_t proc, void *p)
{
	any_fn f = (any_fn)proc;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (f == fixed[i].proc)
			return fixed[i].bytes;
	return (uint32_t)xdr_sizeof(proc, p);
}
