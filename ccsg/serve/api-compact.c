/*
 * api-compact.c - the compacted trees of the DSCG and the CCSG
 * (compact.h) as the viewer shows them (internal.h), and the compaction
 * actions of POST /api/compact.
 *
 * A compacted tree's state is the request's, not the server's: the step=
 * parameters say which actions made it from the whole tree (api.h), so
 * two pages never see each other's.  Replaying them costs a rebuild per
 * step, so the last few trees asked for are kept with the steps they are
 * in (v->ct, the oldest reused first): the requests of one page, which
 * all give the same steps, find theirs built.  An action answers the
 * steps of the state it makes, and leaves that tree in the slot, where
 * the page's next requests find it.
 */
#include <errno.h>
#include <stdint.h>
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

/* ---- the state: a list of steps -------------------------------------- */

#define STEPS_MAX 100
#define LEVEL_MAX 1000000 /* more elements than any name has */

/* The steps a request gives, in order. */
struct steps {
	const char *v[STEPS_MAX + 1];
	size_t n;
};

/* The step= of the request: 0, or -1 after a 400. */
static int request_steps(struct ctx *x, struct steps *st)
{
	st->n = 0;
	for (size_t i = 0; i < x->rq->nparams; i++) {
		const struct api_param *p = &x->rq->params[i];

		if (strcmp(p->key, "step"))
			continue;
		if (st->n == STEPS_MAX)
			return api_reply_error(x, 400,
					       "more than %d compaction steps: "
					       "expand all first",
					       STEPS_MAX);
		st->v[st->n++] = p->value ? p->value : "";
	}
	return 0;
}

/* The slots' key of a list of steps: each "<length>:<step>", so that no
 * two lists share one.  NULL when out of memory. */
static char *steps_key(const struct steps *st)
{
	char *key = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&key, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < st->n; i++)
		fprintf(f, "%zu:%s", strlen(st->v[i]), st->v[i]);
	if (fclose(f)) {
		free(key);
		return NULL;
	}
	return key;
}

/* Level n from "level:N", or -1. */
static int64_t step_level(const char *s)
{
	int64_t n;

	if (strncmp(s, "level:", 6))
		return -1;
	s += 6;
	return api_parse_num(&s, &n) || *s || n < 1 || n > LEVEL_MAX ? -1 : n;
}

/*
 * Apply step to t: 0; -EINVAL for a malformed step, -ENOENT for an
 * unknown node, -EDOM for the root; the engine's -EPERM (refused: see
 * compact_tree_why()), -EINVAL or -ENOMEM, the tree as it was.  *member:
 * an original node of the compacted node acted on, or -1.
 */
static int run_step(struct compact_tree *t, const char *step, int32_t *member)
{
	int64_t level = step_level(step);
	const char *id = strchr(step, ':');
	int32_t c;

	*member = -1;
	if (level > 0)
		return compact_tree_level_max(t, (int)level);
	if (!id || !((id - step == 7 && !strncmp(step, "compact", 7)) ||
		     (id - step == 6 && !strncmp(step, "expand", 6))))
		return -EINVAL;
	if (api_compact_parse(t, id + 1, &c))
		return -ENOENT;
	if (c == COMPACT_ROOT)
		return -EDOM;
	*member = t->nodes[c].first_member;
	return step[0] == 'c' ? compact_tree_compact(t, c)
			      : compact_tree_expand(t, c);
}

/* Replay step i of a request: 0, or -1 after the answer. */
static int replay_step(struct ctx *x, struct compact_tree *t, const char *step,
		       size_t i)
{
	int32_t member;
	int ret = run_step(t, step, &member);

	if (!ret)
		return 0;
	if (ret == -ENOMEM)
		return api_reply_error(x, 500, "out of memory");
	if (ret == -ENOENT)
		return api_reply_error(x, 404,
				       "step %zu: unknown node '%.200s' in the "
				       "compacted tree",
				       i + 1, strchr(step, ':') + 1);
	if (ret == -EPERM)
		return api_reply_error(x, 409, "step %zu: %s", i + 1,
				       compact_tree_why(t));
	return api_reply_error(x, 400,
			       "step %zu takes level:N (N from 1 to %d), "
			       "compact:ID or expand:ID (not the root), not "
			       "'%.64s'",
			       i + 1, LEVEL_MAX, step);
}

/* ---- the slots ---------------------------------------------------------- */

/* The slot to hold (tree, hier) in the state of key: the one that does,
 * or an empty one, or the one used longest ago. */
static struct viewer_compacted *pick_slot(struct viewer *v, int tree, int hier,
					  const char *key)
{
	struct viewer_compacted *pick = NULL;

	for (int i = 0; i < VIEWER_COMPACTED; i++) {
		struct viewer_compacted *s = &v->ct[i];

		if (s->built && s->tree == tree && s->hier == hier && s->key &&
		    !strcmp(s->key, key))
			return s;
		if (!pick ||
		    (pick->built && (!s->built || s->used < pick->used)))
			pick = s;
	}
	return pick;
}

/* The whole tree of (tree, hier) in slot s, built anew: 0, or -1 after
 * the answer. */
static int build_slot(struct ctx *x, struct viewer_compacted *s, int tree,
		      int hier)
{
	struct viewer *v = x->v;
	const struct ccsg_graph *g = v->graph;
	struct compact_tree *t = &s->t;
	int ret;

	if (tree == T_CCSG && hier == COMPACT_BY_LOCATION) {
		/* one server per function node: the CCSG by object */
		if (!v->by_object_built) {
			if (ccsg_graph_build(&v->by_object, v->dscg,
					     v->graph->dims, 1) ||
			    ccsg_graph_name(&v->by_object, v->names)) {
				ccsg_graph_release(&v->by_object);
				return api_reply_error(x, 500, "out of memory");
			}
			v->by_object_built = 1;
		}
		g = &v->by_object;
	}
	if (compact_tree_init(t, "::"))
		return api_reply_error(x, 500, "out of memory");
	ret = tree == T_DSCG ? compact_from_dscg(t, g, v->names, hier)
			     : compact_from_ccsg(t, g, v->names, hier);
	if (!ret)
		ret = compact_tree_build(t);
	if (ret) {
		compact_tree_release(t);
		return api_reply_error(x, ret == -ENOENT ? 404 : 500,
				       ret == -ENOENT ? "the tree is empty"
						      : "out of memory");
	}
	s->built = 1;
	s->tree = tree;
	s->hier = hier;
	return 0;
}

/* Slot s holding (tree, hier) in the state of st: 0, or -1 after the
 * answer. */
static int fill_slot(struct ctx *x, struct viewer_compacted *s, int tree,
		     int hier, struct steps *st)
{
	free(s->key);
	s->key = NULL;
	if (s->built && (s->tree != tree || s->hier != hier)) {
		compact_tree_release(&s->t);
		s->built = 0;
	}
	if (!s->built) {
		if (build_slot(x, s, tree, hier))
			return -1;
	} else if (compact_tree_level_min(&s->t, LEVEL_MAX)) {
		/* whole again: as built */
		return api_reply_error(x, 500, "out of memory");
	}
	for (size_t i = 0; i < st->n; i++) {
		int64_t a = step_level(st->v[i]),
			b = i + 1 < st->n ? step_level(st->v[i + 1]) : -1;

		/* levels in a row are one, the least: each costs a rebuild */
		if (a > 0 && b > 0) {
			if (a < b)
				st->v[i + 1] = st->v[i];
			continue;
		}
		if (replay_step(x, &s->t, st->v[i], i))
			return -1;
	}
	return 0;
}

/* The compacted tree of (tree, hierarchy) in the state of the request's
 * steps, into x->ct and x->cslot. */
struct compact_tree *api_compacted(struct ctx *x, int tree, int hier)
{
	struct viewer *v = x->v;
	struct viewer_compacted *s;
	struct steps st;
	char *key;

	if (request_steps(x, &st))
		return NULL;
	if (!(key = steps_key(&st))) {
		api_reply_error(x, 500, "out of memory");
		return NULL;
	}
	s = pick_slot(v, tree, hier, key);
	s->used = ++v->ct_clock;
	if (s->built && s->key && !strcmp(s->key, key)) {
		free(key);
	} else if (fill_slot(x, s, tree, hier, &st)) {
		free(key);
		return NULL;
	} else {
		s->key = key;
	}
	x->cslot = s;
	return x->ct = &s->t;
}

void api_compacted_release(struct viewer *v)
{
	for (int i = 0; i < VIEWER_COMPACTED; i++) {
		if (v->ct[i].built)
			compact_tree_release(&v->ct[i].t);
		free(v->ct[i].key);
	}
}

/* ---- compaction actions ------------------------------------------------ */

/* The step an action is, into buf (a new list in *st): 0, or -1 after
 * the answer. */
static int action_step(struct ctx *x, const char *op, struct steps *st,
		       char *buf, size_t len)
{
	int64_t level, last;
	const char *id;
	int32_t c;

	if (!strcmp(op, "reset")) {
		st->n = 0;
		return 0;
	}
	if (!strcmp(op, "level")) {
		if (!api_query(x, "level"))
			return api_reply_error(x, 400,
					       "missing parameter 'level'");
		if (api_num_param(x, "level", 1, LEVEL_MAX, 1, &level))
			return -1;
		/* at most m, then at most n elements: at most min(m, n) */
		if (st->n && (last = step_level(st->v[st->n - 1])) > 0) {
			st->n--;
			level = last < level ? last : level;
		}
		snprintf(buf, len, "level:%lld", (long long)level);
	} else {
		if (!(id = api_need_param(x, "id")))
			return -1;
		if (api_compact_parse(x->ct, id, &c))
			return api_unknown_node(x, id);
		if (c == COMPACT_ROOT)
			return api_reply_error(x, 400,
					       "the root cannot be %sed", op);
		if ((size_t)snprintf(buf, len, "%s:%s", op, id) >= len)
			return api_reply_error(x, 400, "id too long");
	}
	if (st->n == STEPS_MAX)
		return api_reply_error(x, 400,
				       "more than %d compaction steps: expand "
				       "all first",
				       STEPS_MAX);
	st->v[st->n++] = buf;
	return 0;
}

int api_post_compact(struct ctx *x)
{
	const char *tree = api_need_param(x, "tree"), *h, *op;
	struct viewer_compacted *slot;
	struct compact_tree *t;
	int32_t member = -1;
	struct steps st;
	char step[4096], *key;
	int hier, ret;

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
	if (!(t = api_compacted(x, x->tree, hier)) || request_steps(x, &st) ||
	    action_step(x, op, &st, step, sizeof(step)))
		return -1;
	slot = x->cslot;
	/* the slot's tree is in the state of the request's steps: the
	 * action takes it to that of st, or leaves it as it was */
	ret = !st.n ? compact_tree_level_min(t, LEVEL_MAX)
		    : run_step(t, st.v[st.n - 1], &member);
	if (!ret && !(key = steps_key(&st)))
		ret = -ENOMEM;
	if (ret == -EPERM)
		return api_reply_error(x, 409, "%s", compact_tree_why(t));
	if (ret)
		return api_reply_error(x, ret == -ENOMEM ? 500 : 400, "%s",
				       ret == -ENOMEM ? "out of memory"
						      : compact_tree_why(t));
	free(slot->key);
	slot->key = key;
	fputs("{\"ok\": true, \"node\": ", x->f);
	api_compact_put_node(x->f, t,
			     member >= 0 ? t->orig[member].comp : COMPACT_ROOT);
	fputs(", \"steps\": [", x->f);
	for (size_t i = 0; i < st.n; i++) {
		fputs(i ? ", " : "", x->f);
		json_cstr(x->f, st.v[i]);
	}
	fputs("]}\n", x->f);
	return 0;
}
