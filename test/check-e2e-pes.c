/*
 * check-e2e-pes.c - end to end: a serving thread's program execution
 * sequence from a real traced multi-client run (issue 16, item 3).
 *
 * A traced demo-server with one serving thread; two traced clients call
 * it at the same time at fixed periods they keep on absolute deadlines
 * and measure themselves: BURN(200 us) every 4 ms and SLEEP_MS(1) every
 * 6 ms.  The serving thread's PES (`ccsg pes --db --thread`) is running
 * (idle: the serving loop), serving:...::burn and serving:...::sleep_ms,
 * as many serving entries as calls; the periodogram of each serving
 * state's indicator (time view sampled every 20 us) shows the client's
 * request frequency: the bin of 1 / period stands out from the spectrum
 * (at least 10 times the median power), and the strongest peak is at a
 * whole multiple of it (a train of short pulses has harmonics nearly as
 * strong as its fundamental), both within 2%.
 */
#include "e2e-rpc.h"
#include "tool-run.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The periodogram of state's indicator: the strongest peak's frequency,
 * the power of the bin nearest f0 and the median power. */
static void spectrum(struct e2e *t, long long proc, long long tid,
		     const char *state, double f0, double *peak_f,
		     double *at_f0, double *median)
{
	char thread[64], signal[128];
	struct tool_out o;
	double *pw = NULL, best = -1, near = 1e300;
	size_t n = 0, cap = 0;
	char *save = NULL;

	e2e_fmt(thread, sizeof(thread), "%lld:%lld", proc, tid);
	e2e_fmt(signal, sizeof(signal), "--signal=%s", state);
	o = tool_run(ARGS(tool_path("ccsg"), "pes", "--db", t->db, "--thread",
			  thread, "--view=frequency", "--sample=20000",
			  signal));
	e2e_assert_exit(o.status, 0, "ccsg pes --view=frequency");
	ck_assert(!strncmp(o.out, "bin,frequency_hz,power\n", 23));
	for (char *l = strtok_r(o.out + 23, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		double f, p;

		if (sscanf(l, "%*u,%lf,%lf", &f, &p) != 2 || f <= 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			pw = realloc(pw, cap * sizeof(*pw));
			ck_assert_ptr_nonnull(pw);
		}
		pw[n++] = p;
		if (p > best) {
			best = p;
			*peak_f = f;
		}
		if (fabs(f - f0) < near) {
			near = fabs(f - f0);
			*at_f0 = p;
		}
	}
	ck_assert_uint_gt(n, 1000);
	qsort(pw, n, sizeof(*pw), cmp_double);
	*median = pw[n / 2];
	free(pw);
	tool_out_release(&o);
}

START_TEST(test_serving_thread_periodogram)
{
	static const struct {
		const char *kind, *period_us, *calls, *fn;
	} clients[2] = { { "burn", "4000", "300", "burn" },
			 { "sleep", "6000", "200", "sleep_ms" } };
	struct rpc_server srv;
	pid_t pid[2];
	struct e2e t;
	long long proc, tid;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &srv, "server", 1, NULL, ARGS("-1"));
	for (int i = 0; i < 2; i++) {
		char outp[PATH_MAX], errp[PATH_MAX];

		e2e_fmt(outp, sizeof(outp), "%s/%s.out", t.dir, clients[i].kind);
		e2e_fmt(errp, sizeof(errp), "%s/%s.err", t.dir, clients[i].kind);
		pid[i] = e2e_spawn_traced(
			&t,
			ARGS(rpc_prog("demo-client"), "-P", rpc_port(srv.tcp),
			     "periodic", clients[i].kind, clients[i].calls,
			     clients[i].period_us),
			NULL, outp, errp);
	}
	for (int i = 0; i < 2; i++)
		e2e_assert_exit(e2e_wait(pid[i]), 0, clients[i].kind);
	rpc_server_stop(&srv);
	e2e_merge(&t);
	proc = rpc_server_proc(&t, &srv);
	tid = e2e_query_int(t.sql,
			    "SELECT server_tid FROM rpc_calls WHERE "
			    "server_proc_id = %lld GROUP BY server_tid ORDER "
			    "BY count(*) DESC LIMIT 1",
			    proc);
	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX], state[128], *out;
		long long period_ns, calls;
		double f0, peak_f = 0, at_f0 = 0, median = 0, k;
		struct tool_out o;
		char thread[64];

		e2e_fmt(path, sizeof(path), "%s/%s.out", t.dir, clients[i].kind);
		out = e2e_slurp(path, NULL);
		ck_assert_msg(sscanf(out, "periodic %*s calls %lld period_ns %lld",
				     &calls, &period_ns) == 2,
			      "%s", out);
		free(out);
		f0 = 1e9 / (double)period_ns;
		/* the state, and one serving entry per call */
		e2e_fmt(state, sizeof(state), "serving:0x20000c5a::%s",
			clients[i].fn);
		e2e_fmt(thread, sizeof(thread), "%lld:%lld", proc, tid);
		o = tool_run(ARGS(tool_path("ccsg"), "pes", "--db", t.db,
				  "--thread", thread, "--format=pes"));
		e2e_assert_exit(o.status, 0, "ccsg pes");
		{
			long long seen = 0;
			char *save = NULL;

			for (char *l = strtok_r(o.out, "\n", &save); l;
			     l = strtok_r(NULL, "\n", &save)) {
				const char *sp = strchr(l, ' ');

				seen += sp && !strcmp(sp + 1, state);
			}
			ck_assert_int_eq(seen, calls);
		}
		tool_out_release(&o);
		spectrum(&t, proc, tid, state, f0, &peak_f, &at_f0, &median);
		k = peak_f / f0;
		printf("pes: serving thread, %s every %.3f ms (%.2f Hz): "
		       "strongest peak %.2f Hz (%.2f x), power at %.2f Hz "
		       "%.3g, median %.3g\n",
		       clients[i].fn, period_ns / 1e6, f0, peak_f, k, f0, at_f0,
		       median);
		ck_assert_msg(k >= 0.98 && fabs(k - round(k)) <= 0.02 * round(k),
			      "%s: the strongest peak %.2f Hz is no multiple of "
			      "the clients' %.2f Hz",
			      clients[i].fn, peak_f, f0);
		ck_assert_msg(at_f0 >= 10 * median,
			      "%s: %.2f Hz does not stand out: power %.3g, "
			      "median %.3g",
			      clients[i].fn, f0, at_f0, median);
	}
	e2e_release(&t);
}
END_TEST

Suite *e2e_pes_suite(void)
{
	Suite *s = suite_create("e2e-pes");
	TCase *tc = tcase_create("pes");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_serving_thread_periodogram);
	suite_add_tcase(s, tc);
	return s;
}
