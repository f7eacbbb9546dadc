/*
 * check-xdr-size.c - shim-rpc/xdr-size.h: a call's argument and result
 * sizes are the bytes XDR encodes or decodes them in, counted on the
 * call's own pass over them (a memory stream's positions, a record
 * stream's operations) or known from the type, and the program's XDR
 * procedure runs once, as untraced.
 */
#include <check.h>
#include <rpc/rpc.h>
#include <stdint.h>
#include <limits.h>
#include <string.h>

#include "xdr-size.h"

/* libtirpc declares some routines without a prototype: cast through the
 * type any function pointer converts to */
#define PROC(f) ((xdrproc_t)(void (*)(void))(f))

/* A record stream (TCP's) over a buffer: what it writes, what it reads. */
struct wire {
	char buf[1 << 16];
	size_t len, pos;
};

static int wire_write(void *h, void *p, int n)
{
	struct wire *w = h;

	ck_assert(w->len + (size_t)n <= sizeof(w->buf));
	memcpy(w->buf + w->len, p, (size_t)n);
	w->len += (size_t)n;
	return n;
}

static int wire_read(void *h, void *p, int n)
{
	struct wire *w = h;
	size_t k = w->len - w->pos < (size_t)n ? w->len - w->pos : (size_t)n;

	if (!k)
		return -1;
	memcpy(p, w->buf + w->pos, k);
	w->pos += k;
	return (int)k;
}

/*
 * Run proc over p through causal_xdr_run() on a memory stream and on a
 * record stream, encoding then decoding into back (NULL: not decoded);
 * both must count what the memory stream's position says went on the
 * wire, which is returned.
 */
static uint32_t counted(xdrproc_t proc, void *p, void *back)
{
	static struct wire w;
	char buf[1024];
	uint32_t mem, rec, dec;
	XDR x;

	xdrmem_create(&x, buf, sizeof(buf), XDR_ENCODE);
	ck_assert(causal_xdr_run(&x, proc, p, &mem));
	ck_assert_uint_eq(mem, xdr_getpos(&x));
	xdr_destroy(&x);

	memset(&w, 0, sizeof(w));
	xdrrec_create(&x, 0, 0, &w, wire_read, wire_write);
	x.x_op = XDR_ENCODE;
	ck_assert(causal_xdr_run(&x, proc, p, &rec));
	ck_assert(xdrrec_endofrecord(&x, TRUE));
	ck_assert_uint_eq(rec, mem);
	ck_assert_uint_eq(w.len, mem + 4); /* and one fragment header */
	if (back) {
		x.x_op = XDR_DECODE;
		ck_assert(xdrrec_skiprecord(&x));
		ck_assert(causal_xdr_run(&x, proc, back, &dec));
		ck_assert_uint_eq(dec, mem);
	}
	xdr_destroy(&x);
	return mem;
}

#define CHECK_ALL(proc, v, bytes)                                              \
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {                \
		__typeof__(v[0]) out_;                                         \
		ck_assert_uint_eq(counted(PROC(proc), &v[k], &out_), bytes);   \
		ck_assert_uint_eq(xdr_sizeof(PROC(proc), &v[k]), bytes);       \
	}

/* Each scalar with values at both ends of its range: the size the probes
 * record is what goes on the wire, and what xdr_sizeof() says. */
START_TEST(scalars_take_their_wire_size)
{
	int i[] = { 0, -1, INT32_MAX, INT32_MIN };
	u_int u[] = { 0, UINT32_MAX };
	bool_t b[] = { FALSE, TRUE, 7 };
	enum clnt_stat e[] = { RPC_SUCCESS, RPC_TIMEDOUT };
	quad_t h[] = { 0, INT64_MIN, INT64_MAX };
	u_quad_t uh[] = { 0, UINT64_MAX };
	double d[] = { 0.0, -1e300 };
	float f[] = { 0.0f, 3.4e38f };
	short s[] = { 0, INT16_MIN };
	u_short us[] = { 0, UINT16_MAX };
	char c[] = { 0, -128 };
	u_char uc[] = { 0, 255 };
	CHECK_ALL(xdr_int, i, 4);
	CHECK_ALL(xdr_u_int, u, 4);
	CHECK_ALL(xdr_bool, b, 4);
	CHECK_ALL(xdr_enum, e, 4);
	CHECK_ALL(xdr_hyper, h, 8);
	CHECK_ALL(xdr_u_hyper, uh, 8);
	CHECK_ALL(xdr_double, d, 8);
	CHECK_ALL(xdr_float, f, 4);
	CHECK_ALL(xdr_short, s, 4);
	CHECK_ALL(xdr_u_short, us, 4);
	CHECK_ALL(xdr_char, c, 4);
	CHECK_ALL(xdr_u_char, uc, 4);
}
END_TEST

/* What xdr_void moves is nothing. */
START_TEST(void_is_nothing)
{
	ck_assert_uint_eq(counted(PROC(xdr_void), NULL, NULL), 0);
}
END_TEST

/* A string is sized by its data; a long as libtirpc sends it, 4 bytes
 * whatever it holds (its low 32 bits). */
static bool_t xdr_name(XDR *x, char **s)
{
	return xdr_string(x, s, 64);
}

/* A structure rpcgen would write: an int array inline where it can. */
struct pairs {
	u_int n;
	int *v;
};

static bool_t xdr_pairs(XDR *x, struct pairs *p)
{
	return xdr_array(x, (char **)&p->v, &p->n, 64, sizeof(int),
			 PROC(xdr_int));
}

START_TEST(other_types_by_their_data)
{
	char *name = "hello", *back = NULL;
	long l[] = { 42, LONG_MIN };
	u_long ul[] = { 0, ULONG_MAX };
	int v[5] = { 1, 2, 3, 4, 5 };
	struct pairs p = { 5, v }, pb = { 0, NULL };

	/* 4 bytes of length, 5 of text, 3 of padding */
	ck_assert_uint_eq(counted(PROC(xdr_name), &name, &back), 12);
	ck_assert_str_eq(back, "hello");
	xdr_free(PROC(xdr_name), &back);
	CHECK_ALL(xdr_long, l, 4);
	CHECK_ALL(xdr_u_long, ul, 4);
	ck_assert_uint_eq(counted(PROC(xdr_pairs), &p, &pb), 24);
	ck_assert_uint_eq(pb.n, 5);
	ck_assert_int_eq(pb.v[4], 5);
	xdr_free(PROC(xdr_pairs), &pb);
}
END_TEST

/*
 * An encoder with effects (ypserv's streams a map from a database cursor:
 * each record encoded moves it on) runs once, and sends what it sends
 * untraced: the records the cursor had, counted.
 */
struct cursor {
	u_int next, count, runs;
};

static bool_t xdr_cursor(XDR *x, struct cursor *c)
{
	bool_t more = TRUE;

	c->runs++;
	for (; c->next < c->count; c->next++)
		if (!xdr_bool(x, &more) || !xdr_u_int(x, &c->next))
			return FALSE;
	more = FALSE;
	return xdr_bool(x, &more);
}

START_TEST(an_encoder_runs_once)
{
	struct cursor c = { 0, 1000, 0 };
	static struct wire w;
	const struct xdr_ops *ops;
	uint32_t bytes;
	XDR x;

	xdrrec_create(&x, 0, 0, &w, wire_read, wire_write);
	x.x_op = XDR_ENCODE;
	ops = x.x_ops;
	ck_assert(causal_xdr_run(&x, PROC(xdr_cursor), &c, &bytes));
	ck_assert_ptr_eq(x.x_ops, ops); /* the stream's own again */
	ck_assert(xdrrec_endofrecord(&x, TRUE));
	ck_assert_uint_eq(c.runs, 1);
	ck_assert_uint_eq(c.next, 1000);
	ck_assert_uint_eq(bytes, 1000 * 8 + 4);
	/* many fragments: a header each, the rest the records */
	ck_assert_uint_gt(w.len, bytes + 4);
	xdr_destroy(&x);
}
END_TEST

/* A procedure that fails: its answer, and nothing counted. */
static bool_t xdr_fails(XDR *x, int *v)
{
	return xdr_int(x, v) && FALSE;
}

START_TEST(a_failure_counts_nothing)
{
	int v = 7;
	uint32_t bytes = 99;
	char buf[16];
	XDR x;

	xdrmem_create(&x, buf, sizeof(buf), XDR_ENCODE);
	ck_assert(!causal_xdr_run(&x, PROC(xdr_fails), &v, &bytes));
	ck_assert_uint_eq(bytes, 0);
	xdr_destroy(&x);
}
END_TEST

Suite *xdr_size_suite(void)
{
	Suite *s = suite_create("xdr-size");
	TCase *tc = tcase_create("sizes");

	tcase_add_test(tc, scalars_take_their_wire_size);
	tcase_add_test(tc, void_is_nothing);
	tcase_add_test(tc, other_types_by_their_data);
	tcase_add_test(tc, an_encoder_runs_once);
	tcase_add_test(tc, a_failure_counts_nothing);
	suite_add_tcase(s, tc);
	return s;
}
