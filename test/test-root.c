/*
 * test-root.c - the helpers test-root.h declares, whose comments there are
 * their contract: compiled once and linked into the runner.
 */
#include "test-root.h"

bool test_as_root(const char *check)
{
	if (geteuid() == 0)
		return true;
	printf("skipped without root: %s\n", check);
	fflush(stdout);
	return false;
}
