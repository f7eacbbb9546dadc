/*
 * api-tree.c - a node of the tree a request names, whatever the tree
 * (internal.h): tree= (and compact=, spec=) picked, an id resolved, the
 * node put, its children and its parent; each hands over to the tree's
 * own file (api-idt.c, api-dscg.c, api-ccsg.c, api-compact.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* tree= (and compact=, spec=): 0, or -1 after the answer. */
int api_pick_tree(struct ctx *x, const char *key)
{
	const char *s = api_need_param(x, key), *c;

	if (!s)
		return -1;
	for (x->tree = 0; x->tree < NTREES; x->tree++)
		if (!strcmp(s, api_tree_names[x->tree]))
			break;
	if (x->tree == NTREES)
		return api_reply_error(x, 404, "unknown tree '%.64s'", s);
	x->ct = NULL;
	if (!strcmp(key, "tree") && (c = api_query(x, "compact"))) {
		int hier = !strcmp(c, "name")	    ? COMPACT_BY_NAME
			   : !strcmp(c, "location") ? COMPACT_BY_LOCATION
						    : -1;

		if (hier < 0)
			return api_reply_error(x, 400,
					       "compact takes 'name' or "
					       "'location', not '%.64s'",
					       c);
		if (x->tree != T_DSCG && x->tree != T_CCSG)
			return api_reply_error(x, 400,
					       "only the dscg and the ccsg are "
					       "compacted");
		if (!api_compacted(x, x->tree, hier))
			return -1;
	} else if (api_query(x, "step")) {
		return api_reply_error(x, 400,
				       "step is a compacted tree's: give "
				       "compact=name|location");
	}
	if (x->tree == T_CCDG && api_ccdg_prepare(x))
		return -1;
	return 0;
}

int api_resolve(struct ctx *x, const char *id, struct any *u)
{
	int bad;

	if (x->ct)
		bad = api_compact_parse(x->ct, id, &u->n);
	else if (x->tree == T_DSCG)
		bad = api_dscg_parse(x->v, id, &u->d);
	else if (x->tree == T_IDT) {
		size_t lo, hi;

		bad = api_idt_parse(id, &u->i);
		if (!bad) {
			api_idt_range(x->v, u->i, &lo, &hi);
			bad = u->i.k != 'r' && lo == hi;
		}
	} else
		bad = api_ccsg_parse(x->v, id, &u->n);
	return bad ? api_unknown_node(x, id) : 0;
}

void api_put_any(struct ctx *x, const struct any *u, int full)
{
	if (x->ct)
		api_compact_put_node(x->f, x->ct, u->n);
	else if (x->tree == T_DSCG)
		api_dscg_put_node(x->f, x->v, u->d, full);
	else if (x->tree == T_IDT)
		api_idt_put_node(x->f, x->v, u->i, full);
	else
		api_ccsg_put_node(x->f, x->v, u->n, x->tree == T_CCDG, full);
}

/* Children of u: as view ids in l (DSCG), ids in v->list (CCSG, compacted)
 * or IDT ids in *ids (allocated).  Their count. */
int api_children_of(struct ctx *x, const struct any *u, struct vids *l,
		    struct idt_id **ids, size_t *n)
{
	struct viewer *v = x->v;

	*n = 0;
	if (x->ct) {
		if (api_compact_children(v, x->ct, u->n))
			return api_reply_error(x, 500, "out of memory");
		*n = v->nlist;
	} else if (x->tree == T_DSCG) {
		if (api_dscg_children(v, u->d, l))
			return api_reply_error(x, 500, "out of memory");
		*n = l->n;
	} else if (x->tree == T_IDT) {
		size_t k = api_idt_children(v, u->i, NULL, 0);

		if (!(*ids = calloc(k + 1, sizeof(**ids))))
			return api_reply_error(x, 500, "out of memory");
		*n = api_idt_children(v, u->i, *ids, k);
	} else {
		if (api_ccsg_children(v, u->n))
			return api_reply_error(x, 500, "out of memory");
		*n = v->nlist;
	}
	return 0;
}

void api_child_any(struct ctx *x, size_t i, const struct vids *l,
		   const struct idt_id *ids, struct any *c)
{
	if (x->tree == T_DSCG && !x->ct)
		c->d = l->v[i];
	else if (x->tree == T_IDT)
		c->i = ids[i];
	else
		c->n = x->v->list[i];
}

/* Is a the same node as b (of the current tree)? */
int api_same(const struct ctx *x, const struct any *a, const struct any *b)
{
	if (x->tree == T_DSCG && !x->ct)
		return a->d.k == b->d.k && a->d.a == b->d.a && a->d.b == b->d.b;
	if (x->tree == T_IDT)
		return a->i.k == b->i.k && a->i.prog == b->i.prog &&
		       a->i.vers == b->i.vers && a->i.proc == b->i.proc;
	return a->n == b->n;
}

int api_parent_of(struct ctx *x, const struct any *u, struct any *p)
{
	if (x->ct) {
		p->n = x->ct->nodes[u->n].parent;
		return p->n >= 0 ? 0 : -1;
	}
	if (x->tree == T_DSCG)
		return api_dscg_parent(x->v, u->d, &p->d);
	if (x->tree == T_IDT) {
		if (u->i.k == 'r')
			return -1;
		p->i = u->i;
		p->i.k = u->i.k == 'p' ? 'r' : u->i.k == 'v' ? 'p' : 'v';
		return 0;
	}
	p->n = u->n ? x->v->pparent[u->n] : -1;
	return p->n >= 0 ? 0 : -1;
}
