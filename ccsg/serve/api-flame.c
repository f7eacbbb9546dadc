/*
 * api-flame.c - GET /api/flame?tree=T&id=ID[&width=N] (api.h): the
 * subtree under a node at once, for the page's flame graph (web/flame.js),
 * down to what would be narrower than one of N pixels.  A node is drawn
 * as wide as its share of the subtree's root, so a node whose total is
 * under the root's total / N is not sent: the children of a node that
 * are under it are sent as one entry, how many and their total, and
 * their own descendants are not visited.  What is sent is then at most
 * about N nodes a level, however large the tree (a DSCG of 100,000
 * calls answers in milliseconds), and never more than FLAME_MAX entries.
 *
 * The answer is flat, breadth first, each entry naming its parent's
 * index: {"id", "width", "threshold", "nodes": [{"parent": -1, "node":
 * {...}}, {"parent": 0, "node": {...}}, {"parent": 0, "hidden": K,
 * "total": NS}, ...], "hidden": K, "truncated": BOOL}; a node is as
 * /api/children puts it, so it works for every tree and compacted view.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "json.h"

#define FLAME_WIDTH_DEFAULT 1000
#define FLAME_WIDTH_MAX 100000
#define FLAME_MAX 200000 /* entries at most in one answer */

struct flame_item {
	struct any u;
	int64_t index; /* its entry in the answer */
};

struct flame_queue {
	struct flame_item *q;
	size_t n, cap;
};

static int queue_push(struct flame_queue *fq, const struct any *u,
		      int64_t index)
{
	if (fq->n == fq->cap) {
		size_t cap = fq->cap ? fq->cap * 2 : 256;
		struct flame_item *nq = realloc(fq->q, cap * sizeof(*nq));

		if (!nq)
			return -ENOMEM;
		fq->q = nq;
		fq->cap = cap;
	}
	fq->q[fq->n].u = *u;
	fq->q[fq->n++].index = index;
	return 0;
}

/*
 * u's "total" as /api/children puts it, ns, taken from the tree itself:
 * the flame graph's widths are those of the rows, whatever the tree.
 * A compacted tree weighs in microseconds (its root stands for its
 * tops), the IDT sums its procedures' CPU; both are rounded as the
 * rows print them (%.0f: to nearest, ties to even).
 */
static int64_t flame_total(const struct ctx *x, const struct any *u)
{
	const struct viewer *v = x->v;
	double sum = 0;

	if (x->ct) {
		const struct compact_node *c = &x->ct->nodes[u->n];

		if (u->n != COMPACT_ROOT)
			return (int64_t)nearbyint(c->total * 1000);
		for (int32_t k = c->first_child; k >= 0;
		     k = x->ct->nodes[k].next_sibling)
			sum += x->ct->nodes[k].total;
		return (int64_t)nearbyint(sum * 1000);
	}
	if (x->tree == T_DSCG) {
		int64_t self, total;

		api_dscg_cpu(v, u->d, &self, &total);
		return total;
	}
	if (x->tree == T_IDT) {
		size_t lo, hi;

		api_idt_range(v, u->i, &lo, &hi);
		for (size_t i = lo; i < hi; i++)
			sum += v->fns[i].all.cpu;
		return (int64_t)nearbyint(sum);
	}
	return ccsg_vec_sum(v->graph->nodes[u->n].self, v->graph->dims->n) +
	       ccsg_vec_sum(v->graph->nodes[u->n].desc, v->graph->dims->n);
}

/* The children of u that are at least thr wide, each an entry and into
 * fq; the others as one entry.  0, or -1 after the answer. */
static int flame_children(struct ctx *x, const struct flame_item *it,
			  double thr, struct flame_queue *fq, int64_t *count,
			  int64_t *hidden, int *truncated)
{
	struct vids l = { 0 };
	struct idt_id *ids = NULL;
	struct any *kids = NULL;
	int64_t nhid = 0, hid_total = 0;
	size_t n;
	int ret = -1;

	if (api_children_of(x, &it->u, &l, &ids, &n))
		goto out;
	/* v->list is scratch that putting a node may use: copy first */
	if (n && !(kids = calloc(n, sizeof(*kids)))) {
		api_reply_error(x, 500, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		api_child_any(x, i, &l, ids, &kids[i]);
	for (size_t i = 0; i < n; i++) {
		int64_t total = flame_total(x, &kids[i]);

		if ((double)total >= thr && *count < FLAME_MAX - 1) {
			fprintf(x->f, ",\n{\"parent\": %lld, \"node\": ",
				(long long)it->index);
			api_put_any(x, &kids[i], 0);
			fputc('}', x->f);
			if (queue_push(fq, &kids[i], *count)) {
				api_reply_error(x, 500, "out of memory");
				goto out;
			}
			++*count;
		} else {
			*truncated |= (double)total >= thr;
			nhid++;
			hid_total += total;
		}
	}
	if (nhid) {
		fprintf(x->f,
			",\n{\"parent\": %lld, \"hidden\": %lld, "
			"\"total\": %lld}",
			(long long)it->index, (long long)nhid,
			(long long)hid_total);
		++*count;
		*hidden += nhid;
	}
	ret = 0;
out:
	free(kids);
	free(l.v);
	free(ids);
	return ret;
}

int api_get_flame(struct ctx *x)
{
	struct flame_queue fq = { 0 };
	struct flame_item root;
	int64_t width, total, count = 1, hidden = 0;
	const char *id;
	double thr;
	int truncated = 0, ret = -1;

	if (api_pick_tree(x, "tree") || !(id = api_need_param(x, "id")) ||
	    api_num_param(x, "width", 1, FLAME_WIDTH_MAX, FLAME_WIDTH_DEFAULT,
			  &width) ||
	    api_resolve(x, id, &root.u))
		return -1;
	root.index = 0;
	total = flame_total(x, &root.u);
	thr = (double)(total > 1 ? total : 1) / (double)width;
	fputs("{\"id\": ", x->f);
	json_cstr(x->f, id);
	fprintf(x->f,
		", \"width\": %lld, \"threshold\": %.0f, \"nodes\": [\n"
		"{\"parent\": -1, \"node\": ",
		(long long)width, thr);
	api_put_any(x, &root.u, 0);
	fputc('}', x->f);
	if (queue_push(&fq, &root.u, 0)) {
		api_reply_error(x, 500, "out of memory");
		goto out;
	}
	/* breadth first: the answer's first levels are whole even when
	 * FLAME_MAX cuts it */
	for (size_t i = 0; i < fq.n; i++) {
		struct flame_item it = fq.q[i];

		if (flame_children(x, &it, thr, &fq, &count, &hidden,
				   &truncated))
			goto out;
	}
	fprintf(x->f, "], \"hidden\": %lld, \"truncated\": %s}\n",
		(long long)hidden, truncated ? "true" : "false");
	ret = 0;
out:
	free(fq.q);
	return ret;
}
