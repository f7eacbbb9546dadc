/*
 * diff.h - `ccsg diff A B`: two traces compared per function node and
 * host (docs/ccsg.md, "diff").
 *
 * Each trace is folded as `ccsg report` folds it (stream.h), with
 * diff_chain() watching each chain: it keeps, per call, its function
 * node, the host that served it, its self CPU (Equation 1) and its
 * compensated latency (latency.h).  A row is one function on one host:
 * the calls served there, the node's self and descendant CPU on that host
 * (its vectors), the bytes its calls allocated there (the heap graph,
 * when given), and the latency mean, median and 95th percentile of the
 * calls served there.  Rows are matched across the traces by the
 * function's name and the host's name.
 *
 * Whether a change stands out of the run-to-run noise: a two-sided
 * Mann-Whitney U test (rank-sum; normal approximation with the tie and
 * continuity corrections) on the per-call self CPU, and separately on
 * the per-call latencies, and a median that moved by at least min_change
 * of A's.  Descendant CPU and heap bytes are totals, shown with their
 * delta but not tested (no per-call figure).
 */
#ifndef CCSG_DIFF_H
#define CCSG_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "ccsg.h"

/* One call as the watch saw it. */
struct diff_call {
	int32_t node, dim; /* function node; host dimension, -1: untraced */
	int64_t self;	   /* Equation 1, ns */
	int64_t latency;   /* compensated, ns; CCSG_NONE: unknown */
};

/* What the watch keeps of one trace (zeroed before the stream). */
struct diff_acc {
	struct diff_call *calls;
	size_t n, cap;
	struct ccsg_call_latency *lat; /* the chain part's */
	size_t cap_lat;
};

/* A watch of a stream (stream.h), arg a struct diff_acc: 0 or -ENOMEM. */
int diff_chain(void *arg, const struct ccsg_graph *g,
	       const struct ccsg_chain *ch, const int32_t *node, int64_t ord0);
void diff_acc_release(struct diff_acc *acc);

/* One trace, folded: its CPU graph, its heap graph (bytes allocated;
 * NULL: none), what the watch kept, and how it was named. */
struct diff_input {
	const char *path;
	const struct ccsg_graph *cpu, *heap;
	struct diff_acc *acc;
};

/* One side's figures of a row.  The arrays are the calls' own, sorted. */
struct diff_fig {
	int present; /* the function had calls or CPU on this host */
	int64_t calls;
	int64_t self_ns, desc_ns, heap_bytes;
	double lat_mean;	     /* ns; 0 without latencies */
	int64_t lat_median, lat_p95; /* nearest rank */
	int64_t *self, *lat;
	size_t nself, nlat;
};

/* The verdict on one per-call figure. */
struct diff_test {
	double p;   /* two-sided; NAN: not tested (fewer than 2 calls a side) */
	int stands; /* -1 lower in B, +1 higher, 0 within the noise */
};

struct diff_row {
	char *name, *host;
	struct diff_fig a, b;
	struct diff_test self, lat;
};

/* A list of names (functions, hosts) or program numbers as text. */
struct diff_names {
	char **v;
	size_t n, cap;
};

struct diff_report {
	const char *path_a, *path_b;
	double alpha, min_change;
	struct diff_row *rows; /* by name, then host */
	size_t nrows;
	/* what differs: in A only, in B only */
	struct diff_names progs[2], hosts[2], functions[2];
};

/*
 * Compare a with b: a change stands out when the test's p is below alpha
 * and the median moved by at least min_change (a fraction) of A's.
 * 0, or -ENOMEM with r released.
 */
int diff_build(struct diff_report *r, const struct diff_input *a,
	       const struct diff_input *b, double alpha, double min_change);
void diff_release(struct diff_report *r);
/* Whether the traces differ in their programs, hosts or functions. */
int diff_differs(const struct diff_report *r);

/* diff-stat.c: the two-sided p of the Mann-Whitney U test between
 * samples a and b (any order; not changed), NAN when either has fewer
 * than 2 values.  Identical samples give 1. */
double diff_mann_whitney(const int64_t *a, size_t na, const int64_t *b,
			 size_t nb);
/* The verdict: p, and the sign of the move of the median when p < alpha
 * and |median b - median a| >= min_change * |median a|.  a and b sorted. */
struct diff_test diff_test_samples(const int64_t *a, size_t na,
				   const int64_t *b, size_t nb, double alpha,
				   double min_change);
/* The nearest-rank q-quantile (0 < q <= 1) of n > 0 sorted values. */
int64_t diff_quantile(const int64_t *s, size_t n, double q);

/*
 * cmd-diff.c: a against b (trace paths or store URLs) folded with o's
 * options as `ccsg diff` folds them (o->db and o->resource are used as
 * scratch), into r (diff_build(); a warning when the traces differ).
 * 0, or 1 after a one-line message.  `ccsg serve --diff` uses it too.
 */
struct cli;
int diff_compare(struct diff_report *r, struct cli *o, const char *a,
		 const char *b, double alpha, double min_change);

/* diff-output.c: 0 or -1 on a write error. */
int diff_print_text(FILE *out, const struct diff_report *r);
int diff_print_json(FILE *out, const struct diff_report *r);

#endif
