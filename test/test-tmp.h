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

static inline const char *test_tmp_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && t[0] == '/' ? t : "/tmp";
}

/* buf = "$TMPDIR/name" (name a mkdtemp() or mkstemp() template, say). */
static inline char *test_tmp_name(char *buf, size_t size, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", test_tmp_dir(), name);

	ck_assert_msg(n > 0 && (size_t)n < size, "$TMPDIR is too long: '%s'",
		      test_tmp_dir());
	return buf;
}

#endif
