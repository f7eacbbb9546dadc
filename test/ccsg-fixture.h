/*
 * ccsg-fixture.h - small merged trace databases for the ccsg suites, made
 * with tracedump's own schema (schema_create), so they have exactly the
 * merged schema.  CPU and time values are in microseconds here.
 */
#ifndef CCSG_FIXTURE_H
#define CCSG_FIXTURE_H

#include <check.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "schema.h"
#include "test-tmp.h"

#define US 1000LL
#define NUL (-1LL)	/* a NULL column */

/* The database being made (fx_open() to fx_close()) and its path. */
extern sqlite3 *fx_db;
extern char fx_path[PATH_MAX];

/* Run sql on fx_db; an error fails the test. */
void fx_exec(const char *sql);

/* Make fx_db at a fresh path in $TMPDIR, with the merged schema and its
 * indexes, and begin a transaction. */
void fx_open(void);

/* Commit and close fx_db; returns its path. */
const char *fx_close(void);

/* A hosts row. */
void fx_host(int id, const char *name);

/* A processes row: complete, on host, pid 1000 + id, exe /bin/pID. */
void fx_proc(int id, int host);

/* A threads row; cpu in us, -1 for NULL; ctx_function -1 for NULL. */
void fx_thread(int proc, int tid, int parent, long long cpu,
	       long long ctx_function);

/*
 * One rpc_calls row; chain is 40 hex digits (stored as its 20 bytes).
 * ev[4] and cpu[4] (us) in probe order stub start,
 * skeleton start, skeleton end, stub end; NUL for absent.  The client side
 * is (cproc, ctid), the server side (sproc, stid, sfid); 0 for none.
 */
void fx_call(const char *chain, unsigned prog, unsigned proc,
	     const char *symbol, int cproc, int ctid, int sproc, int stid,
	     int sfid, const long long ev[4], const long long cpu[4]);

/* Host A with process 1, host B with process 2, each one thread (tid 1,
 * 100 us of CPU): the two ends of the calls most suites make. */
void fx_two_procs(void);

/* Set columns of the last rpc_calls row: fx_set("status = 5, reply = NULL"). */
void fx_set(const char *assignments);

/*
 * fx_outcomes(): calls that failed, partial calls, bad tags and dropped
 * start probes, one function (procedure number of program 7) each, on
 * chains of their own.  Client 1/1 on host A, server 2/1 on host B.
 */
enum {
	FX_OK = 1,		/* RPC_SUCCESS / success, tags ok */
	FX_TIMEDOUT = 2,	/* RPC_TIMEDOUT; the server ran 2.98 x the client's wait */
	FX_NOPROC = 3,		/* RPC_PROCUNAVAIL; skeleton end 10 us before its start's exit */
	FX_NOSERVER = 4,	/* RPC_TIMEDOUT, no server side */
	FX_ONEWAY = 5,		/* one-way: RPC_TIMEDOUT is its normal outcome */
	FX_GARBAGE = 6,		/* server only: garbage_args, tag malformed */
	FX_STALE = 7,		/* server only: success, tag stale */
	FX_PARENT = 8,		/* 1000 us, server 500 us, its child 800 us */
	FX_CHILD = 9,
	FX_NOSKELEND = 10,	/* the skeleton end was lost */
	FX_CLIENTLOST = 11,	/* the server side of a call whose stub start was dropped */
	FX_SERVERLOST = 12,	/* the client side of a call whose skeleton start was dropped */
	FX_INCOMPLETE = 13,	/* server only: tag 'incomplete' (a value ccsg has no word for) */
};

/* fx_outcomes(): the database made, its path. */
const char *fx_outcomes(void);

/* Figure 1 in one chain: self CPU foo 3200 us (A), times 2700 (B),
 * what_to_say 3000 and its two threads 2 x 2000 (C), say_it 2600, 2500,
 * 2700 (D). */
#define FX_FIG1_CHAIN "00000000000000000000000000000000000000ab"

/* That chain's database; returns its path. */
const char *fx_figure1(void);

#endif
