/*
 * check-xdr-value.c - the .x type parser (util/xdr-types.c) and the XDR
 * interpreter (util/xdr-value.c): every construct, and hostile bytes:
 * cut at each byte, flipped, random.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xdr-value.h"

static const char spec[] =
	"%#include <x.h>\nconst MAXN = 4;\n"
	"enum color { RED = 1, GREEN, BLUE = 7 };\n"
	"typedef string name_t<16>;\n"
	"struct node { int v; node *next; };\n"
	"union shape switch (color c) {\n case RED: int r;\n"
	" case GREEN: case BLUE: hyper g;\n default: void;\n};\n"
	"struct all {\n int i; unsigned int u; unsigned hyper uh; hyper h;\n"
	" bool b; double d; float f; color c; name_t name;\n"
	" opaque fix[3]; opaque var<>; int arr[2]; int list<MAXN>;\n"
	" shape s; node *head; struct node inl;\n};\n"
	"program P { version V {\n void NUL(void) = 0;\n"
	"  all ECHO(all) = 1;\n  int TWO(int, string) = 2;\n } = 1;\n"
	"} = 0x20000001;\n";

/* The bytes of an `all`, as rpcgen's xdr_all encodes it. */
static const uint8_t all_bytes[] = {
	0xff, 0xff, 0xff, 0xfd,				/* i = -3 */
	0x00, 0x00, 0x00, 0x07,				/* u = 7 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* uh = 2^32 */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, /* h = -2 */
	0x00, 0x00, 0x00, 0x01,				/* b = true */
	0x3f, 0xf8, 0,	  0,	0,    0,    0,	  0,	/* d = 1.5 */
	0x40, 0x20, 0,	  0,				/* f = 2.5 */
	0x00, 0x00, 0x00, 0x07,				/* c = BLUE */
	0,    0,    0,	  2,	'h',  'i',  0,	  0,	/* name = "hi" */
	1,    2,    3,	  0,				/* fix */
	0,    0,    0,	  1,	0xab, 0,    0,	  0,	/* var */
	0,    0,    0,	  5,	0,    0,    0,	  6,	/* arr */
	0,    0,    0,	  2,	0,    0,    0,	  8,
	0,    0,    0,	  9,			      /* list */
	0,    0,    0,	  1,	0,    0,    0,	  42, /* s: RED, r 42 */
	0,    0,    0,	  1,	0,    0,    0,	  10, /* head: v 10 */
	0,    0,    0,	  1,	0,    0,    0,	  11,
	0,    0,    0,	  0,			     /* -> 11 -> NULL */
	0,    0,    0,	  12,	0,    0,    0,	  0, /* inl */
};

static const char all_json[] =
	"{\"i\":-3,\"u\":7,\"uh\":4294967296,\"h\":-2,\"b\":true,"
	"\"d\":1.5,\"f\":2.5,\"c\":\"BLUE\",\"name\":\"hi\","
	"\"fix\":\"010203\",\"var\":\"ab\",\"arr\":[5,6],\"list\":[8,9],"
	"\"s\":{\"c\":\"RED\",\"r\":42},"
	"\"head\":{\"v\":10,\"next\":{\"v\":11,\"next\":null}},"
	"\"inl\":{\"v\":12,\"next\":null}}";

static char *json_of(const struct xdr_value *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	xdr_value_json(f, v);
	fclose(f);
	return buf;
}

static void load(struct xdr_types *t)
{
	xdr_types_init(t);
	ck_assert_int_eq(xdr_types_parse(t, spec, "spec.x"), 0);
}

START_TEST(test_parse_every_construct)
{
	struct xdr_types t;
	const struct xdr_type *ty;
	const struct xdr_proc *p;

	load(&t);
	ty = xdr_types_find(&t, "all");
	ck_assert_ptr_nonnull(ty);
	ck_assert_int_eq(ty->kind, XDR_T_STRUCT);
	ck_assert_int_eq(ty->nfields, 16);
	ck_assert_int_eq(ty->fields[1].type->kind, XDR_T_UINT);
	ck_assert_int_eq(ty->fields[2].type->kind, XDR_T_UHYPER);
	ck_assert_int_eq(ty->fields[9].type->kind, XDR_T_OPAQUE);
	ck_assert(ty->fields[9].type->fixed);
	ck_assert_int_eq(ty->fields[12].type->size, 4); /* <MAXN> */
	ck_assert_int_eq(ty->fields[14].type->kind, XDR_T_OPTIONAL);
	ty = xdr_types_find(&t, "color");
	ck_assert_int_eq(ty->nvalues, 3);
	ck_assert_int_eq(ty->values[1].value, 2); /* counted on */
	ty = xdr_types_find(&t, "shape");
	ck_assert_int_eq(ty->kind, XDR_T_UNION);
	ck_assert_int_eq(ty->ncases, 3);
	ck_assert_int_eq(ty->cases[2].value, 7); /* BLUE, a constant */
	ck_assert_int_eq(ty->default_arm, 2);
	ck_assert_int_eq(xdr_types_find(&t, "name_t")->kind, XDR_T_STRING);
	p = xdr_types_proc(&t, 0x20000001, 1, 2);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->name, "TWO");
	ck_assert_int_eq(p->nargs, 2);
	ck_assert_int_eq(p->args[1]->kind, XDR_T_STRING);
	ck_assert_int_eq(xdr_types_proc(&t, 0x20000001, 1, 0)->nargs, 0);
	ck_assert_ptr_null(xdr_types_proc(&t, 0x20000001, 1, 9));
	xdr_types_release(&t);
}
END_TEST

/* A .x that does not parse: one error, naming the file and the line. */
START_TEST(test_parse_errors)
{
	static const struct {
		const char *text;
		int line;
	} bad[] = {
		{ "struct s { int a; \n int; };", 2 },
		{ "union u switch (int d) {\n oops 1: int a; };", 2 },
		{ "typedef string s[4];", 1 },
		{ "struct s { int a[NOPE]; };", 1 },
		{ "\n\nenum e { A = }", 3 },
		{ "program P { version V { int F(int) = 1; } = 1; }", 1 },
		{ "struct", 1 },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct xdr_types t;
		char buf[4096] = "";
		FILE *saved = stderr;
		char want[32];

		stderr = fmemopen(buf, sizeof(buf) - 1, "w");
		xdr_types_init(&t);
		ck_assert_int_eq(xdr_types_parse(&t, bad[i].text, "bad.x"),
				 -EINVAL);
		fclose(stderr);
		stderr = saved;
		snprintf(want, sizeof(want), "bad.x:%d:", bad[i].line);
		ck_assert_msg(strstr(buf, want), "%zu: %s", i, buf);
		ck_assert_msg(!strchr(buf, '\n') || !strchr(buf, '\n')[1],
			      "one line: %s", buf);
		xdr_types_release(&t);
	}
}
END_TEST

START_TEST(test_decode_every_construct)
{
	struct xdr_types t;
	const struct xdr_type *ty;
	struct xdr_value *v;
	char *json;

	load(&t);
	ty = xdr_types_find(&t, "all");
	ck_assert_int_eq(xdr_value_decode(&t, &ty, 1, all_bytes,
					  sizeof(all_bytes), sizeof(all_bytes),
					  &v),
			 XDR_DECODED);
	json = json_of(v);
	ck_assert_str_eq(json, all_json);
	ck_assert_int_eq(xdr_value_at(v, "head.next.v")->i, 11);
	ck_assert_int_eq(xdr_value_at(v, "list[1]")->i, 9);
	ck_assert_ptr_null(xdr_value_at(v, "list[2]"));
	ck_assert_ptr_null(xdr_value_at(v, "nope"));
	free(json);
	xdr_value_free(v);
	xdr_types_release(&t);
}
END_TEST

/* The procedure's arguments, several (rpcgen -N), and void. */
START_TEST(test_decode_args)
{
	static const uint8_t two[] = { 0, 0, 0, 3, 0, 0, 0, 1, 'x', 0, 0, 0 };
	struct xdr_types t;
	const struct xdr_proc *p;
	struct xdr_value *v;
	char *json;

	load(&t);
	p = xdr_types_proc(&t, 0x20000001, 1, 2);
	ck_assert_int_eq(
		xdr_value_decode(&t, (const struct xdr_type *const *)p->args,
				 p->nargs, two, sizeof(two), sizeof(two), &v),
		XDR_DECODED);
	json = json_of(v);
	ck_assert_str_eq(json, "[3,\"x\"]");
	free(json);
	xdr_value_free(v);
	ck_assert_int_eq(xdr_value_decode(&t, NULL, 0, two, 0, 0, &v),
			 XDR_DECODED);
	ck_assert_int_eq(v->kind, XV_NULL);
	xdr_value_free(v);
	/* bytes where void was expected: not its value */
	ck_assert_int_eq(xdr_value_decode(&t, NULL, 0, two, 4, 4, &v),
			 XDR_UNDECODED);
	ck_assert_ptr_null(v);
	xdr_types_release(&t);
}
END_TEST

/* Cut at each byte: what is there, never a crash; all of it but
 * shorter than it says: not decoded. */
START_TEST(test_decode_cut_each_byte)
{
	struct xdr_types t;
	const struct xdr_type *ty;

	load(&t);
	ty = xdr_types_find(&t, "all");
	for (size_t n = 0; n < sizeof(all_bytes); n++) {
		uint8_t *copy = malloc(n + 1); /* ASan sees a read past n */
		struct xdr_value *v;
		int st;

		memcpy(copy, all_bytes, n);
		st = xdr_value_decode(&t, &ty, 1, copy, n, sizeof(all_bytes),
				      &v);
		ck_assert_msg(st == XDR_CUT, "cut at %zu: %d", n, st);
		ck_assert_ptr_nonnull(v);
		free(json_of(v));
		xdr_value_free(v);
		st = xdr_value_decode(&t, &ty, 1, copy, n, n, &v);
		ck_assert_int_eq(st, XDR_UNDECODED);
		ck_assert_ptr_null(v);
		free(copy);
	}
	xdr_types_release(&t);
}
END_TEST

/* Hostile bytes: every byte flipped, huge counts, random; a type that
 * loops or is not defined. */
START_TEST(test_decode_hostile)
{
	static const char loops[] = "typedef a b; typedef b a;\n"
				    "struct deep { deep *d; };\n"
				    "struct un { missing m; };\n";
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1 };
	struct xdr_types t;
	const struct xdr_type *ty;
	uint8_t buf[sizeof(all_bytes)];
	uint8_t deep[4 * 200];
	struct xdr_value *v;

	load(&t);
	ck_assert_int_eq(xdr_types_parse(&t, loops, "loops.x"), 0);
	ty = xdr_types_find(&t, "all");
	for (size_t i = 0; i < sizeof(buf) * 8; i++) {
		memcpy(buf, all_bytes, sizeof(buf));
		buf[i / 8] ^= (uint8_t)(1u << (i % 8));
		xdr_value_decode(&t, &ty, 1, buf, sizeof(buf), sizeof(buf), &v);
		if (v)
			free(json_of(v));
		xdr_value_free(v);
	}
	srand(38);
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)rand() % sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)(rand() % 4 ? rand() % 3 : rand());
		xdr_value_decode(&t, &ty, 1, buf, n, n + (size_t)round % 2, &v);
		xdr_value_free(v);
	}
	/* a count of 2^32 - 1 strings: cut, not 4 billion values */
	{
		struct xdr_type s = { .kind = XDR_T_STRING,
				      .size = XDR_NO_MAX };
		struct xdr_type arr = { .kind = XDR_T_ARRAY,
					.size = XDR_NO_MAX,
					.elem = &s };
		const struct xdr_type *a = &arr;

		ck_assert_int_eq(xdr_value_decode(&t, &a, 1, huge, sizeof(huge),
						  1u << 30, &v),
				 XDR_CUT);
		xdr_value_free(v);
		ck_assert_int_eq(xdr_value_decode(&t, &a, 1, huge, sizeof(huge),
						  sizeof(huge), &v),
				 XDR_UNDECODED);
	}
	/* a list too long to nest, types that name each other or nothing */
	for (size_t i = 0; i < sizeof(deep); i += 4) {
		deep[i] = deep[i + 1] = deep[i + 2] = 0;
		deep[i + 3] = 1;
	}
	ty = xdr_types_find(&t, "deep");
	ck_assert_int_eq(xdr_value_decode(&t, &ty, 1, deep, sizeof(deep),
					  sizeof(deep), &v),
			 XDR_UNDECODED);
	ty = xdr_types_find(&t, "a");
	ck_assert_int_eq(xdr_value_decode(&t, &ty, 1, deep, 4, 4, &v),
			 XDR_UNDECODED);
	ty = xdr_types_find(&t, "un");
	ck_assert_int_eq(xdr_value_decode(&t, &ty, 1, deep, 4, 4, &v),
			 XDR_UNDECODED);
	/* a union's discriminant with no arm: GREEN has one, 5 none... */
	ty = xdr_types_find(&t, "shape");
	{
		static const uint8_t five[] = { 0, 0, 0, 5 };

		/* ... but a default, which is void */
		ck_assert_int_eq(xdr_value_decode(&t, &ty, 1, five, 4, 4, &v),
				 XDR_DECODED);
		xdr_value_free(v);
	}
	/* a bool that is not 0 or 1 */
	{
		static const uint8_t two[] = { 0, 0, 0, 2 };
		struct xdr_type b = { .kind = XDR_T_BOOL };
		const struct xdr_type *bp = &b;

		ck_assert_int_eq(xdr_value_decode(&t, &bp, 1, two, 4, 4, &v),
				 XDR_UNDECODED);
	}
	xdr_types_release(&t);
}
END_TEST

Suite *xdr_value_suite(void)
{
	Suite *s = suite_create("xdr-value");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse_every_construct);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_decode_every_construct);
	tcase_add_test(tc, test_decode_args);
	tcase_add_test(tc, test_decode_cut_each_byte);
	tcase_add_test(tc, test_decode_hostile);
	suite_add_tcase(s, tc);
	return s;
}
