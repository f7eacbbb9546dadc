/*
 * run-tests.c - the one Check runner.  Every test/check-*.c exports a
 * `Suite *NAME_suite(void)`; the Makefile collects them into suites.h, so a
 * new suite needs no edit here.  Check's fork mode stays on, so a crash
 * fails one test, not the run.
 *
 *   run-tests [--unit | --e2e] [FILTER]
 *
 * A suite whose name holds "e2e" (test/check-e2e-*.c, check-ccsg-e2e.c) is
 * end to end: it runs traced programs, most of them in namespaces of their
 * own (unshare, mount), which needs root.  Every other suite is a unit
 * suite: it passes in seconds without root and writes only in $TMPDIR
 * (`make check`).  --unit or --e2e picks one kind, FILTER the suites whose
 * name contains it.  Run by another user than root, the end-to-end suites
 * are skipped with one line, and a skip is not a failure.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-tmp.h"

#define SUITE(fn) Suite *fn(void);
#include "suites.h"
#undef SUITE

static const struct {
	const char *name;
	Suite *(*make)(void);
} suites[] = {
#define SUITE(fn) { #fn, fn },
#include "suites.h"
#undef SUITE
};

#define N_SUITES (sizeof(suites) / sizeof(suites[0]))

static bool is_e2e(const char *name)
{
	return strstr(name, "e2e") != NULL;
}

static int usage(void)
{
	fprintf(stderr, "usage: run-tests [--unit | --e2e] [FILTER]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *filter = NULL;
	int kind = 0; /* 0 both, 1 unit, 2 end to end */
	size_t picked = 0, skipped = 0;
	bool root = geteuid() == 0;
	SRunner *sr;
	int failed;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--unit") && !kind)
			kind = 1;
		else if (!strcmp(argv[i], "--e2e") && !kind)
			kind = 2;
		else if (argv[i][0] != '-' && !filter)
			filter = argv[i];
		else
			return usage();
	}

	/* Check keeps its messages in a file in $TEMP (default /tmp). */
	setenv("TEMP", test_tmp_dir(), 0);
	/* A bpf clock started on this host would make every traced program
	 * say so on stderr, which many suites check is quiet: the suites see
	 * none unless they start their own (e2e-bpf-clock names its dir). */
	setenv("CAUSAL_BPF_CLOCK_DIR",
	       "/nonexistent/causal-tests-use-no-host-bpf-clock", 1);
	sr = srunner_create(NULL);
	for (size_t i = 0; i < N_SUITES; i++) {
		bool e2e = is_e2e(suites[i].name);

		if ((kind == 1 && e2e) || (kind == 2 && !e2e) ||
		    (filter && !strstr(suites[i].name, filter)))
			continue;
		picked++;
		if (e2e && !root) {
			skipped++;
			continue;
		}
		srunner_add_suite(sr, suites[i].make());
	}
	if (!picked) {
		static const char *const kinds[] = { "", "unit ",
						     "end-to-end " };

		fprintf(stderr, "run-tests: no %ssuite matches '%s'\n",
			kinds[kind], filter ? filter : "");
		srunner_free(sr);
		return EXIT_FAILURE;
	}
	if (skipped)
		printf("skipped %zu end-to-end suite%s: they need root "
		       "(namespaces, mounts), run `make e2e` as root\n",
		       skipped, skipped > 1 ? "s" : "");
	if (skipped == picked) {
		srunner_free(sr);
		return EXIT_SUCCESS;
	}

	srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists every test */
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
