/*
 * ccsg.c - from the DSCG to the CCSG (CPU paper, Appendix A).
 *
 * Instead of a topological sort the DSCG tree is walked once in post-order
 * with an explicit stack; each level of the stack holds the running sum of
 * its children's self + descendant vectors, so a node's descendant CPU
 * (Equations 3 and 4) is complete when it is left, in O(depth x dims)
 * memory.  Each finished invocation or thread instance is added to its
 * function or thread node (REPRESENTATION_IN_CCSG / UPDATE_CCSG), found
 * through hash maps.  Recursion needs no cycle collapsing (Section 3.2):
 * the propagation runs on the DSCG, which is a tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "ccsg.h"
#include "names.h"

struct build {
	struct ccsg_graph *g;
	struct ccsg_trace *t;
	/* a call's function, by exact keys through a chain of small maps:
	 * (prog, vers) -> pv, (pv, proc) -> fn, (server, object) -> obj,
	 * (fn, obj) -> fo */
	struct hashmap pv, fn, obj, fo;
	struct hashmap fn_node;		/* fn (or fo, by object) -> its node */
	int32_t *thread_node;		/* per thread: the graph's */
	int64_t *thread_self;
	uint8_t *root_thread;
	uint8_t *served;		/* per thread: it ran skeletons */
	int32_t serving_node;		/* under main, made on demand, or -1 */
};

static int32_t new_node(struct ccsg_graph *g, int kind)
{
	struct ccsg_node *n;

	if (GROW(g->nodes, g->cap_nodes, g->nnodes + 1))
		return -ENOMEM;
	n = &g->nodes[g->nnodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->parent = n->thread_node = n->server_proc = n->object_id = n->peer = n->symbol = -1;
	n->self = calloc(g->dims->n ? g->dims->n : 1, sizeof(int64_t));
	n->desc = calloc(g->dims->n ? g->dims->n : 1, sizeof(int64_t));
	if (!n->self || !n->desc) {
		free(n->self);
		free(n->desc);
		return -ENOMEM;
	}
	return (int32_t)g->nnodes++;
}

/* The dense id of key in m: its own, or the next one (m's count) when
 * new; -ENOMEM. */
static int32_t lookup(struct hashmap *m, uint64_t key)
{
	return hashmap_put(m, key, (int32_t)m->n);
}

static int32_t function_node(struct build *b, const struct ccsg_call *c)
{
	struct ccsg_graph *g = b->g;
	int32_t pv, key, n;

	pv = lookup(&b->pv, hashmap_key2(c->prog, c->vers));
	if (pv < 0)
		return -ENOMEM;
	key = lookup(&b->fn, hashmap_key2((uint32_t)pv, c->proc));
	if (key < 0)
		return -ENOMEM;
	if (g->by_object) {
		int32_t o;

		if (c->server_proc && c->object_id >= 0)
			o = lookup(&b->obj,
				   hashmap_key2(c->server_proc,
						(uint32_t)c->object_id));
		else		/* untraced server: its address is the object */
			o = lookup(&b->obj, hashmap_key2(0x80000000u,
							 (uint32_t)c->peer));
		if (o < 0)
			return -ENOMEM;
		key = lookup(&b->fo, hashmap_key2((uint32_t)key, (uint32_t)o));
		if (key < 0)
			return -ENOMEM;
	}
	n = hashmap_get(&b->fn_node, (uint64_t)key);
	if (n >= 0)
		return n;
	if ((n = new_node(g, CCSG_FUNCTION)) < 0)
		return n;
	g->nodes[n].prog = c->prog;
	g->nodes[n].vers = c->vers;
	g->nodes[n].proc = c->proc;
	if (g->by_object) {
		if (c->server_proc && c->object_id >= 0) {
			g->nodes[n].server_proc = c->server_proc;
			g->nodes[n].object_id = c->object_id;
		} else {
			g->nodes[n].peer = c->peer;
		}
	}
	if (hashmap_put(&b->fn_node, (uint64_t)key, n) < 0)
		return -ENOMEM;
	return n;
}

/* The thread node under function node f (or main), made on demand. */
static int32_t thread_node_of(struct ccsg_graph *g, int32_t f)
{
	int32_t n;

	if (g->nodes[f].thread_node >= 0)
		return g->nodes[f].thread_node;
	if ((n = new_node(g, CCSG_THREAD)) < 0)
		return n;
	g->nodes[n].parent = f;
	g->nodes[f].thread_node = n;
	return n;
}

/* The edge from -> to, made when new, count added: its index or -ENOMEM. */
static int32_t add_edge(struct build *b, int32_t from, int32_t to,
			int64_t count)
{
	struct ccsg_graph *g = b->g;
	int32_t e = ccsg_edge_find(g, from, to);

	if (e < 0) {
		if (GROW(g->edges, g->cap_edges, g->nedges + 1))
			return -ENOMEM;
		e = (int32_t)g->nedges++;
		g->edges[e] = (struct ccsg_edge){ from, to, 0, 0 };
		if (hashmap_put(&g->edge_index,
				hashmap_key2((uint32_t)from, (uint32_t)to),
				e) < 0)
			return -ENOMEM;
	}
	g->edges[e].count += count;
	return e;
}

/*
 * What the stub and the skeleton of a call used of the graph's resource
 * (P_2,end - P_1,start and P_4,start - P_3,end of Equation 1), and a
 * thread (Q_T,end - Q_T,start of Equation 2); CCSG_NONE when unknown.
 */
static int64_t stub_amount(const struct ccsg_graph *g,
			   const struct ccsg_call *c)
{
	if (g->resource != CCSG_RES_CPU)
		return c->stub_heap[CCSG_HEAP(g->resource)];
	if (c->cpu[CCSG_STUB_START] == CCSG_NONE || c->cpu[CCSG_STUB_END] == CCSG_NONE)
		return CCSG_NONE;
	return c->cpu[CCSG_STUB_END] - c->cpu[CCSG_STUB_START];
}

static int64_t skel_amount(const struct ccsg_graph *g,
			   const struct ccsg_call *c)
{
	if (g->resource != CCSG_RES_CPU)
		return c->skel_heap[CCSG_HEAP(g->resource)];
	if (c->cpu[CCSG_SKEL_START] == CCSG_NONE || c->cpu[CCSG_SKEL_END] == CCSG_NONE)
		return CCSG_NONE;
	return c->cpu[CCSG_SKEL_END] - c->cpu[CCSG_SKEL_START];
}

static int64_t thread_amount(const struct ccsg_graph *g,
			     const struct ccsg_thread *th)
{
	return g->resource == CCSG_RES_CPU ? th->cpu_ns
					   : th->heap[CCSG_HEAP(g->resource)];
}

/* The same, 0 when unknown. */
static int64_t stub_cpu(const struct ccsg_graph *g, const struct ccsg_call *c)
{
	int64_t v = stub_amount(g, c);

	return v == CCSG_NONE ? 0 : v;
}

static int64_t skel_cpu(const struct ccsg_graph *g, const struct ccsg_call *c)
{
	int64_t v = skel_amount(g, c);

	return v == CCSG_NONE ? 0 : v;
}

static int32_t dim_of_proc(const struct ccsg_graph *g, const struct ccsg_trace *t, int32_t proc)
{
	int32_t h = ccsg_trace_host(t, proc);

	return h >= 0 ? g->dims->of_host[h] : -1;
}

int32_t ccsg_proc_dim(const struct ccsg_graph *g, int32_t proc)
{
	return dim_of_proc(g, g->dscg->trace, proc);
}

int32_t ccsg_instance_node(const struct ccsg_graph *g, int32_t u)
{
	if (ccsg_dscg_is_call(g->dscg, u))
		return g->call_node[u];
	if (u == g->dscg->main)
		return 0;
	return g->thread_node[u - (int32_t)g->dscg->trace->ncalls];
}

int32_t ccsg_caller_node(const struct ccsg_graph *g, int32_t p)
{
	const struct ccsg_dscg *d = g->dscg;
	int32_t th = p - (int32_t)d->trace->ncalls;

	if (ccsg_dscg_is_call(d, p))
		return g->call_node[p] >= 0 ? g->call_node[p] : 0;
	if (p != d->main && !g->root_thread[th])
		return g->thread_node[th]; /* thread-invoke-function */
	return 0;
}

int32_t ccsg_edge_find(const struct ccsg_graph *g, int32_t from, int32_t to)
{
	return hashmap_get(&g->edge_index,
			   hashmap_key2((uint32_t)from, (uint32_t)to));
}

/* Equations 1 and 2 (of the graph's resource). */
static int self_cpu(struct build *b)
{
	struct ccsg_graph *g = b->g;
	struct ccsg_trace *t = b->t;

	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];

		g->call_self[i] = c->server_proc ? skel_cpu(g, c) : 0;
		/* heap figures are missing only when the memory type was
		 * off, or the log is older: say how many (CPU: never asked) */
		if (g->resource != CCSG_RES_CPU && c->server_proc &&
		    skel_amount(g, c) == CCSG_NONE)
			g->unmeasured_calls++;
	}
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];

		if (c->parent >= 0)	/* a direct child: its stub side */
			g->call_self[c->parent] -= stub_cpu(g, c);
	}
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct ccsg_thread *th = &t->threads[i];

		if (th->infra)
			continue;
		if (thread_amount(g, th) == CCSG_NONE)
			g->unmeasured_threads++;
		else
			b->thread_self[i] = thread_amount(g, th);
	}
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];
		int32_t th;

		if (g->call_self[i] < 0) {
			g->call_self[i] = 0;
			g->clamped++;
		}
		/* the skeletons a thread ran are the calls' CPU, not its own */
		if (c->server_tid && (th = ccsg_trace_thread(t, c->server_proc, c->server_tid)) >= 0) {
			b->thread_self[th] -= skel_cpu(g, c);
			b->served[th] = 1;
		}
		/* a chain it started: the stub side is runtime */
		if (c->parent < 0 && c->client_tid &&
		    (th = ccsg_trace_thread(t, c->client_proc, c->client_tid)) >= 0)
			b->thread_self[th] -= stub_cpu(g, c);
	}
	for (size_t i = 0; i < t->nthreads; i++) {
		if (t->threads[i].infra ||
		    thread_amount(g, &t->threads[i]) == CCSG_NONE) {
			b->thread_self[i] = 0;
		} else if (b->thread_self[i] < 0) {
			b->thread_self[i] = 0;
			g->clamped++;
		}
	}
	return 0;
}

/*
 * Threads no call spawned but that served requests (a server's svc_run
 * loop): what is left of their CPU once their skeletons are taken out is
 * the dispatch loop and start-up, runtime more than user code; a node of
 * their own under main keeps it apart from the programs' main threads.
 */
static int32_t serving_node_of(struct build *b)
{
	struct ccsg_graph *g = b->g;
	int32_t n;

	if (b->serving_node >= 0)
		return b->serving_node;
	if ((n = new_node(g, CCSG_THREAD)) < 0)
		return n;
	g->nodes[n].parent = 0;
	g->nodes[n].serving = 1;
	b->serving_node = n;
	return n;
}

/* The thread node of every thread: climb thread-spawn-thread to the
 * ceiling thread; its spawning call's function node owns the thread node
 * (Appendix A), main's when no call spawned it. */
static int map_threads(struct build *b)
{
	struct ccsg_graph *g = b->g;
	struct ccsg_trace *t = b->t;

	for (size_t i = 0; i < t->nthreads; i++) {
		int32_t j = (int32_t)i, f;

		while (t->threads[j].parent_thread >= 0 && t->threads[j].spawn_call < 0)
			j = t->threads[j].parent_thread;
		b->root_thread[i] = t->threads[i].parent_thread < 0 && t->threads[i].spawn_call < 0;
		f = t->threads[j].spawn_call >= 0 ? g->call_node[t->threads[j].spawn_call] : 0;
		if (f < 0)
			f = 0;
		b->thread_node[i] = f == 0 && b->served[i] ? serving_node_of(b)
							   : thread_node_of(g, f);
		if (b->thread_node[i] < 0)
			return -ENOMEM;
		/* infrastructure threads are runtime: in no count */
		g->nodes[b->thread_node[i]].threads += !t->threads[i].infra;
		if (add_edge(b, f, b->thread_node[i], !t->threads[i].infra) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void vec_add(int64_t *d, const int64_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] += s[i];
}

/*
 * The post-order walk's stack.  Level l holds DSCG node node[l], the next
 * of its children to visit, and the running sums of the self + descendant
 * vectors of its finished children: of all of them (all) and of its
 * function (call) children only (fn); k entries per level each.
 */
struct walk {
	size_t k;     /* vector dimensions */
	size_t depth; /* levels in use */
	int32_t *node, *next_child;
	int64_t *all, *fn;
	size_t cap_node, cap_next, cap_all, cap_fn;
};

/* Enter DSCG node u one level down; 0 or -ENOMEM (the walk unchanged). */
static int walk_push(struct walk *w, const struct ccsg_dscg *d, int32_t u)
{
	size_t l = w->depth, k = w->k;

	if (GROW(w->node, w->cap_node, l + 1) ||
	    GROW(w->next_child, w->cap_next, l + 1) ||
	    GROW(w->all, w->cap_all, (l + 1) * k) ||
	    GROW(w->fn, w->cap_fn, (l + 1) * k))
		return -ENOMEM;
	w->node[l] = u;
	w->next_child[l] = d->first_child[u];
	memset(w->all + l * k, 0, k * sizeof(*w->all));
	memset(w->fn + l * k, 0, k * sizeof(*w->fn));
	w->depth++;
	return 0;
}

static void walk_release(struct walk *w)
{
	free(w->node);
	free(w->next_child);
	free(w->all);
	free(w->fn);
}

/*
 * Leave level l > 0, whose node u has no child left to visit: u's self CPU
 * (Equation 1 or 2, in its host's dimension; self is scratch of k entries)
 * and its descendants' (Equations 3 and 4) go to its CCSG node
 * (UPDATE_CCSG) and into the sums of level l - 1.
 */
static void walk_leave(struct build *b, struct walk *w, size_t l, int64_t *self)
{
	struct ccsg_graph *g = b->g;
	const struct ccsg_dscg *d = g->dscg;
	const struct ccsg_trace *t = b->t;
	size_t k = w->k;
	int32_t u = w->node[l], dim;
	const int64_t *all = w->all + l * k, *fn = w->fn + l * k;
	int64_t *up_all = w->all + (l - 1) * k, *up_fn = w->fn + (l - 1) * k;
	struct ccsg_node *n;

	memset(self, 0, k * sizeof(*self));
	if (ccsg_dscg_is_call(d, u)) {
		const struct ccsg_call *call = &t->calls[u];

		dim = call->server_proc ? dim_of_proc(g, t, call->server_proc)
					: -1;
		if (dim >= 0)
			self[dim] = g->call_self[u];
		/* a call whose start was lost: in no node, its (unknown,
		 * so zero) CPU still reaches the level below */
		n = g->call_node[u] >= 0 ? &g->nodes[g->call_node[u]] : NULL;
		if (n)
			vec_add(n->desc, all, k);
		/* a function child of the level below */
		vec_add(up_fn, self, k);
		vec_add(up_fn, all, k);
	} else {
		int32_t i = u - (int32_t)t->ncalls;

		n = &g->nodes[b->thread_node[i]];
		dim = dim_of_proc(g, t, t->threads[i].proc);
		if (dim >= 0)
			self[dim] = b->thread_self[i];
		/* a main thread's chains hang under main, not its node */
		if (!b->root_thread[i])
			vec_add(n->desc, fn, k);
	}
	if (n)
		vec_add(n->self, self, k);
	vec_add(up_all, self, k);
	vec_add(up_all, all, k);
}

/* Post-order walk of the DSCG: Equations 3 and 4, and UPDATE_CCSG. */
static int propagate(struct build *b)
{
	struct ccsg_graph *g = b->g;
	const struct ccsg_dscg *d = g->dscg;
	struct walk w = {.k = g->dims->n ? g->dims->n : 1};
	int64_t *self = calloc(w.k, sizeof(*self));
	int ret = -ENOMEM;

	if (!self || walk_push(&w, d, d->main))
		goto out;
	while (w.depth) {
		size_t l = w.depth - 1;
		int32_t c = w.next_child[l];

		if (c >= 0) {
			w.next_child[l] = d->next_sibling[c];
			if (walk_push(&w, d, c))
				goto out;
			continue;
		}
		w.depth--;
		if (w.node[l] == d->main) { /* level 0: the whole system */
			vec_add(g->nodes[0].desc, w.all + l * w.k, w.k);
			break;
		}
		walk_leave(b, &w, l, self);
	}
	ret = 0;
out:
	walk_release(&w);
	free(self);
	return ret;
}

/* Section 3.3: a breadth-first search from main marks the primary links. */
static int mark_primary(struct ccsg_graph *g)
{
	size_t n = g->nnodes, head = 0, tail = 0;
	size_t *start = calloc(n + 1, sizeof(size_t));
	int32_t *order = malloc((g->nedges + 1) * sizeof(int32_t));
	int32_t *queue = malloc(n * sizeof(int32_t));
	uint8_t *seen = calloc(n, 1);
	int ret = -ENOMEM;

	if (!start || !order || !queue || !seen)
		goto out;
	/* edges grouped by source, in creation order */
	for (size_t e = 0; e < g->nedges; e++)
		start[g->edges[e].from + 1]++;
	for (size_t i = 0; i < n; i++)
		start[i + 1] += start[i];
	{
		size_t *fill = calloc(n, sizeof(size_t));

		if (!fill)
			goto out;
		for (size_t e = 0; e < g->nedges; e++) {
			int32_t f = g->edges[e].from;

			order[start[f] + fill[f]++] = (int32_t)e;
		}
		free(fill);
	}
	queue[tail++] = 0;
	seen[0] = 1;
	while (head < tail) {
		int32_t u = queue[head++];

		for (size_t i = start[u]; i < start[u + 1]; i++) {
			struct ccsg_edge *e = &g->edges[order[i]];

			if (seen[e->to])
				continue;
			seen[e->to] = 1;
			e->primary = 1;
			queue[tail++] = e->to;
		}
	}
	ret = 0;
out:
	free(start);
	free(order);
	free(queue);
	free(seen);
	return ret;
}

int ccsg_graph_build(struct ccsg_graph *g, struct ccsg_dscg *d, const struct ccsg_dims *dims,
		     int by_object)
{
	return ccsg_graph_build_res(g, d, dims, by_object, CCSG_RES_CPU);
}

int ccsg_graph_build_res(struct ccsg_graph *g, struct ccsg_dscg *d,
			 const struct ccsg_dims *dims, int by_object,
			 int resource)
{
	struct ccsg_trace *t = d->trace;
	struct build b = {.g = g, .t = t};
	size_t k = dims->n ? dims->n : 1;
	int ret = -ENOMEM;

	memset(g, 0, sizeof(*g));
	g->dscg = d;
	g->dims = dims;
	g->by_object = by_object;
	g->resource = resource;
	g->call_node = malloc((t->ncalls + 1) * sizeof(int32_t));
	g->call_self = calloc(t->ncalls + 1, sizeof(int64_t));
	g->call_edge = malloc((t->ncalls + 1) * sizeof(int32_t));
	g->total = calloc(k, sizeof(int64_t));
	b.thread_node = g->thread_node =
		malloc((t->nthreads + 1) * sizeof(int32_t));
	b.thread_self = g->thread_self =
		calloc(t->nthreads + 1, sizeof(int64_t));
	b.root_thread = g->root_thread = calloc(t->nthreads + 1, 1);
	b.served = calloc(t->nthreads + 1, 1);
	b.serving_node = -1;
	if (!g->call_node || !g->call_self || !g->call_edge || !g->total ||
	    !b.thread_node || !b.thread_self || !b.root_thread || !b.served ||
	    new_node(g, CCSG_MAIN) != 0)
		goto out;
	g->nodes[0].calls = 1;
	/* function nodes and caller/callee arcs, in DSCG order; a call whose
	 * start probe was dropped has no known function (not program 0):
	 * it is counted as lost (dscg stats), in no node */
	for (size_t i = 0; i < t->ncalls; i++) {
		int32_t n;

		if (t->calls[i].lost) {
			g->call_node[i] = -1;
			continue;
		}
		if ((n = function_node(&b, &t->calls[i])) < 0)
			goto out;
		g->call_node[i] = n;
		g->nodes[n].calls++;
		g->nodes[n].failed += t->calls[i].failed;
		if (g->nodes[n].symbol < 0 && ccsg_symbol_ok(t, t->calls[i].symbol, t->calls[i].vers))
			g->nodes[n].symbol = t->calls[i].symbol;
	}
	if (self_cpu(&b) || map_threads(&b))
		goto out;
	for (size_t i = 0; i < t->ncalls; i++) {
		g->call_edge[i] = -1;
		if (g->call_node[i] < 0)
			continue;
		g->call_edge[i] =
			add_edge(&b, ccsg_caller_node(g, d->parent[i]),
				 g->call_node[i], 1);
		if (g->call_edge[i] < 0)
			goto out;
	}
	if (propagate(&b) || mark_primary(g))
		goto out;
	vec_add(g->total, g->nodes[0].self, k);
	vec_add(g->total, g->nodes[0].desc, k);
	ret = 0;
out:
	hashmap_release(&b.pv);
	hashmap_release(&b.fn);
	hashmap_release(&b.obj);
	hashmap_release(&b.fo);
	hashmap_release(&b.fn_node);
	free(b.served);
	if (ret)
		ccsg_graph_release(g);
	return ret;
}

void ccsg_graph_release(struct ccsg_graph *g)
{
	for (size_t i = 0; i < g->nnodes; i++) {
		free(g->nodes[i].name);
		free(g->nodes[i].self);
		free(g->nodes[i].desc);
	}
	free(g->nodes);
	free(g->edges);
	free(g->call_node);
	free(g->call_self);
	free(g->call_edge);
	free(g->thread_self);
	free(g->thread_node);
	free(g->root_thread);
	hashmap_release(&g->edge_index);
	free(g->total);
	memset(g, 0, sizeof(*g));
}
