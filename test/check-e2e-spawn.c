/*
 * check-e2e-spawn.c - end to end: children made without fork().
 *
 * A vfork() child and a posix_spawn() child are traced only from the
 * image they exec, which cannot name its parent; the parent's log names
 * them (FORK with how = vfork / posix_spawn / posix_spawnp) and the merge
 * links them: their processes rows get the parent's uuid.
 */
#include "e2e.h"

/* The value after "KEY " at the start of a line of out; -1 if none. */
static long find_num(const char *out, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtol(p + kl + 1, NULL, 10);
	return -1;
}

START_TEST(test_vfork_and_posix_spawn_children_have_parents)
{
	static const char *const hows[] = {"vfork", "posix_spawn",
					   "posix_spawnp"};
	char path[3 * PATH_MAX], out[PATH_MAX], *text;
	const char *argv[] = {e2e_prog("spawn"), e2e_prog("thread-tree"), "1",
			      "1", NULL};
	const char *env[] = {path, NULL};
	const char *old_path = getenv("PATH");
	long parent, child, vfork_exit;
	long long p;
	struct e2e t;

	e2e_init(&t);
	/* posix_spawnp finds thread-tree by name */
	e2e_fmt(path, sizeof(path), "PATH=%s/test/progs:%s", e2e_build(),
		old_path ? old_path : "/usr/bin:/bin");
	e2e_fmt(out, sizeof(out), "%s/out", t.dir);
	e2e_assert_exit(e2e_run_traced(&t, argv, env, out, NULL), 0, "spawn");
	text = e2e_slurp(out, NULL);
	parent = find_num(text, "parent");
	vfork_exit = find_num(text, "vfork-exit");
	ck_assert_msg(parent > 0 && vfork_exit > 0, "unexpected output: %s",
		      text);
	ck_assert_int_eq(e2e_count_logs(t.logs), 4);
	e2e_merge(&t);

	/* the parent: complete, its log untouched by the vfork children */
	p = e2e_proc(&t, parent);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT complete = 1 AND end_reason = "
				       "'exit' AND parent_uuid IS NULL FROM "
				       "processes WHERE proc_id = %lld",
				       p),
			 1);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM records WHERE "
				       "proc_id = %lld AND type = %d",
				       p, CAUSAL_REC_FORK),
			 3);
	for (int i = 0; i < 3; i++) {
		child = find_num(text, hows[i]);
		ck_assert_msg(child > 0, "no %s child: %s", hows[i], text);
		ck_assert_msg(e2e_query_int(t.sql,
					    "SELECT c.parent_uuid IS p.uuid "
					    "AND c.ppid = p.pid AND c.complete"
					    " AND c.exe LIKE '%%/thread-tree' "
					    "FROM processes c, processes p "
					    "WHERE c.pid = %ld AND p.proc_id ="
					    " %lld",
					    child, p) == 1,
			      "the %s child %ld has no parent link", hows[i],
			      child);
	}
	/* the child that never exec'd left no process and no link */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM processes WHERE "
				       "pid = %ld OR (parent_uuid IS NOT NULL"
				       " AND exe NOT LIKE '%%/thread-tree')",
				       vfork_exit),
			 0);
	free(text);
	e2e_release(&t);
}
END_TEST

Suite *e2e_spawn_suite(void)
{
	Suite *s = suite_create("e2e-spawn");
	TCase *tc = tcase_create("spawn");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_vfork_and_posix_spawn_children_have_parents);
	suite_add_tcase(s, tc);
	return s;
}
