/*
 * dscg.h - the dynamic system call graph (Section 4.1 of the monitoring
 * paper): each chain's events sorted and scanned with the state machine of
 * Figure 7, thread instance nodes linked by thread-spawn-thread,
 * function-spawn-thread and thread-invoke-function, one virtual main node
 * on top.
 *
 * The graph is a tree over node ids: calls are 0 .. ncalls-1, threads
 * ncalls .. ncalls+nthreads-1, the virtual main node is the last id.  A
 * chain's root calls hang under the thread that started the chain (its
 * global thread node), or under main when that thread is unknown.  The
 * auxiliary global thread and segment nodes are not ids: a root call's
 * chain and seg say which it belongs to.
 */
#ifndef CCSG_DSCG_H
#define CCSG_DSCG_H

#include "trace.h"

/* How many calls have each value of a text column (trace.strings). */
struct ccsg_tally {
	struct ccsg_tally_entry {
		int32_t str;		/* trace.strings index of the value */
		size_t n;
	} *v;				/* by count, largest first, then by value */
	size_t n, cap;
	struct hashmap index;		/* str -> entry */
};

struct ccsg_dscg_stats {
	size_t calls, chains, threads;
	size_t broken_chains;		/* with an abnormal transition or truncated */
	size_t segments;		/* segment nodes of the broken chains */
	size_t breaks;			/* abnormal transitions */
	size_t truncated_chains;	/* ended with calls still open */
	size_t no_server;		/* calls whose server side is missing */
	size_t no_client;		/* calls whose client side is missing */
	size_t incomplete;		/* calls that lack an end probe */
	size_t lost_starts;		/* calls without a start probe (dropped): no function */
	size_t failed;			/* ccsg_call_failed() */
	struct ccsg_tally failures;	/* failed calls by status_name, else reply */
	struct ccsg_tally tags;		/* rpc_calls.tag by value (NULL not counted) */
	struct ccsg_tally reply_tags;	/* rpc_calls.reply_tag by value */
	size_t spawned_threads;		/* function-spawn-thread links */
	size_t thread_calls;		/* chains started by a thread (thread-invoke-function) */
	size_t kept_chains;   /* kept by tail keep, not sampled (sampling.h) */
	size_t kept_complete; /* ... with every traced host's side */
	int32_t max_depth;
};

/*
 * Which threads each call spawned (function-spawn-thread): a thread whose
 * function container (ctx_function) is a skeleton of its process was
 * spawned by the first call, in chain order, that ran that skeleton in
 * that process - when that call ran on the thread's parent thread (or
 * the parent is unknown).  Otherwise the thread hangs under its parent
 * thread (thread-spawn-thread).  Decided call by call, so a stream of
 * chains (stream.h) decides as the whole trace does.
 */
struct ccsg_spawns {
	struct hashmap first;	  /* (proc, function) -> first thread */
	int32_t *next;		  /* per thread: the next with its key */
	uint8_t *decided;	  /* per thread: its key met its call */
	struct ccsg_call_key *at; /* ... where (a stream's, else NULL) */
};

/* Index the threads by function container; every thread starts under its
 * parent thread.  0 or -ENOMEM. */
int ccsg_spawns_init(struct ccsg_spawns *sp, struct ccsg_trace *t);
/* Call c, the ordinal-th of the trace in chain order: the threads it
 * spawned.  The first thread of the key it decided, or -1. */
int32_t ccsg_spawns_note(struct ccsg_spawns *sp, struct ccsg_trace *t,
			 const struct ccsg_call *c, int32_t ordinal);
/* The first thread spawned by a skeleton in (proc, function), then
 * ccsg_spawns_next() for the others; -1 at the end. */
int32_t ccsg_spawns_first(const struct ccsg_spawns *sp, int32_t proc,
			  int64_t function);
static inline int32_t ccsg_spawns_next(const struct ccsg_spawns *sp, int32_t th)
{
	return sp->next[th];
}
/* The first thread of th's key (its first call decides for it), or -1. */
int32_t ccsg_spawns_head(const struct ccsg_spawns *sp,
			 const struct ccsg_trace *t, int32_t th);
/*
 * Shares of one trace's chains, each read and noted apart (streams, with
 * at): does from's call for key head come before into's (or into has
 * none)?  Merge: into's decisions, in tin's threads, become those of the
 * first call of each key in either.
 */
int ccsg_spawns_beats(const struct ccsg_spawns *from,
		      const struct ccsg_spawns *into, int32_t head);
void ccsg_spawns_merge(struct ccsg_spawns *into, struct ccsg_trace *tin,
		       const struct ccsg_spawns *from,
		       const struct ccsg_trace *tfrom);
/* Cut thread-spawn-thread cycles (corrupt parent ids) and count the
 * spawned threads.  0 or -ENOMEM. */
int ccsg_spawns_finish(struct ccsg_trace *t, struct ccsg_dscg_stats *st);
void ccsg_spawns_release(struct ccsg_spawns *sp);

/*
 * The scan of one chain (Figure 7) and its counts: calls' parent, seg,
 * depth and abnormal; the chain's breaks, segments, truncated and owner;
 * the stats of its calls.  Chains come one by one, the whole trace's
 * (dscg.c) or a stream's.
 */
struct ccsg_scan {
	struct ccsg_trace *t;
	struct ccsg_dscg_stats *st;
	struct scan_event *ev;
	size_t cap_ev;
	struct scan_frame *stack;
	size_t cap_stack, depth;
	uint8_t *placed; /* per call of the trace's array */
	size_t cap_placed;
	/* the chain being scanned: its last event, segment, events seen */
	int64_t prev;
	int32_t seg;
	size_t nev;
	int32_t reply[CCSG_NREPLY]; /* interned reply names */
};

int ccsg_scan_init(struct ccsg_scan *s, struct ccsg_trace *t,
		   struct ccsg_dscg_stats *st);
/* Scan chain ch (its calls in t->calls).  0 or -ENOMEM. */
int ccsg_scan_chain(struct ccsg_scan *s, struct ccsg_chain *ch);
/*
 * The same in parts, for a long chain (a client's loop is one): scan its
 * calls from index from on, whose events all follow those scanned (or
 * which begin the chain); once no call is open
 * (ccsg_scan_open()), or at the chain's end (last), count the calls
 * scanned, t->calls[ch->first .. + ch->n), which may then be forgotten.
 * 0 or -ENOMEM.
 */
int ccsg_scan_part(struct ccsg_scan *s, struct ccsg_chain *ch, int32_t from,
		   int begins);
int ccsg_scan_count(struct ccsg_scan *s, struct ccsg_chain *ch, int last);
static inline int ccsg_scan_open(const struct ccsg_scan *s)
{
	return s->depth != 0;
}
/* Sort the tallies: once every chain is scanned. */
void ccsg_scan_finish(struct ccsg_scan *s);
/* The same of stats: its tallies sorted (strings of t). */
void ccsg_dscg_stats_sort(struct ccsg_dscg_stats *st, struct ccsg_trace *t);
/* Add from's counts (of tfrom's strings) to into's (tin's): shares of
 * one trace's chains.  0 or -ENOMEM. */
int ccsg_dscg_stats_merge(struct ccsg_dscg_stats *into, struct ccsg_trace *tin,
			  const struct ccsg_dscg_stats *from,
			  const struct ccsg_trace *tfrom);
void ccsg_scan_release(struct ccsg_scan *s);
void ccsg_dscg_stats_release(struct ccsg_dscg_stats *st);

struct ccsg_values;

struct ccsg_dscg {
	struct ccsg_trace *trace;
	struct ccsg_spawns spawns;	/* for the CCSG's fold (ccsg.c) */
	size_t nnodes;			/* ncalls + nthreads + 1 */
	int32_t main;			/* id of the virtual main node */
	int32_t *parent;		/* node ids; -1 for main */
	int32_t *first_child, *next_sibling;	/* -1 terminated */
	struct ccsg_dscg_stats stats;
	/* the values of calls for --format=json (values/values.h), or
	 * NULL; set by the command after ccsg_dscg_build() */
	struct ccsg_values *values;
};

/* Scan every chain and link the tree.  0 or -ENOMEM. */
int ccsg_dscg_build(struct ccsg_dscg *d, struct ccsg_trace *t);
void ccsg_dscg_release(struct ccsg_dscg *d);

static inline int ccsg_dscg_is_call(const struct ccsg_dscg *d, int32_t n)
{
	return n >= 0 && (size_t)n < d->trace->ncalls;
}

static inline int ccsg_dscg_is_thread(const struct ccsg_dscg *d, int32_t n)
{
	return (size_t)n >= d->trace->ncalls && n != d->main;
}

#endif
