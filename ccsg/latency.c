/*
 * latency.c - Equation 3 of the monitoring paper per call, chain by chain
 * (a loaded trace's chains, or a stream's), then order statistics per
 * function node from its calls' latencies, sorted.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "latency.h"

static int cmp_ns(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
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
	int64_t *ns;	 /* the latencies */
	size_t n, cap;
};

/* The graph has grown: room for its nodes.  0 or -ENOMEM. */
static int acc_room(struct ccsg_latency_acc *acc, const struct ccsg_graph *g)
{
	struct node_sums *sums;

	if (g->nnodes <= acc->nnodes)
		return 0;
	sums = realloc(acc->sums, g->nnodes * sizeof(*sums));
	if (!sums)
		return -ENOMEM;
	memset(sums + acc->nnodes, 0,
	       (g->nnodes - acc->nnodes) * sizeof(*sums));
	acc->sums = sums;
	acc->nnodes = g->nnodes;
	return 0;
}

int ccsg_latency_chain(void *arg, const struct ccsg_graph *g,
		       const struct ccsg_chain *ch, const int32_t *node,
		       int64_t ord0)
{
	struct ccsg_latency_acc *acc = arg;
	const struct ccsg_trace *t = g->dscg->trace;
	int64_t *child;

	(void)ord0; /* latencies need no ordinal */
	if (acc_room(acc, g) ||
	    GROW(acc->child, acc->cap_child, (size_t)ch->n + 1))
		return -ENOMEM;
	/* the latency of each call's direct child calls, summed */
	child = acc->child;
	memset(child, 0, (size_t)ch->n * sizeof(*child));
	for (int32_t j = 0; j < ch->n; j++) {
		const struct ccsg_call *c = &t->calls[ch->first + j];
		int64_t l = latency(c);

		if (c->parent >= 0 && l != CCSG_NONE)
			child[c->parent - ch->first] += l;
	}
	for (int32_t j = 0; j < ch->n; j++) {
		const struct ccsg_call *c = &t->calls[ch->first + j];
		int64_t l = latency(c);
		struct node_sums *sm;

		if (node[j] < 0) /* start lost: no function, no latency */
			continue;
		sm = &acc->sums[node[j]];
		if (l == CCSG_NONE) {
			sm->skipped++;
			continue;
		}
		if (GROW(sm->ns, sm->cap, sm->n + 1))
			return -ENOMEM;
		sm->ns[sm->n++] = l;
		sm->latency += l;
		if (c->skel_start_exit_ns != CCSG_NONE && c->skel_end_ns != CCSG_NONE) {
			/* the split of latency.h, within [0, l] */
			int64_t raw = c->skel_end_ns - c->skel_start_exit_ns;
			int64_t server = bound(raw, 0, l),
				kids = bound(child[j], 0, server);

			sm->bounded += server != raw || kids != child[j];
			sm->network += l - server;
			sm->server += server - kids;
			sm->children += kids;
		} else {
			sm->unsplit += l;
		}
	}
	return 0;
}

/* Fill L's order statistics and shares from its node's sums: n > 0
 * latencies, sorted. */
static void node_stats(struct ccsg_latency *L, const struct node_sums *sm)
{
	const int64_t *s = sm->ns;
	double mean, var = 0;

	L->calls = (int64_t)sm->n;
	mean = sm->latency / L->calls;
	for (size_t k = 0; k < sm->n; k++)
		var += (s[k] - mean) * (s[k] - mean);
	L->mean = mean;
	L->sd = L->calls > 1 ? sqrt(var / (L->calls - 1)) : 0;
	L->min = s[0];
	L->max = s[sm->n - 1];
	/* nearest-rank percentiles */
	L->median = s[(size_t)ceil(0.50 * L->calls) - 1];
	L->p95 = s[(size_t)ceil(0.95 * L->calls) - 1];
	if (sm->latency > 0) {
		double tot = sm->latency;

		L->network_share = sm->network / tot;
		L->server_share = sm->server / tot;
		L->children_share = sm->children / tot;
		L->unknown_share = sm->unsplit / tot;
	}
}

int ccsg_latency_finish(struct ccsg_latency_acc *acc,
			const struct ccsg_graph *g, struct ccsg_latency **out,
			size_t *nout)
{
	struct ccsg_latency *res;
	size_t nres = 0;

	if (acc_room(acc, g) || !(res = calloc(g->nnodes + 1, sizeof(*res))))
		return -ENOMEM;
	/* an entry per function node with calls, in node order */
	for (size_t i = 0; i < g->nnodes; i++) {
		struct node_sums *sm = &acc->sums[i];
		struct ccsg_latency *L = &res[nres];

		if (g->nodes[i].kind != CCSG_FUNCTION || !g->nodes[i].calls)
			continue;
		L->node = (int32_t)i;
		L->skipped = sm->skipped;
		L->bounded = sm->bounded;
		L->failed = g->nodes[i].failed;
		if (sm->n) {
			qsort(sm->ns, sm->n, sizeof(*sm->ns), cmp_ns);
			node_stats(L, sm);
		}
		nres++;
	}
	qsort(res, nres, sizeof(*res), cmp_total);
	*out = res;
	*nout = nres;
	return 0;
}

void ccsg_latency_acc_release(struct ccsg_latency_acc *acc)
{
	for (size_t i = 0; i < acc->nnodes; i++)
		free(acc->sums[i].ns);
	free(acc->sums);
	free(acc->child);
	memset(acc, 0, sizeof(*acc));
}

int ccsg_latency_build(const struct ccsg_graph *g, struct ccsg_latency **out,
		       size_t *nout)
{
	const struct ccsg_trace *t = g->dscg->trace;
	struct ccsg_latency_acc acc = { 0 };
	int ret = 0;

	for (size_t i = 0; i < t->nchains && !ret; i++)
		ret = ccsg_latency_chain(&acc, g, &t->chains[i],
					 g->call_node + t->chains[i].first, 0);
	if (!ret)
		ret = ccsg_latency_finish(&acc, g, out, nout);
	ccsg_latency_acc_release(&acc);
	return ret;
}
