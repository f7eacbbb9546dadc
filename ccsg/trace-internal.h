/*
 * trace-internal.h - what the three files that load a trace share, and
 * nobody else uses: trace-calls.c (the rows of rpc_calls, the strings),
 * trace-tables.c (the database checked, the other tables), trace.c (the
 * API of trace.h: the calls at once or chain by chain).  Each calls only
 * those before it.
 */
#ifndef CCSG_TRACE_INTERNAL_H
#define CCSG_TRACE_INTERNAL_H

#include <stdint.h>

#include <sqlite3.h>

#include "db-read.h"
#include "trace.h"

_Static_assert(CCSG_NONE == DB_NONE, "a NULL reads as CCSG_NONE");

/* Bounds of what the columns may hold: times and CPU in ns (146 years),
 * event numbers; process and host ids index dense arrays (tracedump
 * numbers them 1.. by file: 4 million is far more than a merge makes,
 * and keeps a crafted id from costing gigabytes). */
#define MAX_NS (INT64_C(1) << 62)
#define MAX_EVENT (INT64_C(1) << 62)
#define MAX_PROC (1 << 22)
#define MAX_HOST (1 << 22)
#define MAX_BYTES (INT64_C(1) << 62)

/* ---- trace-calls.c ------------------------------------------------------ */

/* A read of rpc_calls into struct ccsg_call. */
struct call_read {
	struct db_read r;
	/* each text column's last short string and its index in
	 * t->strings (a million calls name few strings, mostly the row
	 * before's) */
	struct {
		uint8_t ok, len;
		int32_t k;
		char s[40];
	} last[DB_RPC_CALLS_NCOLS];
};

/* Start reading the columns of rpc_calls ccsg reads (t's version's; the
 * monitoring's with with_mon), then the SQL tail: 0, or -1 after fail(). */
int trace_calls_open(struct call_read *cr, sqlite3 *db,
		     const struct ccsg_trace *t, int with_mon,
		     const char *tail);
/* The row's call_id and chain (its key for messages): 0, or -1 (r->bad). */
int trace_read_call_key(struct db_read *r, int version, int64_t *id,
			uint8_t chain[DB_CHAIN_LEN]);
/*
 * The rest of the row into c, its strings interned in t; *mon_mixed set
 * once the client_mon and server_mon values read so far (NULL aside) are
 * not all *mon (malloc'd, the first).  0, or -1 (r->bad).
 */
int trace_read_call(struct call_read *cr, struct ccsg_trace *t,
		    struct ccsg_call *c, char **mon, int *mon_mixed);
/* coalesce(stub_start_event, skel_start_event, skel_end_event,
 * stub_end_event): CCSG_NONE when all four are NULL. */
int64_t trace_first_event(const struct ccsg_call *c);
/* Every call of db into t, in the order of trace.h.  0, or -1 after
 * fail(). */
int trace_load_calls(struct ccsg_trace *t, sqlite3 *db, int with_mon,
		     int *mon_mixed);

/* ---- trace-tables.c ----------------------------------------------------- */

/*
 * Open the database at path (given: the --db, a path or a store's URL)
 * and load everything but the calls; *db open on success, *with_mon
 * whether rpc_calls has the monitoring's columns.  0, or -1 after fail()
 * (the caller releases t).
 */
int trace_open(struct ccsg_trace *t, const char *given, const char *path,
	       sqlite3 **db, int *with_mon);

#endif
