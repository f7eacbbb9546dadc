/*
 * check-ccsg-idl.c - the rpcgen .x parser and the naming rules.
 */
#include <check.h>
#include <errno.h>

#include "names.h"

static const char demo[] =
	"/* a comment */\n%#include <x.h>\nconst VERS = 1;\n"
	"struct cb_req { int port; int value; };\n"
	"typedef int myint;\nenum e { A = 1, B = 2 };\n"
	"program DEMO_PROG {\n version DEMO_VERS {\n  void DEMO_NULL(void) = 0;\n"
	"  int SAY_IT(int) = 1;\n  unsigned int TWICE(cb_req) = 2; /* x */\n"
	" } = VERS;\n version DEMO_V2 { hyper CPU_NS(void) = 8; } = 2;\n} = 0x20000c5a;\n";

START_TEST(test_parse)
{
	struct idl_names nm;

	idl_names_init(&nm);
	ck_assert_int_eq(idl_names_parse(&nm, demo, "demo.x"), 0);
	ck_assert_int_eq(nm.n, 4);
	ck_assert_int_eq(nm.procs[1].prog, 0x20000c5a);
	ck_assert_int_eq(nm.procs[1].vers, 1);
	ck_assert_int_eq(nm.procs[1].proc, 1);
	ck_assert_str_eq(nm.procs[1].proc_name, "SAY_IT");
	ck_assert_str_eq(nm.procs[2].proc_name, "TWICE");
	ck_assert_int_eq(nm.procs[3].vers, 2);
	ck_assert_str_eq(nm.procs[3].vers_name, "DEMO_V2");
	ck_assert_str_eq(nm.procs[0].prog_name, "DEMO_PROG");
	{
		char buf[256];
		struct ccsg_trace t = { 0 };

		ccsg_function_name(&nm, &t, 0x20000c5a, 1, 1, -1, buf, sizeof(buf));
		ck_assert_str_eq(buf, "DEMO_PROG::SAY_IT");
		ccsg_function_name(&nm, &t, 0x20000c5a, 1, 9, -1, buf, sizeof(buf));
		ck_assert_str_eq(buf, "DEMO_PROG::proc9");
		ccsg_function_name(&nm, &t, 100003, 3, 1, -1, buf, sizeof(buf));
		ck_assert_str_eq(buf, "100003::proc1");
	}
	idl_names_release(&nm);
}
END_TEST

START_TEST(test_malformed)
{
	static const char *const bad[] = {
		"program P { version V { int F(int) 1; } = 1; } = 5;",	/* no '=' */
		"program P { version V { int F(int) = 1; } = 1; }",	/* no number */
		"program P { version V { int F(int) = X; } = 1; } = 5;", /* unknown const */
		"program P { version V { F(int) = 1; } = 1; } = 5;",	/* no type */
		"struct s { int a; ",					/* unterminated */
		"const A = 1;",						/* no program */
		"program P { version V { int F(int = 1;",		/* truncated */
		"garbage here",
		"program P { version V { int F(int) = 99999999999; } = 1; } = 5;",
		"",
	};
	struct idl_names nm;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		idl_names_init(&nm);
		ck_assert_msg(idl_names_parse(&nm, bad[i], "bad.x") < 0,
			      "accepted: %s", bad[i]);
		idl_names_release(&nm);
	}
}
END_TEST

START_TEST(test_symbols)
{
	char *strings[] = { "say_it_1", "main", "rpcb_getaddr_3", "_1", "twice_2" };
	struct ccsg_site sites[] = { { 1, 2, 1 } };
	struct ccsg_trace t = { .strings = strings, .nstrings = 5, .sites = sites, .nsites = 1 };
	struct idl_names nm;
	char buf[256];

	ck_assert(ccsg_symbol_ok(&t, 0, 1));
	ck_assert(!ccsg_symbol_ok(&t, 1, 1));
	ck_assert(!ccsg_symbol_ok(&t, 2, 3));	/* libtirpc's own */
	ck_assert(!ccsg_symbol_ok(&t, 3, 1));
	ck_assert(!ccsg_symbol_ok(&t, 4, 1));	/* another version */
	ck_assert(!ccsg_symbol_ok(&t, -1, 1));
	idl_names_init(&nm);
	ccsg_function_name(&nm, &t, 0x20000c5a, 1, 1, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0x20000c5a::say_it");
	idl_names_release(&nm);
}
END_TEST

/*
 * The calls libtirpc itself makes (its site is libtirpc's: no stub of the
 * procedure) are named by the protocols' own names, shipped; a .x file
 * given still comes first, and a user's stub for the program names its
 * procedure as ever.
 */
START_TEST(test_known_programs)
{
	static const char rpcb[] =
		"program RPCBPROG { version RPCBVERS4 {\n"
		"  int RPCBPROC_GETADDR(int) = 3; } = 4; } = 100000;\n";
	char *strings[] = { "rpcb_unset", "rpcbproc_getaddr_4" };
	struct ccsg_site sites[] = { { 1, 0, 1 } };
	struct ccsg_trace t = {
		.strings = strings, .nstrings = 2, .sites = sites, .nsites = 1
	};
	struct idl_names nm;
	char buf[256];

	idl_names_init(&nm);
	ccsg_function_name(&nm, &t, 100000, 4, 3, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rpcbind::GETADDR");
	ccsg_function_name(&nm, &t, 100000, 4, 3, -1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rpcbind::GETADDR");
	ccsg_function_name(&nm, &t, 100000, 2, 3, -1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rpcbind::GETPORT");
	ccsg_function_name(&nm, &t, 100000, 4, 5, -1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rpcbind::BCAST");
	ccsg_function_name(&nm, &t, 100000, 3, 5, -1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rpcbind::CALLIT");
	ccsg_function_name(&nm, &t, 100029, 2, 2, -1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "keyserv::ENCRYPT");
	/* a procedure the protocol does not have, a version it has not */
	ccsg_function_name(&nm, &t, 100000, 4, 13, -1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rpcbind::proc13");
	ccsg_function_name(&nm, &t, 100000, 9, 3, -1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rpcbind::proc3");
	/* a stub of the user's own */
	ccsg_function_name(&nm, &t, 100000, 4, 3, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rpcbind::rpcbproc_getaddr");
	/* the .x file first */
	ck_assert_int_eq(idl_names_parse(&nm, rpcb, "rpcb.x"), 0);
	ccsg_function_name(&nm, &t, 100000, 4, 3, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "RPCBPROG::RPCBPROC_GETADDR");
	idl_names_release(&nm);
}
END_TEST

/* causalctl select's lookups: programs by name, then procedures */
START_TEST(test_find_by_name)
{
	static const char two[] =
		"program P2 { version V1 { int SAY_IT(int) = 3; } = 1;\n"
		" version V2 { int SAY_IT(int) = 4; } = 2; } = 77;\n";
	const struct idl_proc *f[4];
	struct idl_names nm;
	uint32_t prog = 0;

	idl_names_init(&nm);
	ck_assert_int_eq(idl_names_parse(&nm, demo, "demo.x"), 0);
	ck_assert_int_eq(idl_names_parse(&nm, two, "two.x"), 0);
	ck_assert_int_eq(idl_names_find_prog(&nm, "demo_prog", &prog), 0);
	ck_assert_uint_eq(prog, 0x20000c5a);
	ck_assert_int_eq(idl_names_find_prog(&nm, "NOPE", &prog), -ENOENT);
	ck_assert_uint_eq(
		idl_names_find_proc(&nm, "say_it", 0, 0x20000c5a, f, 4), 1);
	ck_assert_uint_eq(f[0]->proc, 1);
	/* one name, two numbers in P2's versions; three in all programs */
	ck_assert_uint_eq(idl_names_find_proc(&nm, "SAY_IT", 0, 77, f, 4), 2);
	ck_assert_uint_eq(f[1]->proc, 4);
	ck_assert_uint_eq(idl_names_find_proc(&nm, "SAY_IT", 1, 0, f, 1), 3);
	ck_assert_uint_eq(idl_names_find_proc(&nm, "FOO", 1, 0, f, 4), 0);
	idl_names_release(&nm);
}
END_TEST

Suite *ccsg_idl_suite(void)
{
	Suite *s = suite_create("ccsg-idl");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_symbols);
	tcase_add_test(tc, test_known_programs);
	tcase_add_test(tc, test_find_by_name);
	suite_add_tcase(s, tc);
	return s;
}
