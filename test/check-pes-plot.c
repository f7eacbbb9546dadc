/*
 * check-pes-plot.c - the pictures `ccsg pes --view` writes, read back
 * from the SVG (its text is text, each part named by its class): the time
 * view's axis is the time since the sequence's start in ms or s with the
 * absolute start in the title; the frequency view shows by default the
 * range holding 99% of the power (not the empty tail up to Nyquist), or
 * every bin, on a linear or a logarithmic axis; the state names never
 * overlap, however many states there are.
 */
#include <math.h>

#include "e2e.h"
#include "tool-run.h"

#define PES(...)                                                               \
	((const char *[]){ tool_path("ccsg"), "pes", __VA_ARGS__, NULL })

#define MAX_TEXTS 512

/* A <text> element of the SVG: its class, position, size and text. */
struct text {
	char cls[16];
	double x, y, size;
	char s[320];
};

struct svg {
	struct text t[MAX_TEXTS];
	size_t n;
	double left, width; /* the plot area, from its clip path */
	double cx0, cx1;    /* the curve's least and greatest x */
};

static double attr(const char *tag, const char *name)
{
	const char *a = strstr(tag, name);

	ck_assert_msg(a, "no %s in %.80s", name, tag);
	return strtod(a + strlen(name), NULL);
}

/* Run ccsg pes with args, writing out.svg, and read its text back. */
static void plot(struct e2e *t, struct svg *g, const char *const argv[])
{
	struct tool_out r = tool_run(argv);
	char p[PATH_MAX], *doc, *at, *end;

	e2e_assert_exit(r.status, 0, r.err);
	tool_out_release(&r);
	e2e_fmt(p, sizeof(p), "%s/out.svg", t->dir);
	ck_assert_ptr_nonnull(doc = e2e_slurp(p, NULL));
	memset(g, 0, sizeof(*g));
	ck_assert_ptr_nonnull(at = strstr(doc, "<clipPath id=\"plot\"><rect "));
	g->left = attr(at, " x=\"");
	g->width = attr(at, " width=\"");
	/* the curve: one path in the plot area */
	ck_assert_ptr_nonnull(at = strstr(at, "<path d=\""));
	g->cx0 = HUGE_VAL, g->cx1 = -HUGE_VAL;
	for (at += 9; *at == 'M' || *at == 'L';) {
		double x = strtod(at + 1, &end);

		g->cx0 = fmin(g->cx0, x), g->cx1 = fmax(g->cx1, x);
		strtod(end, &at);
	}
	/* then the texts, cut out of doc in place */
	for (at = doc; (at = strstr(at, "<text ")); at = end) {
		struct text *x = &g->t[g->n];
		char *close = strchr(at, '>'), *o = x->s;

		ck_assert_ptr_nonnull(close);
		ck_assert_uint_lt(g->n++, MAX_TEXTS);
		*close = '\0';
		ck_assert_int_eq(sscanf(at, "<text class=\"%15[a-z]\"", x->cls),
				 1);
		x->x = attr(at, " x=\"");
		x->y = attr(at, " y=\"");
		x->size = attr(at, "font-size=\"");
		ck_assert_ptr_nonnull(end = strstr(close + 1, "</text>"));
		*end = '\0';
		for (const char *c = close + 1; *c && o < x->s + 310; c++) {
			if (!strncmp(c, "&amp;", 5))
				*o++ = '&', c += 4;
			else if (!strncmp(c, "&lt;", 4))
				*o++ = '<', c += 3;
			else if (!strncmp(c, "&gt;", 4))
				*o++ = '>', c += 3;
			else if (!strncmp(c, "&quot;", 6))
				*o++ = '"', c += 5;
			else
				*o++ = *c;
		}
		end++;
	}
	free(doc);
}

/* The text of class cls, the first (or NULL). */
static const struct text *part(const struct svg *g, const char *cls)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->t[i].cls, cls))
			return &g->t[i];
	return NULL;
}

/* The labelled x ticks: values in v (in order), pixels in px. */
static size_t xticks(const struct svg *g, double *v, double *px)
{
	size_t n = 0;

	for (size_t i = 0; i < g->n; i++) {
		char *end;

		if (strcmp(g->t[i].cls, "xtick"))
			continue;
		v[n] = strtod(g->t[i].s, &end);
		ck_assert_msg(*end == '\0', "tick label '%s'", g->t[i].s);
		px[n++] = g->t[i].x;
	}
	ck_assert_uint_ge(n, 2);
	for (size_t i = 1; i < n; i++)
		ck_assert_double_gt(v[i], v[i - 1]);
	return n;
}

/* The values at the plot's left and right edges, from the ticks: a
 * linear axis, or with lg a logarithmic one (checked: every tick lies
 * where the two outer ones place it, within half a pixel). */
static void x_range(const struct svg *g, int lg, double *lo, double *hi)
{
	double v[MAX_TEXTS], px[MAX_TEXTS], a;
	size_t n = xticks(g, v, px);

	for (size_t i = 0; i < n && lg; i++)
		v[i] = log10(v[i]);
	a = (px[n - 1] - px[0]) / (v[n - 1] - v[0]); /* pixels per unit */
	for (size_t i = 1; i + 1 < n; i++)
		ck_assert_double_eq_tol(px[i], px[0] + (v[i] - v[0]) * a, 0.5);
	*lo = v[0] - (px[0] - g->left) / a;
	*hi = v[0] + (g->left + g->width - px[0]) / a;
	if (lg)
		*lo = pow(10, *lo), *hi = pow(10, *hi);
}

static void write_file(struct e2e *t, const char *name, FILE **f)
{
	char p[PATH_MAX];

	e2e_fmt(p, sizeof(p), "%s/%s", t->dir, name);
	ck_assert_ptr_nonnull(*f = fopen(p, "w"));
}

START_TEST(test_time_axis)
{
	static const char *const state[] = { "A", "B", "C" };
	const long long t0 = 1755470000123456789LL;
	double lo, hi;
	struct svg *g = malloc(sizeof(*g));
	struct e2e t;
	FILE *f;

	e2e_init(&t);
	/* 2.5 ms of a trace's monotonic nanoseconds */
	write_file(&t, "ns.pes", &f);
	fputs("timebase ns\n", f);
	for (int i = 0; i < 25; i++)
		fprintf(f, "%lld %s\n", t0 + 100000LL * i, state[i % 3]);
	fprintf(f, "end %lld\n", t0 + 2500000);
	ck_assert_int_eq(fclose(f), 0);
	plot(&t, g, PES("ns.pes", "--view=time", "-o", "out.svg"));
	ck_assert_ptr_nonnull(strstr(part(g, "title")->s,
				     "starting at 1755470000123456789 ns"));
	ck_assert_ptr_nonnull(strstr(part(g, "xlabel")->s, "(ms)"));
	x_range(g, 0, &lo, &hi);
	ck_assert_double_eq_tol(lo, 0, 1e-6);
	ck_assert_double_eq_tol(hi, 2.5, 1e-3);
	/* and the curve is drawn on that axis: from its left edge to its
	 * right one */
	ck_assert_double_eq_tol(g->cx0, g->left, 1);
	ck_assert_double_eq_tol(g->cx1, g->left + g->width, 1);
	/* clipped: the start moves, the axis starts at 0 again */
	plot(&t, g,
	     PES("ns.pes", "--view=time", "-o", "out.svg",
		 "--clip=time:1755470000124456789:1755470000124956789"));
	ck_assert_ptr_nonnull(strstr(part(g, "title")->s,
				     "starting at 1755470000124456789 ns"));
	ck_assert_ptr_nonnull(strstr(part(g, "xlabel")->s, "(us)"));
	x_range(g, 0, &lo, &hi);
	ck_assert_double_eq_tol(lo, 0, 1e-6);
	ck_assert_double_eq_tol(hi, 500, 0.1);
	ck_assert_double_eq_tol(g->cx0, g->left, 1);
	ck_assert_double_eq_tol(g->cx1, g->left + g->width, 1);
	/* 3.5 s in a millisecond time base: seconds */
	write_file(&t, "ms.pes", &f);
	fputs("timebase ms\n", f);
	for (int i = 0; i < 7; i++)
		fprintf(f, "%d %s\n", 5000 + 500 * i, state[i % 3]);
	fputs("end 8500\n", f);
	ck_assert_int_eq(fclose(f), 0);
	plot(&t, g, PES("ms.pes", "--view=time", "-o", "out.svg"));
	ck_assert_ptr_nonnull(
		strstr(part(g, "title")->s, "starting at 5000 ms"));
	ck_assert_ptr_nonnull(strstr(part(g, "xlabel")->s, "(s)"));
	x_range(g, 0, &lo, &hi);
	ck_assert_double_eq_tol(lo, 0, 1e-6);
	ck_assert_double_eq_tol(hi, 3.5, 1e-3);
	ck_assert_double_eq_tol(g->cx0, g->left, 1);
	ck_assert_double_eq_tol(g->cx1, g->left + g->width, 1);
	free(g);
	e2e_release(&t);
}
END_TEST

/* 20,000 entries whose state number follows a cosine of period 200
 * events between 0 and 32 (33 states, named in the order of their
 * numbers as the first half period climbs): the power at 0.005 cycles per
 * event, a little quantisation noise above it. */
static void cosine(struct e2e *t)
{
	FILE *f;

	write_file(t, "cos.pes", &f);
	fputs("timebase us\n", f);
	for (int i = 0; i < 20000; i++)
		fprintf(f, "%d L%02ld\n", 10 * i,
			lround(16 - 16 * cos(2 * M_PI * i / 200)));
	fputs("end 200000\n", f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The periodogram as CSV: where 99% of the power (bins 1 on) lies below,
 * and the share of the power above x. */
static double f99(double x, double *above)
{
	struct tool_out r = tool_run(PES("cos.pes", "--view=frequency"));
	double f[10001], pw[10001], total = 0, acc = 0, at = -1;
	size_t n = 0;
	char *l = strchr(r.out, '\n');

	e2e_assert_exit(r.status, 0, r.err);
	while (l && n < 10001 &&
	       sscanf(l + 1, "%*u,%lf,%lf", &f[n], &pw[n]) == 2) {
		total += n ? pw[n] : 0;
		n++;
		l = strchr(l + 1, '\n');
	}
	tool_out_release(&r);
	ck_assert_uint_eq(n, 10001);
	*above = 0;
	for (size_t j = 1; j < n; j++) {
		if ((acc += pw[j]) >= 0.99 * total && at < 0)
			at = f[j];
		if (f[j] > x)
			*above += pw[j] / total;
	}
	return at;
}

START_TEST(test_frequency_range)
{
	struct svg *g = malloc(sizeof(*g));
	double lo, hi, above, want;
	struct e2e t;

	e2e_init(&t);
	cosine(&t);
	plot(&t, g, PES("cos.pes", "--view=frequency", "-o", "out.svg"));
	x_range(g, 0, &lo, &hi);
	want = f99(hi, &above);
	ck_assert_double_eq_tol(want, 0.005, 1e-9);
	ck_assert_double_eq_tol(lo, 0, 1e-6);
	/* the range holds 99% of the power, and not the tail: 1% at most
	 * lies beyond it, and it stops well before Nyquist (0.5) */
	ck_assert_double_ge(hi, want);
	ck_assert_double_le(above, 0.01);
	ck_assert_double_lt(hi, 2 * want);
	ck_assert_ptr_nonnull(
		strstr(part(g, "title")->s, "99% of the power below"));
	/* every bin, as before */
	plot(&t, g,
	     PES("cos.pes", "--view=frequency", "-o", "out.svg",
		 "--all-frequencies"));
	x_range(g, 0, &lo, &hi);
	ck_assert_double_eq_tol(hi, 0.5, 1e-6);
	free(g);
	e2e_release(&t);
}
END_TEST

START_TEST(test_log_frequency)
{
	struct svg *g = malloc(sizeof(*g));
	double lo, hi, above, want;
	struct e2e t;

	e2e_init(&t);
	cosine(&t);
	/* every bin: from the first (1 / 20,000) to Nyquist, ticks at the
	 * powers of ten equally far apart (x_range checks them) */
	plot(&t, g,
	     PES("cos.pes", "--view=frequency", "-o", "out.svg",
		 "--log-frequency", "--all-frequencies"));
	x_range(g, 1, &lo, &hi);
	ck_assert_double_eq_tol(lo, 5e-5, 5e-7);
	ck_assert_double_eq_tol(hi, 0.5, 5e-3);
	ck_assert_str_eq(part(g, "xtick")->s, "0.0001");
	/* by default, the 99% range on the log axis too */
	plot(&t, g,
	     PES("cos.pes", "--view=frequency", "-o", "out.svg",
		 "--log-frequency"));
	x_range(g, 1, &lo, &hi);
	want = f99(hi, &above);
	ck_assert_double_ge(hi, want * (1 - 1e-6));
	ck_assert_double_lt(hi, 2 * want);
	ck_assert_double_le(above, 0.01);
	free(g);
	e2e_release(&t);
}
END_TEST

/* The state names (class state): none overlaps the next (their boxes
 * are 1.2 times the font size high at most), and there are at least
 * min of them, the first the first state. */
static void names_apart(const struct svg *g, size_t min, const char *first)
{
	const struct text *prev = NULL;
	size_t n = 0;

	for (size_t i = 0; i < g->n; i++) {
		const struct text *x = &g->t[i];

		if (strcmp(x->cls, "state"))
			continue;
		if (!n++)
			ck_assert_str_eq(x->s, first);
		/* written bottom up, all right-aligned at one x */
		if (prev) {
			ck_assert_double_eq(x->x, prev->x);
			ck_assert_msg(prev->y - x->y >= 1.2 * x->size,
				      "'%s' at %g and '%s' at %g overlap",
				      prev->s, prev->y, x->s, x->y);
		}
		prev = x;
	}
	ck_assert_uint_ge(n, min);
}

START_TEST(test_state_names_apart)
{
	static const size_t nstates[] = { 36, 40, 150 };
	struct svg *g = malloc(sizeof(*g));
	struct e2e t;
	FILE *f;

	e2e_init(&t);
	for (size_t k = 0; k < 3; k++) {
		size_t n = nstates[k];

		write_file(&t, "many.pes", &f);
		fputs("timebase us\n", f);
		for (size_t i = 0; i < 3 * n; i++)
			fprintf(f, "%zu waiting:IFACE::FUNCTION_%03zu\n", i,
				i < n ? i : (i * 7) % n);
		ck_assert_int_eq(fclose(f), 0);
		for (int v = 0; v < 2; v++) {
			plot(&t, g,
			     PES("many.pes", v ? "--view=event" : "--view=time",
				 "-o", "out.svg"));
			names_apart(g, n > 100 ? 20 : 15,
				    "waiting:IFACE::FUNCTION_000");
		}
	}
	/* a name too long for the margin is shortened in the middle */
	write_file(&t, "long.pes", &f);
	fprintf(f,
		"timebase us\n0 A\n1 serving:%0200d:END\n2 x<&>\"y\n"
		"end 3\n",
		0);
	ck_assert_int_eq(fclose(f), 0);
	plot(&t, g, PES("long.pes", "--view=time", "-o", "out.svg"));
	names_apart(g, 2, "A");
	const struct text *x = &g->t[0];
	while (strcmp(x->cls, "state") || !strcmp(x->s, "A"))
		x++;
	ck_assert_ptr_nonnull(strstr(x->s, "serving:000"));
	ck_assert_ptr_nonnull(strstr(x->s, "\xe2\x80\xa6"));
	ck_assert_ptr_nonnull(strstr(x->s, "000:END"));
	ck_assert_uint_lt(strlen(x->s), 100);
	/* and XML's characters come back as they were */
	ck_assert_str_eq(x[1].s, "x<&>\"y");
	free(g);
	e2e_release(&t);
}
END_TEST

Suite *pes_plot_suite(void)
{
	Suite *s = suite_create("pes_plot");
	TCase *tc = tcase_create("pes_plot");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_time_axis);
	tcase_add_test(tc, test_frequency_range);
	tcase_add_test(tc, test_log_frequency);
	tcase_add_test(tc, test_state_names_apart);
	suite_add_tcase(s, tc);
	return s;
}
