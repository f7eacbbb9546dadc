/*
 * diff-stat.c - whether a per-call figure moved beyond the run-to-run
 * noise: the Mann-Whitney U (Wilcoxon rank-sum) test, two-sided, by its
 * normal approximation with the tie and continuity corrections (what
 * scipy.stats.mannwhitneyu(method="asymptotic") computes).  A rank test
 * because per-call CPU and latency are skewed (a few slow calls), and it
 * asks nothing of their distribution; the median's move is the effect.
 */
#include <math.h>
#include <stdlib.h>

#include "diff.h"

struct ranked {
	int64_t v;
	int side; /* 0: a, 1: b */
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	return (a->v > b->v) - (a->v < b->v);
}

double diff_mann_whitney(const int64_t *a, size_t na, const int64_t *b,
			 size_t nb)
{
	size_t n = na + nb;
	struct ranked *s;
	double ra = 0, ties = 0, u, mu, var, z;

	if (na < 2 || nb < 2)
		return NAN;
	if (!(s = malloc(n * sizeof(*s))))
		return NAN;
	for (size_t i = 0; i < na; i++)
		s[i] = (struct ranked){ a[i], 0 };
	for (size_t i = 0; i < nb; i++)
		s[na + i] = (struct ranked){ b[i], 1 };
	qsort(s, n, sizeof(*s), cmp_ranked);
	/* ranks from 1, a run of equal values each taking their mean */
	for (size_t i = 0, j; i < n; i = j) {
		double t, rank;

		for (j = i + 1; j < n && s[j].v == s[i].v; j++)
			;
		t = (double)(j - i);
		rank = (double)(i + 1 + j) / 2;
		for (size_t k = i; k < j; k++)
			if (!s[k].side)
				ra += rank;
		ties += t * t * t - t;
	}
	free(s);
	u = ra - (double)na * (na + 1) / 2;
	mu = (double)na * nb / 2;
	var = (double)na * nb / 12 *
	      ((double)n + 1 - ties / ((double)n * (n - 1)));
	if (var <= 0) /* every value equal */
		return 1;
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	return erfc(z / sqrt(2));
}

int64_t diff_quantile(const int64_t *s, size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);

	return s[k ? k - 1 : 0];
}

struct diff_test diff_test_samples(const int64_t *a, size_t na,
				   const int64_t *b, size_t nb, double alpha,
				   double min_change)
{
	struct diff_test t = { diff_mann_whitney(a, na, b, nb), 0 };
	double ma, mb;

	if (isnan(t.p) || t.p >= alpha)
		return t;
	ma = (double)diff_quantile(a, na, 0.5);
	mb = (double)diff_quantile(b, nb, 0.5);
	if (fabs(mb - ma) >= min_change * fabs(ma) && mb != ma)
		t.stands = mb > ma ? 1 : -1;
	return t;
}
