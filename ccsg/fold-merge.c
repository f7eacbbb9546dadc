/*
 * fold-merge.c - the folds of shares of one trace's chains added into
 * one (workers.h).
 *
 * Every figure of the fold is a sum (ccsg.c), so the function nodes'
 * counts and vectors, the pending edges' counts and the threads'
 * accumulators add up.  What one reader decides by order - the order of
 * the nodes and edges, a node's symbol, the call that spawned a thread -
 * is taken from the first call in chain order (struct ccsg_call_key),
 * the one a single reader meets first; so the merged graph, once ended,
 * is that reader's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "fold.h"

/* A function node's identity, which its share's string ids are not. */
static uint64_t node_hash(const struct ccsg_trace *t, const struct ccsg_node *n)
{
	uint64_t h = HASH_FNV_SEED;
	const char *peer = n->peer >= 0 ? t->strings[n->peer] : "";

	h = hash_fnv(h, &n->prog, sizeof(n->prog));
	h = hash_fnv(h, &n->vers, sizeof(n->vers));
	h = hash_fnv(h, &n->proc, sizeof(n->proc));
	h = hash_fnv(h, &n->server_proc, sizeof(n->server_proc));
	h = hash_fnv(h, &n->object_id, sizeof(n->object_id));
	return hash_fnv(h, peer, strlen(peer) + 1);
}

static int same_node(const struct ccsg_trace *ta, const struct ccsg_node *a,
		     const struct ccsg_trace *tb, const struct ccsg_node *b)
{
	return a->prog == b->prog && a->vers == b->vers && a->proc == b->proc &&
	       a->server_proc == b->server_proc &&
	       a->object_id == b->object_id && (a->peer < 0) == (b->peer < 0) &&
	       (a->peer < 0 ||
		!strcmp(ta->strings[a->peer], tb->strings[b->peer]));
}

/* The node of into like node n of from, or -1; *h its slot's key. */
static int32_t find_node(const struct hashmap *index,
			 const struct ccsg_graph *into,
			 const struct ccsg_graph *from, int32_t n, uint64_t *h)
{
	const struct ccsg_trace *ta = into->fold->t, *tb = from->fold->t;
	int32_t m;

	/* collisions move to the next key */
	for (*h = node_hash(tb, &from->nodes[n]);
	     (m = hashmap_get(index, *h)) >= 0; ++*h)
		if (same_node(ta, &into->nodes[m], tb, &from->nodes[n]))
			return m;
	return -1;
}

static int index_nodes(struct hashmap *index, const struct ccsg_graph *g)
{
	for (size_t n = 1; n < g->nnodes; n++) {
		uint64_t h = node_hash(g->fold->t, &g->nodes[n]);

		while (hashmap_get(index, h) >= 0)
			h++;
		if (hashmap_put(index, h, (int32_t)n) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A node of into like n of from, with no count yet: its index, -ENOMEM. */
static int32_t copy_node(struct ccsg_graph *into, const struct ccsg_graph *from,
			 int32_t n)
{
	struct ccsg_fold *a = into->fold;
	const struct ccsg_node *src = &from->nodes[n];
	int32_t m = ccsg_graph_new_node(into, CCSG_FUNCTION);
	struct ccsg_node *dst;

	if (m < 0 || GROW(a->node_at, a->cap_node_at, into->nnodes) ||
	    GROW(a->sym_at, a->cap_sym_at, into->nnodes))
		return -ENOMEM;
	dst = &into->nodes[m];
	dst->prog = src->prog;
	dst->vers = src->vers;
	dst->proc = src->proc;
	dst->server_proc = src->server_proc;
	dst->object_id = src->object_id;
	if (src->peer >= 0 &&
	    (dst->peer = ccsg_trace_intern(
		     a->t, from->fold->t->strings[src->peer])) < 0)
		return -ENOMEM;
	a->node_at[m] = from->fold->node_at[n];
	return m;
}

static void vec_add(int64_t *d, const int64_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] += s[i];
}

/* from's function nodes added to into's; map[] from's ids to into's. */
static int merge_nodes(struct ccsg_graph *into, const struct ccsg_graph *from,
		       int32_t *map)
{
	struct ccsg_fold *a = into->fold;
	const struct ccsg_fold *b = from->fold;
	size_t k = into->dims->n ? into->dims->n : 1;
	struct hashmap index = { 0 };
	int ret = -ENOMEM;

	if (index_nodes(&index, into))
		goto out;
	map[0] = 0;
	vec_add(into->nodes[0].self, from->nodes[0].self, k);
	vec_add(into->nodes[0].desc, from->nodes[0].desc, k);
	for (size_t n = 1; n < from->nnodes; n++) {
		const struct ccsg_node *src = &from->nodes[n];
		struct ccsg_node *dst;
		uint64_t h;
		int32_t m = find_node(&index, into, from, (int32_t)n, &h);

		if (m < 0 && ((m = copy_node(into, from, (int32_t)n)) < 0 ||
			      hashmap_put(&index, h, m) < 0))
			goto out;
		if (ccsg_call_key_cmp(&b->node_at[n], &a->node_at[m]) < 0)
			a->node_at[m] = b->node_at[n];
		dst = &into->nodes[m];
		dst->calls += src->calls;
		dst->failed += src->failed;
		dst->chains += src->chains; /* shares hold whole chains */
		vec_add(dst->self, src->self, k);
		vec_add(dst->desc, src->desc, k);
		if (src->symbol >= 0 &&
		    (dst->symbol < 0 ||
		     ccsg_call_key_cmp(&b->sym_at[n], &a->sym_at[m]) < 0)) {
			dst->symbol = ccsg_trace_intern(
				a->t, b->t->strings[src->symbol]);
			if (dst->symbol < 0)
				goto out;
			a->sym_at[m] = b->sym_at[n];
		}
		map[n] = m;
	}
	ret = 0;
out:
	hashmap_release(&index);
	return ret;
}

static int merge_edges(struct ccsg_fold *a, const struct ccsg_fold *b,
		       const int32_t *map, size_t k)
{
	for (size_t e = 0; e < b->nedges; e++) {
		const struct pending_edge *p = &b->edges[e];
		int32_t from = p->from < 0 ? p->from : map[p->from];
		uint64_t key =
			hashmap_key2((uint32_t)from, (uint32_t)map[p->to]);
		int32_t x = hashmap_get(&a->edge_slot, key);

		if (x < 0) {
			if (GROW(a->edges, a->cap_edges, a->nedges + 1) ||
			    hashmap_put(&a->edge_slot, key,
					(int32_t)a->nedges) < 0)
				return -ENOMEM;
			x = (int32_t)a->nedges++;
			a->edges[x] = (struct pending_edge){ from, map[p->to],
							     0,	   p->at,
							     NULL, NULL };
			if (ccsg_fold_edge_vectors(&a->edges[x], k))
				return -ENOMEM;
		} else if (ccsg_call_key_cmp(&p->at, &a->edges[x].at) < 0) {
			a->edges[x].at = p->at;
		}
		a->edges[x].count += p->count;
		vec_add(a->edges[x].self, p->self, k);
		vec_add(a->edges[x].desc, p->desc, k);
	}
	return 0;
}

/* A thread's place, from the share whose call spawned it. */
static int copy_place(struct spawn_place *dst, const struct spawn_place *src,
		      const int32_t *map)
{
	free(dst->path);
	*dst = (struct spawn_place){ src->node >= 0 ? map[src->node] : -1,
				     src->owner, NULL, 0 };
	if (!src->npath)
		return 0;
	if (!(dst->path = malloc(src->npath * sizeof(*dst->path))))
		return -ENOMEM;
	for (size_t i = 0; i < src->npath; i++)
		dst->path[i] =
			(struct fold_arc){ src->path[i].from < 0
						   ? src->path[i].from
						   : map[src->path[i].from],
					   map[src->path[i].to] };
	dst->npath = src->npath;
	return 0;
}

static int merge_threads(struct ccsg_graph *into, const struct ccsg_graph *from,
			 const int32_t *map)
{
	struct ccsg_fold *a = into->fold;
	const struct ccsg_fold *b = from->fold;
	const struct ccsg_spawns *sa = &into->dscg->spawns,
				 *sb = &from->dscg->spawns;
	size_t k = into->dims->n ? into->dims->n : 1;

	for (size_t i = 0; i < a->t->nthreads; i++) {
		int32_t head = ccsg_spawns_head(sb, b->t, (int32_t)i);

		a->served[i] |= b->served[i];
		/* what from's chains took of the thread's figure */
		into->thread_self[i] +=
			from->thread_self[i] - ccsg_graph_thread_start(from, i);
		if (b->chains_sum[i]) {
			if (!a->chains_sum[i] &&
			    !(a->chains_sum[i] = calloc(k, sizeof(int64_t))))
				return -ENOMEM;
			vec_add(a->chains_sum[i], b->chains_sum[i], k);
		}
		if (head >= 0 && ccsg_spawns_beats(sb, sa, head) &&
		    copy_place(&a->spawn[i], &b->spawn[i], map))
			return -ENOMEM;
	}
	return 0;
}

int ccsg_graph_merge(struct ccsg_graph *into, const struct ccsg_graph *from)
{
	int32_t *map = malloc(from->nnodes * sizeof(*map));
	int ret = -ENOMEM;

	if (map && !merge_nodes(into, from, map) &&
	    !merge_edges(into->fold, from->fold, map,
			 into->dims->n ? into->dims->n : 1) &&
	    !merge_threads(into, from, map)) {
		into->clamped += from->clamped;
		into->unmeasured_calls += from->unmeasured_calls;
		ret = 0;
	}
	free(map);
	return ret;
}

static const struct ccsg_call_key *sort_keys;

static int cmp_at(const void *x, const void *y)
{
	return ccsg_call_key_cmp(&sort_keys[*(const int32_t *)x],
				 &sort_keys[*(const int32_t *)y]);
}

static int cmp_edge(const void *x, const void *y)
{
	return ccsg_call_key_cmp(&((const struct pending_edge *)x)->at,
				 &((const struct pending_edge *)y)->at);
}

/* Function nodes in their first call's order (main stays 0). */
static int order_nodes(struct ccsg_graph *g, int32_t *map)
{
	struct ccsg_fold *b = g->fold;
	size_t n = g->nnodes;
	int32_t *order = malloc(n * sizeof(*order));
	struct ccsg_node *nodes = malloc(n * sizeof(*nodes));
	struct ccsg_call_key *at = malloc(n * sizeof(*at));
	struct ccsg_call_key *sym = malloc(n * sizeof(*sym));

	if (!order || !nodes || !at || !sym) {
		free(order);
		free(nodes);
		free(at);
		free(sym);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (int32_t)i;
	sort_keys = b->node_at;
	qsort(order + 1, n - 1, sizeof(*order), cmp_at);
	sort_keys = NULL;
	for (size_t i = 0; i < n; i++) {
		map[order[i]] = (int32_t)i;
		nodes[i] = g->nodes[order[i]];
		if (i) { /* main has no first call */
			at[i] = b->node_at[order[i]];
			sym[i] = b->sym_at[order[i]];
		}
	}
	memcpy(g->nodes, nodes, n * sizeof(*nodes));
	memcpy(b->node_at + 1, at + 1, (n - 1) * sizeof(*at));
	memcpy(b->sym_at + 1, sym + 1, (n - 1) * sizeof(*sym));
	free(order);
	free(nodes);
	free(at);
	free(sym);
	return 0;
}

int ccsg_graph_merge_order(struct ccsg_graph *g)
{
	struct ccsg_fold *b = g->fold;
	int32_t *map = malloc((g->nnodes + 1) * sizeof(*map));

	if (map)
		map[0] = 0;
	if (!map || (g->nnodes > 1 && order_nodes(g, map))) {
		free(map);
		return -ENOMEM;
	}
	for (size_t e = 0; e < b->nedges; e++) {
		if (b->edges[e].from >= 0)
			b->edges[e].from = map[b->edges[e].from];
		b->edges[e].to = map[b->edges[e].to];
	}
	if (b->nedges > 1)
		qsort(b->edges, b->nedges, sizeof(*b->edges), cmp_edge);
	for (size_t i = 0; i < b->t->nthreads; i++) {
		struct spawn_place *p = &b->spawn[i];

		if (p->node >= 0)
			p->node = map[p->node];
		for (size_t a = 0; a < p->npath; a++) {
			if (p->path[a].from >= 0)
				p->path[a].from = map[p->path[a].from];
			p->path[a].to = map[p->path[a].to];
		}
	}
	free(map);
	/* the keys of the maps moved: the fold is over, only its end is left */
	hashmap_release(&b->fn_node);
	hashmap_release(&b->edge_slot);
	return 0;
}
