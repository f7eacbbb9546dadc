/*
 * internal.h - what the files of the viewer's API (api.h) share: the
 * request being answered, the trees and their node ids, and each file's
 * part.  Nothing here is for cmd-serve.c, which sees api.h only.
 *
 * The files, and who calls whom (no file calls back one that calls it):
 *   api.c         the endpoints, the route table, the set-up
 *   api-link.c    /api/link                        -> api-tree.c
 *   api-flame.c   /api/flame       -> api-tree.c, api-dscg.c, api-idt.c
 *   api-pes.c     /api/pes                         -> ccsg/pes
 *   api-timeline.c /api/timeline, /api/chains      -> api-answer.c
 *   api-diff.c    --diff: a CCSG node's change from A to B
 *   api-tree.c    a node of the tree a request names
 *                 -> api-idt.c, api-dscg.c, api-ccsg.c, api-compact.c
 *   api-idt.c, api-dscg.c, api-ccsg.c, api-compact.c  one tree each
 *   api-answer.c  parameters, errors, locations: under all of them
 */
#ifndef CCSG_SERVE_INTERNAL_H
#define CCSG_SERVE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "api.h"
#include "usage.h"

enum tree { T_IDT, T_DSCG, T_CCSG, T_CCDG, NTREES };
extern const char *const api_tree_names[NTREES]; /* "idt", "dscg", ... */

/* One request being answered: the body is written to f. */
struct ctx {
	struct viewer *v;
	const struct api_request *rq;
	FILE *f;
	char *buf;
	size_t len;
	int status;
	int tree;		 /* enum tree */
	struct compact_tree *ct; /* the compacted tree asked for, or NULL */
	struct viewer_compacted *cslot; /* the slot that holds it */
};

/* A node of the DSCG view: the graph's instances plus the global thread
 * (chain) and segment nodes of the monitoring paper's Section 4.1. */
struct vid {
	char k;	      /* 'm', 't', 'g', 's', 'c' */
	int32_t a, b; /* thread, chain or call index; segment */
};

struct vids {
	struct vid *v;
	size_t n, cap;
};

/* A node of the IDT. */
struct idt_id {
	char k; /* 'r' (the root), 'p', 'v', 'f' */
	uint32_t prog, vers, proc;
};

/* Resolved node of the current tree. */
struct any {
	struct vid d;
	int32_t n; /* ccsg / ccdg / compacted */
	struct idt_id i;
};

/* --- the answer (api-answer.c) ------------------------------------------ */

/* Replace whatever was written by {"error": MESSAGE}; -1 to unwind. */
int api_reply_error(struct ctx *x, int status, const char *fmt, ...)
	CAUSAL_PRINTF(3, 4);
/* The value of query parameter key ("" for "?key" alone), or NULL. */
const char *api_query(const struct ctx *x, const char *key);
/* Digits only, at most 18 of them (no overflow): 0 and *out, or -1. */
int api_parse_num(const char **s, int64_t *out);
/* An optional numeric parameter in [lo, hi] (dflt when absent); a bad
 * one is a 400: -1 after the answer. */
int api_num_param(struct ctx *x, const char *key, int64_t lo, int64_t hi,
		  int64_t dflt, int64_t *out);
/* A parameter that must be there and not empty; NULL after a 400. */
const char *api_need_param(struct ctx *x, const char *key);
/* 404 for id in the current tree; -1. */
int api_unknown_node(struct ctx *x, const char *id);
/* A process's host ("" for none) and "exe[pid]" ("?" unknown). */
const char *api_host_name(const struct ccsg_trace *t, int32_t proc);
void api_process_name(const struct ccsg_trace *t, int32_t proc, char *buf,
		      size_t len);
/* "host": ..., "process": ..., "proc_id": ..., "tid": ... */
void api_put_location(FILE *f, const struct ccsg_trace *t, int32_t proc,
		      int32_t tid);
/* , "key": [v0, v1, ...] */
void api_put_vec(FILE *f, const char *key, const int64_t *v, size_t n);
/* k at the end of v->list: 0 or -ENOMEM. */
int api_list_add(struct viewer *v, int32_t k);

/* --- the DSCG (api-dscg.c) ------------------------------------------------ */

int api_dscg_parse(const struct viewer *v, const char *s, struct vid *out);
/* The children of u in the view into l: threads, chains (global thread
 * nodes) in place of their root calls, segments of broken chains, calls.
 * 0 or -ENOMEM. */
int api_dscg_children(const struct viewer *v, struct vid u, struct vids *l);
/* The parent of u in the view; 0, or -1 for main. */
int api_dscg_parent(const struct viewer *v, struct vid u, struct vid *p);
/* A view node's name, kind and location, with details when full. */
void api_dscg_put_node(FILE *f, const struct viewer *v, struct vid u, int full);
/* Self and total CPU of a view node, ns. */
void api_dscg_cpu(const struct viewer *v, struct vid u, int64_t *self,
		  int64_t *total);
/* Where a view node ran, for the linking forms: the serving side of a
 * call, a thread's own (0, 0 for the others). */
void api_dscg_where(const struct viewer *v, struct vid u, int32_t *proc,
		    int32_t *tid);
/* Self and total CPU of every instance, and the calls by call_id.
 * 0 or -ENOMEM. */
int api_dscg_index(struct viewer *v);

/* --- the CCSG and the CCDG (api-ccsg.c) ----------------------------------- */

int api_ccsg_parse(const struct viewer *v, const char *s, int32_t *n);
/* A node, with the estimate applied when ccdg, with its callers when
 * full. */
void api_ccsg_put_node(FILE *f, const struct viewer *v, int32_t n, int ccdg,
		       int full);
/* The children of n in the primary tree, largest first, into v->list.
 * 0 or -ENOMEM. */
int api_ccsg_children(struct viewer *v, int32_t n);
/* Apply spec to the impact estimate (after a reset): 0, or -1 with the
 * error's one line in err. */
int api_apply_spec(struct viewer *v, const char *spec, char *err, size_t len);
/* The estimate of spec= (or the one given at start-up) applied, unless
 * it is already: 0, or -1 after the answer. */
int api_ccdg_prepare(struct ctx *x);
/* The primary tree, children by total.  0 or -ENOMEM. */
int api_ccsg_index(struct viewer *v);

/* --- --diff (api-diff.c) ------------------------------------------------- */

/* , "diff": the comparison's B and test (null: none), for /api/info */
void api_diff_put_info(FILE *f, const struct viewer *v);
/* , "diff": {...}: function node n's change from A to B (nothing when
 * there is no diff or n is no function) */
void api_diff_put_node(FILE *f, const struct viewer *v, int32_t n);
void api_diff_release(struct viewer *v);

/* --- the IDT (api-idt.c) -------------------------------------------------- */

int api_idt_parse(const char *s, struct idt_id *out);
/* Is procedure fn under u? */
int api_idt_in(const struct viewer_idt_fn *fn, struct idt_id u);
/* The range of v->fns under u: [*lo, *hi); empty when u names nothing. */
void api_idt_range(const struct viewer *v, struct idt_id u, size_t *lo,
		   size_t *hi);
void api_idt_put_node(FILE *f, const struct viewer *v, struct idt_id u,
		      int full);
/* The children of u (the distinct programs, versions or procedures), the
 * first max into out: their number. */
size_t api_idt_children(const struct viewer *v, struct idt_id u,
			struct idt_id *out, size_t max);
/* The procedures and their statistics.  0 or -ENOMEM. */
int api_idt_index(struct viewer *v);

/* --- the compacted trees (api-compact.c) ---------------------------------- */

void api_compact_put_node(FILE *f, const struct compact_tree *t, int32_t c);
int api_compact_parse(struct compact_tree *t, const char *s, int32_t *c);
/* The children of c by total, largest first, into v->list.  0 or
 * -ENOMEM. */
int api_compact_children(struct viewer *v, struct compact_tree *t, int32_t c);
/* The compacted tree of (tree, hierarchy) in the state the request's
 * step= parameters make (api.h), into x->ct and x->cslot: built, or
 * found among the viewer's last few; NULL after the answer. */
struct compact_tree *api_compacted(struct ctx *x, int tree, int hier);
void api_compacted_release(struct viewer *v);
/* POST /api/compact: the steps of the state an action makes */
int api_post_compact(struct ctx *x);

/* --- a node of the tree a request names (api-tree.c) ---------------------- */

/* tree= (and compact=, spec=) into x: 0, or -1 after the answer. */
int api_pick_tree(struct ctx *x, const char *key);
/* id in the current tree: 0, or -1 after a 404. */
int api_resolve(struct ctx *x, const char *id, struct any *u);
void api_put_any(struct ctx *x, const struct any *u, int full);
/* The children of u: as view ids in l (DSCG), ids in v->list (CCSG,
 * compacted) or IDT ids in *ids (allocated); their count in *n.  0, or
 * -1 after the answer. */
int api_children_of(struct ctx *x, const struct any *u, struct vids *l,
		    struct idt_id **ids, size_t *n);
/* The i-th of the children api_children_of() found. */
void api_child_any(struct ctx *x, size_t i, const struct vids *l,
		   const struct idt_id *ids, struct any *c);
/* Is a the same node as b (of the current tree)? */
int api_same(const struct ctx *x, const struct any *a, const struct any *b);
/* The parent of u: 0, or -1 at the root. */
int api_parent_of(struct ctx *x, const struct any *u, struct any *p);

/* --- linked navigation (api-link.c) --------------------------------------- */

/* GET /api/link */
int api_get_link(struct ctx *x);

/* --- the flame graph (api-flame.c) ---------------------------------------- */

/* GET /api/flame */
int api_get_flame(struct ctx *x);

/* GET /api/pes (api-pes.c) */
int api_get_pes(struct ctx *x);
/* --- the chain timeline (api-timeline.c) --------------------------------- */

/* GET /api/timeline, GET /api/chains */
int api_get_timeline(struct ctx *x);
int api_get_chains(struct ctx *x);
/* The hosts' clocks aligned (v->clock), at start-up: it reads the
 * database.  0, or -1 after a fail(). */
int api_timeline_index(struct viewer *v);
void api_timeline_release(struct viewer *v);

#endif
