/*
 * check-e2e-locks.c - end to end: the LOCK records (monitoring type
 * locks; docs/tracing.md, "Locks") of test/progs/locks, as merged into
 * lock_events, against what the program did and saw itself.
 *
 *   on        CAUSAL_MONITOR=all,locks: mutex a's N uncontended pairs are
 *             N acquired + N released by main; mutex b, held by main, is
 *             a failed trylock, a wait then a failed timedlock and a
 *             wait then an acquired lock by the second thread, each with
 *             the return value the program saw; the rwlock read, then
 *             write, each released; every thread's events alternate
 *             acquired / released per lock; and the second thread's PES
 *             (`ccsg pes --db --thread`): running (from its start),
 *             waiting-for-lock (the timedlock, at least its 20 ms),
 *             running, waiting-for-lock (the lock), holding:1, running,
 *             exited
 *   off       the default (locks not named): no lock event, the same
 *             output and exit status
 *   alone     CAUSAL_MONITOR=locks: the locks recorded with no type of
 *             calls on, and the initial state says so
 *   switched  `causalctl on locks` and `off locks` while a stepped
 *             demo-client runs (libtirpc's own mutexes are the program's
 *             locks): lock events only between the two switches, and the
 *             call types untouched
 *   philosophers  the Chitra paper's case study (Section 3): the dining
 *             philosophers (examples/philosophers.c), N = 2, 3 and 4,
 *             traced unchanged with locks on; each philosopher's PES from
 *             its lock events, everything between thinking (running) and
 *             eating (holding:2) aggregated into A (acquiring: parallel
 *             aggregation); the model's mean occupancy of A against the
 *             mean acquisition time the philosopher measured itself,
 *             within 10%; the fairness (largest mean over smallest) said
 */
#include "e2e-monitor.h"
#include "json-read.h"
#include "tool-run.h"

struct locks_run {
	long long a, b, c; /* the locks' addresses */
	int pairs;
	char *out;
};

static void run_locks(struct e2e *t, const char *monitor, struct locks_run *r)
{
	const char *argv[] = { e2e_prog("locks"), "500", NULL };
	char env[64], outp[PATH_MAX], errp[PATH_MAX];
	const char *extra[] = { env, NULL };
	int status;

	e2e_fmt(env, sizeof(env), "CAUSAL_MONITOR=%s", monitor);
	e2e_fmt(outp, sizeof(outp), "%s/out", t->dir);
	e2e_fmt(errp, sizeof(errp), "%s/err", t->dir);
	status = e2e_run_traced(t, argv, monitor ? extra : NULL, outp, errp);
	e2e_assert_exit(status, 0, "locks");
	r->out = e2e_slurp(outp, NULL);
	ck_assert_msg(sscanf(r->out, "a %lld b %lld c %lld\na_pairs %d", &r->a,
			     &r->b, &r->c, &r->pairs) == 4,
		      "output: %s", r->out);
	ck_assert_int_eq(r->pairs, 500);
	e2e_merge(t);
}

static long long events(struct e2e *t, long long lock, const char *where)
{
	return e2e_query_int(t->sql,
			     "SELECT count(*) FROM lock_events WHERE lock = "
			     "%lld AND %s",
			     lock, where);
}

START_TEST(test_on)
{
	struct locks_run r;
	struct e2e t;
	char *seq;

	e2e_init(&t);
	run_locks(&t, "all,locks", &r);
	/* a: main's uncontended pairs, nothing else */
	ck_assert_int_eq(events(&t, r.a, "1"), 2 * r.pairs);
	ck_assert_int_eq(events(&t, r.a,
				"op = 'acquired' AND kind = 'mutex' "
				"AND tid = 1"),
			 r.pairs);
	ck_assert_int_eq(events(&t, r.a, "op = 'released' AND tid = 1"),
			 r.pairs);
	/* b by the second thread, in its order: trylock (EBUSY), timedlock
	 * (ETIMEDOUT), lock (waited), unlock */
	seq = e2e_query_text(t.sql,
			     "SELECT group_concat(op, ' ') FROM (SELECT op "
			     "FROM lock_events WHERE lock = %lld AND tid = 2 "
			     "ORDER BY seq)",
			     r.b);
	ck_assert_str_eq(seq, "failed wait failed wait acquired released");
	free(seq);
	ck_assert_msg(strstr(r.out, "b_trylock 16\nb_timedlock 110\nb_lock 0"),
		      "%s", r.out);
	/* main took b first and let it go while the thread waited */
	seq = e2e_query_text(t.sql,
			     "SELECT group_concat(op, ' ') FROM (SELECT op "
			     "FROM lock_events WHERE lock = %lld AND tid = 1 "
			     "ORDER BY seq)",
			     r.b);
	ck_assert_str_eq(seq, "acquired released");
	free(seq);
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT (SELECT mono_ns FROM lock_events WHERE "
			      "lock = %lld AND tid = 1 AND op = 'released') "
			      "BETWEEN (SELECT max(mono_ns) FROM lock_events "
			      "WHERE lock = %lld AND tid = 2 AND op = 'wait') "
			      "AND (SELECT mono_ns FROM lock_events WHERE lock "
			      "= %lld AND tid = 2 AND op = 'acquired')",
			      r.b, r.b, r.b),
		1);
	/* the rwlock: read, then write, each released */
	seq = e2e_query_text(t.sql,
			     "SELECT group_concat(op || ':' || kind, ' ') FROM "
			     "(SELECT op, kind FROM lock_events WHERE lock = "
			     "%lld ORDER BY seq)",
			     r.c);
	ck_assert_str_eq(seq, "acquired:read released:rwlock acquired:write "
			      "released:rwlock");
	free(seq);
	/* the second thread's execution sequence, from its lock events */
	{
		const char *argv[] = {
			tool_path("ccsg"), "pes", "--db",	  t.db,
			"--thread",	   "1:2", "--format=pes", NULL
		};
		struct tool_out o = tool_run(argv);
		char names[256] = "", *line, *save;
		long long first = -1, second = -1, third = -1;

		e2e_assert_exit(o.status, 0, "ccsg pes");
		for (line = strtok_r(o.out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			long long at;
			char state[64];

			if (sscanf(line, "%lld %63s", &at, state) != 2)
				continue;
			if (first < 0)
				first = at;
			else if (second < 0)
				second = at;
			else if (third < 0)
				third = at;
			strncat(names, state,
				sizeof(names) - strlen(names) - 2);
			strcat(names, " ");
		}
		ck_assert_str_eq(names, "running waiting-for-lock running "
					"waiting-for-lock holding:1 running "
					"exited ");
		ck_assert_msg(third - second >= 20 * 1000 * 1000,
			      "the timedlock's wait: %lld ns", third - second);
		tool_out_release(&o);
	}
	/* the tuple of main's and the second thread's states (Chitra's
	 * N-tuple): while main holds b the thread waits, then main has let
	 * go and the thread holds it */
	{
		const char *argv[] = {
			tool_path("ccsg"), "pes", "--db",     t.db,
			"--thread",	   "1:1", "--thread", "1:2",
			"--format=pes",	   NULL
		};
		struct tool_out o = tool_run(argv);

		e2e_assert_exit(o.status, 0, "ccsg pes, two threads");
		ck_assert_msg(strstr(o.out, " holding:1,waiting-for-lock\n"),
			      "%s", o.out);
		ck_assert_msg(strstr(o.out, " running,holding:1\n"), "%s",
			      o.out);
		ck_assert_msg(!strstr(o.out, " holding:1,holding:1\n"),
			      "both held b at once: %s", o.out);
		tool_out_release(&o);
	}
	/* nothing of the library's own locks: only the program's three */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(DISTINCT lock) FROM "
				       "lock_events"),
			 3);
	free(r.out);
	e2e_release(&t);
}
END_TEST

START_TEST(test_off)
{
	struct locks_run r, on;
	struct e2e t;

	e2e_init(&t);
	run_locks(&t, NULL, &r);
	ck_assert_int_eq(
		e2e_query_int(t.sql, "SELECT count(*) FROM lock_events"), 0);
	e2e_release(&t);
	/* the program said the same with the locks recorded (the
	 * addresses aside: the executable is position-independent) */
	e2e_init(&t);
	run_locks(&t, "all,locks", &on);
	ck_assert_str_eq(strchr(r.out, '\n'), strchr(on.out, '\n'));
	free(r.out);
	free(on.out);
	e2e_release(&t);
}
END_TEST

START_TEST(test_locks_alone)
{
	struct locks_run r;
	struct e2e t;
	char *types;

	e2e_init(&t);
	run_locks(&t, "locks", &r);
	ck_assert_int_eq(events(&t, r.a, "op = 'acquired'"), r.pairs);
	types = e2e_query_text(t.sql, "SELECT types FROM monitor_switches "
				      "WHERE kind = 'initial'");
	ck_assert_str_eq(types, "locks");
	free(types);
	free(r.out);
	e2e_release(&t);
}
END_TEST

START_TEST(test_switched)
{
	struct rpc_server a;
	char path[PATH_MAX];
	struct e2e t;
	pid_t coord, c;
	long long cp;

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, MON_PORT);
	mon_server_start(&t, &a, "a", NULL, ENV(MON_COORD), NULL);
	c = mon_step_client(&t, "c", NULL, a.tcp, ENV(MON_COORD), path,
			    sizeof(path));
	mon_wait_connected(&t, 2);
	mon_step(path, 1, "say 1", c); /* locks off: the default */
	mon_publish(&t, ARGS("on", "locks"));
	mon_step(path, 2, "say 2", c);
	mon_publish(&t, ARGS("off", "locks"));
	mon_step(path, 3, "say 3", c);
	mon_step(path, 4, "stop", c);
	e2e_assert_exit(e2e_wait(c), 0, "client");
	rpc_server_stop(&a);
	kill(coord, SIGTERM);
	e2e_assert_exit(e2e_wait(coord), 0, "causalctl serve");
	e2e_merge(&t);
	cp = e2e_query_int(t.sql, "SELECT proc_id FROM processes WHERE exe "
				  "LIKE '%%demo-client'");
	/* the client's switches, with the call types as they were */
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT group_concat(kind || ':' "
					    "|| types, ' ') FROM (SELECT * "
					    "FROM monitor_switches WHERE "
					    "proc_id = %lld ORDER BY seq)",
					    cp)),
			 "initial:semantics|latency|cpu|memory "
			 "on:semantics|latency|cpu|memory|locks "
			 "off:semantics|latency|cpu|memory");
	/* its lock events all lie between the two switches, and some do:
	 * the second call took libtirpc's mutexes */
	ck_assert_int_gt(e2e_query_int(t.sql,
				       "SELECT count(*) FROM lock_events "
				       "WHERE proc_id = %lld",
				       cp),
			 0);
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT count(*) FROM lock_events l WHERE "
			      "proc_id = %lld AND (mono_ns < (SELECT mono_ns "
			      "FROM monitor_switches WHERE proc_id = %lld AND "
			      "kind = 'on') OR mono_ns > (SELECT mono_ns FROM "
			      "monitor_switches WHERE proc_id = %lld AND kind "
			      "= 'off'))",
			      cp, cp, cp),
		0);
	/* the three calls recorded whole all along */
	rpc_assert_calls(&t, rpc_q("client_proc_id = %lld", cp),
			 "missing IS NULL AND client_mon = "
			 "'semantics|latency|cpu'",
			 3);
	e2e_release(&t);
}
END_TEST

/* The model's mean occupancy of A in thread tid's PES, aggregated. */
static double acquiring_mean(struct e2e *t, long long tid)
{
	char thread[32];
	const char *argv[] = { tool_path("ccsg"),
			       "pes",
			       "--db",
			       t->db,
			       "--thread",
			       thread,
			       "--aggregate=parallel:running holding:2 -> A",
			       "--format=json",
			       NULL };
	struct tool_out o;
	struct jval *doc;
	const struct jval *states;
	double mean = -1;

	e2e_fmt(thread, sizeof(thread), "1:%lld", tid);
	o = tool_run(argv);
	e2e_assert_exit(o.status, 0, "ccsg pes");
	doc = json_parse(o.out, "ccsg pes --format=json");
	states = json_need(doc, "states", J_ARR, "model");
	for (int i = 0; i < states->n; i++) {
		const struct jval *st = &states->item[i];

		if (!strcmp(json_need(st, "name", J_STR, "state")->str, "A"))
			mean = json_need(st, "mean", J_NUM, "state")->num;
	}
	ck_assert_msg(mean >= 0, "no state A: %s", o.out);
	json_free(doc);
	tool_out_release(&o);
	return mean;
}

START_TEST(test_philosophers)
{
	static const char *const ns[] = { "2", "3", "4" };

	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		const char *argv[] = { e2e_prog("../../examples/philosophers"),
				       "-n",
				       ns[k],
				       "-x",
				       "1000",
				       "-e",
				       "2000",
				       "-m",
				       "100",
				       NULL };
		const char *extra[] = { "CAUSAL_MONITOR=all,locks", NULL };
		char outp[PATH_MAX], errp[PATH_MAX], *out, *line, *save;
		int seen = 0;
		struct e2e t;
		long long proc;

		e2e_init(&t);
		e2e_fmt(outp, sizeof(outp), "%s/out", t.dir);
		e2e_fmt(errp, sizeof(errp), "%s/err", t.dir);
		e2e_assert_exit(e2e_run_traced(&t, argv, extra, outp, errp), 0,
				"philosophers");
		e2e_merge(&t);
		proc = e2e_query_int(t.sql, "SELECT proc_id FROM processes");
		ck_assert_int_eq(proc, 1);
		out = e2e_slurp(outp, NULL);
		for (line = strtok_r(out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			int i, os, meals;
			double measured, modelled, fairness;

			if (sscanf(line, "fairness %lf", &fairness) == 1) {
				printf("philosophers: N = %s, fairness %.2f "
				       "(largest mean acquisition time over "
				       "smallest)\n",
				       ns[k], fairness);
				continue;
			}
			ck_assert_msg(sscanf(line,
					     "philosopher %d tid %d meals %d "
					     "acquire_mean_ns %lf",
					     &i, &os, &meals, &measured) == 4,
				      "output: %s", line);
			ck_assert_int_eq(meals, 100);
			modelled = acquiring_mean(&t, e2e_tid(&t, proc, os));
			printf("philosophers: N = %s, philosopher %d: mean "
			       "acquisition %.0f us measured, %.0f us by the "
			       "model\n",
			       ns[k], i, measured / 1e3, modelled / 1e3);
			ck_assert_msg(modelled >= 0.9 * measured &&
					      modelled <= 1.1 * measured,
				      "N = %s, philosopher %d: the model says "
				      "%.0f ns, it measured %.0f ns",
				      ns[k], i, modelled, measured);
			seen++;
		}
		ck_assert_int_eq(seen, atoi(ns[k]));
		free(out);
		e2e_release(&t);
	}
}
END_TEST

Suite *e2e_locks_suite(void)
{
	Suite *s = suite_create("e2e-locks");
	TCase *tc = tcase_create("locks");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_on);
	tcase_add_test(tc, test_off);
	tcase_add_test(tc, test_locks_alone);
	tcase_add_test(tc, test_switched);
	tcase_add_test(tc, test_philosophers);
	suite_add_tcase(s, tc);
	return s;
}
