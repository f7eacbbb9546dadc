/*
 * latency.c - Equation 3 of the monitoring paper per call, between the
 * stub probes' inner edges, less the probe time the call held (the
 * intra-chain interference of Equation 4), chain by chain (a loaded
 * trace's chains, or a stream's); then order statistics per function
 * node from its calls' latencies, sorted.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "latency.h"
#include "sampling.h"

/* enum clnt_stat values that are an answer of the server (the reply
 * reached the client): RPC_CANTDECODERES, RPC_VERSMISMATCH ..
 * RPC_SYSTEMERROR. */
#define RPC_CANTDECODERES 2
#define RPC_VERSMISMATCH 6
#define RPC_SYSTEMERROR 12

int ccsg_call_replied(const struct ccsg_call *c)
{
	int64_t s = c->status;

	for (int k = 0; k < 4; k++)
		if (c->ev[k] == CCSG_NONE)
			return 0;
	if (c->stub_start_ns == CCSG_NONE || c->stub_end_exit_ns == CCSG_NONE ||
	    c->skel_start_exit_ns == CCSG_NONE || c->skel_end_ns == CCSG_NONE ||
	    c->ev[CCSG_SKEL_END] >= c->ev[CCSG_STUB_END])
		return 0;
	/* unknown (semantics off): the events said it */
	return s < 0 || s == CCSG_RPC_SUCCESS || s == RPC_CANTDECODERES ||
	       (s >= RPC_VERSMISMATCH && s <= RPC_SYSTEMERROR);
}

/*
 * A probe's edges: *in its entry, *out its exit; one of them alone
 * stands for both (an instant).  0 when neither is known or the exit
 * precedes the entry (not a probe's time: never a negative figure).
 */
static int edges(int64_t entry, int64_t exit, int64_t *in, int64_t *out)
{
	*in = entry != CCSG_NONE ? entry : exit;
	*out = exit != CCSG_NONE ? exit : entry;
	return *in != CCSG_NONE && *out >= *in;
}

/* A probe's own time, 0 when unknown. */
static int64_t probe_ns(int64_t entry, int64_t exit)
{
	int64_t in, out;

	return edges(entry, exit, &in, &out) ? out - in : 0;
}

static int64_t stub_probes(const struct ccsg_call *c)
{
	return probe_ns(c->stub_start_ns, c->stub_start_exit_ns) +
	       probe_ns(c->stub_end_ns, c->stub_end_exit_ns);
}

static int64_t skel_probes(const struct ccsg_call *c)
{
	return probe_ns(c->skel_start_ns, c->skel_start_exit_ns) +
	       probe_ns(c->skel_end_ns, c->skel_end_exit_ns);
}

/*
 * From the exit of probe a to the entry of probe b (their inner edges),
 * CCSG_NONE when either is unknown; negative when b's entry came first.
 */
static int64_t inner(int64_t a_entry, int64_t a_exit, int64_t b_entry,
		     int64_t b_exit)
{
	int64_t a0, a1, b0, b1;

	if (!edges(a_entry, a_exit, &a0, &a1) ||
	    !edges(b_entry, b_exit, &b0, &b1))
		return CCSG_NONE;
	return b0 - a1;
}

/* The index in its part of call j's parent, -1 for none. */
static int32_t parent_in(const struct ccsg_call *c, const struct ccsg_chain *ch)
{
	return c->parent >= ch->first && c->parent - ch->first < ch->n
		       ? c->parent - ch->first
		       : -1;
}

void ccsg_latency_calls(const struct ccsg_trace *t, const struct ccsg_chain *ch,
			struct ccsg_call_latency *out)
{
	const struct ccsg_call *calls = &t->calls[ch->first];
	int32_t n = ch->n;

	for (int32_t j = 0; j < n; j++) {
		out[j] = (struct ccsg_call_latency){ .nested = 0 };
		out[j].probes = stub_probes(&calls[j]) + skel_probes(&calls[j]);
	}
	/* the probe time under each call: a call's descendants come after
	 * it in the chain (ordered by first event), so walking backwards
	 * each call is complete before its parent takes it.  Its parent
	 * held its stub probes and, replied to, its skeleton's and all
	 * below (a skeleton the client gave up on may have run on after
	 * the parent ended: not held) */
	for (int32_t j = n - 1; j >= 0; j--) {
		const struct ccsg_call *c = &calls[j];
		int32_t p = parent_in(c, ch);

		if (ccsg_call_replied(c))
			out[j].subtracted = skel_probes(c) + out[j].nested;
		if (p >= 0)
			out[p].nested += stub_probes(c) + out[j].subtracted;
	}
	for (int32_t j = 0; j < n; j++) {
		const struct ccsg_call *c = &calls[j];
		struct ccsg_call_latency *o = &out[j];
		int32_t p = parent_in(c, ch);

		o->uncompensated =
			inner(c->stub_start_ns, c->stub_start_exit_ns,
			      c->stub_end_ns, c->stub_end_exit_ns);
		o->server = inner(c->skel_start_ns, c->skel_start_exit_ns,
				  c->skel_end_ns, c->skel_end_exit_ns);
		if (o->uncompensated < 0) { /* unknown, or out of order */
			o->uncompensated = o->latency = CCSG_NONE;
			continue;
		}
		if (o->subtracted > o->uncompensated) { /* not the probes' */
			o->bounded = 1;
			o->subtracted = o->uncompensated;
		}
		o->latency = o->uncompensated - o->subtracted;
		/* parents come first: the children add up after */
		if (p >= 0)
			out[p].children += o->latency;
	}
}

static int cmp_ns(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
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
	double latency;		   /* compensated, ns */
	double uncomp, uncomp2;	   /* Equation 3 alone, its squares */
	double subtracted, probes; /* probe time */
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

/* Call c of figures o into its node's sums: 0 or -ENOMEM. */
static int add_call(struct node_sums *sm, const struct ccsg_call *c,
		    const struct ccsg_call_latency *o)
{
	int64_t l = o->latency;

	if (l == CCSG_NONE) {
		sm->skipped++;
		return 0;
	}
	if (GROW(sm->ns, sm->cap, sm->n + 1))
		return -ENOMEM;
	sm->ns[sm->n++] = l;
	sm->latency += l;
	sm->uncomp += o->uncompensated;
	sm->uncomp2 += (double)o->uncompensated * o->uncompensated;
	sm->subtracted += o->subtracted;
	sm->probes += o->probes;
	if (o->server != CCSG_NONE) {
		/* the split of latency.h, within [0, l]: the server time
		 * less the probes under it (all of them but its own
		 * skeleton's, which lie outside its inner edges) */
		int64_t raw = o->server, server, kids;

		if (ccsg_call_replied(c))
			raw -= o->nested;
		server = bound(raw, 0, l);
		kids = bound(o->children, 0, server);
		sm->bounded +=
			server != raw || kids != o->children || o->bounded;
		sm->network += l - server;
		sm->server += server - kids;
		sm->children += kids;
	} else {
		sm->unsplit += l;
	}
	return 0;
}

int ccsg_latency_chain(void *arg, const struct ccsg_graph *g,
		       const struct ccsg_chain *ch, const int32_t *node,
		       int64_t ord0)
{
	struct ccsg_latency_acc *acc = arg;
	const struct ccsg_trace *t = g->dscg->trace;

	(void)ord0; /* latencies need no ordinal */
	if (!ccsg_chain_sampled(t, ch)) /* tail keep's: in no estimate */
		return 0;
	if (acc_room(acc, g) ||
	    GROW(acc->calls, acc->cap_calls, (size_t)ch->n + 1))
		return -ENOMEM;
	ccsg_latency_calls(t, ch, acc->calls);
	for (int32_t j = 0; j < ch->n; j++) {
		if (node[j] < 0) /* start lost: no function, no latency */
			continue;
		if (add_call(&acc->sums[node[j]], &t->calls[ch->first + j],
			     &acc->calls[j]))
			return -ENOMEM;
	}
	return 0;
}

/* Fill L's order statistics and shares from its node's sums: n > 0
 * latencies, sorted. */
static void node_stats(struct ccsg_latency *L, const struct node_sums *sm)
{
	const int64_t *s = sm->ns;
	double mean, var = 0, n;

	L->calls = (int64_t)sm->n;
	n = (double)L->calls;
	mean = sm->latency / n;
	for (size_t k = 0; k < sm->n; k++)
		var += (s[k] - mean) * (s[k] - mean);
	L->mean = mean;
	L->sd = L->calls > 1 ? sqrt(var / (n - 1)) : 0;
	L->uncomp_mean = sm->uncomp / n;
	/* one pass: the sum of squares, never below 0 by rounding */
	var = sm->uncomp2 - sm->uncomp * L->uncomp_mean;
	L->uncomp_sd = L->calls > 1 && var > 0 ? sqrt(var / (n - 1)) : 0;
	L->subtracted = sm->subtracted / n;
	L->probes = sm->probes / n;
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
		/* a sampled trace's: the count scaled as the graph's
		 * (sampling.h), the latencies the sampled chains' */
		if (g->dscg->trace->totals)
			L->calls = llround((double)L->calls /
					   g->dscg->trace->totals->rate);
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
	free(acc->calls);
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
