/*
 * exact-totals.h - the exact totals of a sampled trace (docs/ccsg.md, "Exact
 * totals and estimates"): the call_totals table read back per function
 * and host, and per caller/callee arc, with the sampling rate the trace
 * was taken at (processes.sample_rate_q32).
 *
 * Skeleton rows give each function's calls, failures and self CPU
 * (Equation 1) on the host that ran it; stub rows give each arc's calls,
 * failures and latency (Equation 3) histogram, on the caller's host.
 */
#ifndef CCSG_EXACT_TOTALS_H
#define CCSG_EXACT_TOTALS_H

#include <stdint.h>
#include <stdio.h>

#include "trace.h"

struct ccsg_totals_fn {
	uint32_t prog, vers, proc;
	int32_t host; /* trace host index */
	int64_t calls, failures, cpu_ns, alloc_bytes;
	uint8_t partial; /* a process at rate 1 ran it, and counted only
			  * its unsampled calls: not exact (unless
			  * ccsg_totals_combine() added its recorded ones) */
	uint8_t low;	 /* a process below rate 1 ran it (counted all) */
};

struct ccsg_totals_arc {
	uint32_t prog, vers, proc;			/* the callee */
	uint32_t caller_prog, caller_vers, caller_proc; /* 0: none */
	int32_t host;					/* the caller's */
	int64_t calls, failures, latency_ns;
	uint64_t *hist; /* CAUSAL_HIST_BUCKETS */
};

/* The CCSG's estimates (sampling.h, ccsg_graph_scale()), per node. */
struct ccsg_scaled {
	size_t nnodes, k;      /* k: the graph's dimensions */
	int64_t *sampled;      /* the sampled calls (threads) it is made of */
	int64_t *self_sampled; /* k each: self before scaling */
	double *self_ci, *desc_ci; /* k each: 95% half-widths, scaled */
};

struct ccsg_totals {
	double rate;  /* the lowest sampling rate of the processes */
	int64_t lost; /* calls the threads' tables had no room for */
	struct ccsg_totals_fn *fns;
	size_t nfns;
	struct ccsg_totals_arc *arcs;
	size_t narcs;
	uint64_t *threshold; /* per proc id: its head sampling threshold
			      * (causal/sample.h), for ccsg_chain_sampled() */
	size_t nprocs;
	int32_t *by_uuid; /* the processes with a row, by UUID (the first
			   * part of the chain ids they root) */
	size_t nby_uuid;
	struct ccsg_scaled est; /* once the CCSG is scaled, else empty */
};

/*
 * Read t's totals into x (zeroed first).  A trace without them (rate 1,
 * or a schema before 11) has x->rate 1 and no rows.  0, or -1 after
 * fail().
 */
int ccsg_totals_load(struct ccsg_totals *x, const struct ccsg_trace *t);
void ccsg_totals_release(struct ccsg_totals *x);

/*
 * A function run on its host by processes at rate 1 only counted only
 * the calls of unsampled chains; the sampled ones are recorded, in g
 * (the CCSG of the sampled chains, per host, not yet scaled): add them,
 * and the function is exact (docs/ccsg.md).  Functions seen on several
 * hosts, and graphs by groups of hosts, stay as they are.
 */
struct ccsg_graph;
void ccsg_totals_combine(struct ccsg_totals *x, const struct ccsg_graph *g);

/* How many hosts the totals saw function f run on. */
int ccsg_totals_hosts_of(const struct ccsg_totals *x,
			 const struct ccsg_totals_fn *f);

/* The value of quantile q (0..1) of a histogram of n counts, ns: its
 * bucket's middle (latency-hist.h); 0 when empty. */
uint64_t ccsg_totals_quantile(const uint64_t *hist, int64_t n, double q);

/*
 * A sampled figure y (a sum over n sampled chains' calls) scaled to the
 * whole run at rate r: *est = y / r, and the half-width of its 95%
 * confidence interval, 1.96 (y / r) sqrt((1 - r) / n): each chain kept
 * with probability r, its calls alike (docs/ccsg.md).
 */
void ccsg_totals_estimate(double y, int64_t n, double r, double *est,
			  double *ci95);

/*
 * The printers (output-totals.c), after what report and latency print
 * (text), or inside their JSON object before its end (each writes
 * ",\n \"key\": ..."): the sampling note, the exact functions and arcs.
 */
void ccsg_totals_report_text(FILE *f, const struct ccsg_graph *g,
			     const struct ccsg_totals *x);
void ccsg_totals_report_arcs_text(FILE *f, const struct ccsg_graph *g,
				  const struct ccsg_totals *x);
/* The figures.json_more of a scaled CCSG's nodes (output.h): whether
 * estimated, the rate, the sampled count, the 95% intervals. */
void ccsg_totals_node_json(FILE *f, const void *ctx, int32_t u);
void ccsg_totals_report_json(FILE *f, const struct ccsg_graph *g,
			     const struct ccsg_totals *x);
void ccsg_totals_arcs_json(FILE *f, const struct ccsg_graph *g,
			   const struct ccsg_totals *x);
void ccsg_totals_latency_text(FILE *f, const struct ccsg_graph *g,
			      const struct ccsg_totals *x);
void ccsg_totals_latency_json(FILE *f, const struct ccsg_graph *g,
			      const struct ccsg_totals *x);

#endif
