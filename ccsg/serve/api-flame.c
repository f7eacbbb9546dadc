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
#include <stdlib.h>
#include <string.h>

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
 * u as /api/children puts it, into *json, and its "total".  Each tree
 * computes its totals its own way (api-dscg.c, api-ccsg.c, api-idt.c,
 * api-compact.c); reading the figure from the node's own JSON keeps the
 * flame graph's widths those of the rows, whatever the tree.  Inside a
 * JSON string a quote is escaped, so "total": cannot be matched there.
 */
static int node_json(struct ctx *x, const struct any *u, char **json,
		     size_t *len, int64_t *total)
{
	FILE *keep = x->f, *f = open_memstream(json, len);
	const char *t;

	if (!f)
		return -ENOMEM;
	x->f = f;
	api_put_any(x, u, 0);
	x->f = keep;
	if (fclose(f))
		return -ENOMEM;
	t = strstr(*json, "\"total\": ");
	*total = t ? strtoll(t + strlen("\"total\": "), NULL, 10) : 0;
	return 0;
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
		char *json = NULL;
		size_t len;
		int64_t total;

		if (node_json(x, &kids[i], &json, &len, &total)) {
			free(json);
			api_reply_error(x, 500, "out of memory");
			goto out;
		}
		if ((double)total >= thr && *count < FLAME_MAX - 1) {
			fprintf(x->f, ",\n{\"parent\": %lld, \"node\": %s}",
				(long long)it->index, json);
			if (queue_push(fq, &kids[i], *count)) {
				free(json);
				api_reply_error(x, 500, "out of memory");
				goto out;
			}
			++*count;
		} else {
			*truncated |= (double)total >= thr;
			nhid++;
			hid_total += total;
		}
		free(json);
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
	char *json = NULL;
	size_t len;
	double thr;
	int truncated = 0, ret = -1;

	if (api_pick_tree(x, "tree") || !(id = api_need_param(x, "id")) ||
	    api_num_param(x, "width", 1, FLAME_WIDTH_MAX, FLAME_WIDTH_DEFAULT,
			  &width) ||
	    api_resolve(x, id, &root.u))
		return -1;
	root.index = 0;
	if (node_json(x, &root.u, &json, &len, &total)) {
		free(json);
		return api_reply_error(x, 500, "out of memory");
	}
	thr = (double)(total > 1 ? total : 1) / (double)width;
	fputs("{\"id\": ", x->f);
	json_cstr(x->f, id);
	fprintf(x->f,
		", \"width\": %lld, \"threshold\": %.0f, \"nodes\": [\n"
		"{\"parent\": -1, \"node\": %s}",
		(long long)width, thr, json);
	free(json);
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
