/*
 * diagnose-cause.c - a request type's causes: its parts gathered by place
 * (function node, host), each with its remedy and the latency the
 * request type would have were that remedy's parts 20% smaller, or gone
 * (diagnose.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"

const double diag_pred_factor[DIAG_NPRED] = { DIAG_SMALLER, 1.0 };

static int cmp_ns(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* Nearest rank, as `ccsg latency` takes it (latency.c). */
int64_t diag_quantile(int64_t *v, size_t n, double q)
{
	size_t k;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_ns);
	k = (size_t)ceil(q * (double)n);
	return v[k ? k - 1 : 0];
}

unsigned diag_remedy_kinds(int remedy)
{
	return remedy == DIAG_CPU ? 1u << DIAG_CPU | 1u << DIAG_OFF
				  : 1u << remedy;
}

int diag_predict_latency(const struct diag_type *ty, int32_t node, int32_t host,
			 unsigned mask, struct diag_pred pred[DIAG_NPRED])
{
	int64_t *v = malloc((ty->nreq ? ty->nreq : 1) * sizeof(*v));
	double *cut = calloc(ty->nreq ? ty->nreq : 1, sizeof(*cut));

	if (!v || !cut) {
		free(v);
		free(cut);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ty->nparts; i++) {
		const struct diag_part *p = &ty->parts[i];

		if (p->node == node && p->host == host && mask & 1u << p->kind)
			for (size_t r = 0; r < ty->nreq; r++)
				cut[r] += p->ns[r];
	}
	for (int k = 0; k < DIAG_NPRED; k++) {
		for (size_t r = 0; r < ty->nreq; r++)
			v[r] = ty->latency[r] -
			       llround(diag_pred_factor[k] * cut[r]);
		pred[k].median = diag_quantile(v, ty->nreq, 0.5);
		pred[k].p95 = diag_quantile(v, ty->nreq, 0.95);
		pred[k].cpu = ty->cpu;
	}
	free(v);
	free(cut);
	return 0;
}

int diag_cmp_shares(double p95_a, double median_a, double p95_b,
		    double median_b)
{
	if (p95_a != p95_b)
		return p95_a < p95_b ? 1 : -1;
	if (median_a != median_b)
		return median_a < median_b ? 1 : -1;
	return 0;
}

static int cmp_cause(const void *a, const void *b)
{
	const struct diag_cause *x = a, *y = b;
	int c = diag_cmp_shares(x->share_p95, x->share_median, y->share_p95,
				y->share_median);

	if (c)
		return c;
	return x->node != y->node ? x->node - y->node : x->host - y->host;
}

/* The place of part p among the causes: found, or added. */
static struct diag_cause *place(struct diag_type *ty, const struct diag_part *p)
{
	for (size_t i = 0; i < ty->ncauses; i++)
		if (ty->causes[i].node == p->node &&
		    ty->causes[i].host == p->host)
			return &ty->causes[i];
	ty->causes[ty->ncauses] =
		(struct diag_cause){ .node = p->node, .host = p->host };
	return &ty->causes[ty->ncauses++];
}

/* The remedy of cause c: the largest of its parts' p95 shares by remedy
 * (cpu counting off CPU too). */
static void remedy(struct diag_type *ty, struct diag_cause *c)
{
	static const int remedies[] = { DIAG_CPU, DIAG_LOCK, DIAG_NETWORK,
					DIAG_UNSPLIT };
	double best = -1;

	for (size_t k = 0; k < sizeof(remedies) / sizeof(*remedies); k++) {
		unsigned mask = diag_remedy_kinds(remedies[k]);
		double sum = 0;

		for (size_t i = 0; i < ty->nparts; i++) {
			const struct diag_part *p = &ty->parts[i];

			if (p->node == c->node && p->host == c->host &&
			    mask & 1u << p->kind)
				sum += p->share_p95 + p->share_median / 1e6;
		}
		if (sum > best) {
			best = sum;
			c->remedy = remedies[k];
		}
	}
}

int diag_causes(struct diag_type *ty)
{
	/* at most one cause a part: room for all */
	ty->causes =
		malloc((ty->nparts ? ty->nparts : 1) * sizeof(*ty->causes));
	if (!ty->causes)
		return -ENOMEM;
	ty->ncauses = 0;
	for (size_t i = 0; i < ty->nparts; i++) {
		const struct diag_part *p = &ty->parts[i];
		struct diag_cause *c = place(ty, p);

		c->share_median += p->share_median;
		c->share_p95 += p->share_p95;
		if (p->kind == DIAG_LOCK && !c->lock)
			c->lock = p->lock;
	}
	for (size_t i = 0; i < ty->ncauses; i++) {
		struct diag_cause *c = &ty->causes[i];

		remedy(ty, c);
		if (diag_predict_latency(ty, c->node, c->host,
					 diag_remedy_kinds(c->remedy), c->pred))
			return -ENOMEM;
	}
	if (ty->ncauses)
		qsort(ty->causes, ty->ncauses, sizeof(*ty->causes), cmp_cause);
	return 0;
}
