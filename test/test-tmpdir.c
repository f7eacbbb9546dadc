/*
 * test-tmpdir.c - the helpers test-tmpdir.h declares, whose comments there are
 * their contract: compiled once and linked into the runner.
 */
#include "test-tmpdir.h"

char tmpdir_path[PATH_MAX];

void tmpdir_make(const char *suite)
{
	char name[64];

	snprintf(name, sizeof(name), "%s.XXXXXX", suite);
	test_tmp_name(tmpdir_path, sizeof(tmpdir_path), name);
	ck_assert_ptr_nonnull(mkdtemp(tmpdir_path));
}

static int tmpdir_rm_one(const char *p, const struct stat *st, int flag,
			 struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

void tmpdir_remove(void)
{
	nftw(tmpdir_path, tmpdir_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *tmp_path(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int k;
	char *p = buf[k++ & 3];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir_path, name);
	return p;
}
