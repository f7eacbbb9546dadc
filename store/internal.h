/*
 * internal.h - what store/'s files share and nobody else uses: the copy
 * of a ClickHouse store into an SQLite file (store.h): ch-copy.c stages
 * and maps the tables, ch-calls.c joins the calls, ch-read.c makes the
 * copy (whole, or the calls range by range).  Each calls only those
 * before it.
 */
#ifndef CAUSAL_STORE_INTERNAL_H
#define CAUSAL_STORE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "causal/db-schema.h"

struct ch_copy {
	struct ch_client *ch;
	sqlite3 *db;
	const char *shown; /* the URL, for messages */
	int64_t calls;	   /* rpc_calls rows made before: ids go on */
};

/* fail() about the copy, with what failed and SQLite's message: -1. */
int copy_fail(struct ch_copy *r, const char *what);
/* Run sql in the copy: 0, or -1 after fail(). */
int copy_exec(struct ch_copy *r, const char *sql);
/* Close f, the memstream of *sql, and run *sql; frees it. */
int copy_exec_built(struct ch_copy *r, FILE *f, char **sql);

/*
 * s_<t>, made: load_id and t's columns, typeless; the rows of the
 * finished loads, those of where only (SQL after AND, or NULL: all).
 * 0, or -1 after fail().
 */
int copy_stage(struct ch_copy *r, enum db_table t, const char *where);
/*
 * The copy into r->db of every table but rpc_calls (made, empty), in a
 * transaction left open, rpc_calls staged as s_rpc_calls when calls;
 * ch-read.c adds the calls, the indexes and the COMMIT.  0, or -1 after
 * fail().
 */
int copy_tables(struct ch_copy *r, bool calls);
/* The statements db_schema_write(what) writes, run.  0, or -1. */
int copy_schema(struct ch_copy *r, unsigned what);

/*
 * The rows of rpc_calls from s_rpc_calls, the sides joined, numbered on
 * from r->calls (which grows by them).  0, or -1 after fail().
 */
int copy_calls(struct ch_copy *r);

#endif
