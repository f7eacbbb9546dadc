/*
 * scale.c - the CCSG of the sampled chains scaled to the whole run
 * (sampling.h, ccsg_graph_scale()).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sampling.h"

int ccsg_node_scaled(const struct ccsg_graph *g, int32_t n)
{
	const struct ccsg_node *x = &g->nodes[n];

	return x->kind == CCSG_FUNCTION ||
	       (x->kind == CCSG_THREAD && x->parent > 0 &&
		g->nodes[x->parent].kind == CCSG_FUNCTION);
}

/* How many chains a scaled node's figures come from: the draws of head
 * sampling (a chain is kept or left whole, all its calls alike). */
static int64_t draws(const struct ccsg_graph *g, int32_t n)
{
	const struct ccsg_node *x = &g->nodes[n];

	return x->kind == CCSG_THREAD ? g->nodes[x->parent].chains : x->chains;
}

static int64_t times(int64_t v, double s)
{
	return (int64_t)llround((double)v * s);
}

/* Each node's (or arc's) figures times s, their half-widths into ci. */
static void scale_vec(int64_t *v, size_t k, double s, double r, int64_t n,
		      double *ci)
{
	for (size_t d = 0; d < k; d++) {
		double est, half;

		ccsg_totals_estimate((double)v[d], n, r, &est, &half);
		if (ci)
			ci[d] = half;
		v[d] = times(v[d], s);
	}
}

/*
 * A node main holds (main, its thread nodes): what its descendant figure
 * gains from the scaled arcs below it, and their half-widths (summed: a
 * bound, as its parts need not be independent).  state: 0 to do, 1 being
 * done (a cycle: nothing more), 2 done.
 */
static void gain_of(struct ccsg_graph *g, struct ccsg_scaled *e, int32_t n,
		    const int64_t *before, uint8_t *state, int64_t *gain)
{
	size_t k = e->k;

	if (state[n])
		return;
	state[n] = 1;
	for (size_t i = 0; i < g->nedges; i++) {
		const struct ccsg_edge *a = &g->edges[i];

		if (a->from != n || a->to == n)
			continue;
		if (ccsg_node_scaled(g, a->to)) {
			for (size_t d = 0; d < k; d++) {
				gain[n * k + d] += a->self[d] + a->desc[d] -
						   before[i * k + d];
				e->desc_ci[n * k + d] +=
					e->self_ci[a->to * k + d] +
					e->desc_ci[a->to * k + d];
			}
			continue;
		}
		gain_of(g, e, a->to, before, state, gain);
		for (size_t d = 0; d < k; d++) {
			gain[n * k + d] += gain[a->to * k + d];
			e->desc_ci[n * k + d] += e->desc_ci[a->to * k + d];
		}
	}
	state[n] = 2;
}

static void scaled_release(struct ccsg_scaled *e)
{
	free(e->sampled);
	free(e->self_sampled);
	free(e->self_ci);
	free(e->desc_ci);
	memset(e, 0, sizeof(*e));
}

int ccsg_graph_scale(struct ccsg_graph *g, double r, struct ccsg_scaled *keep)
{
	struct ccsg_scaled own = { 0 }, *e = keep ? keep : &own;
	size_t k = g->dims->n, nn = g->nnodes;
	double s = 1 / r;
	int64_t *before, *gain;
	uint8_t *state;

	e->nnodes = nn;
	e->k = k;
	e->sampled = calloc(nn + 1, sizeof(*e->sampled));
	e->self_sampled = calloc(nn * k + 1, sizeof(*e->self_sampled));
	e->self_ci = calloc(nn * k + 1, sizeof(*e->self_ci));
	e->desc_ci = calloc(nn * k + 1, sizeof(*e->desc_ci));
	before = calloc(g->nedges * k + 1, sizeof(*before));
	gain = calloc(nn * k + 1, sizeof(*gain));
	state = calloc(nn + 1, 1);
	if (!e->sampled || !e->self_sampled || !e->self_ci || !e->desc_ci ||
	    !before || !gain || !state) {
		free(before);
		free(gain);
		free(state);
		scaled_release(e);
		return -ENOMEM;
	}
	for (size_t i = 0; i < g->nedges; i++) {
		struct ccsg_edge *a = &g->edges[i];

		for (size_t d = 0; d < k; d++)
			before[i * k + d] = a->self[d] + a->desc[d];
		if (!ccsg_node_scaled(g, a->to))
			continue;
		scale_vec(a->self, k, s, r, 0, NULL);
		scale_vec(a->desc, k, s, r, 0, NULL);
		a->count = times(a->count, s);
	}
	for (size_t n = 0; n < nn; n++) {
		struct ccsg_node *v = &g->nodes[n];

		e->sampled[n] = v->kind == CCSG_THREAD ? v->threads : v->calls;
		memcpy(&e->self_sampled[n * k], v->self, k * sizeof(*v->self));
		if (!ccsg_node_scaled(g, (int32_t)n))
			continue;
		scale_vec(v->self, k, s, r, draws(g, (int32_t)n),
			  &e->self_ci[n * k]);
		scale_vec(v->desc, k, s, r, draws(g, (int32_t)n),
			  &e->desc_ci[n * k]);
		v->calls = times(v->calls, s);
		v->failed = times(v->failed, s);
		v->threads = times(v->threads, s);
	}
	/* the nodes above: their descendants' gain, into them and their
	 * arc in (each hangs by one arc, from main) */
	for (size_t n = 0; n < nn; n++) {
		int32_t in;

		if (ccsg_node_scaled(g, (int32_t)n))
			continue;
		gain_of(g, e, (int32_t)n, before, state, gain);
		for (size_t d = 0; d < k; d++)
			g->nodes[n].desc[d] += gain[n * k + d];
		if (n &&
		    (in = ccsg_edge_find(
			     g, g->nodes[n].parent > 0 ? g->nodes[n].parent : 0,
			     (int32_t)n)) >= 0)
			for (size_t d = 0; d < k; d++)
				g->edges[in].desc[d] += gain[n * k + d];
	}
	for (size_t d = 0; d < k && g->total; d++)
		g->total[d] = g->nodes[0].self[d] + g->nodes[0].desc[d];
	free(before);
	free(gain);
	free(state);
	scaled_release(&own);
	return 0;
}
