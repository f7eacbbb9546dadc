/*
 * api.h - the viewer's JSON API (`ccsg serve`, docs/viewer.md): the four
 * coordinated trees of the CPU paper's Section 5 (IDT, DSCG, CCSG, CCDG)
 * answered from a trace loaded once into memory, with the linked
 * navigation of its Figure 4 and the local compaction of compact.h.
 *
 * Nothing here knows HTTP: a request is a method, a path and its decoded
 * query parameters; the answer an HTTP status and a JSON body.  The
 * server (cmd-serve.c) calls viewer_handle() from one thread only: the
 * viewer caches work (the impact estimate applied last, the compacted
 * trees used last) and takes no lock.  What a page sees depends on its
 * request alone: no request changes what another one answers.
 *
 * Node identifiers are stable: they depend on the database only, so a
 * URL naming one works again after a restart on the same trace.
 *   IDT   p<prog>, v<prog>.<vers>, f<prog>.<vers>.<proc>, root "idt"
 *   DSCG  m (the virtual main node), t<proc_id>.<tid> (a thread
 *         instance), g<chain> (a global thread node: one call chain,
 *         numbered in the order of the chain ids), s<chain>.<seg> (a
 *         segment of a broken chain), c<call_id> (a call, rpc_calls'
 *         own id)
 *   CCSG  n<node> (node of the graph, built deterministically; n0 is
 *         main), also the CCDG's
 *   compacted trees: k:<path> (compact_tree_find()'s path; "k:" the
 *         root)
 *
 * Endpoints (GET unless said; every answer is JSON):
 *   /api/info                      the trace: hosts, dimensions, counts,
 *                                  the monitoring in force (intervals),
 *                                  the window --follow shows
 *   /api/node?tree=T&id=ID         one node with its details
 *   /api/children?tree=T&id=ID[&offset=N][&limit=N][&secondary=1]
 *                                  its children, a page at a time
 *   /api/path?tree=T&id=ID         its ancestors from the root, each with
 *                                  its position among its parent's
 *                                  children (to load the right page)
 *   /api/search?tree=T&q=TEXT[&limit=N]  nodes whose name holds TEXT
 *   /api/link?from=T&id=ID&to=T2   the candidate nodes of T2, grouped by
 *                                  host > process > thread
 *   /api/flame?tree=T&id=ID[&width=N]  the subtree under ID at once, the
 *                                  children under one of N pixels of
 *                                  ID's total as one entry (api-flame.c)
 *   /api/pes?thread=PROC:TID[&clip=SPEC][&sample=DT]  the thread's
 *                                  program execution sequence in its time,
 *                                  event and frequency views (api-pes.c)
 *   /api/timeline?chain=HEX | ?root=NAME[&pick=slowest]
 *                                  a chain's (or the slowest request's)
 *                                  calls in time, on lanes per thread,
 *                                  with arrows (api-timeline.c)
 *   /api/chains[?root=NAME][&limit=N]  the chains, slowest first
 *   POST /api/compact?tree=dscg|ccsg&hierarchy=name|location&op=OP
 *        [&id=ID][&level=N][&step=S]...
 *                                  OP: compact, expand (id), level (N:
 *                                  every node at most N elements), reset;
 *                                  the steps of the state that OP makes
 *                                  from the one the step= give, and the
 *                                  node it made.  Nothing is kept.
 * T is idt, dscg, ccsg or ccdg; dscg and ccsg take
 * compact=name|location for their compacted tree, and step=S, repeated,
 * for its state: the actions that made it from the whole tree, in order,
 * each "level:N", "compact:ID" or "expand:ID" (at most 100; the page
 * keeps them in its URL).  ccdg takes spec=TEXT (an impact
 * specification, impact.h), else the one given at start-up.
 *
 * Status: 200; 400 for a malformed request (a parameter missing or not a
 * number, an unknown op or step, a bad specification: the error says
 * which); 404 for an unknown endpoint, tree or node (of a step too); 405
 * for a method other than GET, HEAD or POST (POST for /api/compact only);
 * 409 for a compaction (an op or a step) refused by a limit of Section
 * 3.3.2 (compact_tree_why()); 500 when out of memory.  Errors are
 * {"error": "MESSAGE"}.
 */
#ifndef CCSG_API_H
#define CCSG_API_H

#include <stddef.h>
#include <stdint.h>

#include "ccsg.h"
#include "compact/compact.h"
#include "impact/impact.h"
#include "names.h"

struct export_ctx;
struct diff_report;

struct api_param {
	const char *key, *value; /* decoded; value NULL: "?key" alone */
};

struct api_request {
	const char *method; /* "GET", "POST", ... */
	const char *path;   /* "/api/children", no query */
	const struct api_param *params;
	size_t nparams;
};

struct api_response {
	int status;
	char *body; /* malloc'd JSON (free it), NUL-terminated */
	size_t len;
};

struct viewer_idt_stat {
	double n, lat_n;  /* calls, calls with a latency */
	double lat, lat2; /* sums of latency and its square, ns */
	double cpu, cpu2; /* self CPU (Equation 1), ns */
};

/* One procedure of the IDT: from the .x files or seen in the trace. */
struct viewer_idt_fn {
	uint32_t prog, vers, proc;
	char *prog_name, *vers_name, *proc_name;
	struct viewer_idt_stat *host; /* nhosts + 1 (last: unknown host) */
	struct viewer_idt_stat all;
};

/* A compacted tree of the DSCG or the CCSG, by name or by location, in
 * the state a list of steps makes it. */
#define VIEWER_COMPACTED 4
struct viewer_compacted {
	struct compact_tree t;
	int built;	/* t holds the tree of (tree, hier) */
	int tree, hier; /* internal.h's enum tree; enum compact_hierarchy */
	char *key;	/* the steps t is in; NULL: unknown (a step failed) */
	uint64_t used;	/* when last asked for: the oldest goes first */
};

struct viewer {
	struct ccsg_trace *trace;
	struct ccsg_dscg *dscg;
	struct ccsg_graph *graph; /* by function, CPU */
	const struct idl_names *names;
	/* DSCG instances: self and self + descendants, ns */
	int64_t *inst_self, *inst_total;
	/* call_id -> call index: a table from id_base when the ids are
	 * dense (merged traces number them 1..N), else sorted by call_id */
	int32_t *id_index;
	int64_t id_base;
	size_t id_span;
	int64_t *call_ids;
	int32_t *call_by_id;
	/* the CCSG's primary tree: children by total, largest first */
	int32_t *pfirst, *pnext, *pparent;
	/* the IDT: procedures sorted by (prog, vers, proc) */
	struct viewer_idt_fn *fns;
	size_t nfns;
	/* the impact estimate (CCDG) */
	struct ccsg_impact im;
	int im_ready;
	char *im_spec;	  /* applied now; NULL: none */
	char *start_spec; /* given at start-up (--change), or NULL */
	/* compacted trees, each in the state of the steps a request gave
	 * (api-compact.c): the last few used */
	struct viewer_compacted ct[VIEWER_COMPACTED];
	uint64_t ct_clock;
	struct ccsg_graph by_object; /* the CCSG by location needs it */
	struct ccsg_dims *dims;
	int by_object_built;
	/* the hosts' clocks aligned as the exports align them, for the
	 * timeline (api-timeline.c) */
	struct export_ctx *clock;
	/* --diff (api-diff.c): `ccsg diff A B`'s report, and per node of
	 * graph the first of its rows (-1: none); NULL: no diff */
	struct diff_report *diff;
	int32_t *diff_row;
	/* --follow: /api/info's "follow" object (JSON text, its owner's;
	 * follow.h), or NULL */
	const char *follow;
	/* scratch */
	int32_t *list;
	size_t nlist, cap_list;
};

/*
 * Prepare the viewer over a loaded trace, its DSCG and its CCSG (built
 * by function, CPU, named).  The trees are indexed once: O(calls log
 * calls).  The impact estimation is prepared here too, since it reads
 * the database again (ccsg_impact_init()): after this the database is no
 * longer read.  spec (or NULL) is an impact specification to apply at
 * once (--change).  0, or -1 after a fail() (a bad spec, out of memory).
 */
int viewer_init(struct viewer *v, struct ccsg_graph *g,
		const struct idl_names *nm, const char *spec);
void viewer_release(struct viewer *v);
/* --diff: the report of `ccsg diff A B` (diff.h; A the viewer's trace)
 * taken over (r is left empty), its rows shown beside the CCSG's
 * function nodes of their name.  0, or -1 after a fail(). */
int viewer_set_diff(struct viewer *v, struct diff_report *r);

/* Answer one request; rs->body is always set (free it).  0, or -ENOMEM
 * when not even the error could be written (rs->status 500). */
int viewer_handle(struct viewer *v, const struct api_request *rq,
		  struct api_response *rs);

#endif
