/*
 * internal.h - what store/'s files share and nobody else uses: the copy
 * of a ClickHouse store into an SQLite file (store.h), made by
 * ch-copy.c, its calls joined by ch-calls.c, range by range in
 * ch-stream.c.
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
 * The rows of rpc_calls from s_rpc_calls, the sides joined, numbered on
 * from r->calls (which grows by them).  0, or -1 after fail().
 */
int copy_calls(struct ch_copy *r);
/*
 * The whole copy into r->db; without calls, rpc_calls stays empty and
 * nothing is staged for it (store_stream_next() does, range by range).
 * 0, or -1 after fail().
 */
int copy_store(struct ch_copy *r, bool calls);

#endif
