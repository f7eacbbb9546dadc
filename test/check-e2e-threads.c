/*
 * check-e2e-threads.c - end to end: threads of one process, as merged.
 *
 * Each test runs a program of test/progs/ under libcausal.so, merges its
 * log and compares the threads table with what the program saw itself:
 * its gettid() values, who created whom, the CPU each thread burned, how
 * each thread ended, how many threads it created.
 */
#include "e2e.h"

/* A traced run of PROG ARGS... in t, which must exit 0 and leave one log. */
static long long run_one(struct e2e *t, const char *const argv[],
			 const char *const extra[], char **out)
{
	char outp[PATH_MAX], errp[PATH_MAX];
	long long proc;
	int status;

	e2e_fmt(outp, sizeof(outp), "%s/out", t->dir);
	e2e_fmt(errp, sizeof(errp), "%s/err", t->dir);
	status = e2e_run_traced(t, argv, extra, outp, errp);
	e2e_assert_exit(status, 0, argv[0]);
	ck_assert_int_eq(e2e_count_logs(t->logs), 1);
	e2e_merge(t);
	ck_assert_int_eq(e2e_query_int(t->sql, "SELECT count(*) FROM files "
					       "WHERE status = 'ok'"),
			 1);
	ck_assert_int_eq(
	    e2e_query_int(t->sql, "SELECT count(*) FROM processes"), 1);
	proc = e2e_query_int(t->sql, "SELECT proc_id FROM processes");
	ck_assert_int_eq(
	    e2e_query_int(t->sql, "SELECT complete FROM processes"), 1);
	ck_assert_int_eq(e2e_query_int(t->sql, "SELECT end_reason = 'exit' "
					       "FROM processes"),
			 1);
	*out = e2e_slurp(outp, NULL);
	return proc;
}

static long long user_threads(struct e2e *t, long long proc)
{
	return e2e_query_int(t->sql,
			     "SELECT count(*) FROM threads WHERE proc_id = %lld"
			     " AND marker = 'user'",
			     proc);
}

/* Every parent link of a 3-level, fan-out-3 tree, by os_tid. */
START_TEST(test_thread_tree)
{
	const char *argv[] = {e2e_prog("thread-tree"), "3", "3", NULL};
	int main_os = 0, total = -1, lines = 0, fanout = 3;
	char *out, *line, *save;
	struct e2e t;
	long long proc;

	e2e_init(&t);
	proc = run_one(&t, argv, NULL, &out);

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int os, parent_os;
		long long tid, ptid;

		if (sscanf(line, "main %d", &main_os) == 1)
			continue;
		if (sscanf(line, "threads %d", &total) == 1)
			continue;
		ck_assert_msg(
		    sscanf(line, "thread %d parent %d", &os, &parent_os) == 2,
		    "unexpected output: %s", line);
		lines++;
		tid = e2e_tid(&t, proc, os);
		ptid = e2e_tid(&t, proc, parent_os);
		ck_assert_msg(e2e_query_int(t.sql,
					    "SELECT parent_tid FROM threads "
					    "WHERE proc_id = %lld AND tid = "
					    "%lld",
					    proc, tid) == ptid,
			      "thread %d (tid %lld): parent is not %d (tid "
			      "%lld)",
			      os, tid, parent_os, ptid);
		/* The creator recorded the spawn on its side too. */
		ck_assert_int_eq(e2e_query_int(t.sql,
					       "SELECT spawn_mono_ns IS NOT "
					       "NULL FROM threads WHERE "
					       "proc_id = %lld AND tid = %lld",
					       proc, tid),
				 1);
	}
	ck_assert_int_eq(total, 3 + 9 + 27);
	ck_assert_int_eq(lines, total);

	/* Main: tid 1, the process's pid, no parent, spawned 3. */
	ck_assert_int_eq(e2e_tid(&t, proc, main_os), 1);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT pid FROM processes"),
			 main_os);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT parent_tid FROM threads WHERE "
				       "proc_id = %lld AND tid = 1",
				       proc),
			 0);
	ck_assert_int_eq(user_threads(&t, proc), total + 1);

	/* THREAD_SPAWN records: fanout per inner node, none from leaves. */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM records WHERE "
				       "proc_id = %lld AND type = %d",
				       proc, CAUSAL_REC_THREAD_SPAWN),
			 total);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads p WHERE "
				       "proc_id = %lld AND marker = 'user' AND"
				       " (SELECT count(*) FROM records r WHERE"
				       " r.proc_id = p.proc_id AND r.type = %d"
				       " AND r.tid = p.tid) NOT IN (0, %d)",
				       proc, CAUSAL_REC_THREAD_SPAWN, fanout),
			 0);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "proc_id = %lld AND tid != 1 AND "
				       "marker = 'user' AND end_how IS NOT "
				       "'returned'",
				       proc),
			 0);
	free(out);
	e2e_release(&t);
}
END_TEST

/* Per-thread CPU time within 10% of what each thread measured itself. */
START_TEST(test_cpu_burn)
{
	const char *argv[] = {e2e_prog("cpu-burn"), "4", "40", NULL};
	char *out, *line, *save;
	struct e2e t;
	long long proc;
	int n = 0;

	e2e_init(&t);
	proc = run_one(&t, argv, NULL, &out);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long long burned, cpu, tid;
		int os;

		ck_assert_msg(
		    sscanf(line, "thread %d burned %lld", &os, &burned) == 2,
		    "unexpected output: %s", line);
		n++;
		tid = e2e_tid(&t, proc, os);
		cpu = e2e_query_int(t.sql,
				    "SELECT cpu_ns FROM threads WHERE "
				    "proc_id = %lld AND tid = %lld",
				    proc, tid);
		ck_assert_msg(cpu >= burned * 9 / 10 && cpu <= burned * 11 / 10,
			      "thread %d: cpu_ns %lld, burned %lld", os, cpu,
			      burned);
		ck_assert_int_eq(e2e_query_int(t.sql,
					       "SELECT end_how = 'returned' "
					       "FROM threads WHERE proc_id = "
					       "%lld AND tid = %lld",
					       proc, tid),
				 1);
	}
	ck_assert_int_eq(n, 4);
	free(out);
	e2e_release(&t);
}
END_TEST

/* returned / exited / cancelled / at_exit, as the program intended. */
START_TEST(test_thread_ends)
{
	const char *argv[] = {e2e_prog("thread-ends"), NULL};
	char *out, *line, *save;
	struct e2e t;
	long long proc;
	int n = 0;

	e2e_init(&t);
	proc = run_one(&t, argv, NULL, &out);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char how[32], *got;
		long long tid;
		int os;

		ck_assert_msg(sscanf(line, "thread %d end %31s", &os, how) == 2,
			      "unexpected output: %s", line);
		n++;
		tid = e2e_tid(&t, proc, os);
		got = e2e_query_text(t.sql,
				     "SELECT end_how FROM threads WHERE "
				     "proc_id = %lld AND tid = %lld",
				     proc, tid);
		ck_assert_msg(got && !strcmp(got, how),
			      "thread %d: end_how %s, expected %s", os,
			      got ? got : "NULL", how);
		/* An ended thread has its end time and CPU. */
		ck_assert_int_eq(e2e_query_int(t.sql,
					       "SELECT end_mono_ns IS NOT NULL"
					       " AND end_cpu_ns IS NOT NULL "
					       "FROM threads WHERE proc_id = "
					       "%lld AND tid = %lld",
					       proc, tid),
				 1);
		free(got);
	}
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(user_threads(&t, proc), 5);
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * 64 threads creating 50 children each, with buffers big enough: every
 * thread is there, started and ended, nothing dropped.
 */
START_TEST(test_many_threads_no_drops)
{
	const char *argv[] = {e2e_prog("many-records"), "50", NULL};
	const char *env[] = {"CAUSAL_BUFFER_KB=1024", NULL};
	long long proc, expect = 1 + 64 + 64 * 50;
	struct e2e t;
	char *out;

	e2e_init(&t);
	proc = run_one(&t, argv, env, &out);
	ck_assert_str_eq(out, "threads 3264\n");
	ck_assert_int_eq(user_threads(&t, proc), expect);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT dropped FROM processes"),
			 0);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT coalesce(sum(dropped), 0) FROM"
				       " threads"),
			 0);
	ck_assert_int_eq(
	    e2e_query_int(t.sql, "SELECT buffer_kb FROM processes"), 1024);
	/* Every thread but main started, ended and has a known parent. */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "marker = 'user' AND (start_mono_ns IS"
				       " NULL OR end_mono_ns IS NULL)"),
			 0);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads c WHERE "
				       "marker = 'user' AND tid != 1 AND NOT "
				       "EXISTS (SELECT 1 FROM threads p WHERE "
				       "p.proc_id = c.proc_id AND p.tid = "
				       "c.parent_tid)"),
			 0);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM records WHERE "
				       "type = %d",
				       CAUSAL_REC_THREAD_SPAWN),
			 expect - 1);
	/* The process's record count is the records the DB holds. */
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT records FROM processes"),
			 e2e_query_int(t.sql, "SELECT count(*) FROM records"));
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * The same burst with 4 KiB buffers flushed every 2 s, each parent spawning
 * its 400 children before any of them ends (-h: thread ends do not wake the
 * writer), 8 parents at once: records may be lost (whether they are
 * depends on how fast the writer drains on this machine; check-ring and
 * check-e2e-loss force losses), and any loss is reported, not silent.
 * Each thread owes a THREAD_START, and each but main a THREAD_END and its
 * creator's THREAD_SPAWN; what is missing must be covered by the dropped
 * count.
 */
START_TEST(test_many_threads_tiny_buffers)
{
	const char *argv[] = {e2e_prog("many-records"), "-h", "400", NULL};
	const char *env[] = {"CAUSAL_BUFFER_KB=4", "CAUSAL_FLUSH_MS=2000",
			     NULL};
	long long proc, threads = 1 + 64 + 64 * 400, present, dropped;
	struct e2e t;
	char *out;

	e2e_init(&t);
	proc = run_one(&t, argv, env, &out);
	ck_assert_str_eq(out, "threads 25664\n");
	ck_assert_int_eq(
	    e2e_query_int(t.sql, "SELECT buffer_kb FROM processes"), 4);
	dropped = e2e_query_int(t.sql, "SELECT dropped FROM processes");
	present = e2e_query_int(t.sql,
				"SELECT count(*) FROM records r WHERE "
				"proc_id = %lld AND type IN (%d, %d, %d) AND "
				"NOT EXISTS (SELECT 1 FROM threads i WHERE "
				"i.proc_id = r.proc_id AND i.tid = r.tid AND "
				"i.marker = 'infra')",
				proc, CAUSAL_REC_THREAD_START,
				CAUSAL_REC_THREAD_END, CAUSAL_REC_THREAD_SPAWN);
	ck_assert_msg(present + dropped >= 3 * threads - 2,
		      "%lld thread records + %lld dropped < %lld expected",
		      present, dropped, 3 * threads - 2);
	/* The per-thread drop counts add up to the process's. */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT coalesce(sum(dropped), 0) "
				       "FROM threads WHERE proc_id = %lld",
				       proc),
			 dropped);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT records FROM processes"),
			 e2e_query_int(t.sql, "SELECT count(*) FROM records"));
	free(out);
	e2e_release(&t);
}
END_TEST

Suite *e2e_threads_suite(void)
{
	Suite *s = suite_create("e2e-threads");
	TCase *tc = tcase_create("threads");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_thread_tree);
	tcase_add_test(tc, test_cpu_burn);
	tcase_add_test(tc, test_thread_ends);
	tcase_add_test(tc, test_many_threads_no_drops);
	tcase_add_test(tc, test_many_threads_tiny_buffers);
	suite_add_tcase(s, tc);
	return s;
}
