/*
 * test-tmp.h - where the suites make their temporary files and
 * directories: in $TMPDIR (an absolute path), else /tmp.  A run writes
 * nowhere else but the build directory.
 */
#ifndef CAUSAL_TEST_TMP_H
#define CAUSAL_TEST_TMP_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* $TMPDIR when it is an absolute path, else /tmp. */
const char *test_tmp_dir(void);

/* buf = "$TMPDIR/name" (name a mkdtemp() or mkstemp() template, say). */
char *test_tmp_name(char *buf, size_t size, const char *name);

#endif
