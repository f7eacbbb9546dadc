/*
 * db-procs.h - the processes of a merged trace with their hosts' names
 * (processes JOIN hosts), looked up by proc_id: for a reader that names
 * a process ("host pid") beside the rows of another table.  Read by
 * typed column (db-read.h), the values as stored: NULL reads as 0 (and
 * says so where it matters).
 */
#ifndef CAUSAL_DB_PROCS_H
#define CAUSAL_DB_PROCS_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "db-id-text.h"
#include "hashmap.h"

struct db_proc {
	int64_t proc_id;
	const char *host; /* its hosts row's name; NULL: no row (or name) */
	int has_host;	  /* its host_id has a hosts row */
	int64_t pid;
	int pid_null;
	const char *exe;
	int64_t start_realtime_ns, start_mono_ns;
	int64_t end_mono_ns;
	int end_null;
};

struct db_procs {
	struct db_proc *v; /* in proc_id order */
	size_t n;
	struct hashmap by_id; /* proc_id -> v[] */
	struct db_id_text hosts; /* their names by host_id */
	char **names;		 /* exes, owned */
	size_t nnames;
};

/*
 * Read the processes and hosts tables of db into p (zeroed here): of
 * processes, proc_id, host_id and columns cols[0..n) (DB_PROCESSES_PID,
 * _EXE, _START_REALTIME_NS, _START_MONO_NS, _END_MONO_NS: those not
 * asked for read as NULL).  0, -ENOMEM, or -EIO when SQLite failed
 * (sqlite3_errmsg(db) says why); p is released on failure.  Nothing is
 * said.
 */
int db_procs_load(struct db_procs *p, sqlite3 *db, const int *cols, size_t n);

/* Process proc_id, or NULL without a processes row. */
const struct db_proc *db_procs_get(const struct db_procs *p, int64_t proc_id);

void db_procs_release(struct db_procs *p);

#endif
