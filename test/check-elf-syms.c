/*
 * check-elf-syms.c - functions by address and by name in this very
 * process (preload/elf-syms.c): what the writer names call sites with,
 * and finds the functions of a selection by name with.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf-syms.h"

/* Two versions of an rpcgen-like stub, and a function named alike. */
__attribute__((noinline, used)) int elfsyms_probe_1(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline, used)) int elfsyms_probe_2(int x)
{
	return x * 5 + 2;
}

__attribute__((noinline, used)) static int elfsyms_probe_local(int x)
{
	return x * 7 + 3;
}

static int exe_path(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

START_TEST(test_function_at)
{
	char sym[256], path[4096], exe[4096];
	uintptr_t at = (uintptr_t)elfsyms_probe_1;

	ck_assert_int_eq(exe_path(exe, sizeof(exe)), 0);
	/* any byte of it, a static function too (.symtab) */
	ck_assert_int_eq(causal_elf_function_at(at + 1, sym, sizeof(sym), path,
						sizeof(path)),
			 0);
	ck_assert_str_eq(sym, "elfsyms_probe_1");
	ck_assert_str_eq(path, exe);
	ck_assert_int_eq(causal_elf_function_at((uintptr_t)elfsyms_probe_local,
						sym, sizeof(sym), path,
						sizeof(path)),
			 0);
	ck_assert_str_eq(sym, "elfsyms_probe_local");
	/* a shared library's (stripped: its .dynsym) */
	ck_assert_int_eq(causal_elf_function_at((uintptr_t)getpid + 1, sym,
						sizeof(sym), path,
						sizeof(path)),
			 0);
	ck_assert_msg(strstr(sym, "getpid"), "getpid: '%s'", sym);
	ck_assert_msg(strstr(path, "libc.so"), "getpid's file: '%s'", path);
	/* a symbol too small to ever hold it: truncated, not overrun */
	ck_assert_int_eq(causal_elf_function_at(at, sym, 5, path, 4), 0);
	ck_assert_str_eq(sym, "elfs");
}
END_TEST

/* Outside every file: -1; inside one but in no function: "". */
START_TEST(test_function_at_nothing)
{
	char sym[256] = "x", path[4096] = "x";
	void *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(anon, MAP_FAILED);
	ck_assert_int_eq(causal_elf_function_at((uintptr_t)anon, sym,
						sizeof(sym), path,
						sizeof(path)),
			 -1);
	ck_assert_str_eq(sym, "");
	ck_assert_str_eq(path, "");
	munmap(anon, 4096);
	ck_assert_int_eq(
		causal_elf_function_at(0, sym, sizeof(sym), path, sizeof(path)),
		-1);
}
END_TEST

struct named {
	char symbol[4][64], path[4][16];
	int calls[4];
};

static void note(size_t i, const char *symbol, const char *path, void *arg)
{
	struct named *nm = arg;

	ck_assert_uint_lt(i, 4);
	nm->calls[i]++;
	snprintf(nm->symbol[i], sizeof(nm->symbol[i]), "%s",
		 symbol ? symbol : "(null)");
	snprintf(nm->path[i], sizeof(nm->path[i]), "%s",
		 !path			   ? "(null)"
		 : strstr(path, "libc.so") ? "libc"
					   : "other");
}

/* Many addresses at once, of several files and of none: each named once. */
START_TEST(test_name_all)
{
	void *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t at[4] = { (uintptr_t)elfsyms_probe_2 + 3, (uintptr_t)getpid,
			    (uintptr_t)anon, (uintptr_t)elfsyms_probe_1 };
	struct named nm = { 0 };

	causal_elf_name_all(at, 4, note, &nm);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(nm.calls[i], 1);
	ck_assert_str_eq(nm.symbol[0], "elfsyms_probe_2");
	ck_assert_str_eq(nm.path[0], "other");
	ck_assert_msg(strstr(nm.symbol[1], "getpid"), "%s", nm.symbol[1]);
	ck_assert_str_eq(nm.path[1], "libc");
	ck_assert_str_eq(nm.symbol[2], "(null)");
	ck_assert_str_eq(nm.path[2], "(null)");
	ck_assert_str_eq(nm.symbol[3], "elfsyms_probe_1");
	munmap(anon, 4096);
	causal_elf_name_all(at, 0, note, &nm); /* nothing: no call */
	ck_assert_int_eq(nm.calls[0], 1);
}
END_TEST

static int has(const struct causal_addr_range *r, size_t n, void *fn)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].lo == (uintptr_t)fn && r[i].hi > r[i].lo)
			return 1;
	return 0;
}

START_TEST(test_functions_named)
{
	struct causal_addr_range r[8];
	size_t n;

	/* both versions, in any case; not the function named otherwise */
	n = causal_elf_functions_named("ELFSYMS_PROBE", r, 8);
	ck_assert_uint_eq(n, 2);
	ck_assert(has(r, n, (void *)elfsyms_probe_1));
	ck_assert(has(r, n, (void *)elfsyms_probe_2));
	ck_assert_uint_eq(r[0].hi - r[0].lo > 0, 1);
	n = causal_elf_functions_named("elfsyms_probe_local", r, 8);
	ck_assert_uint_eq(n, 1);
	ck_assert(has(r, n, (void *)elfsyms_probe_local));
	/* more than fit: counted, the first ones kept */
	ck_assert_uint_eq(causal_elf_functions_named("elfsyms_probe", r, 1), 2);
	ck_assert_uint_eq(causal_elf_functions_named("no_such_fn_here", r, 8),
			  0);
	ck_assert_uint_eq(causal_elf_functions_named("", r, 8), 0);
	ck_assert_int_eq(elfsyms_probe_1(1) + elfsyms_probe_2(1) +
				 elfsyms_probe_local(1),
			 4 + 7 + 10);
}
END_TEST

START_TEST(test_stub_name_len)
{
	ck_assert_uint_eq(causal_stub_name_len("say_it_1"), 6);
	ck_assert_uint_eq(causal_stub_name_len("say_it_12"), 6);
	ck_assert_uint_eq(causal_stub_name_len("say_it"), 6);
	ck_assert_uint_eq(causal_stub_name_len("x2"), 2);
	ck_assert_uint_eq(causal_stub_name_len("_1"), 2);
	ck_assert_uint_eq(causal_stub_name_len("a_"), 2);
	ck_assert_uint_eq(causal_stub_name_len(""), 0);
}
END_TEST

Suite *elf_syms_suite(void)
{
	Suite *s = suite_create("elf-syms");
	TCase *tc = tcase_create("elf-syms");

	tcase_add_test(tc, test_function_at);
	tcase_add_test(tc, test_function_at_nothing);
	tcase_add_test(tc, test_name_all);
	tcase_add_test(tc, test_functions_named);
	tcase_add_test(tc, test_stub_name_len);
	suite_add_tcase(s, tc);
	return s;
}
