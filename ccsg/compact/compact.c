/*
 * compact.c - localised structural compaction (compact.h): the take-over
 * relation of Section 3.2 computed top-down, the tree of compacted nodes
 * it makes, and the actions that change it (the names the relation
 * compares are compact-names.c's).
 *
 * Why top-down works.  Within the limits of 3.3.2 every compacted node X
 * has an original node G (one of its highest) whose compacted name n(X)
 * is a prefix of every other's in X and which takes over all of them.
 * Take the original nodes whose parent is in X but which are not in X:
 * the children of X.  A child c whose compacted name extends n(X) is
 * taken over by G through its parent (condition 2): it is in X.  Any two
 * others have parents that G takes over, so by condition 3 one takes over
 * the other exactly when its name is a prefix of the other's; and nothing
 * else relates them (a name of X's prefix of theirs would put them in X;
 * a name of theirs a proper prefix of n(X) would be a child taking over
 * its parent, which the first limit forbids).  So the children of X group
 * by the shortest name among them that is a prefix of theirs, each group
 * one compacted node with that name; the members of a new node are its
 * group and, below them, every node whose name extends its name.  The
 * build checks the limit on every node it makes (the suite compact checks
 * the whole against the relation computed pair by pair).
 *
 * A local action rebuilds from the highest original nodes of the
 * compacted nodes it touches, under their parent: nothing above or beside
 * them can change (a sibling merges only when the new name is a prefix of
 * its name, and then it is rebuilt too).  An action that breaks a limit
 * is undone: the old levels come back and the same subtrees are rebuilt.
 *
 * Levels are kept as the actions set them, not made uniform inside each
 * compacted node: when a compaction brings two subtrees together and
 * lib3 merges with lib3.Pressure below it (Figure 8, then lib2.Lung
 * compacted), lib3.Pressure keeps its level, so that expanding lib2 gives
 * Figure 8 back.  Only the node a compaction makes is made uniform.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "internal.h"

/* What a build found wrong with the nodes it made (the first of each). */
struct breach {
	int32_t deep;	 /* a node taken over across two levels, or -1 */
	int32_t deep_by; /* the name taking it over */
	int32_t high;	 /* a top of a node whose name is a proper
			  * prefix of its parent's, or -1 */
	int32_t high_name, high_parent;
};

/*
 * Is trie node a a prefix of trie node b (or b itself)?  A whole name is
 * the prefix of itself only, and is not a package: the compacted name
 * 'lib2' is a prefix of 'lib2.Muscle' and of the frame 'lib2.x', not of
 * the frame 'lib2'.
 */
static int trie_prefix(const struct compact_tree *t, int32_t a, int32_t b)
{
	if (is_term(t, a))
		return a == b;
	if (is_term(t, b) && t->trie[b].parent == a)
		return 0;
	while (b > 0 && (is_term(t, b) || t->trie[b].depth > t->trie[a].depth))
		b = t->trie[b].parent;
	return b == a;
}

static int trie_proper_prefix(const struct compact_tree *t, int32_t a,
			      int32_t b)
{
	return a != b && trie_prefix(t, a, b);
}

/* The compacted name of original node v. */
static inline int32_t cname(const struct compact_tree *t, int32_t v)
{
	const struct compact_orig *o = &t->orig[v];
	const struct compact_trie *w = &t->trie[o->name];

	return o->level >= w->depth ? o->name : t->path[w->path + o->level - 1];
}

/* Is trie node a a prefix of v's compacted name (trie_prefix())?  O(1). */
static inline int covers(const struct compact_tree *t, int32_t a, int32_t v)
{
	const struct compact_orig *o = &t->orig[v];
	int32_t d = t->trie[a].depth, len = t->trie[o->name].depth;

	if (is_term(t, a))
		return o->name == a && o->level >= d;
	if (d > o->level || (d == len && o->level == len))
		return 0;
	return t->path[t->trie[o->name].path + d - 1] == a;
}

/* --- the tree ------------------------------------------------------------- */

int compact_tree_init(struct compact_tree *t, const char *sep)
{
	memset(t, 0, sizeof(*t));
	t->free_nodes = -1;
	if (!sep || !*sep)
		return -EINVAL;
	if (!(t->sep = strdup(sep)) || GROW(t->trie, t->cap_trie, 1) ||
	    GROW(t->orig, t->cap, 1) || GROW(t->nodes, t->cap_nodes, 1)) {
		compact_tree_release(t);
		return -ENOMEM;
	}
	t->trie[0] = (struct compact_trie){ -1, -1, 0, -1, 0, -1 };
	t->ntrie = 1;
	t->orig[0] =
		(struct compact_orig){ -1, -1, -1, -1, -1, 0, 0, -1, 0, 0, 0 };
	t->n = 1;
	t->nodes[0] =
		(struct compact_node){ -1, -1, -1, -1, -1, 0, 0, 1, 0, 0, 0 };
	t->nnodes = t->live = 1;
	return 0;
}

void compact_tree_release(struct compact_tree *t)
{
	for (size_t i = 0; i < t->nelems; i++)
		free(t->elems[i]);
	free(t->elems);
	free(t->elem_next);
	hashmap_release(&t->elem_map);
	free(t->trie);
	hashmap_release(&t->trie_map);
	free(t->path);
	free(t->orig);
	free(t->nodes);
	free(t->queue);
	free(t->stack);
	free(t->saved);
	free(t->sep);
	memset(t, 0, sizeof(*t));
}

int32_t compact_tree_add(struct compact_tree *t, int32_t parent, int32_t name,
			 double self, double total, double calls)
{
	struct compact_orig *o;
	int32_t v;

	if (t->built || parent < 0 || (size_t)parent >= t->n || name <= 0 ||
	    (size_t)name >= t->ntrie || !is_term(t, name))
		return -EINVAL;
	if (t->n >= INT32_MAX || GROW(t->orig, t->cap, t->n + 1))
		return -ENOMEM;
	v = (int32_t)t->n++;
	o = &t->orig[v];
	*o = (struct compact_orig){ parent, -1,	  -1,
				    -1,	    name, t->trie[name].depth,
				    0,	    -1,	  self,
				    total,  calls };
	if (t->orig[parent].last_child >= 0)
		t->orig[t->orig[parent].last_child].next_sibling = v;
	else
		t->orig[parent].first_child = v;
	t->orig[parent].last_child = v;
	return v;
}

void compact_tree_sum_totals(struct compact_tree *t)
{
	/* parents come before their children: one pass from the end */
	for (size_t v = 0; v < t->n; v++)
		t->orig[v].total = t->orig[v].self;
	for (size_t v = t->n - 1; v > 0; v--)
		t->orig[t->orig[v].parent].total += t->orig[v].total;
}

/* --- compacted nodes ------------------------------------------------------ */

static int32_t node_new(struct compact_tree *t, int32_t parent, int32_t name)
{
	struct compact_node *x;
	int32_t c = t->free_nodes;

	if (c >= 0) {
		t->free_nodes = t->nodes[c].next_sibling;
	} else {
		if (t->nnodes >= INT32_MAX ||
		    GROW(t->nodes, t->cap_nodes, t->nnodes + 1))
			return -ENOMEM;
		c = (int32_t)t->nnodes++;
	}
	x = &t->nodes[c];
	*x = (struct compact_node){
		name, parent, -1, t->nodes[parent].first_child, -1, -1, -1, 0,
		0,    0,      0
	};
	if (x->next_sibling >= 0)
		t->nodes[x->next_sibling].prev_sibling = c;
	t->nodes[parent].first_child = c;
	t->live++;
	return c;
}

static void node_unlink(struct compact_tree *t, int32_t c)
{
	struct compact_node *x = &t->nodes[c];

	if (x->prev_sibling >= 0)
		t->nodes[x->prev_sibling].next_sibling = x->next_sibling;
	else if (x->parent >= 0)
		t->nodes[x->parent].first_child = x->next_sibling;
	if (x->next_sibling >= 0)
		t->nodes[x->next_sibling].prev_sibling = x->prev_sibling;
	x->prev_sibling = x->next_sibling = -1;
	x->parent = -1;
}

/* Free c (unlinked, or its parent freed with it). */
static void node_free(struct compact_tree *t, int32_t c)
{
	struct compact_node *x = &t->nodes[c];

	x->members = 0;
	x->parent = x->first_child = x->prev_sibling = -1;
	x->next_sibling = t->free_nodes;
	t->free_nodes = c;
	t->live--;
}

static void member_add(struct compact_tree *t, int32_t c, int32_t v)
{
	struct compact_node *x = &t->nodes[c];

	t->orig[v].comp = c;
	t->orig[v].member_next = -1;
	if (x->last_member >= 0)
		t->orig[x->last_member].member_next = v;
	else
		x->first_member = v;
	x->last_member = v;
	x->members++;
}

int compact_tree_node_elements(const struct compact_tree *t, int32_t c)
{
	return c > 0 && t->nodes[c].name > 0 ? t->trie[t->nodes[c].name].depth
					     : 0;
}

/* --- the build ------------------------------------------------------------ */

static int push(int32_t **arr, size_t *cap, size_t *n, int32_t v)
{
	if (GROW(*arr, *cap, *n + 1))
		return -ENOMEM;
	(*arr)[(*n)++] = v;
	return 0;
}

/*
 * Group the original nodes k[0 .. nk), children of compacted node y, by
 * the shortest of their names that is a prefix of theirs: one new node
 * under y per group, appended to the queue.
 */
static int group(struct compact_tree *t, int32_t y, const int32_t *k, size_t nk,
		 size_t *nq)
{
	if (++t->stamp == 0) { /* wrapped: no stale mark may match */
		for (size_t i = 0; i < t->ntrie; i++)
			t->trie[i].stamp = 0;
		t->stamp = 1;
	}
	for (size_t i = 0; i < nk; i++) {
		struct compact_trie *w = &t->trie[cname(t, k[i])];

		w->stamp = t->stamp;
		w->slot = -1;
	}
	for (size_t i = 0; i < nk; i++) {
		const struct compact_orig *o = &t->orig[k[i]];
		const int32_t *p = t->path + t->trie[o->name].path;
		int32_t mu = cname(t, k[i]), c, len = t->trie[o->name].depth;
		int32_t up = o->level < len ? o->level : len - 1;

		/* the shortest marked prefix (a whole name's own elements
		 * are another name: trie_prefix()) */
		for (int32_t d = 0; d < up; d++)
			if (t->trie[p[d]].stamp == t->stamp) {
				mu = p[d];
				break;
			}
		if ((c = t->trie[mu].slot) < 0) {
			if ((c = node_new(t, y, mu)) < 0 ||
			    push(&t->queue, &t->cap_queue, nq, c))
				return -ENOMEM;
			t->trie[mu].slot = c;
		}
		member_add(t, c, k[i]);
		t->nodes[c].total += t->orig[k[i]].total; /* a top */
	}
	return 0;
}

/*
 * Build the compacted nodes under y from its children tops[0 .. ntops)
 * (original nodes whose parent is in y), down to the leaves.  The new
 * nodes are t->queue[0 .. *nq); b gets what breaks a limit, save in the
 * node of original node exempt (a compaction's result: the caller checks
 * it).
 */
static int build_under(struct compact_tree *t, int32_t y, const int32_t *tops,
		       size_t ntops, size_t *nq, struct breach *b,
		       int32_t exempt)
{
	size_t nk = 0;

	*nq = 0;
	*b = (struct breach){ -1, -1, -1, -1, -1 };
	if (group(t, y, tops, ntops, nq))
		return -ENOMEM;
	for (size_t i = 0; i < *nq; i++) {
		int32_t x = t->queue[i], name = t->nodes[x].name,
			p = t->nodes[x].parent;
		int32_t depth = t->trie[name].depth;

		if (b->high < 0 && p > 0 &&
		    trie_proper_prefix(t, name, t->nodes[p].name)) {
			b->high = t->nodes[x].first_member;
			b->high_name = name;
			b->high_parent = t->nodes[p].name;
		}
		nk = 0;
		for (int32_t m = t->nodes[x].first_member; m >= 0;
		     m = t->orig[m].member_next) {
			struct compact_orig *o = &t->orig[m];

			t->nodes[x].self += o->self;
			t->nodes[x].calls += o->calls;
			if (b->deep < 0 && o->level - depth >= 2 &&
			    (exempt < 0 || t->orig[exempt].comp != x)) {
				b->deep = m;
				b->deep_by = name;
			}
			for (int32_t c = o->first_child; c >= 0;
			     c = t->orig[c].next_sibling) {
				if (covers(t, name, c))
					member_add(t, x, c);
				else if (push(&t->stack, &t->cap_stack, &nk, c))
					return -ENOMEM;
			}
		}
		if (nk && group(t, x, t->stack, nk, nq))
			return -ENOMEM;
	}
	return 0;
}

/* Free the subtrees of the compacted nodes roots[0 .. nroots), children
 * of one node: each is unlinked, then freed leaf first without a stack
 * (go down the first children to a leaf, free it, go back to its parent). */
static void free_subtrees(struct compact_tree *t, const int32_t *roots,
			  size_t nroots)
{
	for (size_t i = 0; i < nroots; i++) {
		int32_t c = roots[i];

		node_unlink(t, c);
		for (;;) {
			int32_t p;

			while (t->nodes[c].first_child >= 0)
				c = t->nodes[c].first_child;
			if (c == roots[i]) {
				node_free(t, c);
				break;
			}
			p = t->nodes[c].parent;
			t->nodes[p].first_child = t->nodes[c].next_sibling;
			if (t->nodes[c].next_sibling >= 0)
				t->nodes[t->nodes[c].next_sibling]
					.prev_sibling = -1;
			node_free(t, c);
			c = p;
		}
	}
}

static void free_all(struct compact_tree *t)
{
	int32_t c;

	while ((c = t->nodes[0].first_child) >= 0)
		free_subtrees(t, &c, 1);
}

/* --- messages ------------------------------------------------------------- */

/* The path of c, its beginning cut to fit len bytes ("...;" first). */
static void short_path(const struct compact_tree *t, int32_t c, char *buf,
		       size_t len)
{
	size_t need = compact_tree_path(t, c, NULL, 0);
	char *full;

	if (need < len || !(full = malloc(need + 1))) {
		compact_tree_path(t, c, buf, len);
		return;
	}
	compact_tree_path(t, c, full, need + 1);
	snprintf(buf, len, "...%s", full + need - (len - 4));
	free(full);
}

/* "WHAT: REASON" for the breach b into t->why. */
static void why_breach(struct compact_tree *t, const char *what,
		       const struct breach *b)
{
	char other[256], n1[128], n2[128];

	if (b->deep >= 0) {
		short_path(t, t->orig[b->deep].comp, other, sizeof(other));
		compact_trie_name(t, b->deep_by, n1, sizeof(n1));
		snprintf(t->why, sizeof(t->why),
			 "%s: '%s' would take over '%s' across more than one "
			 "level of the hierarchy (3.3.2): compact that node "
			 "first",
			 what, n1, other);
	} else {
		compact_trie_name(t, b->high_name, n1, sizeof(n1));
		compact_trie_name(t, b->high_parent, n2, sizeof(n2));
		snprintf(t->why, sizeof(t->why),
			 "%s: a node '%s' would be below its parent's level "
			 "'%s' (3.3.2: a child cannot take over its parent)",
			 what, n1, n2);
	}
}

const char *compact_tree_why(const struct compact_tree *t)
{
	return t->why;
}

/* --- global levels -------------------------------------------------------- */

/* Rebuild everything from the current levels; refuse (levels restored
 * from t->saved when saved) what breaks a limit. */
static int rebuild_all(struct compact_tree *t, int saved, const char *what)
{
	size_t ntops = 0, nq;
	struct breach b;
	int32_t *tops = NULL;
	int ret;

	free_all(t);
	for (int32_t v = t->orig[0].first_child; v >= 0;
	     v = t->orig[v].next_sibling)
		ntops++;
	if (!(tops = malloc((ntops + 1) * sizeof(*tops))))
		return -ENOMEM;
	ntops = 0;
	for (int32_t v = t->orig[0].first_child; v >= 0;
	     v = t->orig[v].next_sibling)
		tops[ntops++] = v;
	ret = build_under(t, 0, tops, ntops, &nq, &b, -1);
	if (!ret && (b.deep >= 0 || b.high >= 0) && saved) {
		free_all(t);
		for (size_t v = 1; v < t->n; v++)
			t->orig[v].level = t->saved[v];
		ret = build_under(t, 0, tops, ntops, &nq, &(struct breach){ 0 },
				  -1);
		if (!ret) {
			char w[64];

			snprintf(w, sizeof(w), "cannot %s", what);
			why_breach(t, w, &b);
			ret = -EPERM;
		}
	} else if (!ret && (b.deep >= 0 || b.high >= 0)) {
		ret = -EPERM;
	}
	free(tops);
	return ret;
}

int compact_tree_build(struct compact_tree *t)
{
	if (t->n < 2)
		return -ENOENT;
	t->built = 1;
	t->why[0] = '\0';
	return rebuild_all(t, 0, "build");
}

static int save_levels(struct compact_tree *t)
{
	if (GROW(t->saved, t->cap_saved, t->n))
		return -ENOMEM;
	for (size_t v = 0; v < t->n; v++)
		t->saved[v] = t->orig[v].level;
	return 0;
}

/* Set the levels (mode 0: at most n, 1: at least n, 2: levels[v]) and
 * rebuild. */
static int set_levels(struct compact_tree *t, int mode, int n,
		      const int32_t *levels)
{
	if (!t->built || (mode < 2 && n < 1) || (mode == 2 && !levels))
		return -EINVAL;
	if (save_levels(t))
		return -ENOMEM;
	for (size_t v = 1; v < t->n; v++) {
		struct compact_orig *o = &t->orig[v];
		int32_t len = t->trie[o->name].depth;

		if (mode == 0 && o->level > n)
			o->level = n;
		else if (mode == 1 && o->level < (n < len ? n : len))
			o->level = n < len ? n : len;
		else if (mode == 2)
			o->level = levels[v] < 1     ? 1
				   : levels[v] > len ? len
						     : levels[v];
	}
	t->why[0] = '\0';
	return rebuild_all(t, 1,
			   mode == 2 ? "set the levels" : "change the level");
}

int compact_tree_level_max(struct compact_tree *t, int n)
{
	return set_levels(t, 0, n, NULL);
}

int compact_tree_level_min(struct compact_tree *t, int n)
{
	return set_levels(t, 1, n, NULL);
}

int compact_tree_set_levels(struct compact_tree *t, const int32_t *levels)
{
	return set_levels(t, 2, 0, levels);
}

/* --- local actions -------------------------------------------------------- */

/*
 * Rebuild the subtrees of roots[0 .. nroots) (children of y) once the
 * members of c show k - 1 (dir < 0) or k + 1 elements: the highest
 * original nodes of the subtrees are collected, the old levels saved, the
 * subtrees freed and built again.  A compaction's node shows k - 1
 * elements in all its original nodes, also those it took over (which
 * showed at most k: else they are taken over across two levels).  What
 * breaks a limit is undone: the old levels, the same subtrees again.
 */
static int rebuild_local(struct compact_tree *t, int32_t y, int32_t *roots,
			 size_t nroots, int32_t c, int dir, const char *verb)
{
	size_t ntops = 0, cap_tops = 0, nsaved = 0, nq, ncomps = 0;
	int32_t anchor = t->nodes[c].first_member, *tops = NULL, x2;
	int32_t k = t->trie[t->nodes[c].name].depth, np = t->nodes[c].name;
	struct breach b;
	int ret = -ENOMEM;

	while (is_term(t, np) || t->trie[np].depth > k - 1)
		np = t->trie[np].parent;
	/* the original nodes of the subtrees: levels, shown levels, tops */
	for (size_t i = 0; i < nroots; i++)
		if (push(&t->queue, &t->cap_queue, &ncomps, roots[i]))
			return -ENOMEM;
	for (size_t i = 0; i < ncomps; i++) {
		int32_t x = t->queue[i],
			shown = t->trie[t->nodes[x].name].depth;

		for (int32_t z = t->nodes[x].first_child; z >= 0;
		     z = t->nodes[z].next_sibling)
			if (push(&t->queue, &t->cap_queue, &ncomps, z))
				return -ENOMEM;
		for (int32_t m = t->nodes[x].first_member; m >= 0;
		     m = t->orig[m].member_next) {
			if (GROW(t->saved, t->cap_saved, nsaved + 3))
				goto out;
			t->saved[nsaved++] = m;
			t->saved[nsaved++] = t->orig[m].level;
			t->saved[nsaved++] = shown;
			if (i < nroots &&
			    t->orig[t->orig[m].parent].comp == y &&
			    push(&tops, &cap_tops, &ntops, m))
				goto out;
		}
	}
	for (int32_t m = t->nodes[c].first_member; m >= 0;
	     m = t->orig[m].member_next) {
		struct compact_orig *o = &t->orig[m];
		int32_t len = t->trie[o->name].depth;

		o->level = dir < 0 ? k - 1 : k + 1 < len ? k + 1 : len;
	}
	free_subtrees(t, roots, nroots);
	if ((ret = build_under(t, y, tops, ntops, &nq, &b,
			       dir < 0 ? anchor : -1)))
		goto out;
	x2 = t->orig[anchor].comp;
	if (dir < 0 && b.deep < 0) {
		/* what the compaction took over showed at most k elements */
		for (size_t i = 0; i < nsaved && b.deep < 0; i += 3)
			if (t->orig[t->saved[i]].comp == x2 &&
			    t->saved[i + 2] > k) {
				b.deep = t->saved[i];
				b.deep_by = np;
			}
	}
	if (b.deep >= 0 || b.high >= 0) {
		size_t nnew = 0;
		int32_t *fresh = malloc((nq + 1) * sizeof(*fresh));
		char what[300], path[256];

		if (!fresh)
			goto out;
		for (size_t i = 0; i < nq; i++)
			if (t->nodes[t->queue[i]].parent == y)
				fresh[nnew++] = t->queue[i];
		free_subtrees(t, fresh, nnew);
		free(fresh);
		for (size_t i = 0; i < nsaved; i += 3)
			t->orig[t->saved[i]].level = t->saved[i + 1];
		if ((ret = build_under(t, y, tops, ntops, &nq,
				       &(struct breach){ 0 }, -1)))
			goto out;
		short_path(t, t->orig[anchor].comp, path, sizeof(path));
		snprintf(what, sizeof(what), "cannot %s '%s'", verb, path);
		why_breach(t, what, &b);
		ret = -EPERM;
		goto out;
	}
	if (dir < 0)
		for (int32_t m = t->nodes[x2].first_member; m >= 0;
		     m = t->orig[m].member_next)
			t->orig[m].level = k - 1;
	ret = 0;
out:
	free(tops);
	return ret;
}

static int act(struct compact_tree *t, int32_t c, int dir)
{
	const char *verb = dir < 0 ? "compact" : "expand";
	int32_t y, k, name, *roots = NULL;
	size_t nroots = 0, cap = 0;
	char path[256], n1[128], n2[128];
	int ret;

	if (!t->built || c <= 0 || (size_t)c >= t->nnodes ||
	    !t->nodes[c].members)
		return -EINVAL;
	t->why[0] = '\0';
	y = t->nodes[c].parent;
	name = t->nodes[c].name;
	k = t->trie[name].depth;
	if (dir < 0) {
		int32_t np = name;

		while (is_term(t, np) || t->trie[np].depth > k - 1)
			np = t->trie[np].parent;
		if (k <= 1) {
			short_path(t, c, path, sizeof(path));
			snprintf(t->why, sizeof(t->why),
				 "cannot compact '%s': it shows one element",
				 path);
			return -EPERM;
		}
		if (y > 0 && trie_proper_prefix(t, np, t->nodes[y].name)) {
			short_path(t, c, path, sizeof(path));
			compact_trie_name(t, np, n1, sizeof(n1));
			compact_trie_name(t, t->nodes[y].name, n2, sizeof(n2));
			snprintf(
				t->why, sizeof(t->why),
				"cannot compact '%s': '%s' would be a prefix "
				"of its parent's name '%s' (3.3.2: a node "
				"cannot be compacted below its parent's level)",
				path, n1, n2);
			return -EPERM;
		}
		/* the siblings it takes over: their names extend the new one */
		for (int32_t z = t->nodes[y].first_child; z >= 0;
		     z = t->nodes[z].next_sibling)
			if ((z == c || trie_prefix(t, np, t->nodes[z].name)) &&
			    push(&roots, &cap, &nroots, z)) {
				free(roots);
				return -ENOMEM;
			}
	} else {
		int grows = 0;

		for (int32_t m = t->nodes[c].first_member; m >= 0 && !grows;
		     m = t->orig[m].member_next)
			grows = t->trie[t->orig[m].name].depth > k;
		if (!grows) {
			short_path(t, c, path, sizeof(path));
			snprintf(t->why, sizeof(t->why),
				 "cannot expand '%s': it shows its whole name",
				 path);
			return -EPERM;
		}
		if (push(&roots, &cap, &nroots, c))
			return -ENOMEM;
	}
	ret = rebuild_local(t, y, roots, nroots, c, dir, verb);
	free(roots);
	return ret;
}

int compact_tree_compact(struct compact_tree *t, int32_t c)
{
	return act(t, c, -1);
}

int compact_tree_expand(struct compact_tree *t, int32_t c)
{
	return act(t, c, 1);
}

int compact_tree_check(struct compact_tree *t)
{
	for (size_t c = 1; c < t->nnodes; c++) {
		const struct compact_node *x = &t->nodes[c];
		int32_t depth;

		if (!x->members)
			continue;
		depth = t->trie[x->name].depth;
		if (x->parent > 0 &&
		    trie_proper_prefix(t, x->name, t->nodes[x->parent].name))
			return -EPERM;
		for (int32_t m = x->first_member; m >= 0;
		     m = t->orig[m].member_next)
			if (!covers(t, x->name, m) ||
			    t->orig[m].level - depth >= 2 ||
			    t->orig[m].comp != (int32_t)c)
				return -EPERM;
	}
	return 0;
}
