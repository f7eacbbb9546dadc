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

static char tmpdir[PATH_MAX];

static inline void tmpdir_make(const char *suite)
{
	char name[64];

	snprintf(name, sizeof(name), "%s.XXXXXX", suite);
	test_tmp_name(tmpdir, sizeof(tmpdir), name);
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static inline int tmpdir_rm_one(const char *p, const struct stat *st,
				int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

static inline void tmpdir_remove(void)
{
	nftw(tmpdir, tmpdir_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* tmpdir/name, in one of four rotating buffers. */
static inline char *tmp_path(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int k;
	char *p = buf[k++ & 3];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

#endif
