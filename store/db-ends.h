/*
 * db-ends.h - the processes of a merged trace that did not end cleanly,
 * and how they ended as far as the trace knows: what `tracedump merge`
 * and `ccsg report` name, one rule for both (docs/database.md, "How a
 * process ended").
 *
 * A process ended cleanly when its end record is there (exit, _exit,
 * exec, or a signal that asks a program to stop: SIGTERM, SIGINT,
 * SIGHUP) and its log is whole.  Any other is named: no end record (a
 * SIGKILL, a crash the library could not see, a log cut short), a death
 * by another signal (SIGSEGV, SIGABRT...), or a damaged log.
 */
#ifndef CAUSAL_DB_ENDS_H
#define CAUSAL_DB_ENDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "db-procs.h"

struct db_unclean {
	const struct db_proc *proc; /* host, pid, exe (in db_ends.procs) */
	char how[128];		    /* "no end record (...)", "killed by ..." */
	int64_t last_ns;	    /* its last record, ns after its start;
				     * -1: not known (a log before version 8) */
	int64_t open_chains;	    /* chains it left open: a call it served
				     * without a skeleton end, or made
				     * without a stub end */
};

struct db_ends {
	struct db_unclean *v; /* in proc_id order */
	size_t n;
	struct db_procs procs;
};

/*
 * Find the processes of db that did not end cleanly, into e (zeroed
 * here); schema_version is db's (meta.schema_version: before 8, no
 * processes.last_mono_ns).  0, -ENOMEM, or -EIO when SQLite failed
 * (sqlite3_errmsg(db) says why); e is released on failure.  Nothing is
 * said.
 */
int db_ends_load(struct db_ends *e, sqlite3 *db, int schema_version);

void db_ends_release(struct db_ends *e);

/* "hostB pid 4242 /usr/bin/srv: no end record (...); last record 1.234 s
 * after its start; 2 chains left open" (no newline), as the merge and
 * the report say it. */
void db_unclean_print(FILE *f, const struct db_unclean *u);

#endif
