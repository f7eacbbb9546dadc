/*
 * check-compact-cli.c - `ccsg compact` on folded stacks, run as built: the
 * paper's figures through the command line, the three formats, '::'
 * names, bad input (malformed lines reported by number and skipped, or an
 * error with --strict; empty input; a path naming no node; a refused
 * action) and bad usage.
 */
#include "json-valid.h"
#include "tool-run.h"

static const char fig2_folded[] =
	"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung.inhale();"
	"lib2.Muscle.contract();lib2.Nerve.transmit();lib3.Signal.travel() 3\n"
	"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung.inhale();"
	"lib2.Muscle.contract();lib3.Pressure.foo();lib3.Blood.flow() 1\n"
	"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung.inhale();"
	"lib2.Muscle.stop();lib2.Nerve.transmit();lib3.Signal.travel() 2\n";

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

#define COMPACT(...)                                                           \
	((const char *[]){ tool_path("ccsg"), "compact", __VA_ARGS__, NULL })

/* Exit 0, stdout want, nothing on stderr. */
static void expect_out(const char *const argv[], const char *want)
{
	struct tool_out r = tool_run(argv);

	e2e_assert_exit(r.status, 0, argv[2]);
	ck_assert_msg(!strcmp(r.out, want), "got:\n%s\nwanted:\n%s", r.out,
		      want);
	ck_assert_str_eq(r.err, "");
	tool_out_release(&r);
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

/* Exit 2, stderr: "ccsg: " + msg, then the usage line. */
static void expect_usage(const char *const argv[], const char *msg)
{
	struct tool_out r = tool_run(argv);
	char *lines[8];
	size_t n;

	e2e_assert_exit(r.status, 2, msg);
	n = tool_lines(r.err, lines, 8);
	ck_assert_msg(n == 2 && !strncmp(lines[0], "ccsg: ", 6) &&
			      !strcmp(lines[0] + 6, msg) &&
			      !strncmp(lines[1], "usage: ccsg compact ", 20),
		      "expected 'ccsg: %s' and the usage, got '%s'", msg,
		      n ? lines[0] : "");
	ck_assert_str_eq(r.out, "");
	tool_out_release(&r);
}

START_TEST(test_figures)
{
	const char *f, *bad;
	char src[PATH_MAX], *text;
	struct tool_out r;
	struct e2e t;
	struct jv v;

	e2e_init(&t);
	/* the file docs/compact.md's example reads is the paper's Figure 2 */
	ck_assert_msg(getenv("CAUSAL_SRC"),
		      "CAUSAL_SRC is not set: run the suites with make");
	e2e_fmt(src, sizeof(src), "%s/test/compact/figure2.folded",
		getenv("CAUSAL_SRC"));
	ck_assert_str_eq(text = e2e_slurp(src, NULL), fig2_folded);
	free(text);
	f = file(&t, "fig2.folded", fig2_folded);
	expect_out(COMPACT("--folded", src, "--level", "1"), "lib1 [x6]\n"
							     "  lib2 [x6]\n"
							     "    lib3 [x6]\n");
	/* Figure 8: lib2, then the right-hand lib3, expanded from Figure 6 */
	expect_out(COMPACT("--folded", f, "--level=1", "--action",
			   "expand lib1;lib2", "--action",
			   "expand lib1;lib2.Lung;lib2.Muscle;lib3"),
		   "lib1 [x6]\n"
		   "  lib2.Lung [x6]\n"
		   "    lib2.Muscle [x6]\n"
		   "      lib2.Nerve [x5]\n"
		   "        lib3 [x5]\n"
		   "      lib3.Pressure [x1]\n"
		   "        lib3.Blood [x1]\n");
	/* Figure 10 by compactions, as folded stacks for a flame graph */
	expect_out(
		COMPACT("--folded", f, "--format=folded", "--action",
			"compact "
			"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung."
			"inhale()",
			"--action",
			"compact "
			"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung;"
			"lib2.Muscle.stop()",
			"--action",
			"compact "
			"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung;"
			"lib2.Muscle;"
			"lib2.Nerve.transmit()",
			"--action",
			"compact "
			"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung"),
		"lib1.Whale.breath();lib1.Mammal.inhale();lib2;lib3.Signal."
		"travel() 5\n"
		"lib1.Whale.breath();lib1.Mammal.inhale();lib2;lib3.Pressure."
		"foo();"
		"lib3.Blood.flow() 1\n");
	r = tool_run(
		COMPACT("--folded", f, "--level", "2", "--format", "json"));
	e2e_assert_exit(r.status, 0, "json");
	ck_assert_msg(!(bad = json_invalid(r.out, &v)), "%s: %s", bad, r.out);
	ck_assert_ptr_nonnull(strstr(
		r.out, "{\"name\": \"lib2.Nerve\", \"elements\": [\"lib2\", "
		       "\"Nerve\"], \"self\": 0, \"total\": 5, \"nodes\": 2"));
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

START_TEST(test_separator)
{
	struct e2e t;
	const char *f;

	e2e_init(&t);
	f = file(&t, "cxx.folded",
		 "main;std::vector<std::pair<int, a::b>>::push_back(x::y "
		 "const&) 3\n"
		 "main;std::map<int, int>::at 2\n");
	expect_out(COMPACT("--folded", f, "--sep", "::", "--level", "2"),
		   "main [x5]\n"
		   "  std::vector<std::pair<int, a::b>> [x3]\n"
		   "  std::map<int, int> [x2]\n");
	expect_out(COMPACT("--folded", f, "--sep=::", "--level", "2",
			   "--action",
			   "compact main;std::vector<std::pair<int, a::b>>"),
		   "main [x5]\n"
		   "  std [x5]\n");
	/* with '.', '::' names are one element each */
	expect_out(COMPACT("--folded", f, "--level", "1"),
		   "main [x5]\n"
		   "  std::vector<std::pair<int, a::b>>::push_back(x::y "
		   "const&) [x3]\n"
		   "  std::map<int, int>::at [x2]\n");
	e2e_release(&t);
}
END_TEST

START_TEST(test_malformed_lines)
{
	static const char text[] = "a.x;b.y 2\n"
				   "a.x;b.y\n"
				   "a.x;;b.y 3\n"
				   "\n"
				   "a.x;b.z -1\n"
				   "a.x;b.z 1x\n"
				   "   7\n"
				   "a.x;b.z 1.5\r\n";
	static const char *const want[] = {
		"ccsg: warning: bad.folded:2: malformed line skipped: no count "
		"after the stack",
		"ccsg: warning: bad.folded:3: malformed line skipped: an empty "
		"frame",
		"ccsg: warning: bad.folded:5: malformed line skipped: the "
		"count is not a "
		"non-negative number",
		"ccsg: warning: bad.folded:6: malformed line skipped: the "
		"count is not a "
		"non-negative number",
		"ccsg: warning: bad.folded:7: malformed line skipped: no stack "
		"before the count",
	};
	char many[4096] = "", *lines[16];
	struct tool_out r;
	struct e2e t;
	size_t n;

	e2e_init(&t);
	file(&t, "bad.folded", text);
	/* skipped, each reported by its line number */
	r = tool_run(COMPACT("--folded", "bad.folded"));
	e2e_assert_exit(r.status, 0, "malformed lines");
	ck_assert_str_eq(r.out, "a.x [x3.5]\n"
				"  b.y [x2]\n"
				"  b.z [x1.5]\n");
	n = tool_lines(r.err, lines, 16);
	ck_assert_int_eq(n, 5);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(lines[i], want[i]);
	tool_out_release(&r);
	expect_error(COMPACT("--folded", "bad.folded", "--strict"),
		     "bad.folded:2: malformed line: no count after the stack");
	/* past ten, a count */
	for (int i = 0; i < 12; i++)
		strcat(many, "x;y\n");
	strcat(many, "x;y 1\n");
	file(&t, "many.folded", many);
	r = tool_run(COMPACT("--folded", "many.folded"));
	e2e_assert_exit(r.status, 0, "many malformed lines");
	n = tool_lines(r.err, lines, 16);
	ck_assert_int_eq(n, 11);
	ck_assert_str_eq(
		lines[9],
		"ccsg: warning: many.folded:10: malformed line skipped: no "
		"count after the stack");
	ck_assert_str_eq(
		lines[10],
		"ccsg: warning: many.folded: 12 malformed lines skipped in "
		"all (the first at line 1)");
	ck_assert_str_eq(r.out, "x [x1]\n  y [x1]\n");
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

START_TEST(test_bad_input)
{
	struct e2e t;

	e2e_init(&t);
	file(&t, "fig2.folded", fig2_folded);
	expect_error(COMPACT("--folded", file(&t, "empty.folded", "")),
		     "'empty.folded' holds no stack");
	expect_error(COMPACT("--folded", file(&t, "blank.folded", "\n  \n\n")),
		     "'blank.folded' holds no stack");
	expect_error(COMPACT("--folded", "missing.folded"),
		     "cannot open 'missing.folded': No such file or directory");
	expect_error(COMPACT("--folded", "fig2.folded", "--level", "1",
			     "--action", "expand lib1;lib9"),
		     "cannot expand 'lib1;lib9': no such node");
	expect_error(COMPACT("--folded", "fig2.folded", "--level", "1",
			     "--action", "compact lib1"),
		     "cannot compact 'lib1': it shows one element");
	expect_error(COMPACT("--folded", "fig2.folded", "--level", "1",
			     "--action", "expand lib1;lib2", "--action",
			     "compact lib1;lib2.Lung;lib2.Muscle"),
		     "cannot compact 'lib1;lib2.Lung;lib2.Muscle': 'lib2' "
		     "would be a prefix of "
		     "its parent's name 'lib2.Lung' (3.3.2: a node cannot be "
		     "compacted below its "
		     "parent's level)");
	expect_error(
		COMPACT("--folded", "fig2.folded", "--action",
			"compact "
			"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung."
			"inhale()",
			"--action",
			"compact "
			"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung"),
		"cannot compact "
		"'lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung': 'lib2' "
		"would take over "
		"'lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung;"
		"lib2.Muscle.stop()' across more than one level of the "
		"hierarchy (3.3.2): "
		"compact that node first");
	e2e_release(&t);
}
END_TEST

START_TEST(test_bad_usage)
{
	struct e2e t;

	e2e_init(&t);
	expect_usage(COMPACT("--level", "1"),
		     "give --folded FILE or --tree=ccsg|dscg");
	expect_usage(COMPACT("--folded", "f", "--tree=ccsg"),
		     "--folded and --tree exclude each other");
	expect_usage(COMPACT("--folded", "f", "--level", "0"),
		     "--level takes a number of elements (1 or more), not '0'");
	expect_usage(
		COMPACT("--folded", "f", "--level", "2x"),
		"--level takes a number of elements (1 or more), not '2x'");
	expect_usage(COMPACT("--folded", "f", "--action", "squash lib1"),
		     "--action takes 'compact PATH' or 'expand PATH', not "
		     "'squash lib1'");
	expect_usage(COMPACT("--folded", "f", "--action", "compact "),
		     "--action takes 'compact PATH' or 'expand PATH', not "
		     "'compact '");
	expect_usage(COMPACT("--folded", "f", "--format=xml"),
		     "unknown format 'xml'");
	expect_usage(COMPACT("--folded", "f", "--sep", ";"),
		     "--sep takes a non-empty separator without ';', not ';'");
	expect_usage(COMPACT("--folded", "f", "--sep="),
		     "--sep takes a non-empty separator without ';', not ''");
	expect_usage(COMPACT("--tree=cct"),
		     "--tree takes 'ccsg' or 'dscg', not 'cct'");
	expect_usage(COMPACT("--tree=dscg", "--hierarchy=host"),
		     "--hierarchy takes 'name' or 'location', not 'host'");
	expect_usage(
		COMPACT("--folded", "f", "--hierarchy=name"),
		"--hierarchy, --db and --idl go with --tree, not --folded");
	expect_usage(COMPACT("--tree=ccsg", "--strict"),
		     "--strict goes with --folded");
	expect_usage(COMPACT("--folded", "f", "extra"),
		     "unexpected argument 'extra'");
	expect_usage(COMPACT("--folded"), "option '--folded' needs a value");
	e2e_release(&t);
}
END_TEST

START_TEST(test_stdin)
{
	struct e2e t;
	char sh[PATH_MAX * 2];

	e2e_init(&t);
	file(&t, "fig2.folded", fig2_folded);
	e2e_fmt(sh, sizeof(sh), "%s compact --folded - --level 1 < fig2.folded",
		tool_path("ccsg"));
	expect_out((const char *[]){ "/bin/sh", "-c", sh, NULL },
		   "lib1 [x6]\n"
		   "  lib2 [x6]\n"
		   "    lib3 [x6]\n");
	e2e_release(&t);
}
END_TEST

Suite *compact_cli_suite(void)
{
	Suite *s = suite_create("compact_cli");
	TCase *tc = tcase_create("compact_cli");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_figures);
	tcase_add_test(tc, test_separator);
	tcase_add_test(tc, test_malformed_lines);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_bad_usage);
	tcase_add_test(tc, test_stdin);
	suite_add_tcase(s, tc);
	return s;
}
