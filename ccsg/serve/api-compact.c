/*
 * api-compact.c - the compacted trees of the DSCG and the CCSG
 * (compact.h) as the viewer shows them (internal.h), each built the first
 * time it is asked for, and the compaction actions of POST /api/compact.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

static char *node_path(const struct compact_tree *t, int32_t c)
{
	size_t n = compact_tree_path(t, c, NULL, 0);
	char *p = malloc(n + 1);

	if (p)
		compact_tree_path(t, c, p, n + 1);
	return p;
}

static void compact_put_id(FILE *f, const struct compact_tree *t, int32_t c)
{
	char *p = node_path(t, c);
	size_t n = p ? strlen(p) : 0;
	char *id = malloc(n + 3);

	if (id) {
		memcpy(id, "k:", 2);
		memcpy(id + 2, p ? p : "", n + 1);
		json_cstr(f, id);
	} else {
		json_cstr(f, "k:");
	}
	free(id);
	free(p);
}

void api_compact_put_node(FILE *f, const struct compact_tree *t, int32_t c)
{
	const struct compact_node *x = &t->nodes[c];
	size_t n = compact_tree_node_name(t, c, NULL, 0);
	char *name = malloc(n + 1);
	int el = c == COMPACT_ROOT ? 0 : compact_tree_node_elements(t, c);

	double total = x->total, self = x->self;

	if (name)
		compact_tree_node_name(t, c, name, n + 1);
	if (c == COMPACT_ROOT) { /* the root stands for nothing: its tops */
		total = self = 0;
		for (int32_t k = x->first_child; k >= 0;
		     k = t->nodes[k].next_sibling)
			total += t->nodes[k].total;
	}
	fputs("{\"id\": ", f);
	compact_put_id(f, t, c);
	fputs(", \"name\": ", f);
	json_cstr(f, c == COMPACT_ROOT ? "<root>" : name ? name : "?");
	/* the engine's weights are microseconds: ns like the others */
	fprintf(f,
		", \"kind\": \"compacted\", \"elements\": %d, \"self\": "
		"%.0f, \"total\": %.0f, \"calls\": %.0f, \"members\": %d, "
		"\"has_children\": %s}",
		el, self * 1000, total * 1000, x->calls, x->members,
		x->first_child >= 0 ? "true" : "false");
	free(name);
}

int api_compact_parse(struct compact_tree *t, const char *s, int32_t *c)
{
	if (strncmp(s, "k:", 2))
		return -1;
	if (!s[2]) {
		*c = COMPACT_ROOT;
		return 0;
	}
	*c = compact_tree_find(t, s + 2);
	return *c >= 0 ? 0 : -1;
}

static const struct compact_tree *sort_tree;

static int by_compact_total(const void *a, const void *b)
{
	const struct compact_node *x = &sort_tree->nodes[*(const int32_t *)a];
	const struct compact_node *y = &sort_tree->nodes[*(const int32_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* The children of c by total, largest first, into v->list. */
int api_compact_children(struct viewer *v, struct compact_tree *t, int32_t c)
{
	v->nlist = 0;
	for (int32_t k = t->nodes[c].first_child; k >= 0;
	     k = t->nodes[k].next_sibling)
		if (api_list_add(v, k))
			return -ENOMEM;
	sort_tree = t;
	qsort(v->list, v->nlist, sizeof(*v->list), by_compact_total);
	return 0;
}

/* The compacted tree of (tree, hierarchy), built the first time. */
struct compact_tree *api_compacted(struct ctx *x, int tree, int hier)
{
	struct viewer *v = x->v;
	int i = tree == T_DSCG ? 0 : 1;
	struct compact_tree *t = &v->ct[i][hier];
	const struct ccsg_graph *g = v->graph;
	int ret;

	if (v->ct_built[i][hier])
		return t;
	if (tree == T_CCSG && hier == COMPACT_BY_LOCATION) {
		/* one server per function node: the CCSG by object */
		if (!v->by_object_built) {
			if (ccsg_graph_build(&v->by_object, v->dscg,
					     v->graph->dims, 1) ||
			    ccsg_graph_name(&v->by_object, v->names)) {
				ccsg_graph_release(&v->by_object);
				api_reply_error(x, 500, "out of memory");
				return NULL;
			}
			v->by_object_built = 1;
		}
		g = &v->by_object;
	}
	if (compact_tree_init(t, "::")) {
		api_reply_error(x, 500, "out of memory");
		return NULL;
	}
	ret = tree == T_DSCG ? compact_from_dscg(t, g, v->names, hier)
			     : compact_from_ccsg(t, g, v->names, hier);
	if (!ret)
		ret = compact_tree_build(t);
	if (ret) {
		compact_tree_release(t);
		api_reply_error(x, ret == -ENOENT ? 404 : 500,
				ret == -ENOENT ? "the tree is empty"
					       : "out of memory");
		return NULL;
	}
	v->ct_built[i][hier] = 1;
	return t;
}

/* ---- compaction actions ------------------------------------------------ */

int api_post_compact(struct ctx *x)
{
	const char *tree = api_need_param(x, "tree"), *h, *op, *id;
	struct compact_tree *t;
	int32_t c = -1, member = -1;
	int hier, ret;
	int64_t level;

	if (!tree)
		return -1;
	if (strcmp(tree, "dscg") && strcmp(tree, "ccsg"))
		return api_reply_error(
			x,
			strcmp(tree, "idt") && strcmp(tree, "ccdg") ? 404 : 400,
			"only the dscg and the ccsg are compacted, "
			"not '%.64s'",
			tree);
	if (!(h = api_need_param(x, "hierarchy")) ||
	    !(op = api_need_param(x, "op")))
		return -1;
	hier = !strcmp(h, "name")	? COMPACT_BY_NAME
	       : !strcmp(h, "location") ? COMPACT_BY_LOCATION
					: -1;
	if (hier < 0)
		return api_reply_error(
			x, 400,
			"hierarchy takes 'name' or 'location', not "
			"'%.64s'",
			h);
	if (strcmp(op, "compact") && strcmp(op, "expand") &&
	    strcmp(op, "level") && strcmp(op, "reset"))
		return api_reply_error(
			x, 400,
			"op takes compact, expand, level or reset, "
			"not '%.64s'",
			op);
	x->tree = !strcmp(tree, "dscg") ? T_DSCG : T_CCSG;
	if (!(t = api_compacted(x, x->tree, hier)))
		return -1;
	x->ct = t;
	if (!strcmp(op, "level")) {
		if (!api_query(x, "level"))
			return api_reply_error(x, 400,
					       "missing parameter 'level'");
		if (api_num_param(x, "level", 1, 1000000, 1, &level))
			return -1;
		ret = compact_tree_level_max(t, (int)level);
	} else if (!strcmp(op, "reset")) {
		ret = compact_tree_level_min(t, 1000000);
	} else {
		if (!(id = api_need_param(x, "id")))
			return -1;
		if (api_compact_parse(t, id, &c))
			return api_unknown_node(x, id);
		if (c == COMPACT_ROOT)
			return api_reply_error(x, 400,
					       "the root cannot be %sed", op);
		member = t->nodes[c].first_member;
		ret = !strcmp(op, "compact") ? compact_tree_compact(t, c)
					     : compact_tree_expand(t, c);
	}
	if (ret == -EPERM)
		return api_reply_error(x, 409, "%s", compact_tree_why(t));
	if (ret)
		return api_reply_error(x, ret == -ENOMEM ? 500 : 400, "%s",
				       ret == -ENOMEM ? "out of memory"
						      : compact_tree_why(t));
	fputs("{\"ok\": true, \"node\": ", x->f);
	if (member >= 0)
		api_compact_put_node(x->f, t, t->orig[member].comp);
	else
		api_compact_put_node(x->f, t, COMPACT_ROOT);
	fputs("}\n", x->f);
	return 0;
}
