/*
 * check-e2e-load.c - end to end: the writer keeps up with a busy server.
 *
 * One traced demo-server with a single serving thread, driven as hard as
 * the machine allows by two traced client processes of 8 threads each,
 * on a machine loaded by two CPU-bound processes of another session
 * (another user's job, say: the scheduler shares the CPUs between
 * sessions first).  That gives a sustained 25,000 to 50,000 calls a
 * second, depending on the machine.  With the default buffer
 * (CAUSAL_BUFFER_KB and CAUSAL_FLUSH_MS unset) not one record of the
 * serving thread may be dropped: every call has its server side.  Nothing
 * here depends on how fast the machine is; the claim is on drops.
 */
#include <sys/prctl.h>

#include "e2e-rpc.h"

#define CLIENTS 2
#define THREADS 8
#define CALLS 8000 /* per client thread */
#define HOGS 2

/* A process spinning until killed, in a session of its own. */
static pid_t hog(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		volatile unsigned long x = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsid();
		for (;;)
			x++;
	}
	return pid;
}

START_TEST(test_serving_thread_drops_nothing)
{
	char calls[16], threads[16], outp[CLIENTS][PATH_MAX];
	const char *server_args[] = {"-1", NULL};
	struct rpc_server s;
	pid_t pids[CLIENTS], hogs[HOGS];
	long long proc, tid, total = (long long)CLIENTS * THREADS * CALLS;
	struct e2e t;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &s, "server", 1, NULL, server_args);
	snprintf(calls, sizeof(calls), "%d", CALLS);
	snprintf(threads, sizeof(threads), "%d", THREADS);
	for (int i = 0; i < HOGS; i++)
		hogs[i] = hog();
	for (int i = 0; i < CLIENTS; i++) {
		const char *argv[] = {rpc_prog("demo-client"), "-P",
				      rpc_port(s.tcp), "threads", threads,
				      calls, NULL};

		e2e_fmt(outp[i], PATH_MAX, "%s/client%d.out", t.dir, i);
		pids[i] = e2e_spawn_traced(&t, argv, NULL, outp[i], NULL);
	}
	for (int i = 0; i < CLIENTS; i++)
		e2e_assert_exit(e2e_wait(pids[i]), 0, "demo-client threads");
	for (int i = 0; i < HOGS; i++) {
		kill(hogs[i], SIGKILL);
		e2e_wait(hogs[i]);
	}
	rpc_server_stop(&s);
	e2e_merge(&t);

	proc = rpc_server_proc(&t, &s);
	tid = e2e_query_int(t.sql,
			    "SELECT DISTINCT server_tid FROM rpc_calls WHERE "
			    "server_proc_id = %lld",
			    proc);
	ck_assert_msg(e2e_query_int(t.sql,
				    "SELECT dropped FROM threads WHERE "
				    "proc_id = %lld AND tid = %lld",
				    proc, tid) == 0 &&
			  e2e_query_int(t.sql,
					"SELECT dropped FROM processes WHERE "
					"proc_id = %lld",
					proc) == 0,
		      "the serving thread dropped %lld records of %lld calls",
		      e2e_query_int(t.sql,
				    "SELECT dropped FROM processes WHERE "
				    "proc_id = %lld",
				    proc),
		      total);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_calls WHERE "
				       "server_proc_id = %lld AND proc = %d "
				       "AND skel_start_event IS NOT NULL AND "
				       "skel_end_event IS NOT NULL",
				       proc, P_SAY_IT),
			 total);
	e2e_release(&t);
}
END_TEST

Suite *e2e_load_suite(void)
{
	Suite *s = suite_create("e2e-load");
	TCase *tc = tcase_create("load");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_serving_thread_drops_nothing);
	suite_add_tcase(s, tc);
	return s;
}
