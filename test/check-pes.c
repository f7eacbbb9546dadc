/*
 * check-pes.c - the program execution sequence engine (ccsg/pes/pes.h) on
 * small hand-made sequences whose answers are known: the AABAACAABAAD
 * example of Chitra's Section 2.3.3 (AA -> Y gives YBYCYBYD, AAB -> Z
 * gives ZAACZAAD, undo), each filter, each aggregation, aggregates of
 * aggregates, clipping, the model (chain, occupancy statistics, the
 * steady-state test), the simulation and the periodogram.
 */
#include <check.h>
#include <sqlite3.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pes/pes-plot.h"
#include "pes/pes-trace.h"
#include "pes/pes.h"
#include "test-tmp.h"

/* The PES of the string s, one state a character, entry i at i * dt. */
static void make(struct pes *p, const char *s, int64_t dt)
{
	ck_assert_int_eq(pes_init(p, "us"), 0);
	for (size_t i = 0; s[i]; i++) {
		char name[2] = { s[i], 0 };
		int64_t st = pes_state(p, name, 1);

		ck_assert_int_ge(st, 0);
		ck_assert_int_eq(pes_append(p, (int64_t)i * dt, (uint32_t)st),
				 0);
	}
	p->end = (int64_t)strlen(s) * dt;
	p->end_known = 1;
}

/* The sequence as names joined by spaces. */
static const char *names(const struct pes *p)
{
	static char buf[4096];
	size_t k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < p->n && k + 64 < sizeof(buf); i++)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%s",
				      i ? " " : "", p->states[p->seq[i]].name);
	return buf;
}

static uint32_t id(struct pes *p, const char *name)
{
	int64_t s = pes_state(p, name, 0);

	ck_assert_int_ge(s, 0);
	return (uint32_t)s;
}

static int read_str(struct pes *p, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ck_assert_ptr_nonnull(f);
	memset(p, 0, sizeof(*p));
	ret = pes_read(p, f, "test.pes");
	fclose(f);
	return ret;
}

START_TEST(test_read)
{
	struct pes p;

	ck_assert_int_eq(read_str(&p, "# a comment\n\ntimebase ms\n"
				      "0 think\n5 eat\n  7 think\nend 12\n"),
			 0);
	ck_assert_str_eq(p.unit, "ms");
	ck_assert_double_eq(p.seconds_per_unit, 1e-3);
	ck_assert_uint_eq(p.n, 3);
	ck_assert_uint_eq(p.nstates, 2);
	ck_assert_str_eq(names(&p), "think eat think");
	ck_assert_int_eq(pes_occupancy(&p, 0), 5);
	ck_assert_int_eq(pes_occupancy(&p, 2), 5);
	pes_release(&p);

	/* no end: the last entry's occupancy is unknown */
	ck_assert_int_eq(read_str(&p, "timebase us\n0 a\n3 b\n"), 0);
	ck_assert_int_eq(pes_occupancy(&p, 1), -1);
	pes_release(&p);

	static const char *const bad[] = {
		"0 a\n",			    /* no time base */
		"timebase hours\n0 a\n",	    /* unknown unit */
		"timebase us\n0 a\n5\n",	    /* no state */
		"timebase us\n0 a\nx b\n",	    /* bad time */
		"timebase us\n-5 a\n3 b\n",	    /* a negative time */
		"timebase us\n0 a\nend -1\n",	    /* a negative end */
		"timebase us\n5 a\n3 b\n",	    /* time goes back */
		"timebase us\n0 a b\n",		    /* three words */
		"timebase us\n0 a\nend 10\n11 b\n", /* after end */
		"timebase us\n5 a\nend 4\n",	    /* end before */
		"timebase us\n",		    /* empty */
		"timebase us\n0 a\ntimebase ms\n",  /* twice */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(read_str(&p, bad[i]) == -EINVAL, "%s", bad[i]);
		pes_release(&p);
	}
}
END_TEST

START_TEST(test_write_round_trip)
{
	struct pes p, q;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	make(&p, "AABAACAABAAD", 10);
	ck_assert_int_eq(pes_write(&p, f), 0);
	fclose(f);
	ck_assert_int_eq(read_str(&q, buf), 0);
	ck_assert_str_eq(names(&q), "A A B A A C A A B A A D");
	ck_assert_int_eq(q.end, 120);
	free(buf);
	pes_release(&p);
	pes_release(&q);
}
END_TEST

/* Section 2.3.3: AA -> Y gives YBYCYBYD, AAB -> Z gives ZAACZAAD. */
START_TEST(test_sequence_paper)
{
	struct pes p;
	uint32_t aa[2], aab[3];

	make(&p, "AABAACAABAAD", 10);
	aa[0] = aa[1] = aab[0] = aab[1] = id(&p, "A");
	aab[2] = id(&p, "B");
	ck_assert_int_eq(pes_aggregate_sequence(&p, aa, 2, "Y"), 0);
	ck_assert_str_eq(names(&p), "Y B Y C Y B Y D");
	/* Y lasts the two A's it stands for */
	ck_assert_int_eq(pes_occupancy(&p, 0), 20);
	ck_assert_int_eq(p.states[id(&p, "Y")].kind, PES_SEQUENCE);
	ck_assert_uint_eq(p.states[id(&p, "Y")].nmembers, 2);

	ck_assert_int_eq(pes_undo(&p), 0);
	ck_assert_str_eq(names(&p), "A A B A A C A A B A A D");
	ck_assert_int_eq(pes_state(&p, "Y", 0), -ENOENT);
	ck_assert_int_eq(pes_occupancy(&p, 1), 10);

	ck_assert_int_eq(pes_aggregate_sequence(&p, aab, 3, "Z"), 0);
	ck_assert_str_eq(names(&p), "Z A A C Z A A D");
	ck_assert_int_eq(pes_occupancy(&p, 0), 30);
	ck_assert_int_eq(pes_undo(&p), 0);
	ck_assert_int_eq(pes_undo(&p), -ENOENT);
	pes_release(&p);
}
END_TEST

/* Aggregates of aggregates: Y = AA, then W = Y B. */
START_TEST(test_sequence_nested)
{
	struct pes p;
	uint32_t aa[2], yb[2], cd[2];

	make(&p, "AABAACAABAAD", 10);
	aa[0] = aa[1] = id(&p, "A");
	ck_assert_int_eq(pes_aggregate_sequence(&p, aa, 2, "Y"), 0);
	yb[0] = id(&p, "Y");
	yb[1] = id(&p, "B");
	ck_assert_int_eq(pes_aggregate_sequence(&p, yb, 2, "W"), 0);
	ck_assert_str_eq(names(&p), "W Y C W Y D");
	ck_assert_int_eq(pes_occupancy(&p, 0), 30);
	/* a name taken, a sequence that never occurs */
	ck_assert_int_eq(pes_aggregate_sequence(&p, yb, 2, "W"), -EINVAL);
	cd[0] = id(&p, "C");
	cd[1] = id(&p, "D");
	ck_assert_int_eq(pes_aggregate_sequence(&p, cd, 2, "V"), -ENOENT);
	ck_assert_str_eq(names(&p), "W Y C W Y D");
	ck_assert_int_eq(pes_undo(&p), 0);
	ck_assert_str_eq(names(&p), "Y B Y C Y B Y D");
	pes_release(&p);
}
END_TEST

START_TEST(test_static)
{
	struct pes p;
	static const char rules[] = "# acquiring or not\n"
				    "B C D -> X\n\nA -> N\n";
	FILE *f;

	make(&p, "AABAACAABAAD", 10);
	f = fmemopen((void *)rules, strlen(rules), "r");
	ck_assert_int_eq(pes_aggregate_static(&p, f, "rules"), 0);
	fclose(f);
	/* consecutive entries of an aggregate are one: the program stays */
	ck_assert_str_eq(names(&p), "N X N X N X N X");
	ck_assert_int_eq(pes_occupancy(&p, 0), 20);
	ck_assert_int_eq(pes_occupancy(&p, 1), 10);
	ck_assert_int_eq(p.states[id(&p, "X")].kind, PES_STATIC);
	ck_assert_uint_eq(p.states[id(&p, "X")].nmembers, 3);
	/* an aggregate of aggregates */
	ck_assert_int_eq(pes_aggregate_rule(&p, "N X -> ALL"), 0);
	ck_assert_str_eq(names(&p), "ALL");
	ck_assert_int_eq(pes_occupancy(&p, 0), 120);
	pes_release(&p);

	make(&p, "AABAACAABAAD", 10);
	/* a rule naming no state, a taken name, a state in two rules */
	ck_assert_int_eq(pes_aggregate_rule(&p, "A Q -> X"), -EINVAL);
	ck_assert_int_eq(pes_aggregate_rule(&p, "A B -> C"), -EINVAL);
	ck_assert_int_eq(pes_aggregate_rule(&p, "A B"), -EINVAL);
	ck_assert_int_eq(pes_aggregate_rule(&p, "-> X"), -EINVAL);
	f = fmemopen((void *)"A -> X\nB A -> Y\n", 16, "r");
	ck_assert_int_eq(pes_aggregate_static(&p, f, "rules"), -EINVAL);
	fclose(f);
	ck_assert_str_eq(names(&p), "A A B A A C A A B A A D");
	pes_release(&p);
}
END_TEST

/* Between S and E: paths "a" twice, "b c" once, S E at once once. */
START_TEST(test_parallel)
{
	struct pes p;
	const struct pes_state *ps;

	make(&p, "SaESbcESaESE", 10);
	ck_assert_int_eq(
		pes_aggregate_parallel(&p, id(&p, "S"), id(&p, "E"), "P"), 0);
	ck_assert_str_eq(names(&p), "S P E S P E S P E S E");
	ps = &p.states[id(&p, "P")];
	ck_assert_int_eq(ps->kind, PES_PARALLEL);
	ck_assert_uint_eq(ps->npaths, 2);
	ck_assert_uint_eq(ps->direct, 1);
	ck_assert_uint_eq(ps->paths[0].len, 1);
	ck_assert_uint_eq(ps->paths[0].count, 2);
	ck_assert_double_eq(ps->paths[0].sojourn, 20);
	ck_assert_uint_eq(ps->paths[1].len, 2);
	ck_assert_uint_eq(ps->paths[1].count, 1);
	ck_assert_double_eq(ps->paths[1].sojourn, 20);
	/* the occupancy of each P entry is its path's sojourn */
	ck_assert_int_eq(pes_occupancy(&p, 4), 20);
	/* nothing between E and S */
	ck_assert_int_eq(
		pes_aggregate_parallel(&p, id(&p, "E"), id(&p, "S"), "Q"),
		-ENOENT);
	pes_release(&p);
}
END_TEST

START_TEST(test_filter_time)
{
	struct pes p;

	/* A 0-90, B 90-100, A 100-190, B 190-200 */
	ck_assert_int_eq(read_str(&p, "timebase us\n0 A\n90 B\n100 A\n190 B\n"
				      "end 200\n"),
			 0);
	ck_assert_int_eq(pes_filter_time(&p, 0.2), 0);
	ck_assert_str_eq(names(&p), "A A");
	/* B's time went to the A before it */
	ck_assert_int_eq(pes_occupancy(&p, 0), 100);
	ck_assert_int_eq(pes_occupancy(&p, 1), 100);
	ck_assert_int_ne(p.states[id(&p, "B")].removed, 0);
	/* every state would go */
	ck_assert_int_eq(pes_filter_time(&p, 1.5), -EINVAL);
	ck_assert_str_eq(names(&p), "A A");
	pes_release(&p);
}
END_TEST

START_TEST(test_filter_event)
{
	struct pes p;

	make(&p, "AABAACAABAAD", 10);
	ck_assert_int_eq(pes_filter_event(&p, 2), 0);
	ck_assert_str_eq(names(&p), "A A B A A A A B A A");
	ck_assert_int_eq(pes_filter_event(&p, 3), 0);
	ck_assert_str_eq(names(&p), "A A A A A A A A");
	ck_assert_int_eq(pes_filter_event(&p, 9), -EINVAL);
	ck_assert_uint_eq(p.n, 8);
	pes_release(&p);
}
END_TEST

/* P every 4th event (all its power at 0.25 and 0.5 cycles per event),
 * A and B at random in between. */
START_TEST(test_filter_freq)
{
	char s[4097];
	unsigned seed = 7;
	struct pes p;

	for (size_t i = 0; i < 4096; i++)
		s[i] = i % 4 == 0 ? 'P' : rand_r(&seed) % 2 ? 'A' : 'B';
	s[4096] = 0;
	make(&p, s, 1);
	ck_assert_int_eq(pes_filter_freq(&p, 0.2, 0.3, 0.4), 0);
	ck_assert_int_eq(p.states[id(&p, "P")].removed, 1);
	ck_assert_int_eq(p.states[id(&p, "A")].removed, 0);
	ck_assert_int_eq(p.states[id(&p, "B")].removed, 0);
	ck_assert_uint_eq(p.n, 3072);
	ck_assert_int_eq(pes_filter_freq(&p, 0.3, 0.2, 0.4), -EINVAL);
	pes_release(&p);

	make(&p, "ABABABABABABABAB", 1);
	/* both concentrate at 0.5: nothing would be left */
	ck_assert_int_eq(pes_filter_freq(&p, 0.45, 0.5, 0.9), -EINVAL);
	ck_assert_uint_eq(p.n, 16);
	pes_release(&p);
}
END_TEST

START_TEST(test_clip)
{
	struct pes p;

	make(&p, "ABCD", 10);
	ck_assert_int_eq(pes_clip_time(&p, 15, 35), 0);
	ck_assert_str_eq(names(&p), "B C D");
	ck_assert_int_eq(p.t[0], 15);
	ck_assert_int_eq(p.end, 35);
	ck_assert_int_eq(pes_occupancy(&p, 0), 5);
	ck_assert_int_eq(pes_occupancy(&p, 2), 5);
	ck_assert_int_eq(pes_clip_time(&p, 50, 60), -ERANGE);
	ck_assert_int_eq(pes_clip_time(&p, 0, 10), -ERANGE);
	ck_assert_int_eq(pes_clip_time(&p, 20, 20), -ERANGE);
	pes_release(&p);

	make(&p, "ABCD", 10);
	ck_assert_int_eq(pes_clip_event(&p, 1, 2), 0);
	ck_assert_str_eq(names(&p), "B C");
	ck_assert_int_eq(p.end, 30);
	ck_assert_int_eq(pes_clip_event(&p, 1, 2), -ERANGE);
	ck_assert_int_eq(pes_clip_event(&p, 1, 0), -ERANGE);
	pes_release(&p);
}
END_TEST

/* ABC repeated, A 10, B 20, C 30 (+/- 1 in turn): a deterministic
 * cycle in steady state. */
START_TEST(test_model_cycle)
{
	struct pes p;
	struct pes_model m;
	int64_t t = 0;

	pes_init(&p, "us");
	for (int i = 0; i < 300; i++) {
		char name[2] = { (char)('A' + i % 3), 0 };

		pes_append(&p, t, (uint32_t)pes_state(&p, name, 1));
		t += 10 * (i % 3 + 1) + (i / 3 % 2 ? 1 : -1);
	}
	p.end = t;
	p.end_known = 1;
	ck_assert_int_eq(pes_model_build(&p, &m, 4, 0.1), 0);
	ck_assert_uint_eq(m.ntr, 3);
	ck_assert_uint_eq(m.tr[0].from, id(&p, "A"));
	ck_assert_uint_eq(m.tr[0].to, id(&p, "B"));
	ck_assert_double_eq(m.tr[0].p, 1);
	ck_assert_uint_eq(m.tr[2].from, id(&p, "C"));
	ck_assert_uint_eq(m.tr[2].to, id(&p, "A"));
	ck_assert_uint_eq(m.tr[2].count, 99);
	const struct pes_stats *b = &m.st[id(&p, "B")];
	ck_assert_uint_eq(b->count, 100);
	ck_assert_double_eq_tol(b->mean, 20, 1e-9);
	/* 50 of 19 and 50 of 21: sd = sqrt(100 / 99) */
	ck_assert_double_eq_tol(b->sd, sqrt(100.0 / 99), 1e-9);
	ck_assert_int_eq(b->min, 19);
	ck_assert_int_eq(b->max, 21);
	ck_assert_uint_eq(b->hist[0], 50);
	ck_assert_uint_eq(b->hist[3], 50);
	ck_assert_double_eq_tol(m.st[id(&p, "C")].time_share, 0.5, 1e-3);
	ck_assert_int_eq(m.steady, 1);
	pes_model_release(&m);
	pes_release(&p);
}
END_TEST

/* A and B alternate, A lasting longer and longer: the rate of A -> B
 * falls, no steady state. */
START_TEST(test_model_not_steady)
{
	struct pes p;
	struct pes_model m;
	int64_t t = 0;

	pes_init(&p, "us");
	for (int i = 0; i < 400; i++) {
		pes_append(&p, t,
			   (uint32_t)pes_state(&p, i % 2 ? "B" : "A", 1));
		t += i % 2 ? 5 : 10 + i;
	}
	ck_assert_int_eq(pes_model_build(&p, &m, 10, 0.1), 0);
	ck_assert_int_eq(m.steady, 0);
	ck_assert_uint_eq(m.worst_from, id(&p, "A"));
	ck_assert(m.max_change > 0.5);
	pes_model_release(&m);
	pes_release(&p);

	/* too short to tell */
	make(&p, "ABAB", 10);
	ck_assert_int_eq(pes_model_build(&p, &m, 10, 0.1), 0);
	ck_assert_int_eq(m.steady, -1);
	pes_model_release(&m);
	pes_release(&p);
}
END_TEST

/* A two-state chain with known probabilities: the model found in the
 * simulated PES is the one fitted to the observed PES. */
START_TEST(test_simulate)
{
	struct pes p, q;
	struct pes_model m, mq;
	unsigned seed = 11;
	int64_t t = 0;
	int s = 0;

	pes_init(&p, "us");
	uint32_t a = (uint32_t)pes_state(&p, "A", 1);
	uint32_t b = (uint32_t)pes_state(&p, "B", 1);
	for (int i = 0; i < 40000; i++) {
		pes_append(&p, t, s ? b : a);
		t += s ? 5 + rand_r(&seed) % 11 : 100 + rand_r(&seed) % 21;
		/* A -> B 0.7, A -> A 0.3; B -> A always */
		s = s ? 0 : rand_r(&seed) % 10 < 7;
	}
	p.end = t;
	p.end_known = 1;
	ck_assert_int_eq(pes_model_build(&p, &m, 10, 0.1), 0);
	ck_assert_double_eq_tol(m.tr[1].p, 0.7, 0.02); /* A -> B */
	ck_assert_int_eq(m.steady, 1);
	ck_assert_int_eq(pes_simulate(&p, &m, 40000, 1, &q), 0);
	ck_assert_uint_eq(q.n, 40000);
	ck_assert_uint_eq(q.nstates, 2);
	ck_assert_int_eq(pes_model_build(&q, &mq, 10, 0.1), 0);
	ck_assert_uint_eq(mq.ntr, 3);
	for (size_t k = 0; k < 3; k++)
		ck_assert_double_eq_tol(mq.tr[k].p, m.tr[k].p, 0.02);
	for (size_t st = 0; st < 2; st++) {
		ck_assert_double_eq_tol(mq.st[st].mean, m.st[st].mean,
					0.02 * m.st[st].mean);
		ck_assert_double_eq_tol(mq.st[st].time_share,
					m.st[st].time_share, 0.02);
		/* drawn from the observed occupancies */
		ck_assert_int_ge(mq.st[st].min, m.st[st].min);
		ck_assert_int_le(mq.st[st].max, m.st[st].max);
	}
	pes_model_release(&mq);
	pes_release(&q);
	/* the same seed, the same sequence */
	ck_assert_int_eq(pes_simulate(&p, &m, 100, 5, &q), 0);
	struct pes r;
	ck_assert_int_eq(pes_simulate(&p, &m, 100, 5, &r), 0);
	ck_assert_mem_eq(q.seq, r.seq, 100 * sizeof(*q.seq));
	ck_assert_mem_eq(q.t, r.t, 100 * sizeof(*q.t));
	pes_release(&q);
	pes_release(&r);
	pes_model_release(&m);
	pes_release(&p);
}
END_TEST

START_TEST(test_periodogram)
{
	struct pes p;
	double *pw, unit;
	size_t nf, best = 0;

	/* event view of ABAB...: everything at 0.5 cycles per event */
	make(&p, "ABABABABABABABAB", 10);
	ck_assert_int_eq(pes_periodogram(&p, 0, 0, -1, &pw, &nf, &unit), 0);
	ck_assert_uint_eq(nf, 9);
	ck_assert_double_eq(unit, 1.0 / 16);
	for (size_t j = 0; j + 1 < nf; j++)
		ck_assert_double_eq_tol(pw[j], 0, 1e-9);
	/* 16 samples of +-0.5: |X|^2 / N = 64 / 16 */
	ck_assert_double_eq_tol(pw[8], 4, 1e-9);
	free(pw);
	pes_release(&p);

	/* time view: a square wave of period 100 us, 10 periods sampled
	 * every us: the peak at bin 10, 10 kHz */
	pes_init(&p, "us");
	for (int i = 0; i < 20; i++)
		pes_append(&p, 50 * i,
			   (uint32_t)pes_state(&p, i % 2 ? "B" : "A", 1));
	p.end = 1000;
	p.end_known = 1;
	ck_assert_int_eq(pes_periodogram(&p, 1, 1, -1, &pw, &nf, &unit), 0);
	ck_assert_uint_eq(nf, 501);
	ck_assert_double_eq_tol(unit, 1000, 1e-6);
	for (size_t j = 1; j < nf; j++)
		if (pw[j] > pw[best])
			best = j;
	ck_assert_uint_eq(best, 10);
	free(pw);
	/* the indicator of B: the same peak */
	ck_assert_int_eq(
		pes_periodogram(&p, 1, 1, id(&p, "B"), &pw, &nf, &unit), 0);
	/* a square wave: odd harmonics at 1/9, 1/25 of the fundamental */
	ck_assert_double_gt(pw[10], 8 * pw[30]);
	ck_assert_double_gt(pw[30], 100 * pw[20]);
	free(pw);
	ck_assert_int_eq(pes_periodogram(&p, 1, 0, -1, &pw, &nf, &unit),
			 -EINVAL);
	pes_release(&p);
}
END_TEST

static void square(const void *ctx, size_t i, double *x, double *y)
{
	(void)ctx;
	*x = (double)i;
	*y = (double)(i % 2);
}

START_TEST(test_plot)
{
	static const char *const labels[] = { "A", "B" };
	struct pes_plot pl = { "t",    "x",    "y",  PES_PLOT_STEP,
			       100000, square, NULL, 0,
			       100000, 0,      1,    labels,
			       2,      0 };
	char path[4096], head[8] = { 0 };
	FILE *f;

	for (int png = 0; png < 2; png++) {
		snprintf(path, sizeof(path), "%s/pes-plot.%s", test_tmp_dir(),
			 png ? "png" : "svg");
		pl.mode = png ? PES_PLOT_BARS : PES_PLOT_STEP;
		ck_assert_int_eq(pes_plot_write(&pl, path, png), 0);
		ck_assert_ptr_nonnull(f = fopen(path, "r"));
		ck_assert_uint_eq(fread(head, 1, 5, f), 5);
		fclose(f);
		ck_assert_str_eq(head, png ? "\x89PNG\r" : "<?xml");
		unlink(path);
	}
	ck_assert_int_eq(pes_plot_write(&pl, "/nonexistent/dir/x.svg", 0), -1);
}
END_TEST

static struct ccsg_call fake_call(int32_t cproc, int32_t ctid, int64_t a,
				  int64_t b, int32_t sproc, int32_t stid,
				  int64_t c, int64_t d, uint32_t proc)
{
	struct ccsg_call k;

	memset(&k, 0, sizeof(k));
	k.prog = 0x20000001;
	k.vers = 1;
	k.proc = proc;
	k.symbol = k.peer = -1;
	k.client_proc = cproc;
	k.client_tid = ctid;
	k.stub_start_ns = a;
	k.stub_end_exit_ns = b;
	k.server_proc = sproc;
	k.server_tid = stid;
	k.skel_start_exit_ns = c;
	k.skel_end_ns = d;
	return k;
}

/* A server thread (1, 1): serving proc1 100-200, calling proc2 from
 * inside it 120-150; serving proc1 300-400 and again 400-450; a call
 * whose skeleton end is lost; exited at 500. */
START_TEST(test_from_thread)
{
	const int64_t X = CCSG_NONE;
	struct ccsg_call calls[] = {
		fake_call(2, 7, 90, 210, 1, 1, 100, 200, 1),
		fake_call(1, 1, 120, 150, 3, 3, 125, 145, 2),
		fake_call(2, 7, 290, 410, 1, 1, 300, 400, 1),
		fake_call(2, 7, 395, 460, 1, 1, 400, 450, 1),
		fake_call(2, 7, 470, 480, 1, 1, 472, X, 1),
	};
	struct ccsg_thread threads[2];
	struct ccsg_trace t;
	struct idl_names nm;
	struct pes p;
	size_t skipped;

	memset(&t, 0, sizeof(t));
	memset(threads, 0, sizeof(threads));
	t.path = "fake.db";
	t.calls = calls;
	t.ncalls = sizeof(calls) / sizeof(calls[0]);
	threads[0] = (struct ccsg_thread){
		.proc = 1, .tid = 1, .start_mono_ns = X, .end_mono_ns = 500
	};
	threads[1] = (struct ccsg_thread){
		.proc = 4, .tid = 4, .start_mono_ns = X, .end_mono_ns = X
	};
	t.threads = threads;
	t.nthreads = 2;
	ck_assert_int_ge(hashmap_put(&t.thread_map, hashmap_key2(1, 1), 0), 0);
	ck_assert_int_ge(hashmap_put(&t.thread_map, hashmap_key2(4, 4), 1), 0);
	idl_names_init(&nm);
	ck_assert_int_eq(pes_from_thread(&p, &t, NULL, &nm, 1, 1, &skipped), 0);
	ck_assert_uint_eq(skipped, 1);
	ck_assert_str_eq(p.unit, "ns");
	ck_assert_str_eq(names(&p),
			 "serving:0x20000001::proc1 waiting:0x20000001::proc2 "
			 "serving:0x20000001::proc1 running "
			 "serving:0x20000001::proc1 running exited");
	static const int64_t want[] = { 100, 120, 150, 200, 300, 450, 500 };
	for (size_t i = 0; i < 7; i++)
		ck_assert_int_eq(p.t[i], want[i]);
	pes_release(&p);
	/*
	 * With its lock events: a lock taken at 210 (none held before: it
	 * was free), a second waited for from 220, got at 240 (holding:2),
	 * one released at 260 (holding:1), a wait inside the serving call
	 * from 320 to 330 (shows over serving), the last lock released at
	 * 350 while serving; after 450 running again.
	 */
	{
		static const char *const rows[] = {
			"1, 210, 'acquired', 16", "1, 220, 'wait', 32",
			"1, 240, 'acquired', 32", "1, 260, 'released', 16",
			"1, 320, 'wait', 48",	  "1, 330, 'failed', 48",
			"1, 350, 'released', 32", "2, 230, 'wait', 16",
		};
		/* the release at 350 is under the serving call: unseen */
		static const int64_t at[] = { 100, 120, 150, 200, 210, 220, 240,
					      260, 300, 320, 330, 450, 500 };
		sqlite3 *db;
		char sql[256];

		ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
		ck_assert_int_eq(
			sqlite3_exec(db,
				     "CREATE TABLE lock_events(proc_id, seq, "
				     "tid, mono_ns, op, lock, kind)",
				     NULL, NULL, NULL),
			SQLITE_OK);
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			snprintf(sql, sizeof(sql),
				 "INSERT INTO lock_events VALUES(1, %zu, %s, "
				 "'mutex')",
				 i, rows[i]);
			ck_assert_int_eq(
				sqlite3_exec(db, sql, NULL, NULL, NULL),
				SQLITE_OK);
		}
		ck_assert_int_eq(
			pes_from_thread(&p, &t, db, &nm, 1, 1, &skipped), 0);
		ck_assert_str_eq(names(&p),
				 "serving:0x20000001::proc1 "
				 "waiting:0x20000001::proc2 "
				 "serving:0x20000001::proc1 running holding:1 "
				 "waiting-for-lock holding:2 holding:1 "
				 "serving:0x20000001::proc1 waiting-for-lock "
				 "serving:0x20000001::proc1 running exited");
		ck_assert_uint_eq(p.n, sizeof(at) / sizeof(at[0]));
		for (size_t i = 0; i < p.n; i++)
			ck_assert_msg(p.t[i] == at[i], "entry %zu at %lld", i,
				      (long long)p.t[i]);
		pes_release(&p);
		sqlite3_close(db);
	}
	/* with its start known, running from there (what it did before its
	 * first call counts) */
	threads[0].start_mono_ns = 50;
	ck_assert_int_eq(pes_from_thread(&p, &t, NULL, &nm, 1, 1, &skipped), 0);
	ck_assert(
		!strncmp(names(&p), "running serving:0x20000001::proc1 ", 34));
	ck_assert_int_eq(p.t[0], 50);
	ck_assert_int_eq(p.t[1], 100);
	pes_release(&p);
	threads[0].start_mono_ns = X;
	/* a thread of no call, a thread not in the trace */
	ck_assert_int_eq(pes_from_thread(&p, &t, NULL, &nm, 4, 4, &skipped),
			 -ENOENT);
	ck_assert_int_eq(pes_from_thread(&p, &t, NULL, &nm, 9, 9, &skipped),
			 -ENOENT);
	hashmap_release(&t.thread_map);
	idl_names_release(&nm);
}
END_TEST

/* Chitra's N-tuple: two sequences, from the later start, an entry at
 * every change of either, named by both states. */
START_TEST(test_tuple)
{
	struct pes parts[2], out;
	static const char *const a_states[] = { "a", "b", "a" };
	static const int64_t a_t[] = { 0, 10, 20 };
	static const char *const b_states[] = { "x", "y", "y" };
	static const int64_t b_t[] = { 5, 15, 18 };
	static const int64_t want_t[] = { 5, 10, 15, 20 };

	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(pes_init(&parts[k], "ns"), 0);
		for (int i = 0; i < 3; i++) {
			int64_t st = pes_state(
				&parts[k], k ? b_states[i] : a_states[i], 1);

			ck_assert_int_ge(st, 0);
			ck_assert_int_eq(pes_append(&parts[k],
						    k ? b_t[i] : a_t[i],
						    (uint32_t)st),
					 0);
		}
	}
	ck_assert_int_eq(pes_tuple(&out, parts, 2), 0);
	/* y then y again at 18 is no change of the tuple */
	ck_assert_str_eq(names(&out), "a,x b,x b,y a,y");
	ck_assert_uint_eq(out.n, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(out.t[i], want_t[i]);
	pes_release(&out);
	/* an empty part: said, no sequence */
	pes_release(&parts[1]);
	ck_assert_int_eq(pes_init(&parts[1], "ns"), 0);
	ck_assert_int_eq(pes_tuple(&out, parts, 2), -ENOENT);
	pes_release(&parts[0]);
	pes_release(&parts[1]);
}
END_TEST

Suite *pes_suite(void)
{
	Suite *s = suite_create("pes");
	TCase *tc = tcase_create("engine");

	tcase_add_test(tc, test_read);
	tcase_add_test(tc, test_write_round_trip);
	tcase_add_test(tc, test_sequence_paper);
	tcase_add_test(tc, test_sequence_nested);
	tcase_add_test(tc, test_static);
	tcase_add_test(tc, test_parallel);
	tcase_add_test(tc, test_filter_time);
	tcase_add_test(tc, test_filter_event);
	tcase_add_test(tc, test_filter_freq);
	tcase_add_test(tc, test_clip);
	tcase_add_test(tc, test_model_cycle);
	tcase_add_test(tc, test_model_not_steady);
	tcase_add_test(tc, test_simulate);
	tcase_add_test(tc, test_periodogram);
	tcase_add_test(tc, test_plot);
	tcase_add_test(tc, test_from_thread);
	tcase_add_test(tc, test_tuple);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
