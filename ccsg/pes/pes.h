/*
 * pes.h - program execution sequences (Abrams and Doraswamy, "An
 * Introduction to Visualizing Program Execution Dynamics with Chitra",
 * TR 92-23, Sections 1.1, 2 and 3): the states a program passes through,
 * each with the time it entered it; their clipping, filtering and
 * aggregation; and the empirical semi-Markov model fitted to the result.
 *
 * The contract, for whoever feeds the engine (a PES file, pes_read(); or
 * states built from trace records, pes_state() and pes_append()):
 *
 *  - A struct pes is a sequence of n entries (seq[i], t[i]): the program
 *    entered state seq[i] at time t[i], in units of the time base (unit,
 *    seconds_per_unit).  Times never decrease.  Entry i lasts until
 *    t[i + 1]; the last one until end when end_known, else its occupancy
 *    is unknown (it counts in no occupancy statistic).
 *  - States are numbered 0 .. nstates - 1 in the order they were first
 *    named; that number is Chitra's f(s), the y coordinate of the time and
 *    event views.  A state is a program state (PES_PROGRAM) or an
 *    aggregate made by one of the transformations, whose definition
 *    (members, paths) says what it stands for.  Aggregates may be made of
 *    aggregates.  The same state may follow itself (AABAACAABAAD has A
 *    then A): an entry is an event, not a change of value.
 *  - Every transformation rewrites the sequence in place, as though the
 *    input had been that sequence (Section 2.3): what it removes is gone
 *    from the views and the model alike.  Each returns 0, or a negative
 *    errno after one message through fail() ("rule 2 names no state
 *    'X'"); on an error the sequence is left as it was.
 *  - No function here exits or prints to stdout.
 */
#ifndef CCSG_PES_H
#define CCSG_PES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum pes_kind {
	PES_PROGRAM,  /* a state of the input */
	PES_STATIC,   /* static aggregation: any of members */
	PES_SEQUENCE, /* sequence aggregation: members in that order */
	PES_PARALLEL, /* parallel aggregation: any path between from and to */
};

/* One path through a parallel aggregate, as observed. */
struct pes_path {
	uint32_t *states;
	size_t len;
	size_t count;	/* times it was taken */
	double sojourn; /* total time spent along it, all times together */
};

struct pes_state {
	char *name;
	enum pes_kind kind;
	uint32_t *members; /* static: the states it replaced; sequence: the
			    * pattern; parallel: from and to */
	size_t nmembers;
	struct pes_path *paths; /* parallel: the distinct paths */
	size_t npaths;
	size_t direct; /* parallel: from followed at once by to */
	int removed;   /* a filter took it out */
};

struct pes_undo;

struct pes {
	char unit[8];		 /* "s", "ms", "us" or "ns" */
	double seconds_per_unit; /* 1e-6 for "us" */
	struct pes_state *states;
	size_t nstates, cap_states;
	uint32_t *seq; /* n entries: the states */
	int64_t *t;    /* n entries: when each was entered */
	size_t n, cap;
	int64_t end;
	int end_known;
	/* private: the name index and what pes_undo() restores */
	uint32_t *index;
	size_t index_cap;
	struct pes_undo *undo;
	size_t nundo, cap_undo;
};

/* An empty sequence in the time base unit ("s", "ms", "us", "ns");
 * -EINVAL for another unit.  pes_release() frees it again. */
int pes_init(struct pes *p, const char *unit);
void pes_release(struct pes *p);

/* The number of the state called name, made (a program state) when absent
 * and create is set: >= 0, -ENOENT (absent), -EINVAL (an empty name or
 * one with blanks), -ENOMEM.  No message. */
int64_t pes_state(struct pes *p, const char *name, int create);

/* Append an entry: 0, -EINVAL when t is before the last entry or state is
 * no state (no message), -ENOMEM. */
int pes_append(struct pes *p, int64_t t, uint32_t state);

/* The occupancy time of entry i, or -1 when unknown (the last entry and no
 * end). */
static inline int64_t pes_occupancy(const struct pes *p, size_t i)
{
	if (i + 1 < p->n)
		return p->t[i + 1] - p->t[i];
	return p->end_known ? p->end - p->t[i] : -1;
}

/*
 * Read a PES file (the format in docs/pes.md,
 * sequences"): '#' comments and blank lines; "timebase UNIT" first; then
 * one "TIME STATE" per line, times in the time base, integers that never
 * decrease; at most one "end TIME" last.  A malformed line is reported as
 * "PATH:LINE: ..." and gives -EINVAL.
 */
int pes_read(struct pes *p, FILE *in, const char *path);

/* Write the sequence in the same format (aggregates by their names). */
int pes_write(const struct pes *p, FILE *out);

/* --- clipping (Section 2.3.1) --------------------------------------------- */

/* Keep what lies in [t0, t1] (the entry in force at t0 starts at t0; the
 * end becomes t1), or entries e0 .. e1 inclusive.  A range that holds no
 * entry, or starts after the sequence ends: -ERANGE. */
int pes_clip_time(struct pes *p, int64_t t0, int64_t t1);
int pes_clip_event(struct pes *p, size_t e0, size_t e1);

/* --- filters (Section 2.3.2): each removes every entry of some states,
 * the time they took going to the entry before them.  One that would
 * remove every state: -EINVAL. ----------------------------------------------
 */

/* Drop the states s with drop[s] set; what names the filter in the
 * message when that would remove every state. */
int pes_remove_states(struct pes *p, const unsigned char *drop,
		      const char *what);
/* Drop states whose total occupancy is below fraction of the span. */
int pes_filter_time(struct pes *p, double fraction);
/* Drop states occurring fewer than k times. */
int pes_filter_event(struct pes *p, size_t k);
/* Drop states whose transitions concentrate in the band [f0, f1] (cycles
 * per event, 0 < f0 <= f1 <= 0.5): the state's indicator sequence (1 where
 * the entry is the state, else 0, in event view) has at least share of its
 * power, the mean removed, in the band. */
int pes_filter_freq(struct pes *p, double f0, double f1, double share);

/* --- aggregation (Section 2.3.3) ----------------------------------------- */

/*
 * Static: a rules file, one rule a line, "STATE... -> AGGREGATE"
 * ('#' comments).  Each entry of a listed state becomes the aggregate;
 * consecutive entries of one aggregate become one entry (the program
 * stays in it).  A rule naming no state of the sequence, a state in two
 * rules or an aggregate name already taken: "PATH:LINE: ..." and -EINVAL.
 */
int pes_aggregate_static(struct pes *p, FILE *rules, const char *path);
/* The same from one rule given as a string, "S1 S2 -> A". */
int pes_aggregate_rule(struct pes *p, const char *rule);

/* Sequence: every occurrence of pattern[0..k) (k >= 2), left to right
 * without overlap, becomes one entry of a new aggregate name.  No
 * occurrence: -ENOENT.  pes_undo() takes back the last one. */
int pes_aggregate_sequence(struct pes *p, const uint32_t *pattern, size_t k,
			   const char *name);
int pes_undo(struct pes *p);

/* Parallel: whatever lies strictly between an entry of from and the next
 * entry of to (neither in between) becomes one entry of a new aggregate
 * name, which keeps every distinct path with its count and time.  No such
 * path: -ENOENT. */
int pes_aggregate_parallel(struct pes *p, uint32_t from, uint32_t to,
			   const char *name);

/* --- the model (Sections 2.1, 2.4) -------------------------------------- */

struct pes_transition {
	uint32_t from, to;
	size_t count;
	double p; /* count / departures of from */
};

struct pes_stats {
	size_t count;	   /* entries */
	size_t measured;   /* entries whose occupancy is known */
	size_t departures; /* transitions out */
	double total;	   /* time in it */
	double mean, sd;   /* occupancy, over measured */
	int64_t min, max;
	double time_share;  /* total / span */
	double event_share; /* count / n */
	size_t *hist;	    /* bins counts over [min, max] */
};

struct pes_model {
	size_t nstates; /* p->nstates when built */
	size_t n;	/* entries */
	double span;
	struct pes_transition *tr; /* sorted by (from, to) */
	size_t ntr;
	struct pes_stats *st; /* per state; count 0 for states not present */
	size_t bins;
	/* steady state: the transition rates (count / time in from) of the
	 * first and second halves of the sequence differ by at most tol,
	 * relatively, for every transition taken at least STEADY_MIN times */
	int steady;
	double max_change; /* the largest relative difference found */
	uint32_t worst_from, worst_to;
	double tol;
};

#define PES_STEADY_MIN 10

/* Fit the model: bins >= 1 histogram bins, tol the steady-state test's. */
int pes_model_build(const struct pes *p, struct pes_model *m, size_t bins,
		    double tol);
void pes_model_release(struct pes_model *m);

/*
 * Simulate the fitted model: from p's first state, n entries, the next
 * state drawn from the embedded chain, each occupancy drawn from the
 * state's observed occupancies (the empirical distribution).  A state
 * never left (the run's last) leads back to p's first state, as though
 * the run began again.  out is initialised by the call with p's time
 * base and state names; seed makes it repeatable.
 */
int pes_simulate(const struct pes *p, const struct pes_model *m, size_t n,
		 uint64_t seed, struct pes *out);

/* --- the frequency view (Section 2.2.4) ---------------------------------- */

/*
 * The periodogram of the sequence as plotted in event view (one sample an
 * entry) or time view (one sample every dt time units), the mean removed:
 * power[j] = |X_j|^2 / N for j = 0 .. N/2, at frequency j / N cycles per
 * event, or j / (N dt seconds_per_unit) Hz.  The signal is f(s), the state
 * number, or with signal >= 0 the indicator of that state.  FFTW.
 */
int pes_periodogram(const struct pes *p, int time_view, int64_t dt,
		    int64_t signal, double **power, size_t *nfreq,
		    double *hz_per_bin);

#endif
