/*
 * test-root.h - for the few checks of unit suites that need root (a device
 * node made with mknod(2), a directory given to another user).  The unit
 * suites pass without root (`make check`): run by another user, such a
 * check says on one line that it is skipped, and passes.  `make test` in
 * CI runs as root, where every check runs.
 */
#ifndef CAUSAL_TEST_ROOT_H
#define CAUSAL_TEST_ROOT_H

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

/* True as root; else say on stdout that check is skipped, and false. */
bool test_as_root(const char *check);

#endif
