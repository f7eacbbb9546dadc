/*
 * pes-model.c - the empirical semi-Markov model of a PES (pes.h; Chitra,
 * TR 92-23, Sections 2.1 and 2.4): the embedded Markov chain, the
 * occupancy-time distribution of each state, the steady-state test, and a
 * simulation of the fitted model.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashmap.h"
#include "pes.h"
#include "usage.h"

static int tr_cmp(const void *a, const void *b)
{
	const struct pes_transition *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

void pes_model_release(struct pes_model *m)
{
	if (m->st)
		for (size_t s = 0; s < m->nstates; s++)
			free(m->st[s].hist);
	free(m->st);
	free(m->tr);
	memset(m, 0, sizeof(*m));
}

/* The occupancy statistics of every state. */
static int build_stats(const struct pes *p, struct pes_model *m)
{
	double *sumsq = calloc(p->nstates, sizeof(*sumsq));

	if (!sumsq)
		return -ENOMEM;
	for (size_t s = 0; s < p->nstates; s++) {
		m->st[s].min = INT64_MAX;
		m->st[s].max = INT64_MIN;
	}
	for (size_t i = 0; i < p->n; i++) {
		struct pes_stats *st = &m->st[p->seq[i]];
		int64_t o = pes_occupancy(p, i);

		st->count++;
		if (i + 1 < p->n)
			st->departures++;
		if (o < 0)
			continue;
		st->measured++;
		st->total += (double)o;
		sumsq[p->seq[i]] += (double)o * (double)o;
		if (o < st->min)
			st->min = o;
		if (o > st->max)
			st->max = o;
	}
	for (size_t s = 0; s < p->nstates; s++) {
		struct pes_stats *st = &m->st[s];

		if (!(st->hist = calloc(m->bins, sizeof(*st->hist)))) {
			free(sumsq);
			return -ENOMEM;
		}
		st->event_share = p->n ? (double)st->count / (double)p->n : 0;
		st->time_share = m->span > 0 ? st->total / m->span : 0;
		if (!st->measured) {
			st->min = st->max = 0;
			continue;
		}
		double k = (double)st->measured;
		st->mean = st->total / k;
		/* the sample standard deviation (n - 1) */
		double var =
			st->measured > 1
				? (sumsq[s] - k * st->mean * st->mean) / (k - 1)
				: 0;
		st->sd = var > 0 ? sqrt(var) : 0;
	}
	for (size_t i = 0; i < p->n; i++) {
		struct pes_stats *st = &m->st[p->seq[i]];
		int64_t o = pes_occupancy(p, i);
		size_t b = 0;

		if (o < 0)
			continue;
		if (st->max > st->min)
			b = (size_t)((double)(o - st->min) * (double)m->bins /
				     (double)(st->max - st->min));
		st->hist[b < m->bins ? b : m->bins - 1]++;
	}
	free(sumsq);
	return 0;
}

/*
 * The steady-state test: Chitra's program "reaches steady state if each
 * transition rate in the stochastic process converges" (Section 3).  The
 * rate of i -> j is the number of i -> j transitions over the time spent
 * in i (the probability p_ij over the mean occupancy of i).  The rates of
 * the first half of the sequence and of the second are compared, for
 * every transition taken PES_STEADY_MIN times or more; steady when none
 * differs by more than tol relatively (|r1 - r2| / max(r1, r2)).  With no
 * time (every occupancy 0) the probabilities stand for the rates.
 */
static void steady_test(const struct pes *p, struct pes_model *m,
			const size_t *half_count, const double *half_time)
{
	size_t tested = 0;

	m->max_change = 0;
	for (size_t k = 0; k < m->ntr; k++) {
		const struct pes_transition *tr = &m->tr[k];
		double r[2];

		if (tr->count < PES_STEADY_MIN)
			continue;
		for (int h = 0; h < 2; h++) {
			double t = half_time[2 * tr->from + h];
			size_t c = half_count[2 * k + h];

			r[h] = t > 0 ? (double)c / t : (double)c;
		}
		if (half_time[2 * tr->from] <= 0 ||
		    half_time[2 * tr->from + 1] <= 0) {
			/* probabilities: count over departures per half */
			size_t d[2] = { 0, 0 };

			for (size_t q = 0; q < m->ntr; q++)
				if (m->tr[q].from == tr->from) {
					d[0] += half_count[2 * q];
					d[1] += half_count[2 * q + 1];
				}
			r[0] = d[0] ? (double)half_count[2 * k] / (double)d[0]
				    : 0;
			r[1] = d[1] ? (double)half_count[2 * k + 1] /
					       (double)d[1]
				    : 0;
		}
		double hi = r[0] > r[1] ? r[0] : r[1];
		double change = hi > 0 ? fabs(r[0] - r[1]) / hi : 0;
		tested++;
		if (change > m->max_change || tested == 1) {
			m->max_change = change;
			m->worst_from = tr->from;
			m->worst_to = tr->to;
		}
	}
	(void)p;
	m->steady = !tested ? -1 : m->max_change <= m->tol;
}

int pes_model_build(const struct pes *p, struct pes_model *m, size_t bins,
		    double tol)
{
	struct hashmap idx = { 0 };
	size_t cap = 0, cap_h = 0, *half_count = NULL;
	double *half_time = NULL;
	int ret = -ENOMEM;

	memset(m, 0, sizeof(*m));
	m->nstates = p->nstates;
	m->n = p->n;
	m->bins = bins ? bins : 1;
	m->tol = tol;
	m->span = p->n ? (double)((p->end_known ? p->end : p->t[p->n - 1]) -
				  p->t[0])
		       : 0;
	if (!(m->st = calloc(p->nstates ? p->nstates : 1, sizeof(*m->st))) ||
	    build_stats(p, m))
		goto out;
	if (!(half_time = calloc(2 * p->nstates + 2, sizeof(*half_time))))
		goto out;
	/* the transitions, counted per half of the sequence */
	for (size_t i = 0; i + 1 < p->n; i++) {
		uint64_t key = hashmap_key2(p->seq[i], p->seq[i + 1]);
		int32_t v = hashmap_get(&idx, key);
		int h = i >= p->n / 2;

		if (v < 0) {
			if (m->ntr >= INT32_MAX ||
			    GROW(m->tr, cap, m->ntr + 1) ||
			    GROW(half_count, cap_h, 2 * m->ntr + 2) ||
			    hashmap_put(&idx, key, (int32_t)m->ntr) < 0)
				goto out;
			m->tr[m->ntr] =
				(struct pes_transition){ p->seq[i],
							 p->seq[i + 1], 0, 0 };
			half_count[2 * m->ntr] = half_count[2 * m->ntr + 1] = 0;
			v = (int32_t)m->ntr++;
		}
		m->tr[v].count++;
		half_count[2 * v + h]++;
		half_time[2 * p->seq[i] + h] += (double)pes_occupancy(p, i);
	}
	for (size_t k = 0; k < m->ntr; k++)
		m->tr[k].p = (double)m->tr[k].count /
			     (double)m->st[m->tr[k].from].departures;
	/* sort, carrying the per-half counts along */
	if (m->ntr) {
		struct pes_transition *tmp = malloc(m->ntr * sizeof(*tmp));
		size_t *hc = malloc(2 * m->ntr * sizeof(*hc));

		if (!tmp || !hc) {
			free(tmp);
			free(hc);
			goto out;
		}
		/* the count field temporarily holds the old index */
		memcpy(tmp, m->tr, m->ntr * sizeof(*tmp));
		for (size_t k = 0; k < m->ntr; k++)
			tmp[k].count = k;
		qsort(tmp, m->ntr, sizeof(*tmp), tr_cmp);
		for (size_t k = 0; k < m->ntr; k++) {
			size_t old = tmp[k].count;

			tmp[k].count = m->tr[old].count;
			hc[2 * k] = half_count[2 * old];
			hc[2 * k + 1] = half_count[2 * old + 1];
		}
		free(m->tr);
		free(half_count);
		m->tr = tmp;
		half_count = hc;
	}
	steady_test(p, m, half_count, half_time);
	ret = 0;
out:
	hashmap_release(&idx);
	free(half_count);
	free(half_time);
	if (ret)
		pes_model_release(m);
	return ret;
}

/* --- simulation ------------------------------------------------------------
 */

static uint64_t next_random(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int pes_simulate(const struct pes *p, const struct pes_model *m, size_t n,
		 uint64_t seed, struct pes *out)
{
	size_t ns = p->nstates, *first_tr = NULL, *occ_at = NULL;
	int64_t *occ = NULL, t;
	size_t *fill = NULL;
	uint32_t s;
	int ret = -ENOMEM;

	if (pes_init(out, p->unit))
		return -EINVAL;
	if (!p->n || !n)
		return 0;
	for (size_t i = 0; i < ns; i++)
		if (pes_state(out, p->states[i].name, 1) != (int64_t)i)
			goto out;
	/* where each state's transitions begin in m->tr (sorted by from) */
	first_tr = calloc(ns + 1, sizeof(*first_tr));
	occ_at = calloc(ns + 1, sizeof(*occ_at));
	fill = calloc(ns + 1, sizeof(*fill));
	occ = malloc((p->n ? p->n : 1) * sizeof(*occ));
	if (!first_tr || !occ_at || !fill || !occ)
		goto out;
	for (size_t k = 0; k < m->ntr; k++)
		first_tr[m->tr[k].from + 1]++;
	for (size_t i = 0; i < p->n; i++)
		if (pes_occupancy(p, i) >= 0)
			occ_at[p->seq[i] + 1]++;
	for (size_t i = 0; i < ns; i++) {
		first_tr[i + 1] += first_tr[i];
		occ_at[i + 1] += occ_at[i];
	}
	/* each state's observed occupancies, its empirical distribution */
	for (size_t i = 0; i < p->n; i++) {
		int64_t o = pes_occupancy(p, i);

		if (o >= 0)
			occ[occ_at[p->seq[i]] + fill[p->seq[i]]++] = o;
	}
	s = p->seq[0];
	t = p->t[0];
	for (size_t i = 0; i < n; i++) {
		size_t no = occ_at[s + 1] - occ_at[s];
		int64_t o = no ? occ[occ_at[s] + next_random(&seed) % no] : 0;

		if (pes_append(out, t, s))
			goto out;
		t += o;
		size_t a = first_tr[s], b = first_tr[s + 1];
		if (a == b) {
			/* a state never left (the run's last): the run
			 * begins again */
			s = p->seq[0];
			continue;
		}
		/* the embedded chain: the next state with probability p_sj */
		uint64_t u = next_random(&seed) % m->st[s].departures;
		for (; a + 1 < b && u >= m->tr[a].count; a++)
			u -= m->tr[a].count;
		s = m->tr[a].to;
	}
	out->end = t;
	out->end_known = 1;
	ret = 0;
out:
	free(first_tr);
	free(occ_at);
	free(fill);
	free(occ);
	if (ret)
		pes_release(out);
	return ret;
}
