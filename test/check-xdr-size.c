/*
 * check-xdr-size.c - shim-rpc/xdr-size.h: a call's argument and result
 * sizes are the bytes XDR encodes them in, whether counted by a walk
 * (xdr_sizeof) or known from the type.
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

/* The bytes proc writes for *p into a memory stream: the wire's truth. */
static uint32_t encoded(xdrproc_t proc, void *p)
{
	char buf[256];
	XDR x;
	uint32_t n;

	xdrmem_create(&x, buf, sizeof(buf), XDR_ENCODE);
	ck_assert(proc(&x, p));
	n = xdr_getpos(&x);
	xdr_destroy(&x);
	return n;
}

#define CHECK_ALL(proc, v, bytes)                                              \
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {                \
		ck_assert_uint_eq(causal_xdr_size(PROC(proc), &v[k]), bytes);  \
		ck_assert_uint_eq(encoded(PROC(proc), &v[k]), bytes);          \
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

/* What no procedure or xdr_void moves is nothing. */
START_TEST(void_is_nothing)
{
	ck_assert_uint_eq(causal_xdr_size(NULL, NULL), 0);
	ck_assert_uint_eq(causal_xdr_size(PROC(xdr_void), NULL), 0);
	ck_assert_uint_eq(causal_xdr_size_of(PROC(xdr_void), NULL), 0);
}
END_TEST

/* A string is sized by its data; a long as libtirpc sends it, 4 bytes
 * whatever it holds (its low 32 bits). */
static bool_t xdr_name(XDR *x, char **s)
{
	return xdr_string(x, s, 64);
}

START_TEST(other_types_by_their_data)
{
	char *name = "hello";
	long l[] = { 42, LONG_MIN };
	u_long ul[] = { 0, ULONG_MAX };

	/* 4 bytes of length, 5 of text, 3 of padding */
	ck_assert_uint_eq(causal_xdr_size(PROC(xdr_name), &name), 12);
	ck_assert_uint_eq(encoded(PROC(xdr_name), &name), 12);
	CHECK_ALL(xdr_long, l, 4);
	CHECK_ALL(xdr_u_long, ul, 4);
}
END_TEST

Suite *xdr_size_suite(void)
{
	Suite *s = suite_create("xdr-size");
	TCase *tc = tcase_create("sizes");

	tcase_add_test(tc, scalars_take_their_wire_size);
	tcase_add_test(tc, void_is_nothing);
	tcase_add_test(tc, other_types_by_their_data);
	suite_add_tcase(s, tc);
	return s;
}
