/*
 * test-tmp.c - the helpers test-tmp.h declares, whose comments there are their
 * contract: compiled once and linked into the runner.
 */
#include "test-tmp.h"

const char *test_tmp_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && t[0] == '/' ? t : "/tmp";
}

char *test_tmp_name(char *buf, size_t size, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", test_tmp_dir(), name);

	ck_assert_msg(n > 0 && (size_t)n < size, "$TMPDIR is too long: '%s'",
		      test_tmp_dir());
	return buf;
}
