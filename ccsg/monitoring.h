/*
 * monitoring.h - what a trace's selective monitoring covers (docs/ccsg.md,
 * "Under selective monitoring"): when each monitoring type was on in each
 * process (monitor_switches), and the call chains a switch cut, which a
 * report must not show as if they were whole.
 *
 * A chain is cut when its calls were not all monitored with the same
 * types: the calls of one chain are monitored at least as their first
 * one (causal overriding), so a call with other types than the chain's
 * first (a type switched on while the chain ran, or off where the
 * overriding could not reach: a caller whose tag carries no types) is
 * where the chain was cut.  Calls not monitored at all leave a gap in
 * the chain's events, which dscg counts as a broken chain.
 */
#ifndef CCSG_MONITORING_H
#define CCSG_MONITORING_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

/* A state of a process's monitoring, from one switch to the next. */
struct ccsg_mon_interval {
	char *host;
	int64_t pid;
	int64_t from_ns, to_ns; /* the process's CLOCK_MONOTONIC; to_ns -1:
				 * to the end of its log */
	int64_t start_ns;	/* the process's start, for relative times */
	unsigned types;		/* CAUSAL_MONTYPE_* bits */
	int64_t proc_id;
	char *selections;  /* those in force for its host, "HOST INTERFACE
			    * FUNCTION on|off, ..." in the order published
			    * (monitoring-select.h); NULL: none */
	uint8_t deselects; /* some calls were not monitored for the CPU:
			    * an 'off' selection in force, or cpu off */
};

/* Where a chain was cut. */
struct ccsg_mon_cut {
	char chain[41];	 /* hex */
	int64_t call_id; /* the first call monitored otherwise */
	int64_t prog, proc, event;
	char *client,
		*server; /* "host pid", or NULL when that side is missing */
	unsigned lost, gained; /* types the chain's first call had and this one
				* not, and the other way round */
};

struct ccsg_monitoring {
	int present;	     /* the trace has monitor_switches */
	size_t switches;     /* switches applied after the initial states */
	size_t selects;	     /* of them, selections */
	int list;	     /* text: every interval, one a line
			      * (`report --switches`), else a summary */
	unsigned throughout; /* types on in every process all along */
	unsigned sometime;   /* types on somewhere at some time */
	struct ccsg_mon_interval *iv;
	size_t niv;
	struct ccsg_mon_cut *cuts;
	size_t ncuts;
};

/*
 * Read it from a merged trace; a trace without monitor_switches (merged
 * before selective monitoring: everything was on) leaves present 0.
 * 0, or -1 (fail() said why).
 */
int ccsg_monitoring_load(struct ccsg_monitoring *m, sqlite3 *db);
/*
 * The same, told whether the calls may have cuts: cuts 0 when every
 * rpc_calls.client_mon and server_mon that is not NULL holds the same
 * text (the loader saw them all), which makes a cut impossible, and the
 * sorted scan of rpc_calls that finds them (3 s of CPU for 1M calls)
 * needless.
 */
int ccsg_monitoring_load_cuts(struct ccsg_monitoring *m, sqlite3 *db, int cuts,
			      const char *where);
/* where (NULL: none) restricts the chains searched for cuts: SQL on
 * rpc_calls, a share's (workers.h).  Shares of one trace: into's cuts
 * gain from's (0, -1 after fail()). */
int ccsg_monitoring_add_cuts(struct ccsg_monitoring *into,
			     const struct ccsg_monitoring *from);
void ccsg_monitoring_release(struct ccsg_monitoring *m);

/* Does process proc_id have an interval that deselects? */
int ccsg_monitoring_deselected(const struct ccsg_monitoring *m,
			       int64_t proc_id);

/* Lines for the head of a text report (nothing when every type was on
 * all along, no selection was made and no chain was cut): each process's
 * intervals, all of them when m->list is set, else a process's first
 * and last and how many between. */
void ccsg_monitoring_text(FILE *f, const struct ccsg_monitoring *m);
/* The JSON object "monitoring" (the caller writes its key). */
void ccsg_monitoring_json(FILE *f, const struct ccsg_monitoring *m);
/* The same without "cut_chains": the states only, known before the
 * calls are read (ccsg export's metadata). */
void ccsg_monitoring_json_states(FILE *f, const struct ccsg_monitoring *m);
/* The element <monitoring> (indented by one space), with <interval> and
 * <cut> children; nothing for a trace without monitor_switches. */
void ccsg_monitoring_xml(FILE *f, const struct ccsg_monitoring *m);
/* ccsg_monitoring_text() as dot comment lines ("// ..."). */
void ccsg_monitoring_dot(FILE *f, const struct ccsg_monitoring *m);
/* ccsg_monitoring_text() with prefix before each line. */
void ccsg_monitoring_prefixed(FILE *f, const struct ccsg_monitoring *m,
			      const char *prefix);
/* Every process's intervals, one a line under a line per process (as
 * `report --switches` lists them), whatever they hold. */
void ccsg_monitoring_processes(FILE *f, const struct ccsg_monitoring *m);
/* The intervals of process proc_id, *n of them (NULL, 0: none). */
const struct ccsg_mon_interval *
ccsg_monitoring_of(const struct ccsg_monitoring *m, int64_t proc_id, size_t *n);
/* Types bits as text, their names with sep between ("none"), into buf. */
const char *ccsg_monitoring_types(char *buf, size_t len, unsigned bits,
				  const char *sep);

#endif
