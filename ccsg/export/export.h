/*
 * export.h - a trace in the formats other tools read (`ccsg export`):
 * the Trace Event Format of chrome://tracing and Perfetto (chrome),
 * OTLP/JSON, the ExportTraceServiceRequest of OpenTelemetry (otlp), and
 * folded stacks for flame graphs (folded).
 *
 * Every format works on one context built from the CPU graph of a trace
 * (ccsg.h): what the graph lacks is read from the database (each thread's
 * start and spawn times and system thread id, each process's UUID and
 * real-time anchor), and the hosts' monotonic clocks are aligned on one
 * another from the calls between them (export_align()).  The calls come
 * from a source (struct export_source) as many times as a format needs:
 * the loaded trace, or the trace read again chain by chain, never held
 * whole; the bytes written are the same.  The printers return 0, -EIO
 * when writing failed, -ENOMEM, or -1 after a fail() line.
 */
#ifndef CCSG_EXPORT_H
#define CCSG_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "ccsg.h"
#include "names.h"

enum export_weight { EXPORT_CPU, EXPORT_LATENCY, EXPORT_CALLS };

/*
 * A host's clock against the reference host's (align.c, docs/export.md
 * "Clocks").  Only the calls whose reply reached their client say where
 * a server's clock stands: such a call from host a to host b says that
 * b's skeleton ran inside a's stub, so d = offset_b - offset_a lies in
 * [c0 - s0, c1 - s1] (c0, c1 the stub's inner edges on a's clock, s0, s1
 * the skeleton's outer edges on b's).  Per pair of hosts the largest
 * subset of calls whose intervals meet gives d's segment; the others
 * are outliers.  The offsets are the middle of the range all the pairs'
 * segments leave each host, against its component's reference host
 * (the one with the most calls); error_ns is the half-width of that
 * range.  When the segments contradict each other around a cycle of
 * hosts, a spanning tree of the pairs (least error first) sets them,
 * the errors added along the path.
 */
struct export_host {
	int64_t offset_ns;    /* added to the host's monotonic times */
	int64_t error_ns;     /* bound of the residual error of offset_ns */
	int64_t pairs;	      /* calls of the pair it was aligned by */
	int32_t via;	      /* the host it was aligned against, -1 */
	int32_t ref;	      /* the reference host of its component */
	int64_t unix_ns;      /* unix time - aligned time (its reference's
			       * real-time anchor), 0 when unknown */
	/* its calls with the other hosts: those whose intervals hold the
	 * offsets, and those set aside (no reply reached the client, a
	 * probe is missing, or an outlier) */
	int64_t calls_used, calls_set_aside;
	int64_t outliers;     /* of those set aside */
	uint8_t inconsistent; /* outliers, or segments that contradict */
};

struct ccsg_values;
struct ccsg_totals;

struct export_ctx {
	const struct ccsg_graph *g; /* its nodes, dims and thread_self */
	const struct ccsg_trace *t; /* its threads, processes and hosts */
	const struct idl_names *names;
	/* per thread, in trace.threads order; CCSG_NONE when unknown */
	int64_t *th_start, *th_spawn;
	int32_t *os_tid; /* the system's thread id, 0 when unknown */
	/* per process (proc_id) */
	char (*uuid)[33];
	int64_t *proc_start, *proc_end; /* monotonic, CCSG_NONE */
	/* per host */
	struct export_host *hosts;
	int64_t clamped; /* server sides moved into their client's interval
			  * (export_bounds()) */
	int64_t base_ns; /* the earliest aligned time (chrome's zero) */
	/* what export_align() tells export_bounds(): the earliest call
	 * time, and the clamped calls, unless it takes another pass */
	int64_t align_base, align_clamped;
	int bounds_pass;
	/* a head-sampled trace's rates (exact-totals.h, sampling.h), NULL
	 * when every chain was recorded; sample_rate, the lowest (1) */
	struct ccsg_totals *sampling;
	double sample_rate;
	/* the values of calls for the OTLP spans (values/values.h), or
	 * NULL; set by the command after export_ctx_init() */
	struct ccsg_values *values;
};

/*
 * The calls an export is shown at a time: the loaded trace's, all at
 * once, or a part of a chain as the trace is read again (stream.h).
 * calls[i] has the ordinal ord0 + i (its index in the loaded trace), its
 * parent call calls[c->parent] (the same part), its chain
 * t->chains[c->chain] and its strings in t->strings (t the trace that
 * read it); node[i] is its function node (-1: none), self[i] its
 * Equation 1.  The parts come in chain order, the loaded trace's.
 */
struct export_part {
	const struct ccsg_trace *t;
	const struct ccsg_call *calls;
	size_t n;
	int64_t ord0;
	const int32_t *node;
	const int64_t *self;
};

/* What an export does with each part: 0, or a negative errno (-ENOMEM,
 * -EIO) that stops the pass. */
typedef int (*export_part_fn)(void *arg, const struct export_part *p);

/*
 * Where an export reads its calls: each pass shows every part, in order,
 * to fn, then an empty part (n 0: the pass's end, its trace still there),
 * and returns 0, fn's error, or -1 after a fail() line.
 */
struct export_source {
	int (*pass)(const struct export_source *src, export_part_fn fn,
		    void *arg);
	const void *arg;
};

/*
 * Calls of parts copied into one part, in order (the chrome formatter's
 * threads format a batch while the next parts are read): their chains
 * and parents renumbered (a parent left out: -1), their trace's string
 * table copied (the strings stay; the table may move as the reading
 * goes on).  The calls are consecutive: each range's ordinals follow the
 * last's.
 */
struct export_gather {
	struct ccsg_call *calls;
	int32_t *node;
	int64_t *self;
	struct ccsg_chain *chains;
	char **strings;
	size_t n, cap, cap_node, cap_self, nchains, cap_chains, nstrings,
		cap_strings;
	int64_t ord0;
	struct ccsg_trace t; /* the parts' trace, with these chains and
			      * strings */
};

/* Part p's calls [from, to): 0 or -ENOMEM. */
int export_gather_add(struct export_gather *gt, const struct export_part *p,
		      size_t from, size_t to);
/* The part of the calls gathered (valid until the next add). */
void export_gather_part(struct export_gather *gt, struct export_part *p);
void export_gather_clear(struct export_gather *gt);
void export_gather_release(struct export_gather *gt);

/* The calls of g's loaded trace (g built by ccsg_graph_build()), in one
 * part. */
void export_source_loaded(struct export_source *src,
			  const struct ccsg_graph *g);

/*
 * The trace at path (a file or a store URL) read chain by chain, never
 * held: export_stream_open() reads all but the calls; the first pass of
 * ss->src folds them into ss->g as `ccsg report` does (CPU, a dimension
 * per host, a node per function; named from nm), which is complete only
 * once that pass is done; each later pass reads them again (their nodes
 * and Equation 1 are those of the first, the same trace read in the same
 * order).  0, or -1 after a fail().
 */
struct export_stream {
	struct export_source src;
	const char *path;
	const struct idl_names *nm;
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	int folded;    /* the first pass is done */
	size_t passes; /* readings of the calls */
};
int export_stream_open(struct export_stream *ss, const char *path,
		       const struct idl_names *nm);
void export_stream_close(struct export_stream *ss);

/*
 * Read what trace t lacks for g's export (its threads', processes' and
 * hosts' columns) from its database.  g may still be folding (a
 * stream's first pass).  0, or -1 after a fail().
 */
int export_ctx_init(struct export_ctx *x, const struct ccsg_trace *t,
		    const struct ccsg_graph *g, const struct idl_names *nm);
void export_ctx_release(struct export_ctx *x);

/* The trace's calls (once the graph is folded). */
static inline size_t export_ncalls(const struct export_ctx *x)
{
	return x->g->dscg->stats.calls;
}

/*
 * The threads call c, the ord-th of the trace, spawned (dscg.h), each to
 * fn, once its spawns are noted (a stream notes a part's before it shows
 * it).  Only the first call of a skeleton of a process can spawn: seen,
 * per thread, marks the keys met (zeroed before a pass).
 */
void export_spawned(const struct export_ctx *x, uint8_t *seen,
		    const struct ccsg_call *c, int64_t ord,
		    void (*fn)(void *arg, int32_t th), void *arg);

/*
 * Align the hosts' clocks (x->hosts) from a pass over src's calls, which
 * are shown to also (when not NULL) on the way.  0, -ENOMEM, or what the
 * pass or also returned.
 */
int export_align(struct export_ctx *x, const struct export_source *src,
		 export_part_fn also, void *arg);
/* Then x->base_ns and x->clamped: from what the alignment saw, or,
 * when the offsets found leave calls of a pair of hosts outside their
 * intervals (clocks that drift), from another pass. */
int export_bounds(struct export_ctx *x, const struct export_source *src);

/* Monotonic time mono of process proc on the aligned clock. */
static inline int64_t export_time(const struct export_ctx *x, int32_t proc,
				  int64_t mono)
{
	int32_t h = ccsg_trace_host(x->t, proc);

	return h >= 0 ? mono + x->hosts[h].offset_ns : mono;
}

/*
 * A call's sides on the aligned clock: [*c0, *c1] of the stub and [*s0,
 * *s1] of the skeleton, CCSG_NONE where a probe is missing.  The
 * skeleton of a call whose reply reached the client (ccsg_call_replied())
 * that the alignment leaves outside its stub (an outlier, clocks that
 * drift) is moved inside it: returns 1 then.  Another call is shown as
 * it ran (its server may have gone on after the client gave up).
 */
int export_call_times(const struct export_ctx *x, const struct ccsg_call *c,
		      int64_t *c0, int64_t *c1, int64_t *s0, int64_t *s1);

/* "host/pid/executable" of a process, into buf. */
void export_proc_label(const struct export_ctx *x, int32_t proc, char *buf,
		       size_t len);
/* The executable's base name, "?" when unknown. */
const char *export_exe(const struct export_ctx *x, int32_t proc);

/*
 * Folded stacks: a line per distinct stack, "FRAME;FRAME;... COUNT", each
 * frame HOST:NAME, from the DSCG's root threads down through the calls
 * (on their server's host) and the threads they spawn (<thread>), the
 * count the stack's own weight in microseconds of CPU (Equations 1 and
 * 2) or of latency, or its number of calls.  Counts are whole numbers,
 * rounded so that each host's counts add up to its total.
 */
int export_folded(FILE *f, const struct export_ctx *x,
		  const struct export_source *src, int weight);

/* Calls a batch of the chrome export's formatter threads take, and how
 * many calls a trace needs for them (fewer: formatted in order by the
 * caller); variables for the tests. */
extern size_t export_chrome_par_batch, export_chrome_par_min;
/* The Trace Event Format, one JSON object. */
int export_chrome(FILE *f, struct export_ctx *x,
		  const struct export_source *src);

/*
 * OTLP/JSON.  A process's service.name is its executable's base name
 * unless services maps it: "EXE=NAME" entries.
 */
struct export_otlp_opts {
	const char *const *services;
	size_t nservices;
	size_t batch; /* spans per request (--endpoint) */
	int retries;  /* further tries of a request that failed */
	long timeout_ms;
};

/* The whole trace as one ExportTraceServiceRequest. */
int export_otlp(FILE *f, struct export_ctx *x, const struct export_source *src,
		const struct export_otlp_opts *o);

/*
 * Each request of at most o->batch spans to a callback: 0 to go on,
 * non-zero to stop (returned).
 */
typedef int (*export_batch_fn)(const char *json, size_t len, size_t nspans,
			       void *arg);
int export_otlp_batches(struct export_ctx *x, const struct export_source *src,
			const struct export_otlp_opts *o, export_batch_fn fn,
			void *arg);

/*
 * POST the trace's requests to an OTLP/HTTP receiver (libcurl): each
 * batch tried 1 + o->retries times when the receiver cannot be reached
 * or answers 429, 502, 503 or 504 (waiting 100 ms, doubling), any other
 * answer but 2xx is a refusal.  0, or -1 after one fail() line.
 */
int export_otlp_send(struct export_ctx *x, const struct export_source *src,
		     const struct export_otlp_opts *o, const char *url);

#endif
