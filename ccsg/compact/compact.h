/*
 * compact.h - localised structural compaction of a weighted call tree
 * (S. Lin, F. Taiani et al., "Towards Anomaly Comprehension: Using
 * Structural Compression to Navigate Profiling Call-Trees", SOFTVIS'10,
 * Section 3).
 *
 * The input is a tree of original nodes (a profile's call tree: one node
 * per call path), each with a hierarchical name, a sequence of elements
 * (package > class > method; interface > version > function; host >
 * process > interface > function), a self weight, an inclusive (total)
 * weight and a count (calls).  Nothing here knows where the tree comes
 * from: the adapters at the end build it from folded stacks and from a
 * trace's CCSG or DSCG.
 *
 * Granularity.  Each original node v has a granularity level g(v),
 * 1 <= g(v) <= len(v) (its number of elements): its compacted name is
 * its first g(v) elements.  A name shown whole stands for the frame itself
 * and is a prefix of no other name: the frame 'foo' does not take over
 * 'foo.part.0'.  Nor is a frame a package: the compacted name 'lib2' (of
 * 'lib2.Lung.inhale()') is a prefix of 'lib2.Muscle', not of a frame
 * named 'lib2' (two nodes then show the same name; a path names the
 * frame).
 *
 * The take-over relation (Section 3.2): A takes over B iff A = B (1), or
 * the compacted name of A is a prefix of B's (or equal) and either A takes
 * over parent(B) (2) or some D takes over both parent(A) and parent(B)
 * (3).  The top-level nodes are siblings (children of the root, which
 * takes over nothing but itself).  The nodes of the compacted tree are the
 * connected components of the relation: so direct recursion (f calling f)
 * is one node, and two nodes whose parents merged merge when one's name is
 * a prefix of the other's (the two lib3.Signal.travel() of Figure 9).  A
 * compacted node's name is the shortest compacted name of its highest
 * original nodes, a prefix of all its nodes' names.
 *
 * Weights of a compacted node: self is the sum of its original nodes'
 * self weights, calls the sum of their counts, total the sum of the
 * totals of its original nodes that have no ancestor in it (nothing is
 * counted twice).
 *
 * The limits of Section 3.3.2, design decisions of the paper that keep an
 * action's effect local; an action that would break one is refused, the
 * state left as it was, and compact_tree_why() says why:
 *  - a node cannot be compacted below its parent's level: a compacted
 *    node's name is never a proper prefix of its parent's name (a child
 *    cannot take over its parent).  Names of unrelated hierarchies are not
 *    compared: lib3 may sit under lib2.Nerve (Figure 7);
 *  - no take-over across more than one level of the hierarchy: a node
 *    named 'lib2' cannot take over one named 'lib2.Muscle.contract()',
 *    which must first be compacted to 'lib2.Muscle'.
 * Within these limits the compacted tree computed here is exactly the
 * components of the relation (the suite compact checks it against the
 * relation computed pair by pair).
 *
 * Actions.  A compacted node shows k elements: compacting it makes every
 * original node it stands for show k - 1 (and so every node it merges
 * with), expanding it k + 1 (or its whole name); so expand undoes
 * compact: the compacted tree is the same again, and so are the levels
 * unless the node held original nodes showing more than it (a lib3.Pressure
 * merged into lib3 when their parents merged keeps its level, so that
 * undoing that merge shows it again).
 *
 * Cost: building is O(n x name length); a local action rebuilds only the
 * subtrees it touches (the node's, and those of the siblings it merges
 * with), in time proportional to their size plus the parent's children;
 * a global level change rebuilds everything.  Nothing recurses: a chain
 * of a million frames is fine.
 *
 * Errors: functions return 0 (or an id >= 0) or a negative errno and never
 * exit or print: -ENOMEM; -EINVAL for a bad argument; -ENOENT for a path
 * naming no node; -EPERM for a refused action, compact_tree_why() giving
 * the one-line reason.
 */
#ifndef CCSG_COMPACT_H
#define CCSG_COMPACT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hashmap.h"

/* Node 0 of both trees: the root, above the top-level nodes, no name. */
#define COMPACT_ROOT 0

/* An original node.  Adapters may add to the weights before
 * compact_tree_build(); everything else is the engine's. */
struct compact_orig {
	int32_t parent;				       /* -1 for the root */
	int32_t first_child, next_sibling, last_child; /* -1 terminated */
	int32_t name;	     /* trie node of the whole name (terminal) */
	int32_t level;	     /* granularity: elements shown */
	int32_t comp;	     /* the compacted node it belongs to */
	int32_t member_next; /* next original node of that compacted node */
	double self, total, calls;
};

/* A node of the compacted tree; node 0 is the root.  Read only. */
struct compact_node {
	int32_t name;	/* trie node of its compacted name; -1: root */
	int32_t parent; /* -1 for the root and for free nodes */
	int32_t first_child, next_sibling, prev_sibling; /* in no order */
	int32_t first_member, last_member; /* through member_next */
	int32_t members; /* original nodes it stands for; 0: free */
	double self, total, calls;
};

/* A name prefix: a node of the trie of element sequences.  A terminal
 * node ends a whole name; it has its parent's depth. */
struct compact_trie {
	int32_t parent; /* -1 for the empty prefix (node 0) */
	int32_t elem;	/* index into elems; -1 for node 0 and terminals */
	int32_t depth;	/* elements */
	int32_t path;	/* terminal: offset in path of its prefixes */
	uint32_t stamp; /* scratch of the grouping */
	int32_t slot;
};

struct compact_tree {
	char *sep;     /* shown between elements */
	int has_calls; /* calls mean something (trace trees) */
	struct compact_orig *orig;
	size_t n, cap;
	/* names: interned elements and the trie of their sequences */
	char **elems;
	size_t nelems, cap_elems;
	int32_t *elem_next; /* same-hash chain */
	size_t cap_elem_next;
	struct hashmap elem_map; /* hash -> first element */
	struct compact_trie *trie;
	size_t ntrie, cap_trie;
	struct hashmap trie_map; /* (parent, elem) -> child */
	int32_t *path;		 /* a terminal's prefixes at depth 1..len */
	size_t npath, cap_path;
	uint32_t stamp;
	/* the compacted tree */
	struct compact_node *nodes;
	size_t nnodes, cap_nodes;
	int32_t free_nodes; /* through next_sibling */
	size_t live;	    /* nodes in use, the root included */
	int built;
	/* scratch of the builds */
	int32_t *queue, *stack, *saved;
	size_t cap_queue, cap_stack, cap_saved;
	char why[1024];
};

/* An empty tree whose names are shown with sep between elements. */
int compact_tree_init(struct compact_tree *t, const char *sep);
void compact_tree_release(struct compact_tree *t);

/*
 * The trie node of the whole name elems[0 .. n) (n >= 1), interned:
 * equal sequences give equal ids.  Or -ENOMEM, -EINVAL.
 */
int32_t compact_tree_name(struct compact_tree *t, const char *const *elems,
			  size_t n);
/*
 * The same from one string split at t->sep, except inside (), <>, [] or
 * {} ("std::map<int, a::b>::at" is std > map<int, a::b> > at), and
 * never into an empty element: a separator first, last or next to
 * another stays in its element ("::f" is one element).  An empty string
 * is -EINVAL.
 */
int32_t compact_tree_name_split(struct compact_tree *t, const char *s,
				size_t len);

/*
 * Add an original node under parent (COMPACT_ROOT for a top-level node),
 * before compact_tree_build(); parents come before their children.  Its
 * id, or -ENOMEM, -EINVAL (a bad parent or name, or after the build).
 */
int32_t compact_tree_add(struct compact_tree *t, int32_t parent, int32_t name,
			 double self, double total, double calls);
/* Every total := self + the totals of the children (additive weights:
 * samples, a tree of calls). */
void compact_tree_sum_totals(struct compact_tree *t);

/* Compute the compacted tree with every node shown whole (the input tree,
 * save direct recursion).  0, -ENOMEM, or -ENOENT for an empty tree. */
int compact_tree_build(struct compact_tree *t);

/*
 * Global level: every original node shows at most n elements (n >= 1);
 * compact_tree_level_min(), its inverse, at least n (or its whole name).
 * 0, -EINVAL, -ENOMEM or -EPERM (the result would break a limit).
 */
int compact_tree_level_max(struct compact_tree *t, int n);
int compact_tree_level_min(struct compact_tree *t, int n);
/* Set every original node's level (levels[v], clipped to 1 .. len; the
 * root's is ignored), e.g. to restore a saved view; -EPERM as above. */
int compact_tree_set_levels(struct compact_tree *t, const int32_t *levels);

/*
 * Local actions on compacted node c (not the root): lower (compact) or
 * raise (expand) by one the level of every original node it stands for.
 * 0, -EINVAL, -ENOMEM or -EPERM: refused (a node of one element cannot be
 * compacted, a name shown whole cannot be expanded, or a limit of 3.3.2).
 * On success the compacted nodes of the rebuilt subtrees get new ids: find
 * the result through an original node, t->orig[v].comp.
 */
int compact_tree_compact(struct compact_tree *t, int32_t c);
int compact_tree_expand(struct compact_tree *t, int32_t c);

/* Are the limits of 3.3.2 kept by the whole current tree?  0 or -EPERM. */
int compact_tree_check(struct compact_tree *t);

/* Why the last action was refused or a path was not found. */
const char *compact_tree_why(const struct compact_tree *t);

/*
 * The compacted node a path names: the names of the nodes from the top
 * ("lib1;lib2.Lung;lib2.Muscle"), joined by ';'.  Its id, or -ENOENT
 * (compact_tree_why() names the path).
 */
int32_t compact_tree_find(struct compact_tree *t, const char *path);

/* The name of compacted node c (elements joined by t->sep), or its path,
 * into buf as snprintf() does: the length it needs. */
size_t compact_tree_node_name(const struct compact_tree *t, int32_t c,
			      char *buf, size_t len);
size_t compact_tree_path(const struct compact_tree *t, int32_t c, char *buf,
			 size_t len);
/* The number of elements compacted node c shows. */
int compact_tree_node_elements(const struct compact_tree *t, int32_t c);
/* A node's elements: t->elems[t->trie[k].elem] for k = its name, then
 * k = t->trie[k].parent up to 0 (a terminal k has no element: its
 * parent has the same ones). */

/*
 * Output formats:
 *  text: an indented tree, "NAME [xTOTAL]" a line, two spaces a level;
 *  json: {"total": T, "children": [NODE...]}, each NODE {"name",
 *        "elements": [strings], "self", "total", "children"} (and "calls"
 *        when the tree has counts, "nodes": the original nodes merged);
 *  folded: "NAME;NAME;... SELF" for every node with a self weight.
 * Children by total, largest first, then by name.  0 or -EIO.
 */
enum compact_format { COMPACT_TEXT, COMPACT_JSON, COMPACT_FOLDED };
int compact_format_parse(const char *s);
int compact_tree_print(FILE *f, struct compact_tree *t, int format);

/* --- adapters ---------------------------------------------------------- */

/*
 * Folded stacks (flame graph tools, perf script | stackcollapse, uftrace
 * dump --flame-graph): "FRAME;FRAME;...;FRAME COUNT" a line, the root
 * frame first, COUNT a non-negative number.  Frames are split at t->sep.
 * A malformed line (no count, a bad count, an empty frame) is reported
 * with its line number on stderr ("NAME:LINE: ...") and skipped, or, with
 * strict, is an error.  Input without a single stack is an error.  Adds
 * the stacks to t and sums the totals; 0 or -1 after a message.
 */
int compact_folded_read(struct compact_tree *t, FILE *f, const char *name,
			int strict);

struct ccsg_graph;
struct idl_names;

enum compact_hierarchy {
	COMPACT_BY_NAME,     /* interface > version > function */
	COMPACT_BY_LOCATION, /* host > process > interface > function */
};

/*
 * The trace's CCSG (its breadth-first primary tree, CPU paper 3.3) or its
 * DSCG (one node per call and thread instance) as a compaction tree.
 * Weights in CPU microseconds: self by Equations 1 and 2, total self plus
 * descendant (Equations 3 and 4), each the sum of its per-host vector;
 * calls the RPC calls.  The CCSG by location needs g built by object (one
 * server per function node).  0 or -ENOMEM.
 */
int compact_from_ccsg(struct compact_tree *t, const struct ccsg_graph *g,
		      const struct idl_names *nm, int hierarchy);
int compact_from_dscg(struct compact_tree *t, const struct ccsg_graph *g,
		      const struct idl_names *nm, int hierarchy);

#endif
