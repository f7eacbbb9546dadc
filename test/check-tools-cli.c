/*
 * check-tools-cli.c - the command lines of tracedump and ccsg, run as
 * built: bad usage (exit 2, one message naming the problem, the usage
 * line), every option with a line in --help, what merge refuses to
 * overwrite, and logs that are not regular files.
 */
#include <sys/sysmacros.h>

#include "log-fixture.h"
#include "test-root.h"
#include "tool-run.h"

static const uint8_t uuid_a[16] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff };

/* Exit 2, stderr: msg, then the usage line. */
static void expect_usage(const char *const argv[], const char *msg)
{
	struct tool_out r = tool_run(argv);
	char *lines[8];
	size_t n;

	e2e_assert_exit(r.status, 2, msg);
	n = tool_lines(r.err, lines, 8);
	ck_assert_msg(n >= 1 && !strcmp(lines[0], msg),
		      "expected '%s', got '%s'", msg, n ? lines[0] : "");
	ck_assert_msg(n == 2 && !strncmp(lines[1], "usage: ", 7),
		      "%s: no usage line after the message", msg);
	ck_assert_str_eq(r.out, "");
	tool_out_release(&r);
}

START_TEST(test_missing_value)
{
	struct e2e t;

	e2e_init(&t);
	/* Said "unknown option '-o'" when -o ended the line. */
	expect_usage((const char *[]){ tool_path("tracedump"), "merge", "logs",
				       "-o", NULL },
		     "tracedump: option '-o' needs a value");
	expect_usage((const char *[]){ tool_path("tracedump"), "merge", "logs",
				       "--output", NULL },
		     "tracedump: option '--output' needs a value");
	expect_usage((const char *[]){ tool_path("tracedump"), "dump", "x.clog",
				       "--format", NULL },
		     "tracedump: option '--format' needs a value");
	expect_usage((const char *[]){ tool_path("ccsg"), "report", "--db", NULL },
		     "ccsg: option '--db' needs a value");
	expect_usage((const char *[]){ tool_path("ccsg"), "report", "--groups", NULL },
		     "ccsg: option '--groups' needs a value");
	expect_usage((const char *[]){ tool_path("ccsg"), "dscg", "--idl", NULL },
		     "ccsg: option '--idl' needs a value");
	expect_usage((const char *[]){ tool_path("ccsg"), "latency", "--by", NULL },
		     "ccsg: option '--by' needs a value");
	e2e_release(&t);
}
END_TEST

START_TEST(test_bad_usage)
{
	struct e2e t;

	e2e_init(&t);
	expect_usage((const char *[]){ tool_path("tracedump"), "merge", "--bogus",
				       "logs", NULL },
		     "tracedump: unknown option '--bogus'");
	expect_usage((const char *[]){ tool_path("tracedump"), "merge", "-x",
				       "logs", NULL },
		     "tracedump: unknown option '-x'");
	expect_usage((const char *[]){ tool_path("tracedump"), "merge", "a", "b",
				       NULL },
		     "tracedump: too many arguments");
	expect_usage((const char *[]){ tool_path("tracedump"), "merge", NULL },
		     "tracedump: a log directory is needed");
	expect_usage((const char *[]){ tool_path("tracedump"), "merge",
				       "--help=yes", NULL },
		     "tracedump: option '--help' takes no value");
	expect_usage((const char *[]){ tool_path("tracedump"), "dump",
				       "--format=xml", "x.clog", NULL },
		     "tracedump: unknown format 'xml'");
	expect_usage((const char *[]){ tool_path("ccsg"), "report",
				       "--format=svg", NULL },
		     "ccsg: unknown format 'svg'");
	expect_usage((const char *[]){ tool_path("ccsg"), "dscg",
				       "--format=xml", NULL },
		     "ccsg: unknown format 'xml'");
	expect_usage((const char *[]){ tool_path("ccsg"), "latency",
				       "--by=thread", NULL },
		     "ccsg: --by takes 'function' or 'object', not 'thread'");
	expect_usage((const char *[]){ tool_path("ccsg"), "report", "extra", NULL },
		     "ccsg: unexpected argument 'extra'");
	expect_usage((const char *[]){ tool_path("ccsg"), "report", "--workers",
				       "0", NULL },
		     "ccsg: --workers takes a number from 1 to 16, not '0'");
	expect_usage((const char *[]){ tool_path("ccsg"), "report",
				       "--workers=17", NULL },
		     "ccsg: --workers takes a number from 1 to 16, not '17'");
	expect_usage((const char *[]){ tool_path("ccsg"), "report",
				       "--workers=2x", NULL },
		     "ccsg: --workers takes a number from 1 to 16, not '2x'");
	/* latency shows every call to one watch: one stream, no workers */
	expect_usage((const char *[]){ tool_path("ccsg"), "latency",
				       "--workers=2", NULL },
		     "ccsg: unknown option '--workers'");
	expect_usage((const char *[]){ tool_path("tracedump"), "schema",
				       "--cluster", "a-b", "traces", NULL },
		     "tracedump: a cluster name is letters, digits and '_', "
		     "not 'a-b'");
	expect_usage((const char *[]){ tool_path("tracedump"), "schema",
				       "--cluster", "c", NULL },
		     "tracedump: --cluster needs the DATABASE");
	expect_usage((const char *[]){ tool_path("tracedump"), "schema",
				       "--cluster", "c", "x;DROP", NULL },
		     "tracedump: a database name is letters, digits and '_', "
		     "not 'x;DROP'");
	expect_usage((const char *[]){ tool_path("tracedump"), "schema",
				       "traces", NULL },
		     "tracedump: DATABASE goes with --cluster");
	/* dscg has no function nodes: --by is not one of its options. */
	expect_usage((const char *[]){ tool_path("ccsg"), "dscg", "--by=object",
				       NULL },
		     "ccsg: unknown option '--by'");
	e2e_release(&t);
}
END_TEST

/* `tracedump schema`: SQLite's statements, a server's, a cluster's. */
START_TEST(test_schema)
{
	struct tool_out r;
	struct e2e t;

	e2e_init(&t);
	r = tool_run(
		(const char *[]){ tool_path("tracedump"), "schema", NULL });
	e2e_assert_exit(r.status, 0, "schema");
	ck_assert_msg(strstr(r.out, "CREATE TABLE rpc_calls(") &&
			      !strstr(r.out, "ENGINE"),
		      "%s", r.out);
	tool_out_release(&r);
	r = tool_run((const char *[]){ tool_path("tracedump"), "schema",
				       "--clickhouse", NULL });
	e2e_assert_exit(r.status, 0, "schema --clickhouse");
	ck_assert_msg(strstr(r.out, "CREATE TABLE IF NOT EXISTS rpc_calls (") &&
			      strstr(r.out, "ENGINE = MergeTree") &&
			      !strstr(r.out, "Distributed"),
		      "%s", r.out);
	tool_out_release(&r);
	r = tool_run((const char *[]){ tool_path("tracedump"), "schema",
				       "--cluster", "c1", "tr", NULL });
	e2e_assert_exit(r.status, 0, "schema --cluster");
	ck_assert_msg(
		strstr(r.out, "CREATE DATABASE IF NOT EXISTS tr_shard;\n") &&
			strstr(r.out, "CREATE TABLE IF NOT EXISTS "
				      "tr_shard.rpc_calls (") &&
			strstr(r.out,
			       "CREATE TABLE IF NOT EXISTS tr.rpc_calls AS "
			       "tr_shard.rpc_calls\nENGINE = Distributed(c1, "
			       "tr_shard, rpc_calls, cityHash64(chain));") &&
			strstr(r.out,
			       "CREATE TABLE IF NOT EXISTS tr.loads AS "
			       "tr_shard.loads\nENGINE = Distributed(c1, "
			       "tr_shard, loads, load_id);"),
		"%s", r.out);
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

/* The commands `TOOL help` lists ("  NAME  ARGS" after "commands:"). */
static size_t list_commands(const char *tool, char names[][32], size_t max)
{
	struct tool_out r = tool_run((const char *[]){ tool, "help", NULL });
	char *lines[64];
	size_t n, k = 0, i = 0;

	e2e_assert_exit(r.status, 0, "help");
	n = tool_lines(r.out, lines, 64);
	while (i < n && strcmp(lines[i], "commands:"))
		i++;
	for (i++; i < n && lines[i][0]; i++)
		if (!strncmp(lines[i], "  ", 2) && lines[i][2] != ' ' && k < max &&
		    sscanf(lines[i], " %31s", names[k]) == 1 &&
		    strcmp(names[k], "help"))
			k++;
	tool_out_release(&r);
	return k;
}

/*
 * Is there a line for opt in the help's "options:" section?  Each line
 * is "  -o, --output=DB  what it does": names, two spaces, the help.
 */
static int has_option_line(char **lines, size_t n, const char *opt)
{
	size_t i = 0;

	while (i < n && strcmp(lines[i], "options:"))
		i++;
	for (i++; i < n && lines[i][0]; i++) {
		char names[128], *help, *name, *save;

		snprintf(names, sizeof(names), "%s", lines[i] + strspn(lines[i], " "));
		if (!(help = strstr(names, "  ")))
			continue;	/* a wrapped help line */
		*help = '\0';
		help += 2;
		if (!help[strspn(help, " ")])
			continue;	/* no help text */
		for (name = strtok_r(names, ", ", &save); name;
		     name = strtok_r(NULL, ", ", &save)) {
			name[strcspn(name, "=")] = '\0';
			if (!strcmp(name, opt))
				return 1;
		}
	}
	return 0;
}

/*
 * `TOOL CMD --help` printed only the usage line: each option the usage
 * names now has a line of its own, and so has --help.
 */
static void check_help(const char *tool, const char *cmd)
{
	struct tool_out r = tool_run((const char *[]){ tool, cmd, "--help", NULL });
	struct tool_out h = tool_run((const char *[]){ tool, "help", cmd, NULL });
	char *lines[64], usage[512];
	size_t n, opts = 0;
	const char *p;

	e2e_assert_exit(r.status, 0, cmd);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(h.out, r.out);	/* `TOOL help CMD`: the same */
	n = tool_lines(r.out, lines, 64);
	ck_assert_msg(n > 0, "%s --help printed nothing", cmd);
	snprintf(usage, sizeof(usage), "%s", lines[0]);
	ck_assert_msg(strstr(usage, "usage: ") == usage && strstr(usage, cmd),
		      "%s --help: first line '%s'", cmd, usage);
	/* Every option of the synopsis: "[--db PATH]", "[-o DB]", ... */
	for (p = usage; (p = strstr(p, "[-")); p++) {
		char opt[64];

		if (sscanf(p + 1, "%63[-a-z]", opt) != 1)
			continue;
		ck_assert_msg(has_option_line(lines, n, opt),
			      "%s %s --help: no line for '%s'", tool, cmd, opt);
		opts++;
	}
	ck_assert_msg(opts > 0, "%s %s: no option in '%s'", tool, cmd, usage);
	ck_assert_msg(has_option_line(lines, n, "--help") &&
		      has_option_line(lines, n, "-h"),
		      "%s %s --help: no line for --help", tool, cmd);
	tool_out_release(&r);
	tool_out_release(&h);
}

START_TEST(test_help_has_a_line_per_option)
{
	static const char *const tools[] = { "tracedump", "ccsg" };
	char names[16][32];
	struct e2e t;

	e2e_init(&t);
	for (size_t i = 0; i < 2; i++) {
		const char *tool = tool_path(tools[i]);
		size_t n = list_commands(tool, names, 16);

		ck_assert_msg(n >= 2, "%s help lists %zu commands", tools[i], n);
		for (size_t k = 0; k < n; k++)
			check_help(tool, names[k]);
	}
	e2e_release(&t);
}
END_TEST

/* Exit 1 with exactly one line, "tracedump: error: ...what...". */
static void expect_one_error(struct tool_out *r, const char *what)
{
	char *lines[8];
	size_t n;

	e2e_assert_exit(r->status, 1, what);
	n = tool_lines(r->err, lines, 8);
	ck_assert_msg(n == 1 && !strncmp(lines[0], "tracedump: error: ", 18) &&
		      strstr(lines[0], what),
		      "expected one 'tracedump: error:' line with '%s', got %zu: '%s'",
		      what, n, n ? lines[0] : "");
}

/* As root -o /dev/full replaced the device with the database. */
START_TEST(test_merge_refuses_special_output)
{
	struct tool_out r;
	struct stat st;
	struct e2e t;
	char path[PATH_MAX];
	long ends[3];

	if (!test_as_root("tools_cli: merge -o a device (mknod)"))
		return;
	e2e_init(&t);
	ck_assert_int_eq(mkdir(t.logs, 0700), 0);
	e2e_fmt(path, sizeof(path), "%s/a.clog", t.logs);
	fixture_log_sample(path, uuid_a, "hostA", 42, NULL, 1, ends);

	e2e_fmt(path, sizeof(path), "%s/full", t.dir);
	ck_assert_int_eq(mknod(path, S_IFCHR | 0666, makedev(1, 7)), 0);
	r = tool_run((const char *[]){ tool_path("tracedump"), "merge", "logs",
				       "-o", "full", NULL });
	expect_one_error(&r, "'full' is a character device");
	tool_out_release(&r);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7));

	/* A FIFO: refused at once, never opened. */
	e2e_fmt(path, sizeof(path), "%s/fifo", t.dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	r = tool_run((const char *[]){ tool_path("tracedump"), "merge", "logs",
				       "--output=fifo", NULL });
	expect_one_error(&r, "'fifo' is a FIFO");
	tool_out_release(&r);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));

	/* Nothing else was written: the logs, the device and the FIFO. */
	ck_assert_int_eq(e2e_count_logs(t.logs), 1);
	e2e_fmt(path, sizeof(path), "%s/trace.db", t.logs);
	ck_assert_int_eq(access(path, F_OK), -1);
	e2e_release(&t);
}
END_TEST

/* `dump` on a FIFO named *.clog waited for a writer forever. */
START_TEST(test_dump_special_files)
{
	static const char *const names[] = { "fifo.clog", "blk.clog", "chr.clog" };
	struct tool_out r;
	struct e2e t;
	char path[PATH_MAX], what[64];

	if (!test_as_root("tools_cli: dump of devices named *.clog (mknod)"))
		return;
	e2e_init(&t);
	e2e_fmt(path, sizeof(path), "%s/fifo.clog", t.dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	e2e_fmt(path, sizeof(path), "%s/blk.clog", t.dir);
	ck_assert_int_eq(mknod(path, S_IFBLK | 0600, makedev(7, 0)), 0);
	e2e_fmt(path, sizeof(path), "%s/chr.clog", t.dir);
	ck_assert_int_eq(mknod(path, S_IFCHR | 0600, makedev(1, 5)), 0);
	for (size_t i = 0; i < 3; i++) {
		r = tool_run((const char *[]){ tool_path("tracedump"), "dump",
					       names[i], NULL });
		snprintf(what, sizeof(what), "'%s' is not a causal log (not a "
			 "regular file)", names[i]);
		expect_one_error(&r, what);
		ck_assert_str_eq(r.out, "");
		tool_out_release(&r);
	}
	e2e_release(&t);
}
END_TEST

/* `dump DIR` with a file that is not a log among good ones printed the
 * good ones' records, an error line, and exited 0. */
START_TEST(test_dump_dir_with_a_bad_log_fails)
{
	struct tool_out r;
	struct e2e t;
	char path[PATH_MAX], *lines[8];
	long ends[3];
	size_t n;
	FILE *f;

	e2e_init(&t);
	ck_assert_int_eq(mkdir(t.logs, 0700), 0);
	e2e_fmt(path, sizeof(path), "%s/a.clog", t.logs);
	fixture_log_sample(path, uuid_a, "hostA", 42, NULL, 1, ends);
	e2e_fmt(path, sizeof(path), "%s/b.clog", t.logs);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("this is not a causal log\n", f);
	ck_assert_int_eq(fclose(f), 0);

	r = tool_run((const char *[]){ tool_path("tracedump"), "dump", "logs",
				       NULL });
	e2e_assert_exit(r.status, 1, "dump of a directory with a bad log");
	ck_assert_msg(strstr(r.out, "a.clog") && strstr(r.out, "HEADER"),
		      "the good log's records are printed: '%s'", r.out);
	n = tool_lines(r.err, lines, 8);
	ck_assert_msg(n == 1 && strstr(lines[0], "tracedump: error: ") &&
			      strstr(lines[0], "b.clog' is not a causal log"),
		      "one error line naming b.clog, got %zu: '%s'", n,
		      n ? lines[0] : "");
	tool_out_release(&r);

	/* the good log alone: exit 0 */
	ck_assert_int_eq(unlink(path), 0);
	r = tool_run((const char *[]){ tool_path("tracedump"), "dump", "logs",
				       NULL });
	e2e_assert_exit(r.status, 0, "dump of a directory of good logs");
	ck_assert_str_eq(r.err, "");
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

/* The tags of the calls (server side) and of the replies (client side). */
START_TEST(test_merge_summary_tag_counts)
{
	uint8_t chain[CAUSAL_CHAIN_ID_LEN] = { 0xaa };
	static const char *const argv0[] = { "prog" };
	struct fixture_log fl;
	struct fixture_rpc p;
	struct tool_out r;
	struct e2e t;
	char path[PATH_MAX];

	e2e_init(&t);
	ck_assert_int_eq(mkdir(t.logs, 0700), 0);
	e2e_fmt(path, sizeof(path), "%s/a.clog", t.logs);
	ck_assert_int_eq(fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION), 0);
	fixture_log_header(&fl, 100, uuid_a, "host", 10, 1, "/bin/prog", 1, argv0,
			   1700000000000000000ull, NULL, 64, 100);
	fixture_log_thread_start(&fl, 1, 101, 0, 10, CAUSAL_MARKER_USER, 0,
				 NULL, 0, 0);
	for (unsigned i = 0; i < 3; i++) {
		chain[19] = (uint8_t)i;
		p = (struct fixture_rpc){ 1, 200 + 10 * i, 201 + 10 * i, 0, chain,
					  1, i + 1 };
		if (i < 2)
			fixture_log_skel_start(&fl, &p, 0x20000099, 1, 1,
					       CAUSAL_TRANSPORT_TCP, NULL, 0, 1, i,
					       16, i ? CAUSAL_TAG_ABSENT : CAUSAL_TAG_OK);
		else
			fixture_log_stub_start(&fl, &p, 0x20000099, 1, 1,
					       CAUSAL_TRANSPORT_TCP, NULL, 0, 1, i,
					       CAUSAL_RPC_TAG_SENT);
		p.mono += 5;
		p.event = 2;
		if (i < 2)
			fixture_log_skel_end(&fl, &p, CAUSAL_REPLY_SUCCESS, 8);
		else
			fixture_log_stub_end(&fl, &p, 0, 16, 8, CAUSAL_TAG_STALE);
	}
	ck_assert_int_eq(fixture_log_close(&fl), 0);
	r = tool_run((const char *[]){ tool_path("tracedump"), "merge", "logs", NULL });
	e2e_assert_exit(r.status, 0, "merge");
	ck_assert_msg(strstr(r.out, "\nrpc calls:       3\n"), "summary:\n%s", r.out);
	ck_assert_msg(strstr(r.out, "\ncall tags:       ok 1, absent 1\n"),
		      "summary:\n%s", r.out);
	ck_assert_msg(strstr(r.out, "\nreply tags:      stale 1\n"),
		      "summary:\n%s", r.out);
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

Suite *tools_cli_suite(void)
{
	Suite *s = suite_create("tools_cli");
	TCase *tc = tcase_create("tools_cli");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_missing_value);
	tcase_add_test(tc, test_bad_usage);
	tcase_add_test(tc, test_schema);
	tcase_add_test(tc, test_help_has_a_line_per_option);
	tcase_add_test(tc, test_merge_refuses_special_output);
	tcase_add_test(tc, test_dump_special_files);
	tcase_add_test(tc, test_dump_dir_with_a_bad_log_fails);
	tcase_add_test(tc, test_merge_summary_tag_counts);
	suite_add_tcase(s, tc);
	return s;
}
