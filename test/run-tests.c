/*
 * run-tests.c - the one Check runner.  Every test/check-*.c exports a
 * `Suite *NAME_suite(void)`; the Makefile collects them into suites.h, so a
 * new suite needs no edit here.  Check's fork mode stays on, so a crash
 * fails one test, not the run.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#define SUITE(fn) Suite *fn(void);
#include "suites.h"
#undef SUITE

int main(int argc, char **argv)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

#define SUITE(fn) \
	if (argc < 2 || strstr(#fn, argv[1])) \
		srunner_add_suite(sr, fn());
#include "suites.h"
#undef SUITE

	srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists every test */
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
