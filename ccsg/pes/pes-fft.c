/*
 * pes-fft.c - the frequency view of a PES (pes.h; Chitra, TR 92-23,
 * Section 2.2.4) and the frequency-domain filter (Section 2.3.2), with
 * FFTW's real-to-complex transform.
 */
#include <errno.h>
#include <fftw3.h>
#include <stdlib.h>
#include <string.h>

#include "pes.h"
#include "usage.h"

/* Samples of the time view at most: 2^28 doubles are 2 GiB. */
#define MAX_SAMPLES ((size_t)1 << 28)

/* The periodogram of x[0..n) (the mean removed first): power[j] =
 * |X_j|^2 / n, j = 0 .. n/2.  x is overwritten. */
static int periodogram(double *x, size_t n, double *power)
{
	size_t nf = n / 2 + 1;
	fftw_complex *X = fftw_malloc(nf * sizeof(*X));
	double mean = 0;
	fftw_plan plan;

	if (!X)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	/* FFTW_ESTIMATE leaves x alone while planning */
	plan = fftw_plan_dft_r2c_1d((int)n, x, X, FFTW_ESTIMATE);
	if (!plan) {
		fftw_free(X);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		x[i] -= mean;
	fftw_execute(plan);
	for (size_t j = 0; j < nf; j++)
		power[j] = (X[j][0] * X[j][0] + X[j][1] * X[j][1]) / (double)n;
	fftw_destroy_plan(plan);
	fftw_free(X);
	return 0;
}

int pes_periodogram(const struct pes *p, int time_view, int64_t dt,
		    int64_t signal, double **power, size_t *nfreq,
		    double *hz_per_bin)
{
	size_t n;
	double *x;
	int ret;

	if (!p->n)
		return -EINVAL;
	if (time_view) {
		int64_t span =
			(p->end_known ? p->end : p->t[p->n - 1]) - p->t[0];
		if (dt <= 0 || span <= 0)
			return fail("the time view needs a sampling period and "
				    "a sequence longer than 0"),
			       -EINVAL;
		if ((uint64_t)(span / dt) >= MAX_SAMPLES)
			return fail("sampling every %lld %s makes more than "
				    "%zu samples",
				    (long long)dt, p->unit, MAX_SAMPLES),
			       -E2BIG;
		n = (size_t)(span / dt);
	} else {
		n = p->n;
	}
	if (n < 2 || n > INT32_MAX)
		return fail("a periodogram needs 2 samples or more (and fewer "
			    "than 2^31)"),
		       -EINVAL;
	x = fftw_malloc(n * sizeof(*x));
	*power = malloc((n / 2 + 1) * sizeof(**power));
	if (!x || !*power) {
		fftw_free(x);
		free(*power);
		*power = NULL;
		return -ENOMEM;
	}
	if (time_view) {
		/* sample k at t[0] + k dt: the state in force then */
		size_t e = 0;

		for (size_t k = 0; k < n; k++) {
			int64_t tk = p->t[0] + (int64_t)k * dt;

			while (e + 1 < p->n && p->t[e + 1] <= tk)
				e++;
			x[k] = signal >= 0 ? p->seq[e] == signal
					   : (double)p->seq[e];
		}
		*hz_per_bin =
			1.0 / ((double)n * (double)dt * p->seconds_per_unit);
	} else {
		for (size_t k = 0; k < n; k++)
			x[k] = signal >= 0 ? p->seq[k] == signal
					   : (double)p->seq[k];
		*hz_per_bin = 1.0 / (double)n; /* cycles per event */
	}
	ret = periodogram(x, n, *power);
	fftw_free(x);
	if (ret) {
		free(*power);
		*power = NULL;
		return ret;
	}
	*nfreq = n / 2 + 1;
	return 0;
}

int pes_filter_freq(struct pes *p, double f0, double f1, double share)
{
	unsigned char *drop = calloc(p->nstates, 1), *present;
	size_t nf = 0;
	int ret = 0;

	if (!(f0 > 0 && f0 <= f1 && f1 <= 0.5))
		return free(drop),
		       fail("the band %g:%g is not within (0, 0.5] cycles per "
			    "event",
			    f0, f1),
		       -EINVAL;
	if (!drop || !(present = calloc(p->nstates, 1)))
		return free(drop), -ENOMEM;
	for (size_t i = 0; i < p->n; i++)
		present[p->seq[i]] = 1;
	for (size_t s = 0; s < p->nstates && !ret; s++) {
		double *power = NULL, band = 0, total = 0, unit;

		if (!present[s])
			continue;
		if ((ret = pes_periodogram(p, 0, 0, (int64_t)s, &power, &nf,
					   &unit)))
			break;
		for (size_t j = 1; j < nf; j++) {
			double f = (double)j * unit;

			total += power[j];
			if (f >= f0 && f <= f1)
				band += power[j];
		}
		drop[s] = total > 0 && band >= share * total;
		free(power);
	}
	if (!ret)
		ret = pes_remove_states(p, drop, "frequency");
	free(present);
	free(drop);
	return ret;
}
