/*
 * check-pes-spec.c - the steps of `ccsg pes` written as text
 * (ccsg/pes/pes-spec.h) on the AABAACAABAAD example of Chitra's Section
 * 2.3.3 (test/data/pes): every form of --clip, --filter and --aggregate
 * applied, the sequence compared as a PES file, and every kind of bad
 * spec refused with one error line that names it, the sequence left as
 * it was; and the numbers the specs are written with.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pes/pes-spec.h"
#include "test-tmp.h"

/* The paper's sequence, AABAACAABAAD one every 10 us, as the sample
 * file has it. */
static void paper(struct pes *p)
{
	const char *src = getenv("CAUSAL_SRC");
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/test/data/pes/aabaacaabaad.pes",
		 src ? src : ".");
	ck_assert_msg((f = fopen(path, "r")) != NULL, "%s", path);
	memset(p, 0, sizeof(*p));
	ck_assert_int_eq(pes_read(p, f, path), 0);
	fclose(f);
}

/* ... as pes_write() writes it, but its timebase line */
#define PAPER_PES                                                              \
	"0 A\n10 A\n20 B\n30 A\n40 A\n50 C\n60 A\n70 A\n80 B\n90 A\n100 A\n"   \
	"110 D\nend 120\n"

typedef int (*step_fn)(struct pes *p, const char *spec);

/* The paper's sequence through step(spec): its return value; what it
 * wrote on stderr (fail()'s stream, swapped for a memory stream
 * meanwhile) into err; the sequence as pes_write() writes it, but its
 * timebase line, into seq. */
static int apply(step_fn step, const char *spec, char *err, char *seq,
		 size_t len)
{
	FILE *saved = stderr, *m;
	char *buf = NULL;
	size_t n = 0;
	struct pes p;
	int ret;

	paper(&p);
	ck_assert_ptr_nonnull(m = open_memstream(&buf, &n));
	stderr = m;
	ret = step(&p, spec);
	stderr = saved;
	ck_assert_int_eq(fclose(m), 0);
	snprintf(err, len, "%s", buf);
	free(buf);
	ck_assert_ptr_nonnull(m = open_memstream(&buf, &n));
	ck_assert_int_eq(pes_write(&p, m), 0);
	ck_assert_int_eq(fclose(m), 0);
	ck_assert_msg(!strncmp(buf, "timebase us\n", 12), "%s", buf);
	snprintf(seq, len, "%s", buf + 12);
	free(buf);
	pes_release(&p);
	return ret;
}

/* spec applied to the paper's sequence: done, silently, giving want. */
static void good(step_fn step, const char *spec, const char *want)
{
	char err[1024], seq[1024];

	ck_assert_msg(apply(step, spec, err, seq, sizeof(seq)) == 0,
		      "'%s' refused: %s", spec, err);
	ck_assert_msg(!err[0], "'%s': %s", spec, err);
	ck_assert_msg(!strcmp(seq, want), "'%s' gave\n%snot\n%s", spec, seq,
		      want);
}

/* spec refused: a negative errno, exactly one line "...: error: MSG"
 * holding msg, and the sequence as it was. */
static void bad(step_fn step, const char *spec, const char *msg)
{
	char err[1024], seq[1024], *e;

	ck_assert_msg(apply(step, spec, err, seq, sizeof(seq)) < 0,
		      "'%s' accepted", spec);
	e = strstr(err, ": error: ");
	ck_assert_msg(e && strchr(err, '\n') == err + strlen(err) - 1,
		      "'%s': not one error line: '%s'", spec, err);
	ck_assert_msg(strstr(e, msg), "'%s': '%s' does not say '%s'", spec, err,
		      msg);
	ck_assert_msg(!strcmp(seq, PAPER_PES), "'%s' changed it:\n%s", spec,
		      seq);
}

START_TEST(test_clip_good)
{
	good(pes_clip_spec, "time:15:45", "15 A\n20 B\n30 A\n40 A\nend 45\n");
	good(pes_clip_spec, "time:0:120", PAPER_PES);
	good(pes_clip_spec, "event:2:5", "20 B\n30 A\n40 A\n50 C\nend 60\n");
	good(pes_clip_spec, "event:11:11", "110 D\nend 120\n");
}
END_TEST

START_TEST(test_clip_bad)
{
	static const struct {
		const char *spec, *msg;
	} v[] = {
		{ "", "bad --clip '': expected time:T0:T1 or event:E0:E1" },
		{ "time", "bad --clip 'time'" },
		{ "time:5", "bad --clip 'time:5'" },
		{ "time:a:b", "bad --clip 'time:a:b'" },
		{ "time:1:2:3", "bad --clip 'time:1:2:3'" },
		{ "event:1", "bad --clip 'event:1'" },
		{ "frames:1:2", "bad --clip 'frames:1:2'" },
		{ "event:-1:4", "event range -1:4 is outside the sequence" },
		{ "event:12:20", "event range 12:20 is outside the sequence" },
		{ "time:500:600",
		  "time range 500:600 is outside the sequence" },
		{ "time:-10:15", "time range -10:15 is outside the sequence "
				 "(times are not negative)" },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		bad(pes_clip_spec, v[i].spec, v[i].msg);
}
END_TEST

START_TEST(test_filter_good)
{
	/* C and D take 10 of 120 each, under a tenth, and occur once: their
	 * time goes to the entries before them */
	static const char no_cd[] = "0 A\n10 A\n20 B\n30 A\n40 A\n60 A\n70 A\n"
				    "80 B\n90 A\n100 A\nend 120\n";

	good(pes_filter_spec, "time:0.1", no_cd);
	good(pes_filter_spec, "event:2", no_cd);
	good(pes_filter_spec, "time:0", PAPER_PES);
	good(pes_filter_spec, "frequency:0.01:0.02", PAPER_PES);
	good(pes_filter_spec, "frequency:0.01:0.02:1", PAPER_PES);
}
END_TEST

START_TEST(test_filter_bad)
{
	static const char *const v[] = {
		"",
		"time",
		"time:x",
		"time:1.5",
		"time:-0.1",
		"event:",
		"event:-2",
		"event:2x",
		"frequency:0.1",
		"frequency:0.1:0.2:0.5:9",
		"frequency:0.1:0.2:0",
		"frequency:0.1:0.2:1.5",
		"frequency:a:b",
		"often:2",
	};
	char msg[256];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(msg, sizeof(msg),
			 "bad --filter '%s': expected time:FRACTION (0 to 1), "
			 "event:K or frequency:F0:F1[:SHARE]",
			 v[i]);
		bad(pes_filter_spec, v[i], msg);
	}
	/* well formed, but nothing would be left */
	bad(pes_filter_spec, "event:100",
	    "the event filter would remove every state");
}
END_TEST

START_TEST(test_aggregate_good)
{
	char path[PATH_MAX];
	char spec[PATH_MAX + 8];
	FILE *f;
	int fd;

	good(pes_aggregate_spec, "sequence:A A -> Y",
	     "0 Y\n20 B\n30 Y\n50 C\n60 Y\n80 B\n90 Y\n110 D\nend 120\n");
	good(pes_aggregate_spec, "sequence:A A B -> Z",
	     "0 Z\n30 A\n40 A\n50 C\n60 Z\n90 A\n100 A\n110 D\nend 120\n");
	good(pes_aggregate_spec, "static:C D -> E",
	     "0 A\n10 A\n20 B\n30 A\n40 A\n50 E\n60 A\n70 A\n80 B\n90 A\n"
	     "100 A\n110 E\nend 120\n");
	/* between the first B and the C after it; the second B has none */
	good(pes_aggregate_spec, "parallel:B C -> P",
	     "0 A\n10 A\n20 B\n30 P\n50 C\n60 A\n70 A\n80 B\n90 A\n100 A\n"
	     "110 D\nend 120\n");
	/* a rules file */
	fd = mkstemp(test_tmp_name(path, sizeof(path), "pes-rules-XXXXXX"));
	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
	fputs("# the rare ones\nC D -> R\n", f);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(spec, sizeof(spec), "rules:%s", path);
	good(pes_aggregate_spec, spec,
	     "0 A\n10 A\n20 B\n30 A\n40 A\n50 R\n60 A\n70 A\n80 B\n90 A\n"
	     "100 A\n110 R\nend 120\n");
	unlink(path);
}
END_TEST

/* undo takes back the last sequence aggregation */
START_TEST(test_aggregate_undo)
{
	struct pes p;

	paper(&p);
	ck_assert_int_eq(pes_aggregate_spec(&p, "sequence:A A -> Y"), 0);
	ck_assert_uint_eq(p.n, 8);
	ck_assert_int_eq(pes_aggregate_spec(&p, "undo"), 0);
	ck_assert_uint_eq(p.n, 12);
	ck_assert_int_eq(pes_state(&p, "Y", 0), -ENOENT);
	pes_release(&p);
	bad(pes_aggregate_spec, "undo", "nothing to undo");
}
END_TEST

START_TEST(test_aggregate_bad)
{
	static const struct {
		const char *spec, *msg;
	} v[] = {
		{ "", "bad --aggregate '': expected rules:FILE, static:RULE, "
		      "sequence:RULE, parallel:RULE or undo" },
		{ "merge:A -> B", "bad --aggregate 'merge:A -> B'" },
		{ "undo:1", "bad --aggregate 'undo:1'" },
		{ "sequence:A A", "bad rule 'A A': expected 'STATE... -> "
				  "AGGREGATE'" },
		{ "sequence:A A ->", "bad rule 'A A ->': expected one name "
				     "after '->'" },
		{ "sequence:A A -> X Y", "expected one name after '->'" },
		{ "sequence:A Q -> X", "rule 'A Q -> X' names no state 'Q'" },
		{ "sequence:A -> X", "needs 2 states or more" },
		{ "sequence:D A -> X", "does not occur" },
		{ "sequence:A A -> B", "aggregate 'B' is already a state" },
		{ "parallel:A B C -> X", "a parallel rule names two states, "
					 "from and to: 'A B C -> X'" },
		{ "parallel:A -> X", "a parallel rule names two states" },
		{ "parallel:D A -> X", "no state lies between 'D' and 'A'" },
		{ "static:A Q -> X", "rule: the rule names no state 'Q'" },
		{ "static:A B", "rule: expected 'STATE... -> AGGREGATE'" },
		{ "rules:/nonexistent/rules",
		  "cannot open '/nonexistent/rules': No such file or "
		  "directory" },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		bad(pes_aggregate_spec, v[i].spec, v[i].msg);
}
END_TEST

START_TEST(test_numbers)
{
	uint64_t u;
	double d;
	int64_t a, b;

	ck_assert_int_eq(pes_parse_u64("0", &u), 0);
	ck_assert_uint_eq(u, 0);
	ck_assert_int_eq(pes_parse_u64("18446744073709551615", &u), 0);
	ck_assert_uint_eq(u, UINT64_MAX);
	ck_assert_int_eq(pes_parse_u64("18446744073709551616", &u), -EINVAL);
	ck_assert_int_eq(pes_parse_u64("-1", &u), -EINVAL);
	ck_assert_int_eq(pes_parse_u64("+1", &u), -EINVAL);
	ck_assert_int_eq(pes_parse_u64("", &u), -EINVAL);
	ck_assert_int_eq(pes_parse_u64("12a", &u), -EINVAL);

	ck_assert_int_eq(pes_parse_double("0.25", &d), 0);
	ck_assert(d == 0.25);
	ck_assert_int_eq(pes_parse_double("-1e3", &d), 0);
	ck_assert(d == -1000);
	ck_assert_int_eq(pes_parse_double("nan", &d), -EINVAL);
	ck_assert_int_eq(pes_parse_double("1e999", &d), -EINVAL);
	ck_assert_int_eq(pes_parse_double("", &d), -EINVAL);
	ck_assert_int_eq(pes_parse_double("0.5x", &d), -EINVAL);

	ck_assert_int_eq(pes_parse_range("-3:7", &a, &b), 0);
	ck_assert_int_eq(a, -3);
	ck_assert_int_eq(b, 7);
	ck_assert_int_eq(pes_parse_range("3", &a, &b), -EINVAL);
	ck_assert_int_eq(pes_parse_range("3:", &a, &b), -EINVAL);
	ck_assert_int_eq(pes_parse_range(":3", &a, &b), -EINVAL);
	ck_assert_int_eq(pes_parse_range("1:2:3", &a, &b), -EINVAL);
	ck_assert_int_eq(pes_parse_range("1:99999999999999999999", &a, &b),
			 -EINVAL);
}
END_TEST

Suite *pes_spec_suite(void)
{
	Suite *s = suite_create("pes-spec");
	TCase *tc = tcase_create("spec");

	tcase_add_test(tc, test_clip_good);
	tcase_add_test(tc, test_clip_bad);
	tcase_add_test(tc, test_filter_good);
	tcase_add_test(tc, test_filter_bad);
	tcase_add_test(tc, test_aggregate_good);
	tcase_add_test(tc, test_aggregate_undo);
	tcase_add_test(tc, test_aggregate_bad);
	tcase_add_test(tc, test_numbers);
	suite_add_tcase(s, tc);
	return s;
}
