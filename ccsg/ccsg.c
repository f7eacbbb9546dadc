/*
 * ccsg.c - from the DSCG to the CCSG (CPU paper, Appendix A), folded
 * chain by chain.
 *
 * Every figure is a sum: an instance's self CPU (Equations 1 and 2) goes
 * to its CCSG node's self and to the descendant CPU (Equations 3 and 4)
 * of the nodes of all its DSCG ancestors, one entry per ancestor instance
 * (so recursion counts as the paper's per-instance sums do).  So chains
 * can be folded one at a time, in any order, and forgotten
 * (ccsg_graph_chain()): a call's self CPU is known once its chain is
 * scanned and goes up its chain at once; what leaves the chain - its
 * total, towards the thread that started it, and the threads its calls
 * spawned, whose place is the path of nodes above the spawning call -
 * waits in per-thread accumulators until ccsg_graph_end(), when every
 * thread's CPU (Equation 2 subtracts the skeletons it ran, from any
 * chain) is complete and the threads, deepest first, pass their sums up.
 * Memory: the CCSG, the threads, and the chain being folded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "ccsg.h"
#include "sampling.h"
#include "fold.h"
#include "names.h"

int32_t ccsg_graph_new_node(struct ccsg_graph *g, int kind)
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

static int32_t function_node(struct ccsg_fold *b, struct ccsg_graph *g,
			     const struct ccsg_chain *ch, int32_t i)
{
	const struct ccsg_call *c = &b->t->calls[i];
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
	if ((n = ccsg_graph_new_node(g, CCSG_FUNCTION)) < 0 ||
	    GROW(b->node_at, b->cap_node_at, g->nnodes) ||
	    GROW(b->sym_at, b->cap_sym_at, g->nnodes))
		return -ENOMEM;
	b->node_at[n] = ccsg_call_key_of(ch, i);
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
	if ((n = ccsg_graph_new_node(g, CCSG_THREAD)) < 0)
		return n;
	g->nodes[n].parent = f;
	g->nodes[f].thread_node = n;
	return n;
}

static size_t dims_k(const struct ccsg_graph *g)
{
	return g->dims->n ? g->dims->n : 1;
}

/* The edge from -> to, made when new, count added: its index or -ENOMEM. */
static int32_t add_edge(struct ccsg_graph *g, int32_t from, int32_t to,
			int64_t count)
{
	int32_t e = ccsg_edge_find(g, from, to);

	if (e < 0) {
		struct ccsg_edge *x;

		if (GROW(g->edges, g->cap_edges, g->nedges + 1))
			return -ENOMEM;
		x = &g->edges[g->nedges];
		*x = (struct ccsg_edge){ .from = from, .to = to };
		x->self = calloc(dims_k(g), sizeof(int64_t));
		x->desc = calloc(dims_k(g), sizeof(int64_t));
		if (!x->self || !x->desc) {
			free(x->self);
			free(x->desc);
			return -ENOMEM;
		}
		e = (int32_t)g->nedges++;
		if (hashmap_put(&g->edge_index,
				hashmap_key2((uint32_t)from, (uint32_t)to),
				e) < 0)
			return -ENOMEM;
	}
	g->edges[e].count += count;
	return e;
}

int ccsg_fold_edge_vectors(struct pending_edge *p, size_t k)
{
	p->self = calloc(k, sizeof(int64_t));
	p->desc = calloc(k, sizeof(int64_t));
	if (p->self && p->desc)
		return 0;
	free(p->self);
	free(p->desc);
	p->self = p->desc = NULL;
	return -ENOMEM;
}

/* One call more on the edge from -> to while folding: its pending slot,
 * or -ENOMEM. */
static int32_t note_edge(struct ccsg_fold *b, size_t k, int32_t from,
			 int32_t to, const struct ccsg_chain *ch, int32_t i)
{
	uint64_t key = hashmap_key2((uint32_t)from, (uint32_t)to);
	int32_t e = hashmap_get(&b->edge_slot, key);

	if (e < 0) {
		if (GROW(b->edges, b->cap_edges, b->nedges + 1) ||
		    hashmap_put(&b->edge_slot, key, (int32_t)b->nedges) < 0)
			return -ENOMEM;
		e = (int32_t)b->nedges++;
		b->edges[e] = (struct pending_edge){
			from, to, 0, ccsg_call_key_of(ch, i), NULL, NULL
		};
		if (ccsg_fold_edge_vectors(&b->edges[e], k))
			return -ENOMEM;
	}
	b->edges[e].count++;
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

int64_t ccsg_graph_thread_start(const struct ccsg_graph *g, size_t i)
{
	const struct ccsg_thread *th = &g->fold->t->threads[i];

	if (g->self_map || th->infra || thread_amount(g, th) == CCSG_NONE)
		return 0;
	return thread_amount(g, th);
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

static void vec_add(int64_t *d, const int64_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] += s[i];
}

/* Self figure v of an instance, in dimension dim (-1: its host is
 * unknown, it counts nowhere): its node's (n, or none) and the system's. */
static void add_self(struct ccsg_graph *g, int32_t n, int32_t dim, int64_t v)
{
	if (dim < 0)
		return;
	if (n >= 0)
		g->nodes[n].self[dim] += v;
	g->nodes[0].desc[dim] += v;
}

/* The sum of the chains thread th started, made on demand; NULL. */
static int64_t *chains_sum_of(struct ccsg_fold *b, const struct ccsg_graph *g,
			      int32_t th)
{
	if (!b->chains_sum[th])
		b->chains_sum[th] = calloc(dims_k(g), sizeof(int64_t));
	return b->chains_sum[th];
}

/* The threads call j (ordinal) spawned: where they hang.  0 or -ENOMEM. */
static int place_spawned(struct ccsg_fold *b, struct ccsg_graph *g,
			 const struct ccsg_chain *ch, int32_t j,
			 int64_t ordinal)
{
	const struct ccsg_trace *t = b->t;
	const struct ccsg_call *c = &t->calls[j];
	const struct ccsg_spawns *sp = &g->dscg->spawns;
	int32_t th;

	if (c->lost || !c->server_proc || c->server_function_id == CCSG_NONE)
		return 0;
	th = ccsg_spawns_first(sp, c->server_proc, c->server_function_id);
	for (; th >= 0; th = ccsg_spawns_next(sp, th)) {
		struct spawn_place *p = &b->spawn[th];
		size_t n = 0;

		if (t->threads[th].spawn_call != ordinal)
			continue;
		p->node = b->chain_node[j - ch->first];
		p->owner = ch->owner;
		for (int32_t a = j; a >= 0; a = t->calls[a].parent)
			n += b->chain_edge[a - ch->first] >= 0;
		free(p->path);
		p->npath = 0;
		if (!(p->path = malloc((n + 1) * sizeof(*p->path))))
			return -ENOMEM;
		for (int32_t a = j; a >= 0; a = t->calls[a].parent) {
			int32_t e = b->chain_edge[a - ch->first];

			if (e >= 0)
				p->path[p->npath++] =
					(struct fold_arc){ b->edges[e].from,
							   b->edges[e].to };
		}
	}
	return 0;
}

/* Equation 1 of each call of the chain (of the graph's resource), and
 * what they take from the threads' (Equation 2). */
static void chain_self(struct ccsg_fold *b, struct ccsg_graph *g,
		       const struct ccsg_chain *ch, int counted)
{
	const struct ccsg_trace *t = b->t;
	int64_t *self = b->chain_self;

	for (int32_t j = 0; j < ch->n; j++) {
		const struct ccsg_call *c = &t->calls[ch->first + j];

		self[j] = c->server_proc ? skel_cpu(g, c) : 0;
		/* heap figures are missing only when the memory type was
		 * off, or the log is older: say how many (CPU: never asked) */
		if (g->resource != CCSG_RES_CPU && c->server_proc && counted &&
		    skel_amount(g, c) == CCSG_NONE)
			g->unmeasured_calls++;
	}
	for (int32_t j = 0; j < ch->n; j++) {
		const struct ccsg_call *c = &t->calls[ch->first + j];

		if (c->parent >= 0)	/* a direct child: its stub side */
			self[c->parent - ch->first] -= stub_cpu(g, c);
	}
	for (int32_t j = 0; j < ch->n; j++) {
		const struct ccsg_call *c = &t->calls[ch->first + j];
		int32_t th;

		if (self[j] < 0) {
			self[j] = 0;
			g->clamped += counted;
		}
		if (!counted) /* the threads keep it (sampling.h) */
			continue;
		/* the skeletons a thread ran are the calls' CPU, not its own */
		if (c->server_tid &&
		    (th = ccsg_trace_thread(t, c->server_proc,
					    c->server_tid)) >= 0) {
			b->served[th] |= SERVED_RECORDED;
			if (!g->self_map)
				g->thread_self[th] -= skel_cpu(g, c);
		}
		/* a chain another process made, whose calls this thread
		 * made first: it was in a call of that chain, unrecorded */
		if (c->parent < 0 && c->client_tid && c->client_proc > 0 &&
		    (size_t)c->client_proc < t->nprocs &&
		    memcmp(ch->id, t->procs[c->client_proc].uuid, 16) &&
		    (th = ccsg_trace_thread(t, c->client_proc,
					    c->client_tid)) >= 0)
			b->served[th] |= SERVED_UNRECORDED;
		/* a chain it started: the stub side is runtime */
		if (!g->self_map && c->parent < 0 && c->client_tid &&
		    (th = ccsg_trace_thread(t, c->client_proc,
					    c->client_tid)) >= 0)
			g->thread_self[th] -= stub_cpu(g, c);
		if (g->self_map)
			self[j] = g->self_map(
				g->self_map_arg, b->chain_node[j],
				c->server_proc
					? ccsg_trace_host(t, c->server_proc)
					: -1,
				self[j]);
	}
}

int ccsg_graph_chain(struct ccsg_graph *g, const struct ccsg_chain *ch,
		     int64_t ord0)
{
	struct ccsg_fold *b = g->fold;
	const struct ccsg_trace *t = b->t;
	size_t k = dims_k(g), n = (size_t)ch->n;
	uint64_t mark;
	int counted;

	if (GROW(b->chain_node, b->cap_chain_node, n) ||
	    GROW(b->chain_edge, b->cap_chain_edge, n) ||
	    GROW(b->chain_self, b->cap_chain_self, n))
		return -ENOMEM;
	/* a chain of a sampled trace that head sampling did not choose
	 * (tail keep recorded it): each call gets its node and Equation 1,
	 * for the views of calls, but adds to no figure, as if unrecorded
	 * (sampling.h) */
	counted = ccsg_chain_sampled(t, ch);
	mark = ccsg_chain_mark(ch);
	memset(b->chain_sum, 0, k * sizeof(*b->chain_sum));
	/* function nodes, in call order; a call whose start probe was
	 * dropped has no known function (not program 0): it is counted as
	 * lost (dscg stats), in no node */
	for (int32_t j = 0; j < ch->n; j++) {
		const struct ccsg_call *c = &t->calls[ch->first + j];
		int32_t f = -1;

		if (!c->lost) {
			if ((f = function_node(b, g, ch, ch->first + j)) < 0)
				return -ENOMEM;
		}
		b->chain_node[j] = f;
		if (f >= 0 && counted) {
			g->nodes[f].calls++;
			g->nodes[f].failed += c->failed;
			if (g->nodes[f].chain_mark != mark) { /* a part of
							       * it: once */
				g->nodes[f].chains++;
				g->nodes[f].chain_mark = mark;
			}
			if (g->nodes[f].symbol < 0 &&
			    ccsg_symbol_ok(t, c->symbol, c->vers)) {
				g->nodes[f].symbol = c->symbol;
				b->sym_at[f] =
					ccsg_call_key_of(ch, ch->first + j);
			}
		}
	}
	chain_self(b, g, ch, counted);
	for (int32_t j = 0; j < ch->n; j++) { /* each call's arc */
		const struct ccsg_call *c = &t->calls[ch->first + j];
		int32_t f = b->chain_node[j], from, e = -1;

		if (f >= 0 && counted) { /* the caller's node: a call, a
					  * thread, main */
			if (c->parent >=
			    0) /* main when the parent's start was lost */
				from = b->chain_node[c->parent - ch->first] >= 0
					       ? b->chain_node[c->parent -
							       ch->first]
					       : 0;
			else
				from = ch->owner >= 0 ? PENDING_OWNER(ch->owner)
						      : 0;
			if ((e = note_edge(b, k, from, f, ch, ch->first + j)) <
			    0)
				return -ENOMEM;
		}
		b->chain_edge[j] = e;
	}
	for (int32_t j = 0; j < ch->n; j++) {
		int32_t i = ch->first + j, f = b->chain_node[j];
		int32_t e = b->chain_edge[j];
		const struct ccsg_call *c = &t->calls[i];
		int64_t self = b->chain_self[j], ord = ord0 + i;
		int32_t dim =
			c->server_proc ? dim_of_proc(g, t, c->server_proc) : -1;

		if (g->call_node) {
			g->call_node[ord] = f;
			g->call_self[ord] = self;
			g->call_edge[ord] = e;
		}
		if (!counted)
			continue;
		/* Equations 3 and 4: up the chain, one entry per ancestor,
		 * to its node and to the arc it came in by */
		add_self(g, f, dim, self);
		if (dim >= 0) {
			b->chain_sum[dim] += self;
			if (e >= 0)
				b->edges[e].self[dim] += self;
			for (int32_t a = c->parent; a >= 0;
			     a = t->calls[a].parent) {
				int32_t ea = b->chain_edge[a - ch->first];

				if (ea < 0)
					continue;
				g->nodes[b->chain_node[a - ch->first]]
					.desc[dim] += self;
				b->edges[ea].desc[dim] += self;
			}
		}
		if (place_spawned(b, g, ch, i, ord))
			return -ENOMEM;
	}
	if (ch->owner >= 0 && counted) {
		int64_t *sum = chains_sum_of(b, g, ch->owner);

		if (!sum)
			return -ENOMEM;
		vec_add(sum, b->chain_sum, k);
	}
	return 0;
}

const int32_t *ccsg_graph_chain_nodes(const struct ccsg_graph *g)
{
	return g->fold->chain_node;
}

const int32_t *ccsg_graph_chain_edges(const struct ccsg_graph *g)
{
	return g->fold->chain_edge;
}

const int64_t *ccsg_graph_chain_self(const struct ccsg_graph *g)
{
	return g->fold->chain_self;
}

/* Equation 2, once every skeleton a thread ran was taken out. */
static void threads_self(struct ccsg_graph *g)
{
	const struct ccsg_trace *t = g->fold->t;

	for (size_t i = 0; i < t->nthreads; i++) {
		if (t->threads[i].infra ||
		    thread_amount(g, &t->threads[i]) == CCSG_NONE) {
			g->thread_self[i] = 0;
		} else if (g->thread_self[i] < 0) {
			g->thread_self[i] = 0;
			g->clamped++;
		}
	}
}

/*
 * Threads no call spawned but that served requests (a server's svc_run
 * loop): what is left of their CPU once their skeletons are taken out is
 * the dispatch loop and start-up, runtime more than user code; a node of
 * their own under main keeps it apart from the programs' main threads.
 * In a process that ran calls deselected (a selection off, the cpu type
 * off), what is left holds those calls too, which the probes did not
 * see: it goes to <unmonitored>, never to a runtime node.
 */
static int32_t main_thread_node(struct ccsg_fold *b, struct ccsg_graph *g,
				int unmonitored)
{
	int32_t *at = unmonitored ? &b->unmonitored_node : &b->serving_node;
	int32_t n;

	if (*at >= 0)
		return *at;
	if ((n = ccsg_graph_new_node(g, CCSG_THREAD)) < 0)
		return n;
	g->nodes[n].parent = 0;
	g->nodes[n].serving = !unmonitored;
	g->nodes[n].unmonitored = (uint8_t)unmonitored;
	*at = n;
	/* its arc from main, there even if no thread of its own comes */
	if (unmonitored && (b->unmonitored_edge = add_edge(g, 0, n, 0)) < 0)
		return -ENOMEM;
	return n;
}

/* Thread i was spawned inside a call the probes did not record, in a
 * process that ran calls deselected: that call, not its thread, spawned
 * it.  (Its own threads inherit the call's context: they are its
 * thread's, as spawned threads' threads are.) */
static int spawned_unmonitored(const struct ccsg_trace *t, int32_t i)
{
	const struct ccsg_thread *th = &t->threads[i];

	return th->spawn_call < 0 && th->ctx_function != CCSG_NONE &&
	       th->ctx_function > 0 && th->proc > 0 &&
	       (size_t)th->proc < t->nprocs && t->procs[th->proc].deselected &&
	       (th->parent_thread < 0 ||
		t->threads[th->parent_thread].ctx_function != th->ctx_function);
}

/* Did thread i serve calls: recorded ones, or in a process that ran
 * calls deselected, calls the probes did not record? */
static int served_as(const struct ccsg_trace *t, const struct ccsg_fold *b,
		     int32_t i)
{
	return b->served[i] & SERVED_RECORDED ||
	       (b->served[i] && t->procs[t->threads[i].proc].deselected);
}

/* The thread node of every thread: climb thread-spawn-thread to the
 * ceiling thread; its spawning call's function node owns the thread node
 * (Appendix A), main's when no call spawned it, <unmonitored> when an
 * unrecorded call did. */
static int map_threads(struct ccsg_fold *b, struct ccsg_graph *g)
{
	const struct ccsg_trace *t = b->t;

	for (size_t i = 0; i < t->nthreads; i++) {
		int32_t j = (int32_t)i, f;

		while (t->threads[j].parent_thread >= 0 &&
		       t->threads[j].spawn_call < 0 &&
		       !spawned_unmonitored(t, j))
			j = t->threads[j].parent_thread;
		g->root_thread[i] = t->threads[i].parent_thread < 0 &&
				    t->threads[i].spawn_call < 0;
		f = t->threads[j].spawn_call >= 0 ? b->spawn[j].node : 0;
		if (f < 0)
			f = 0;
		if (spawned_unmonitored(t, j) &&
		    (f = main_thread_node(b, g, 1)) < 0)
			return -ENOMEM;
		b->unmon_top[i] =
			spawned_unmonitored(t, (int32_t)i) &&
			(t->threads[i].parent_thread < 0 ||
			 !spawned_unmonitored(t, t->threads[i].parent_thread));
		g->thread_node[i] =
			f == 0 && served_as(t, b, (int32_t)i)
				? main_thread_node(b, g,
						   t->procs[t->threads[i].proc]
							   .deselected)
				: thread_node_of(g, f);
		if (g->thread_node[i] < 0)
			return -ENOMEM;
		/* infrastructure threads are runtime: in no count */
		g->nodes[g->thread_node[i]].threads += !t->threads[i].infra;
		b->thread_edge[i] =
			add_edge(g, f, g->thread_node[i], !t->threads[i].infra);
		if (b->thread_edge[i] < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The call edges after the thread edges (the breadth-first search of
 * mark_primary() meets them in that order), each where its first call
 * made it, from the node of a chain's thread now that it is known. */
static int resolve_edges(struct ccsg_fold *b, struct ccsg_graph *g,
			 size_t ncalls)
{
	int32_t *final = malloc((b->nedges + 1) * sizeof(*final));

	if (!final)
		return -ENOMEM;
	for (size_t e = 0; e < b->nedges; e++) {
		const struct pending_edge *p = &b->edges[e];
		int32_t from = p->from, th = PENDING_OWNER(from);

		if (from < 0) /* thread-invoke-function, or main's */
			from = g->root_thread[th] ? 0 : g->thread_node[th];
		if ((final[e] = add_edge(g, from, p->to, p->count)) < 0) {
			free(final);
			return -ENOMEM;
		}
		vec_add(g->edges[final[e]].self, p->self, dims_k(g));
		vec_add(g->edges[final[e]].desc, p->desc, dims_k(g));
	}
	for (size_t i = 0; i < ncalls; i++)
		if (g->call_edge[i] >= 0)
			g->call_edge[i] = final[g->call_edge[i]];
	g->edge_of_pending = final;
	return 0;
}

/* The final edge of an arc noted while folding (its source resolved as
 * resolve_edges() did), or -1. */
static int32_t arc_edge(const struct ccsg_graph *g, const struct fold_arc *a)
{
	int32_t from = a->from, th = PENDING_OWNER(from);

	if (from < 0)
		from = g->root_thread[th] ? 0 : g->thread_node[th];
	return ccsg_edge_find(g, from, a->to);
}

/*
 * What leaves a thread for the nodes above it, deepest thread first: its
 * own CPU (Equation 2), its chains', and its children's sums.  A thread
 * node's descendants are its chains and the threads their calls spawned
 * (a main thread's hang under main, not its node); a spawned thread's sum
 * goes to the spawning call and its ancestors in the chain.  Each figure
 * a node gets, the arc of the instance that brought it gets too: a
 * thread's own edge, the arcs of the calls above a spawned thread.
 */
static int threads_sum(struct ccsg_fold *b, struct ccsg_graph *g)
{
	const struct ccsg_trace *t = b->t;
	size_t k = dims_k(g), n = t->nthreads;
	int32_t *up = malloc((n + 1) * sizeof(*up)), *order = NULL;
	int32_t *owner = malloc((n + 1) * sizeof(*owner));
	int64_t *sum = calloc(n * k + 1, sizeof(*sum));

	for (size_t i = 0; owner && i < n; i++)
		owner[i] = b->spawn[i].owner;
	if (!up || !sum || !owner ||
	    !(order = ccsg_threads_deepest_first(t, owner, up))) {
		free(up);
		free(sum);
		free(owner);
		return -ENOMEM;
	}
	free(owner);
	for (size_t o = 0; o < n; o++) {
		int32_t i = order[o],
			dim = dim_of_proc(g, t, t->threads[i].proc);
		int64_t *s = sum + (size_t)i * k;
		struct ccsg_node *node = &g->nodes[g->thread_node[i]];
		const struct spawn_place *p = &b->spawn[i];
		struct ccsg_edge *te = &g->edges[b->thread_edge[i]];

		add_self(g, g->thread_node[i], dim, g->thread_self[i]);
		if (dim >= 0) {
			s[dim] += g->thread_self[i];
			te->self[dim] += g->thread_self[i];
		}
		if (b->chains_sum[i]) {
			vec_add(s, b->chains_sum[i], k);
			if (!g->root_thread[i]) {
				vec_add(node->desc, b->chains_sum[i], k);
				vec_add(te->desc, b->chains_sum[i], k);
			}
		}
		if (t->threads[i].spawn_call >= 0)
			for (size_t a = 0; a < p->npath; a++) {
				int32_t e = arc_edge(g, &p->path[a]);

				vec_add(g->nodes[p->path[a].to].desc, s, k);
				if (e >= 0)
					vec_add(g->edges[e].desc, s, k);
			}
		if (b->unmon_top[i]) { /* <unmonitored>'s descendants */
			vec_add(g->nodes[b->unmonitored_node].desc, s, k);
			vec_add(g->edges[b->unmonitored_edge].desc, s, k);
		}
		if (up[i] < 0)
			continue;
		vec_add(sum + (size_t)up[i] * k, s, k);
		if (t->threads[i].spawn_call >= 0 && !g->root_thread[up[i]]) {
			vec_add(g->nodes[g->thread_node[up[i]]].desc, s, k);
			vec_add(g->edges[b->thread_edge[up[i]]].desc, s, k);
		}
	}
	free(up);
	free(order);
	free(sum);
	return 0;
}

int ccsg_graph_begin(struct ccsg_graph *g, struct ccsg_dscg *d,
		     const struct ccsg_dims *dims, int by_object, int resource,
		     size_t ncalls)
{
	struct ccsg_trace *t = d->trace;
	size_t k = dims->n ? dims->n : 1;
	struct ccsg_fold *b;

	memset(g, 0, sizeof(*g));
	g->dscg = d;
	g->dims = dims;
	g->by_object = by_object;
	g->resource = resource;
	g->ncalls = ncalls;
	if (!(b = g->fold = calloc(1, sizeof(*b))))
		return -ENOMEM;
	b->t = t;
	b->serving_node = b->unmonitored_node = -1;
	b->unmon_top = calloc(t->nthreads + 1, 1);
	b->served = calloc(t->nthreads + 1, 1);
	b->chains_sum = calloc(t->nthreads + 1, sizeof(*b->chains_sum));
	b->spawn = calloc(t->nthreads + 1, sizeof(*b->spawn));
	b->thread_edge = malloc((t->nthreads + 1) * sizeof(*b->thread_edge));
	b->chain_sum = calloc(k, sizeof(*b->chain_sum));
	g->total = calloc(k, sizeof(int64_t));
	g->thread_node = malloc((t->nthreads + 1) * sizeof(int32_t));
	g->thread_self = calloc(t->nthreads + 1, sizeof(int64_t));
	g->root_thread = calloc(t->nthreads + 1, 1);
	if (ncalls) {
		g->call_node = malloc(ncalls * sizeof(int32_t));
		g->call_self = calloc(ncalls, sizeof(int64_t));
		g->call_edge = malloc(ncalls * sizeof(int32_t));
		if (!g->call_node || !g->call_self || !g->call_edge)
			goto nomem;
	}
	if (!b->served || !b->chains_sum || !b->spawn || !b->chain_sum ||
	    !b->thread_edge || !b->unmon_top || !g->total || !g->thread_node ||
	    !g->thread_self || !g->root_thread ||
	    ccsg_graph_new_node(g, CCSG_MAIN) != 0)
		goto nomem;
	g->nodes[0].calls = 1;
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct ccsg_thread *th = &t->threads[i];

		b->spawn[i].node = b->spawn[i].owner = -1;
		g->unmeasured_threads +=
			!th->infra && thread_amount(g, th) == CCSG_NONE;
		g->thread_self[i] = ccsg_graph_thread_start(g, i);
	}
	return 0;
nomem:
	ccsg_graph_release(g);
	return -ENOMEM;
}

void ccsg_graph_map_self(struct ccsg_graph *g,
			 int64_t (*map)(void *arg, int32_t node, int32_t host,
					int64_t self),
			 void *arg)
{
	g->self_map = map;
	g->self_map_arg = arg;
	memset(g->thread_self, 0,
	       g->fold->t->nthreads * sizeof(*g->thread_self));
}

static void fold_release(struct ccsg_fold *b)
{
	if (!b)
		return;
	hashmap_release(&b->pv);
	hashmap_release(&b->fn);
	hashmap_release(&b->obj);
	hashmap_release(&b->fo);
	hashmap_release(&b->fn_node);
	hashmap_release(&b->edge_slot);
	for (size_t i = 0; b->spawn && i < b->t->nthreads; i++)
		free(b->spawn[i].path);
	for (size_t i = 0; b->chains_sum && i < b->t->nthreads; i++)
		free(b->chains_sum[i]);
	for (size_t e = 0; b->edges && e < b->nedges; e++) {
		free(b->edges[e].self);
		free(b->edges[e].desc);
	}
	free(b->spawn);
	free(b->chains_sum);
	free(b->served);
	free(b->thread_edge);
	free(b->unmon_top);
	free(b->edges);
	free(b->chain_node);
	free(b->chain_edge);
	free(b->chain_self);
	free(b->chain_sum);
	free(b->node_at);
	free(b->sym_at);
	free(b);
}

int ccsg_graph_end(struct ccsg_graph *g)
{
	struct ccsg_fold *b = g->fold;
	size_t k = dims_k(g);

	threads_self(g);
	if (map_threads(b, g) || resolve_edges(b, g, g->ncalls) ||
	    threads_sum(b, g) || ccsg_graph_mark_primary(g))
		return -ENOMEM;
	vec_add(g->total, g->nodes[0].self, k);
	vec_add(g->total, g->nodes[0].desc, k);
	fold_release(b);
	g->fold = NULL;
	return 0;
}

int ccsg_graph_build(struct ccsg_graph *g, struct ccsg_dscg *d,
		     const struct ccsg_dims *dims, int by_object)
{
	return ccsg_graph_build_res(g, d, dims, by_object, CCSG_RES_CPU);
}

int ccsg_graph_build_res(struct ccsg_graph *g, struct ccsg_dscg *d,
			 const struct ccsg_dims *dims, int by_object,
			 int resource)
{
	struct ccsg_trace *t = d->trace;

	if (ccsg_graph_begin(g, d, dims, by_object, resource, t->ncalls))
		return -ENOMEM;
	for (size_t i = 0; i < t->nchains; i++)
		if (ccsg_graph_chain(g, &t->chains[i], 0))
			goto nomem;
	if (!ccsg_graph_end(g))
		return 0;
nomem:
	ccsg_graph_release(g);
	return -ENOMEM;
}

void ccsg_graph_release(struct ccsg_graph *g)
{
	for (size_t i = 0; i < g->nnodes; i++) {
		free(g->nodes[i].name);
		free(g->nodes[i].self);
		free(g->nodes[i].desc);
	}
	for (size_t e = 0; e < g->nedges; e++) {
		free(g->edges[e].self);
		free(g->edges[e].desc);
	}
	free(g->nodes);
	free(g->edges);
	free(g->call_node);
	free(g->call_self);
	free(g->call_edge);
	free(g->edge_of_pending);
	free(g->thread_self);
	free(g->thread_node);
	free(g->root_thread);
	fold_release(g->fold);
	hashmap_release(&g->edge_index);
	free(g->total);
	memset(g, 0, sizeof(*g));
}
