/*
 * diagnose.h - `ccsg diagnose`: the causes of a request type's latency
 * and CPU, ranked, each with what the request would become were it 20%
 * smaller or gone (docs/ccsg.md, "diagnose").
 *
 * A request is a root call of a chain (parent -1); its type is the
 * function node of that call.  Its latency (Equation 3 of the monitoring
 * paper, inner edges less probe time: latency.h) is split along its
 * critical path, call by call, into leaves that add up to it:
 *
 *   network  L - S: stub latency less skeleton time (network and the
 *            RPC runtime on both sides);
 *   nested   the child calls it waited for, each split in turn (their
 *            sum bounded to S, scaled down when they overlapped);
 *   lock     the server thread blocked on a mutex or rwlock inside the
 *            skeleton (table lock_events, monitoring type locks);
 *   cpu      its own code on the CPU: Equation 1 of the CPU paper;
 *   off      the rest of S: off the CPU otherwise (sleeping, runnable);
 *   unsplit  a call without its skeleton's probes: all of L.
 *
 * A part is (function node, host, kind); its share of the median is its
 * part of the latency of the requests ranked 25% to 75%, of the p95 that
 * of the requests ranked 90% and above.  A cause is a place (function
 * node, host) with all its parts; its remedy is what a change there
 * would shrink, the largest of: its CPU (own CPU and off CPU together,
 * the time off CPU taken as waiting for a CPU, which on a loaded host
 * shrinks with the CPU asked for), its lock waits, its network time.
 * Its prediction: each request's latency less f times the remedy's
 * parts (the critical path recomputed with those leaves scaled: they are
 * sequential), then the median and p95 again; CPU through the CCDG
 * (impact.h) for a CPU remedy, unchanged for the others.
 */
#ifndef CCSG_DIAGNOSE_H
#define CCSG_DIAGNOSE_H

#include <stdio.h>

#include "ccsg.h"
#include "hashmap.h"
#include "names.h"

enum diag_kind {
	DIAG_CPU,
	DIAG_LOCK,
	DIAG_OFF,
	DIAG_NETWORK,
	DIAG_UNSPLIT,
	DIAG_NKINDS
};
extern const char *const diag_kind_names[DIAG_NKINDS];

/* The factors a prediction applies: 20% smaller, gone. */
#define DIAG_SMALLER 0.2
#define DIAG_NPRED 2
extern const double diag_pred_factor[DIAG_NPRED];

/* What the request type becomes with a cause scaled: ns per request. */
struct diag_pred {
	int64_t median, p95;
	int64_t cpu; /* CPU of the root node and below, per request */
};

/* One part: a kind of latency at a place. */
struct diag_part {
	int32_t node;	 /* function node */
	int32_t host;	 /* vector dimension: host or group, -1 */
	int kind;	 /* enum diag_kind */
	uint64_t lock;	 /* lock: the address waited for longest */
	int64_t lock_ns; /* ... that long, over the requests */
	double *ns;	 /* per request of the type */
	double share_median, share_p95;
};

/* A cause: a place and its remedy (above). */
struct diag_cause {
	int32_t node, host;
	int remedy; /* DIAG_CPU (cpu and off), DIAG_LOCK, _NETWORK, _UNSPLIT */
	uint64_t lock; /* its longest-waited lock, 0 */
	double share_median, share_p95;
	struct diag_pred pred[DIAG_NPRED];
};

/* Self CPU of one function node on one host, per request (--by cpu). */
struct diag_cpu {
	int32_t node, host; /* function node, dimension */
	int64_t self;	    /* ns per request */
	double share;	    /* of the type's CPU */
	struct diag_pred pred[DIAG_NPRED];
};

struct diag_type {
	int32_t root;	  /* function node of the root calls */
	size_t nreq;	  /* root calls with a latency */
	int64_t *latency; /* per request */
	int64_t median, p95;
	int64_t cpu;		 /* per request: root node self + desc */
	struct diag_part *parts; /* by p95 share, largest first */
	size_t nparts, cap_parts;
	struct hashmap index;	   /* (node, host, kind) -> part */
	struct diag_cause *causes; /* by p95 share, largest first */
	size_t ncauses;
	struct diag_cpu *cpus; /* by self CPU, largest first */
	size_t ncpus;
};

/* The lock waits of a trace: [start, end) of every wait of a thread. */
struct diag_locks {
	struct diag_wait {
		int32_t proc, tid;
		int64_t start, end;
		uint64_t lock;
	} * v;
	size_t n;
};

/* Read the lock_events of db file path (none when it has no such
 * table).  0, or -1 after a fail(). */
int diag_locks_load(struct diag_locks *l, const char *path);
/* How long thread (proc, tid) waited for locks within [a, b); *lock the
 * lock it waited for longest (0: none). */
int64_t diag_locks_blocked(const struct diag_locks *l, int32_t proc,
			   int32_t tid, int64_t a, int64_t b, uint64_t *lock);
void diag_locks_release(struct diag_locks *l);

struct diag {
	const struct ccsg_graph *g;
	struct diag_type *types; /* by requests, most first */
	size_t ntypes;
};

/*
 * Split the latency of every request of g's trace (the types whose root
 * node is named root, or all when NULL) with the waits of locks, rank the
 * causes and predict latency.  0, -ENOENT when no request has that root,
 * -ENOMEM.
 */
int diag_build(struct diag *d, const struct ccsg_graph *g,
	       const struct diag_locks *locks, const char *root);
/*
 * CPU: rank each type's self CPU per node and host, and predict the CPU
 * of each cause (latency's and CPU's) with the CCDG of a reduction of its
 * function on its host (impact.h).  0, or -1 after a fail().
 */
int diag_cpu(struct diag *d, const struct idl_names *nm);
void diag_release(struct diag *d);

/*
 * diagnose-cause.c: the causes of ty from its parts (ranked), with their
 * latency predictions.  0 or -ENOMEM.
 */
int diag_causes(struct diag_type *ty);
/* Largest shares first: by p95 share, then median share (qsort's sign). */
int diag_cmp_shares(double p95_a, double median_a, double p95_b,
		    double median_b);
/* The kinds a remedy shrinks: a mask of 1 << enum diag_kind. */
unsigned diag_remedy_kinds(int remedy);
/* Median and p95 of ty with the parts of place (node, host) of the kinds
 * in mask scaled down by each factor.  0 or -ENOMEM. */
int diag_predict_latency(const struct diag_type *ty, int32_t node, int32_t host,
			 unsigned mask, struct diag_pred pred[DIAG_NPRED]);

/* The median (q 0.5) or p95 (0.95) of v[0 .. n), sorted in place. */
int64_t diag_quantile(int64_t *v, size_t n, double q);

/* diagnose-output.c: text (the top causes, in sentences) or JSON. */
int diag_print(FILE *f, const struct diag *d, int by_cpu, int format);

#endif
