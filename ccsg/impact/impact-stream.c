/*
 * impact-stream.c - impact estimation of a trace read chain by chain
 * (impact.h, "Streamed"): what ccsg_impact_apply() of each change in
 * turn gives, without the calls in memory.
 *
 * The changes telescope: a call's deltas over them add up to its self
 * CPU scaled by the product of the factors that reached it, minus its
 * self CPU.  That product depends only on the call's function node and
 * host, so it is known before the second reading, and every delta of the
 * CCDG is linear in the calls' deltas:
 *
 *  - self and descendant deltas are a fold of the deltas (ccsg.c, with
 *    ccsg_graph_map_self()), which sends them where the CPU went;
 *  - the latency deltas (each call's synchronous path: itself, its
 *    calls but one-way ones, the threads it joined) are summed up each
 *    chain as it is read, child to parent; what a spawned thread adds
 *    waits for the end, at the place of the call that spawned it;
 *  - the CCDG's nodes and edges are those on the paths from a changed
 *    call up to main: through the chain, then its thread and whatever
 *    made that thread, found the same way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "impact-stream.h"
#include "sampling.h"
#include "usage.h"

/* --- the first reading: the calls of each node on each host ------------- */

static int count_chain(void *arg, const struct ccsg_graph *g,
		       const struct ccsg_chain *ch, const int32_t *node,
		       int64_t ord0)
{
	struct ccsg_impact_counts *c = arg;
	const struct ccsg_trace *t = g->dscg->trace;
	size_t nh = t->nhosts;

	if (c->latency && ccsg_latency_chain(c->latency, g, ch, node, ord0))
		return -ENOMEM;
	if (g->nnodes > c->nnodes) {
		int64_t *v = realloc(c->calls, g->nnodes * nh * sizeof(*v) + 1);

		if (!v)
			return -ENOMEM;
		memset(v + c->nnodes * nh, 0,
		       (g->nnodes - c->nnodes) * nh * sizeof(*v));
		c->calls = v;
		c->nnodes = g->nnodes;
	}
	for (int32_t j = 0; j < ch->n; j++) {
		const struct ccsg_call *call = &t->calls[ch->first + j];
		int32_t h = call->server_proc
				    ? ccsg_trace_host(t, call->server_proc)
				    : -1;

		if (node[j] >= 0 && h >= 0)
			c->calls[(size_t)node[j] * nh + (size_t)h]++;
	}
	return 0;
}

const struct ccsg_stream_watch *
ccsg_impact_counts_watch(struct ccsg_impact_counts *c,
			 struct ccsg_latency_acc *latency)
{
	memset(c, 0, sizeof(*c));
	c->latency = latency;
	c->watch = (struct ccsg_stream_watch){ count_chain, c, NULL };
	return &c->watch;
}

int ccsg_impact_stream_init(struct ccsg_impact *im, const struct ccsg_graph *g,
			    struct ccsg_impact_counts *c)
{
	const struct ccsg_trace *t = g->dscg->trace;
	size_t n = g->nnodes;

	if (ccsg_impact_alloc(im, g))
		return -ENOMEM;
	im->node_host_calls = calloc(n * t->nhosts + 1, sizeof(int64_t));
	im->factor = malloc((n * t->nhosts + 1) * sizeof(*im->factor));
	im->in_scope = calloc(n * t->nhosts + 1, 1);
	if (!im->node_host_calls || !im->factor || !im->in_scope) {
		ccsg_impact_release(im);
		return -ENOMEM;
	}
	for (size_t s = 0; s < n * t->nhosts; s++)
		im->factor[s] = (struct ccsg_ratio){ 1, 1 };
	/* nodes the counts never saw made no call with a host */
	if (c->calls)
		memcpy(im->node_host_calls, c->calls,
		       (c->nnodes < n ? c->nnodes : n) * t->nhosts *
			       sizeof(int64_t));
	return 0;
}

void ccsg_impact_counts_release(struct ccsg_impact_counts *c)
{
	free(c->calls);
	memset(c, 0, sizeof(*c));
}

/* --- the second reading --------------------------------------------------- */

/* A call on the path from a spawning call up to its chain's root. */
struct step {
	int32_t node;  /* -1: its start was lost */
	int32_t edge;  /* pending edge of the fold, -1 */
	uint8_t flags; /* CCSG_IMPACT_LATENCY | CCSG_IMPACT_ONE_WAY */
};

/* Where a spawned thread's deltas go: the spawning call and up. */
struct place {
	int32_t owner;	     /* the chain's thread, -1 */
	int64_t skel_end_ns; /* the spawning call's, for joined */
	struct step *steps;
	size_t nsteps;
};

struct pass {
	struct ccsg_impact *im;
	const struct ccsg_trace *t;
	size_t nh;
	const struct ccsg_ratio *factor; /* im's */
	const uint8_t *in_scope;
	size_t nnodes;
	/* the part being read, per call */
	uint8_t *path; /* on the path to a changed call */
	int64_t *sync; /* its synchronous path's delta */
	size_t cap_path, cap_sync;
	/* per thread */
	struct place *place;
	uint8_t *touched;    /* on a path: a slot of ccsg_impact_apply() */
	uint8_t *fn_touched; /* ... through one of its chains */
	int64_t *thread_sync;
	/* per pending edge of the fold */
	uint8_t *edge_on;
	size_t cap_edge_on;
	int main_touched;
};

static size_t slot(const struct pass *p, int32_t node, int32_t host)
{
	return (size_t)node * p->nh + (size_t)host;
}

/* A call's Equation 1 value becomes its delta (ccsg_graph_map_self()). */
static int64_t delta_of(void *arg, int32_t node, int32_t host, int64_t self)
{
	const struct pass *p = arg;

	if (node < 0 || host < 0 || (size_t)node >= p->nnodes ||
	    !p->in_scope[slot(p, node, host)])
		return 0;
	return ccsg_ratio_scaled(self, p->factor[slot(p, node, host)]) - self;
}

static int note_edge(struct pass *p, int32_t e)
{
	if (e < 0)
		return 0;
	if ((size_t)e >= p->cap_edge_on) {
		size_t old = p->cap_edge_on;

		if (GROW(p->edge_on, p->cap_edge_on, (size_t)e + 1))
			return -ENOMEM;
		memset(p->edge_on + old, 0, p->cap_edge_on - old);
	}
	p->edge_on[e] = 1;
	return 0;
}

/* The threads call i (ordinal ord) spawned: their place. */
static int place_threads(struct pass *p, const struct ccsg_graph *g,
			 const struct ccsg_chain *ch, int32_t i, int64_t ord,
			 const int32_t *node, const int32_t *edge)
{
	const struct ccsg_trace *t = p->t;
	const struct ccsg_call *c = &t->calls[i];
	const struct ccsg_spawns *sp = &g->dscg->spawns;

	if (c->lost || !c->server_proc || c->server_function_id == CCSG_NONE)
		return 0;
	for (int32_t th = ccsg_spawns_first(sp, c->server_proc,
					    c->server_function_id);
	     th >= 0; th = ccsg_spawns_next(sp, th)) {
		struct place *pl = &p->place[th];
		size_t n = 0;

		if (t->threads[th].spawn_call != ord)
			continue;
		for (int32_t a = i; a >= 0; a = t->calls[a].parent)
			n++;
		free(pl->steps);
		pl->steps = malloc(n * sizeof(*pl->steps));
		if (!pl->steps)
			return -ENOMEM;
		pl->nsteps = 0;
		pl->owner = ch->owner;
		pl->skel_end_ns = c->skel_end_ns;
		for (int32_t a = i; a >= 0; a = t->calls[a].parent)
			pl->steps[pl->nsteps++] = (struct step){
				node[a - ch->first], edge[a - ch->first],
				(uint8_t)ccsg_impact_call_flags(&t->calls[a])
			};
	}
	return 0;
}

/*
 * A part of a chain, read and folded: its calls' latency deltas from the
 * leaves up (a call's children come after it), the paths of the changed
 * calls, and the places of the threads its calls spawned.
 */
static int impact_chain(void *arg, const struct ccsg_graph *g,
			const struct ccsg_chain *ch, const int32_t *node,
			int64_t ord0)
{
	struct pass *p = arg;
	struct ccsg_impact *im = p->im;
	const struct ccsg_trace *t = p->t;
	const int32_t *edge = ccsg_graph_chain_edges(g);
	const int64_t *delta = ccsg_graph_chain_self(g);
	size_t n = (size_t)ch->n;

	if (GROW(p->path, p->cap_path, n) || GROW(p->sync, p->cap_sync, n))
		return -ENOMEM;
	memset(p->path, 0, n);
	memset(p->sync, 0, n * sizeof(*p->sync));
	for (size_t j = n; j-- > 0;) {
		int32_t i = ch->first + (int32_t)j, f = node[j];
		const struct ccsg_call *c = &t->calls[i];
		int32_t h = c->server_proc ? ccsg_trace_host(t, c->server_proc)
					   : -1;
		unsigned flags = ccsg_impact_call_flags(c);
		int32_t up = c->parent;

		if (f >= 0 && h >= 0 && (size_t)f < p->nnodes &&
		    p->in_scope[slot(p, f, h)])
			p->path[j] = p->main_touched = 1;
		p->sync[j] += delta[j];
		if (p->path[j] && f >= 0) {
			ccsg_impact_affect_node(im, f);
			if (note_edge(p, edge[j]))
				return -ENOMEM;
		}
		if (f >= 0 && (flags & CCSG_IMPACT_LATENCY))
			im->sync_delta[f] += p->sync[j];
		if (up >= 0) {
			p->path[up - ch->first] |= p->path[j];
			if (!(flags & CCSG_IMPACT_ONE_WAY))
				p->sync[up - ch->first] += p->sync[j];
		} else if (ch->owner >= 0) {
			if (p->path[j])
				p->touched[ch->owner] =
					p->fn_touched[ch->owner] = 1;
			if (!(flags & CCSG_IMPACT_ONE_WAY))
				p->thread_sync[ch->owner] += p->sync[j];
		}
		if (place_threads(p, g, ch, i, ord0 + i, node, edge))
			return -ENOMEM;
	}
	return 0;
}

int ccsg_impact_stream_add(struct ccsg_impact *im, const struct ccsg_change *c)
{
	size_t nh = im->g->dscg->trace->nhosts;
	struct ccsg_ratio f = { c->num, c->den };
	int ret;

	/* the products first: nothing applied when one does not fit */
	for (size_t j = 0; j < c->nnodes; j++)
		for (size_t h = 0; h < nh; h++) {
			size_t s = (size_t)c->nodes[j] * nh + h;
			struct ccsg_ratio r;

			if (c->host_in[h] && im->node_host_calls[s] &&
			    (ret = ccsg_ratio_mul(im->factor[s], f, &r)))
				return ret;
		}
	for (size_t j = 0; j < c->nnodes; j++)
		for (size_t h = 0; h < nh; h++) {
			size_t s = (size_t)c->nodes[j] * nh + h;

			if (!c->host_in[h] || !im->node_host_calls[s])
				continue;
			ccsg_ratio_mul(im->factor[s], f, &im->factor[s]);
			im->in_scope[s] = 1;
		}
	im->applied++;
	return 0;
}

/*
 * What a thread passes up, deepest first, once every chain is read: its
 * node and in-edge when one of its chains was on a path, the path above
 * it, and its latency delta when what made it waited for it.
 */
static int threads_up(struct pass *p, const struct ccsg_graph *g)
{
	const struct ccsg_trace *t = p->t;
	struct ccsg_impact *im = p->im;
	size_t n = t->nthreads;
	int32_t *owner = malloc((n + 1) * sizeof(*owner));
	int32_t *up = malloc((n + 1) * sizeof(*up)), *order = NULL;

	for (size_t i = 0; owner && i < n; i++)
		owner[i] = p->place[i].owner;
	if (!owner || !up ||
	    !(order = ccsg_threads_deepest_first(t, owner, up))) {
		free(owner);
		free(up);
		return -ENOMEM;
	}
	for (size_t o = 0; o < n; o++) {
		int32_t th = order[o];
		const struct ccsg_thread *x = &t->threads[th];
		const struct place *pl = &p->place[th];
		int spawned = x->spawn_call >= 0;
		int64_t upto =
			spawned ? pl->skel_end_ns
			: x->parent_thread >= 0
				? t->threads[x->parent_thread].end_mono_ns
				: CCSG_NONE;
		int64_t s = p->thread_sync[th];
		size_t a = 0;

		if (p->touched[th]) {
			int32_t tn = g->thread_node[th];

			if (!g->root_thread[th] && p->fn_touched[th]) {
				ccsg_impact_affect_node(im, tn);
				ccsg_impact_affect_edge(
					im,
					ccsg_edge_find(g, g->nodes[tn].parent,
						       tn));
			}
			for (size_t k = 0; spawned && k < pl->nsteps; k++) {
				ccsg_impact_affect_node(im, pl->steps[k].node);
				if (note_edge(p, pl->steps[k].edge))
					goto nomem;
			}
			if (spawned && pl->owner >= 0)
				p->touched[pl->owner] =
					p->fn_touched[pl->owner] = 1;
			else if (!spawned && x->parent_thread >= 0)
				p->touched[x->parent_thread] = 1;
		}
		if (!s || !ccsg_impact_joined(x, upto))
			continue;
		if (!spawned) {
			if (x->parent_thread >= 0)
				p->thread_sync[x->parent_thread] += s;
			continue;
		}
		for (; a < pl->nsteps; a++) {
			const struct step *st = &pl->steps[a];

			if (st->node >= 0 && (st->flags & CCSG_IMPACT_LATENCY))
				im->sync_delta[st->node] += s;
			if (st->flags & CCSG_IMPACT_ONE_WAY)
				break;
		}
		if (a == pl->nsteps && pl->owner >= 0)
			p->thread_sync[pl->owner] += s;
	}
	free(owner);
	free(up);
	free(order);
	return 0;
nomem:
	free(owner);
	free(up);
	free(order);
	return -ENOMEM;
}

/* The fold of the deltas, and the paths, into im. */
static int collect(struct pass *p, const struct ccsg_graph *gd)
{
	struct ccsg_impact *im = p->im;
	const struct ccsg_graph *g = im->g;
	size_t k = im->k;

	if (gd->nnodes != g->nnodes || gd->nedges != g->nedges)
		return fail("'%s' changed between two readings", p->t->path);
	for (size_t n = 0; n < g->nnodes; n++) {
		memcpy(im->self_delta + n * k, gd->nodes[n].self,
		       k * sizeof(int64_t));
		memcpy(im->desc_delta + n * k, gd->nodes[n].desc,
		       k * sizeof(int64_t));
	}
	memcpy(im->total_delta, gd->total, k * sizeof(int64_t));
	if (threads_up(p, gd))
		return fail("out of memory");
	for (size_t e = 0; e < p->cap_edge_on; e++)
		if (p->edge_on[e])
			ccsg_impact_affect_edge(im, gd->edge_of_pending[e]);
	if (p->main_touched)
		ccsg_impact_affect_node(im, 0);
	return 0;
}

static void pass_release(struct pass *p)
{
	for (size_t i = 0; p->place && i < p->t->nthreads; i++)
		free(p->place[i].steps);
	free(p->place);
	free(p->touched);
	free(p->fn_touched);
	free(p->thread_sync);
	free(p->path);
	free(p->sync);
	free(p->edge_on);
}

/* Set the fold's calls to their deltas once its graph is begun. */
static void map_deltas(void *arg, struct ccsg_graph *g)
{
	ccsg_graph_map_self(g, delta_of, arg);
}

int ccsg_impact_stream_apply(struct ccsg_impact *im, const char *db,
			     const struct ccsg_dims *dims)
{
	const struct ccsg_graph *g = im->g;
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_graph gd;
	struct ccsg_graph *graphs[] = { &gd };
	const int resource = CCSG_RES_CPU;
	struct pass p = { .im = im };
	const struct ccsg_stream_watch watch = { impact_chain, &p, map_deltas };
	int ret = -1;

	p.nh = g->dscg->trace->nhosts;
	p.nnodes = g->nnodes;
	p.factor = im->factor;
	p.in_scope = im->in_scope;
	if (ccsg_trace_open(&t, db))
		return -1;
	t.totals = g->dscg->trace->totals; /* sampled: the same chains */
	p.t = &t;
	p.place = calloc(t.nthreads + 1, sizeof(*p.place));
	p.touched = calloc(t.nthreads + 1, 1);
	p.fn_touched = calloc(t.nthreads + 1, 1);
	p.thread_sync = calloc(t.nthreads + 1, sizeof(int64_t));
	if (!p.place || !p.touched || !p.fn_touched || !p.thread_sync) {
		fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < t.nthreads; i++)
		p.place[i].owner = -1;
	if (ccsg_stream_build(&d, &t, dims, g->by_object, graphs, &resource, 1,
			      &watch))
		goto out;
	/* a sampled trace's graph is scaled (sampling.h): its deltas too */
	if (t.totals && ccsg_graph_scale(&gd, t.totals->rate, NULL))
		ret = fail("out of memory");
	else
		ret = collect(&p, &gd);
	ccsg_graph_release(&gd);
	ccsg_dscg_release(&d);
out:
	pass_release(&p);
	ccsg_trace_release(&t);
	return ret;
}
