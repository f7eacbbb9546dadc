/*
 * latency.c - Equation 3 of the monitoring paper per call, then order
 * statistics per function node: one sort of (node, latency) pairs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"

struct sample {
	int32_t node;
	int64_t ns;
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->ns > y->ns) - (x->ns < y->ns);
}

/* Equation 3; CCSG_NONE without both stub probes (or ending before it
 * started: not a latency). */
static int64_t latency(const struct ccsg_call *c)
{
	if (c->stub_start_ns == CCSG_NONE || c->stub_end_exit_ns == CCSG_NONE ||
	    c->stub_end_exit_ns < c->stub_start_ns)
		return CCSG_NONE;
	return c->stub_end_exit_ns - c->stub_start_ns;
}

static int64_t bound(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static int cmp_total(const void *a, const void *b)
{
	const struct ccsg_latency *x = a, *y = b;
	double tx = x->mean * x->calls, ty = y->mean * y->calls;

	if (tx != ty)
		return tx < ty ? 1 : -1;
	return x->node - y->node;
}

/* What a function node's entry is made of, summed over its calls. */
struct node_sums {
	double latency;				   /* Equation 3, ns */
	double network, server, children, unsplit; /* its split (latency.h) */
	int64_t skipped; /* calls without both stub probes */
	int64_t bounded; /* calls whose split was bounded */
};

/* The latency of each call's direct child calls, summed; NULL: no memory. */
static int64_t *child_latencies(const struct ccsg_trace *t)
{
	int64_t *child = calloc(t->ncalls + 1, sizeof(int64_t));

	if (!child)
		return NULL;
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];
		int64_t l = latency(c);

		if (c->parent >= 0 && l != CCSG_NONE)
			child[c->parent] += l;
	}
	return child;
}

/*
 * One sample per call with a latency into s (room for every call), the
 * call added to its node's sums; returns the number of samples.
 */
static size_t collect(const struct ccsg_graph *g, const int64_t *child,
		      struct sample *s, struct node_sums *sums)
{
	const struct ccsg_trace *t = g->dscg->trace;
	size_t n = 0;

	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];
		int32_t node = g->call_node[i];
		int64_t l = latency(c);
		struct node_sums *sm;

		if (node < 0)		/* start lost: no function, no latency */
			continue;
		sm = &sums[node];
		if (l == CCSG_NONE) {
			sm->skipped++;
			continue;
		}
		s[n++] = (struct sample){ node, l };
		sm->latency += l;
		if (c->skel_start_exit_ns != CCSG_NONE && c->skel_end_ns != CCSG_NONE) {
			/* the split of latency.h, within [0, l] */
			int64_t raw = c->skel_end_ns - c->skel_start_exit_ns;
			int64_t server = bound(raw, 0, l), kids = bound(child[i], 0, server);

			sm->bounded += server != raw || kids != child[i];
			sm->network += l - server;
			sm->server += server - kids;
			sm->children += kids;
		} else {
			sm->unsplit += l;
		}
	}
	return n;
}

/* Fill L's order statistics and shares from its node's samples s[0..n)
 * (n > 0, sorted by latency) and sums. */
static void node_stats(struct ccsg_latency *L, const struct sample *s, size_t n,
		       const struct node_sums *sm)
{
	double mean, var = 0;

	L->calls = (int64_t)n;
	mean = sm->latency / L->calls;
	for (size_t k = 0; k < n; k++)
		var += (s[k].ns - mean) * (s[k].ns - mean);
	L->mean = mean;
	L->sd = L->calls > 1 ? sqrt(var / (L->calls - 1)) : 0;
	L->min = s[0].ns;
	L->max = s[n - 1].ns;
	/* nearest-rank percentiles */
	L->median = s[(size_t)ceil(0.50 * L->calls) - 1].ns;
	L->p95 = s[(size_t)ceil(0.95 * L->calls) - 1].ns;
	if (sm->latency > 0) {
		double tot = sm->latency;

		L->network_share = sm->network / tot;
		L->server_share = sm->server / tot;
		L->children_share = sm->children / tot;
		L->unknown_share = sm->unsplit / tot;
	}
}

int ccsg_latency_build(const struct ccsg_graph *g, struct ccsg_latency **out,
		       size_t *nout)
{
	const struct ccsg_trace *t = g->dscg->trace;
	struct sample *s = malloc((t->ncalls + 1) * sizeof(*s));
	int64_t *child = child_latencies(t);
	struct node_sums *sums = calloc(g->nnodes, sizeof(*sums));
	struct ccsg_latency *res = calloc(g->nnodes + 1, sizeof(*res));
	size_t n, nres = 0;

	if (!s || !child || !sums || !res) {
		free(s);
		free(child);
		free(sums);
		free(res);
		return -ENOMEM;
	}
	n = collect(g, child, s, sums);
	qsort(s, n, sizeof(*s), cmp_sample);
	/* an entry per function node with calls, in node order */
	for (size_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].kind == CCSG_FUNCTION && g->nodes[i].calls) {
			res[nres].node = (int32_t)i;
			res[nres].skipped = sums[i].skipped;
			res[nres].bounded = sums[i].bounded;
			res[nres].failed = g->nodes[i].failed;
			nres++;
		}
	/* the samples, grouped by node, in the same order */
	for (size_t i = 0, r = 0; i < n;) {
		size_t j = i;

		while (j < n && s[j].node == s[i].node)
			j++;
		while (res[r].node != s[i].node)
			r++;
		node_stats(&res[r], s + i, j - i, &sums[s[i].node]);
		i = j;
	}
	qsort(res, nres, sizeof(*res), cmp_total);
	free(s);
	free(child);
	free(sums);
	*out = res;
	*nout = nres;
	return 0;
}
