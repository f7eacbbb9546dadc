/*
 * check-pes-cli.c - `ccsg pes` run as built: the AABAACAABAAD sample of
 * test/data/pes through the options (aggregation with undo, filters, the
 * model as JSON, the views as CSV, JSON, SVG and PNG, the simulation as a
 * PES file read back), and bad input: a malformed file reported with its
 * line number, a rule naming no state, a clip range outside the
 * sequence, a filter that would remove every state (one error line,
 * exit 1), and bad usage (exit 2).
 */
#include "ccsg-fixture.h"
#include "json-valid.h"
#include "tool-run.h"

static const char *sample(void)
{
	static char p[PATH_MAX];
	const char *src = getenv("CAUSAL_SRC");

	e2e_fmt(p, sizeof(p), "%s/test/data/pes/aabaacaabaad.pes",
		src ? src : ".");
	return p;
}

/* Write text to name in the test's directory, where the tool runs. */
static const char *file(struct e2e *t, const char *name, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	e2e_fmt(p, sizeof(p), "%s/%s", t->dir, name);
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return name;
}

static void json_assert_valid(const char *doc)
{
	struct jv v;
	const char *bad = json_invalid(doc, &v);

	ck_assert_msg(!bad, "%s: %s", bad, doc);
}

#define PES(...)                                                               \
	((const char *[]){ tool_path("ccsg"), "pes", __VA_ARGS__, NULL })

/* Exit 0, nothing on stderr; stdout returned (free it). */
static char *expect_ok(const char *const argv[])
{
	struct tool_out r = tool_run(argv);
	char *out = r.out;

	e2e_assert_exit(r.status, 0, argv[3] ? argv[3] : argv[2]);
	ck_assert_msg(!strcmp(r.err, ""), "stderr: %s", r.err);
	free(r.err);
	return out;
}

/* Exit 1 with exactly one line on stderr: "ccsg: error: " + want. */
static void expect_error(const char *const argv[], const char *want)
{
	struct tool_out r = tool_run(argv);
	char *lines[8];
	size_t n;

	e2e_assert_exit(r.status, 1, want);
	n = tool_lines(r.err, lines, 8);
	ck_assert_msg(n == 1 && !strncmp(lines[0], "ccsg: error: ", 13) &&
			      !strcmp(lines[0] + 13, want),
		      "expected 'ccsg: error: %s', got %zu lines: '%s'", want,
		      n, n ? lines[0] : "");
	ck_assert_str_eq(r.out, "");
	tool_out_release(&r);
}

START_TEST(test_aggregate_undo)
{
	struct e2e t;
	char *out;

	e2e_init(&t);
	out = expect_ok(
		PES(sample(), "--aggregate=sequence:A A -> Y", "--format=pes"));
	ck_assert_str_eq(out, "timebase us\n0 Y\n20 B\n30 Y\n50 C\n60 Y\n"
			      "80 B\n90 Y\n110 D\nend 120\n");
	free(out);
	out = expect_ok(PES(sample(), "--aggregate=sequence:A A -> Y",
			    "--aggregate=undo",
			    "--aggregate=sequence:A A B -> Z", "--format=pes"));
	ck_assert_str_eq(out, "timebase us\n0 Z\n30 A\n40 A\n50 C\n60 Z\n"
			      "90 A\n100 A\n110 D\nend 120\n");
	free(out);
	/* a static rule, then an event filter on what it made */
	out = expect_ok(PES(sample(), "--aggregate=static:B C D -> X",
			    "--filter=event:5", "--format=pes"));
	ck_assert_str_eq(out, "timebase us\n0 A\n10 A\n30 A\n40 A\n60 A\n"
			      "70 A\n90 A\n100 A\nend 120\n");
	free(out);
	e2e_release(&t);
}
END_TEST

START_TEST(test_model_json)
{
	struct e2e t;
	char *out;

	e2e_init(&t);
	out = expect_ok(PES(sample(), "--aggregate=sequence:A A -> Y",
			    "--format=json", "--simulate=100", "--seed=3"));
	json_assert_valid(out);
	ck_assert_ptr_nonnull(strstr(out, "{\"name\":\"Y\",\"kind\":"
					  "\"sequence\",\"members\":[\"A\","
					  "\"A\"]}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"from\":\"Y\",\"to\":\"B\","
					  "\"count\":2,\"p\":0.5}"));
	ck_assert_ptr_nonnull(strstr(out, "\"simulation\":{\"entries\":100,"));
	free(out);
	/* text names the aggregate and the chain */
	out = expect_ok(PES(sample(), "--aggregate=parallel:C D -> P"));
	ck_assert_ptr_nonnull(strstr(out, "  P = parallel between C and D: A A "
					  "B A A (x1, mean 50 us)\n"));
	ck_assert_ptr_nonnull(strstr(out, "embedded Markov chain:\n"));
	free(out);
	e2e_release(&t);
}
END_TEST

START_TEST(test_views)
{
	char p[PATH_MAX], *out;
	struct e2e t;

	e2e_init(&t);
	out = expect_ok(PES(sample(), "--view=event", "--clip=event:2:4"));
	ck_assert_str_eq(out, "event,y,state\n0,1,B\n1,0,A\n2,0,A\n");
	free(out);
	out = expect_ok(PES(sample(), "--view=time", "--clip=time:15:45"));
	ck_assert_str_eq(out, "time,y,state,occupancy\n15,0,A,5\n20,1,B,10\n"
			      "30,0,A,10\n40,0,A,5\n");
	free(out);
	out = expect_ok(PES(sample(), "--view=frequency", "--format=json",
			    "--signal=B"));
	json_assert_valid(out);
	ck_assert_ptr_nonnull(strstr(out, "\"domain\":\"event\""));
	free(out);
	out = expect_ok(PES(sample(), "--view=frequency", "--sample=10"));
	ck_assert(!strncmp(out, "bin,frequency_hz,power\n0,0,", 27));
	/* 12 samples 10 us apart: bin 1 is 1 / 120 us */
	ck_assert_ptr_nonnull(strstr(out, "\n1,8333.333333,"));
	free(out);
	for (int png = 0; png < 2; png++) {
		const char *name = png ? "v.png" : "v.svg";

		free(expect_ok(PES(sample(), "--view=time", "-o", name)));
		e2e_fmt(p, sizeof(p), "%s/%s", t.dir, name);
		out = e2e_slurp(p, NULL);
		ck_assert(!strncmp(out, png ? "\x89PNG" : "<?xml", 4));
		free(out);
	}
	e2e_release(&t);
}
END_TEST

START_TEST(test_simulate_round_trip)
{
	struct e2e t;
	char *out;

	e2e_init(&t);
	out = expect_ok(PES(sample(), "--simulate=50", "--format=pes"));
	file(&t, "syn.pes", out);
	ck_assert(!strncmp(out, "timebase us\n0 A\n", 16));
	free(out);
	out = expect_ok(PES("syn.pes", "--format=json"));
	json_assert_valid(out);
	ck_assert_ptr_nonnull(strstr(out, "\"entries\":50,"));
	free(out);
	e2e_release(&t);
}
END_TEST

START_TEST(test_bad_input)
{
	struct e2e t;

	e2e_init(&t);
	file(&t, "bad.pes", "timebase us\n# fine so far\n0 A\n5 B C\n");
	expect_error(PES("bad.pes"), "bad.pes:4: expected 'TIME STATE'");
	file(&t, "back.pes", "timebase us\n0 A\n5 B\n3 A\n");
	expect_error(PES("back.pes"),
		     "back.pes:4: time 3 is before the previous 5");
	file(&t, "neg.pes", "timebase us\n-5 A\n10 B\n");
	expect_error(PES("neg.pes"),
		     "neg.pes:2: bad time '-5' (a whole number from 0)");
	file(&t, "nobase.pes", "\n0 A\n");
	expect_error(PES("nobase.pes"), "nobase.pes:2: expected 'timebase "
					"UNIT' before the first state");
	expect_error(PES("absent.pes"),
		     "cannot open 'absent.pes': No such file or directory");
	expect_error(PES(sample(), "--aggregate=static:A Q -> X"),
		     "rule: the rule names no state 'Q' of the sequence");
	expect_error(PES(sample(), "--aggregate=sequence:A Q -> X"),
		     "rule 'A Q -> X' names no state 'Q'");
	file(&t, "rules", "A -> N\n\nB Q -> X\n");
	expect_error(PES(sample(), "--aggregate=rules:rules"),
		     "rules:3: the rule names no state 'Q' of the sequence");
	expect_error(PES(sample(), "--clip=time:500:600"),
		     "time range 500:600 is outside the sequence (0 to 120)");
	expect_error(PES(sample(), "--clip=event:3:12"),
		     "event range 3:12 is outside the sequence (events 0 to "
		     "11)");
	expect_error(PES(sample(), "--filter=event:9"),
		     "the event filter would remove every state");
	expect_error(PES(sample(), "--filter=time:0.9"),
		     "the time filter would remove every state");
	expect_error(PES(sample(), "--aggregate=undo"),
		     "nothing to undo: no sequence aggregation");
	expect_error(PES(sample(), "--view=frequency", "--signal=Q"),
		     "--signal names no state 'Q'");
	e2e_release(&t);
}
END_TEST

START_TEST(test_bad_usage)
{
	static const char *const cases[][3] = {
		{ "--view=x", NULL, "bad value 'x' for --view" },
		{ "--bins=0", NULL, "bad value '0' for --bins" },
		{ "--format=svg", NULL,
		  "svg and png are views: they need --view and --output FILE" },
		{ "--format=csv", NULL, "csv is for views (--view)" },
		{ "--thread=1:1", NULL,
		  "expected one PES file, or --db PATH and --thread PROC:TID" },
		{ "--format=text", "--view=time",
		  "a view is csv, json, svg or png" },
	};
	struct e2e t;

	e2e_init(&t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tool_out r = tool_run(
			cases[i][1] ? PES(sample(), cases[i][0], cases[i][1])
				    : PES(sample(), cases[i][0]));
		char *lines[8];
		size_t n = tool_lines(r.err, lines, 8);

		e2e_assert_exit(r.status, 2, cases[i][2]);
		ck_assert_msg(
			n == 2 && !strcmp(lines[0] + 6, cases[i][2]) &&
				!strncmp(lines[1], "usage: ccsg pes ", 16),
			"got '%s'", n ? lines[0] : "");
		tool_out_release(&r);
	}
	struct tool_out r = tool_run(PES("--format=json"));
	e2e_assert_exit(r.status, 2, "no file");
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

/* A trace (the ccsg fixture: 10 us per event number): clients call
 * function 1 of program 7 every 1000 us; the server thread 2:1 serves each
 * for 200 us.  Its PES alternates running and serving, and the
 * periodogram of the serving state's indicator peaks at 1 kHz. */
START_TEST(test_from_trace)
{
	char *out, *save = NULL;
	double best = 0, best_f = 0;
	struct e2e t;
	const char *db;

	e2e_init(&t);
	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_thread(1, 1, 0, 500, -1);
	fx_thread(1, 2, 0, 500, -1);
	fx_thread(2, 1, 0, 700, -1);
	for (int k = 0; k < 64; k++) {
		const long long ev[4] = { 100 * k + 100, 100 * k + 101,
					  100 * k + 121, 100 * k + 122 };
		const long long cpu[4] = { 1, 2, 3, 4 };
		char chain[41];

		snprintf(chain, sizeof(chain), "%040x", k + 1);
		fx_call(chain, 7, 1, NULL, 1, 1 + k % 2, 2, 1, 1, ev, cpu);
	}
	db = fx_close();
	out = expect_ok(PES("--db", db, "--thread=2:1", "--clip=event:0:4",
			    "--format=pes"));
	ck_assert_str_eq(out, "timebase ns\n"
			      "1010000 serving:7::proc1\n"
			      "1210000 running\n"
			      "2010000 serving:7::proc1\n"
			      "2210000 running\n"
			      "3010000 serving:7::proc1\n"
			      "end 3210000\n");
	free(out);
	/* the client thread 1:2 waits in every other call */
	out = expect_ok(PES("--db", db, "--thread=1:2", "--clip=event:0:1",
			    "--format=pes"));
	ck_assert_str_eq(out, "timebase ns\n2000000 waiting:7::proc1\n"
			      "2220000 running\nend 4000000\n");
	free(out);
	out = expect_ok(PES("--db", db, "--thread=2:1", "--view=frequency",
			    "--sample=10000", "--signal=serving:7::proc1"));
	ck_assert(!strncmp(out, "bin,frequency_hz,power\n", 23));
	for (char *l = strtok_r(out + 23, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		double f, pw;

		if (sscanf(l, "%*u,%lf,%lf", &f, &pw) == 2 && pw > best) {
			best = pw;
			best_f = f;
		}
	}
	/* 63.2 periods of 1000 us (the last running state's end unknown),
	 * sampled every 10 us: bins of 1 / 63.2 ms, the peak within one of
	 * 1000 Hz */
	ck_assert_double_eq_tol(best_f, 1000, 16);
	free(out);
	struct tool_out r = tool_run(PES("--db", db, "--thread=3:3"));
	e2e_assert_exit(r.status, 1, "no such thread");
	tool_out_release(&r);
	unlink(db);
	e2e_release(&t);
}
END_TEST

Suite *pes_cli_suite(void)
{
	Suite *s = suite_create("pes_cli");
	TCase *tc = tcase_create("pes_cli");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_aggregate_undo);
	tcase_add_test(tc, test_model_json);
	tcase_add_test(tc, test_views);
	tcase_add_test(tc, test_simulate_round_trip);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_bad_usage);
	tcase_add_test(tc, test_from_trace);
	suite_add_tcase(s, tc);
	return s;
}
