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

int ccsg_latency_build(const struct ccsg_graph *g, struct ccsg_latency **out, size_t *nout)
{
	const struct ccsg_trace *t = g->dscg->trace;
	struct sample *s = malloc((t->ncalls + 1) * sizeof(*s));
	int64_t *child = calloc(t->ncalls + 1, sizeof(int64_t));
	/* per node: sums of latency, network, server, children, unknown */
	double (*sum)[5] = calloc(g->nnodes, sizeof(*sum));
	int64_t *skipped = calloc(g->nnodes, sizeof(int64_t));
	int64_t *bounded = calloc(g->nnodes, sizeof(int64_t));
	struct ccsg_latency *res = NULL;
	size_t n = 0, nres = 0;

	if (!s || !child || !sum || !skipped || !bounded)
		goto nomem;
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];
		int64_t l = latency(c);

		if (c->parent >= 0 && l != CCSG_NONE)
			child[c->parent] += l;
	}
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];
		int32_t node = g->call_node[i];
		int64_t l = latency(c);
		double *sm;

		if (node < 0)		/* start lost: no function, no latency */
			continue;
		sm = sum[node];
		if (l == CCSG_NONE) {
			skipped[node]++;
			continue;
		}
		s[n++] = (struct sample){ node, l };
		sm[0] += l;
		if (c->skel_start_exit_ns != CCSG_NONE && c->skel_end_ns != CCSG_NONE) {
			/* the split of latency.h, within [0, l] */
			int64_t raw = c->skel_end_ns - c->skel_start_exit_ns;
			int64_t server = bound(raw, 0, l), kids = bound(child[i], 0, server);

			bounded[node] += server != raw || kids != child[i];
			sm[1] += l - server;
			sm[2] += server - kids;
			sm[3] += kids;
		} else {
			sm[4] += l;
		}
	}
	qsort(s, n, sizeof(*s), cmp_sample);
	res = calloc(g->nnodes + 1, sizeof(*res));
	if (!res)
		goto nomem;
	for (size_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].kind == CCSG_FUNCTION && g->nodes[i].calls) {
			res[nres].node = (int32_t)i;
			res[nres].skipped = skipped[i];
			res[nres].bounded = bounded[i];
			res[nres].failed = g->nodes[i].failed;
			nres++;
		}
	for (size_t i = 0, r = 0; i < n;) {
		size_t j = i;
		double mean, var = 0;
		struct ccsg_latency *L;

		while (j < n && s[j].node == s[i].node)
			j++;
		while (res[r].node != s[i].node)
			r++;
		L = &res[r];
		L->calls = (int64_t)(j - i);
		mean = sum[s[i].node][0] / L->calls;
		for (size_t k = i; k < j; k++)
			var += (s[k].ns - mean) * (s[k].ns - mean);
		L->mean = mean;
		L->sd = L->calls > 1 ? sqrt(var / (L->calls - 1)) : 0;
		L->min = s[i].ns;
		L->max = s[j - 1].ns;
		/* nearest-rank percentiles */
		L->median = s[i + (size_t)ceil(0.50 * L->calls) - 1].ns;
		L->p95 = s[i + (size_t)ceil(0.95 * L->calls) - 1].ns;
		if (sum[s[i].node][0] > 0) {
			double tot = sum[s[i].node][0];

			L->network_share = sum[s[i].node][1] / tot;
			L->server_share = sum[s[i].node][2] / tot;
			L->children_share = sum[s[i].node][3] / tot;
			L->unknown_share = sum[s[i].node][4] / tot;
		}
		i = j;
	}
	qsort(res, nres, sizeof(*res), cmp_total);
	free(s);
	free(child);
	free(sum);
	free(skipped);
	free(bounded);
	*out = res;
	*nout = nres;
	return 0;
nomem:
	free(s);
	free(child);
	free(sum);
	free(skipped);
	free(bounded);
	free(res);
	return -ENOMEM;
}
