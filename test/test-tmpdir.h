/*
 * test-tmpdir.h - a fresh directory per test for the unit suites that write
 * files: make it in the test's checked fixture, remove it (whole tree) in
 * the teardown, and name files inside it with tmp_path().
 */
#ifndef CAUSAL_TEST_TMPDIR_H
#define CAUSAL_TEST_TMPDIR_H

#include <check.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-tmp.h"

/* The test's directory, once made. */
extern char tmpdir_path[PATH_MAX];

/* Make a fresh tmpdir_path in $TMPDIR, named after suite. */
void tmpdir_make(const char *suite);

/* Remove tmpdir_path and everything in it. */
void tmpdir_remove(void);

/* tmpdir_path/name, in one of four rotating buffers. */
char *tmp_path(const char *name);

#endif
