/*
 * db-ends.c - the processes that did not end cleanly (db-ends.h): their
 * end columns and their logs' status, and the chains their calls left
 * open.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "db-ends.h"
#include "db-id-text.h"
#include "db-read.h"

/* A signal that asks a program to stop: its death by one is clean. */
static int stop_signal(int64_t sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
}

/* How a process ended, in words, into u->how. */
static void say_how(struct db_unclean *u, const char *reason, int64_t detail,
		    const char *file)
{
	int ok = !strcmp(file, "ok"), n;
	const char *abbrev = sigabbrev_np((int)detail);

	if (!reason)
		n = snprintf(u->how, sizeof(u->how),
			     "no end record (killed by SIGKILL, or its log "
			     "cut short)");
	else if (!strcmp(reason, "signal"))
		n = snprintf(u->how, sizeof(u->how),
			     "killed by signal %lld (SIG%s)", (long long)detail,
			     abbrev ? abbrev : "?");
	else
		n = snprintf(u->how, sizeof(u->how), "ended (%s)", reason);
	if (!ok && n > 0 && (size_t)n < sizeof(u->how))
		snprintf(u->how + n, sizeof(u->how) - (size_t)n,
			 "%s its log is %s", reason ? ", but" : ";", file);
}

/* The processes that did not end cleanly, in proc_id order. */
static int find_unclean(struct db_ends *e, sqlite3 *db, int has_last,
			const struct db_id_text *status)
{
	static const int cols[] = {
		DB_PROCESSES_PROC_ID,	    DB_PROCESSES_END_REASON,
		DB_PROCESSES_END_DETAIL,    DB_PROCESSES_COMPLETE,
		DB_PROCESSES_START_MONO_NS, DB_PROCESSES_FILE_ID,
		DB_PROCESSES_LAST_MONO_NS, /* the last: from version 8 */
	};
	struct db_read r;
	size_t cap = 0;
	int ret = 0;

	if (db_read_open(&r, db, NULL, DB_PROCESSES, cols,
			 sizeof(cols) / sizeof(cols[0]) - !has_last,
			 "ORDER BY %s", DB_NAME(PROCESSES, PROC_ID)))
		return -EIO;
	while (!ret && db_read_next(&r)) {
		const char *reason = db_get_text(&r, DB_PROCESSES_END_REASON);
		int64_t detail = db_get_int(&r, DB_PROCESSES_END_DETAIL);
		const char *file;
		struct db_unclean *u;

		if (db_get_int(&r, DB_PROCESSES_COMPLETE) &&
		    !(reason && !strcmp(reason, "signal") &&
		      !stop_signal(detail)))
			continue;
		if (GROW(e->v, cap, e->n + 1)) {
			ret = -ENOMEM;
			break;
		}
		u = &e->v[e->n++];
		memset(u, 0, sizeof(*u));
		u->proc = db_procs_get(&e->procs,
				       db_get_int(&r, DB_PROCESSES_PROC_ID));
		/* a column not read (before version 8) reads as NULL */
		u->last_ns =
			db_get_type(&r, DB_PROCESSES_LAST_MONO_NS) ==
					SQLITE_NULL
				? -1
				: db_get_int(&r, DB_PROCESSES_LAST_MONO_NS) -
					  db_get_int(
						  &r,
						  DB_PROCESSES_START_MONO_NS);
		if (!db_id_text_get(status,
				    db_get_int(&r, DB_PROCESSES_FILE_ID),
				    &file))
			file = "ok";
		say_how(u, reason, detail, file);
	}
	if (db_read_close(&r) && !ret)
		ret = -EIO;
	return ret;
}

/* One chain a process left open: its index in e->v and the chain id. */
struct open_chain {
	size_t who;
	uint8_t chain[DB_CHAIN_LEN];
};

static int cmp_open(const void *a, const void *b)
{
	const struct open_chain *x = a, *y = b;

	if (x->who != y->who)
		return x->who < y->who ? -1 : 1;
	return memcmp(x->chain, y->chain, DB_CHAIN_LEN);
}

/* Index in e->v of proc_id, or -1. */
static long unclean_of(const struct db_ends *e, int64_t proc_id)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].proc && e->v[i].proc->proc_id == proc_id)
			return (long)i;
	return -1;
}

/* Note a call's chain against the process of side pc if it is unclean
 * and the side has its start but not its end. */
static int note_open(const struct db_ends *e, struct db_read *r, int pc,
		     int start, int end, struct open_chain **v, size_t *n,
		     size_t *cap)
{
	const void *chain;
	int len;
	long who;

	if (db_get_type(r, pc) == SQLITE_NULL ||
	    db_get_type(r, start) == SQLITE_NULL ||
	    db_get_type(r, end) != SQLITE_NULL ||
	    (who = unclean_of(e, db_get_int(r, pc))) < 0 ||
	    !(chain = db_get_blob(r, DB_RPC_CALLS_CHAIN, &len)) ||
	    len != DB_CHAIN_LEN)
		return 0;
	if (GROW(*v, *cap, *n + 1))
		return -ENOMEM;
	(*v)[*n].who = (size_t)who;
	memcpy((*v)[(*n)++].chain, chain, DB_CHAIN_LEN);
	return 0;
}

/* The chains each unclean process left open (distinct chains). */
static int count_open_chains(struct db_ends *e, sqlite3 *db)
{
	static const int cols[] = {
		DB_RPC_CALLS_CHAIN,	     DB_RPC_CALLS_CLIENT_PROC_ID,
		DB_RPC_CALLS_STUB_START_NS,  DB_RPC_CALLS_STUB_END_NS,
		DB_RPC_CALLS_SERVER_PROC_ID, DB_RPC_CALLS_SKEL_START_NS,
		DB_RPC_CALLS_SKEL_END_NS,
	};
	struct open_chain *v = NULL;
	size_t n = 0, cap = 0;
	struct db_read r;
	int ret = 0;

	if (db_read_open(&r, db, NULL, DB_RPC_CALLS, cols,
			 sizeof(cols) / sizeof(cols[0]), NULL))
		return -EIO;
	while (!ret && db_read_next(&r))
		ret = note_open(e, &r, DB_RPC_CALLS_CLIENT_PROC_ID,
				DB_RPC_CALLS_STUB_START_NS,
				DB_RPC_CALLS_STUB_END_NS, &v, &n, &cap) ||
				      note_open(e, &r,
						DB_RPC_CALLS_SERVER_PROC_ID,
						DB_RPC_CALLS_SKEL_START_NS,
						DB_RPC_CALLS_SKEL_END_NS, &v,
						&n, &cap)
			      ? -ENOMEM
			      : 0;
	if (db_read_close(&r) && !ret)
		ret = -EIO;
	if (!ret && n) {
		qsort(v, n, sizeof(*v), cmp_open);
		for (size_t i = 0; i < n; i++)
			if (!i || cmp_open(&v[i - 1], &v[i]))
				e->v[v[i].who].open_chains++;
	}
	free(v);
	return ret;
}

int db_ends_load(struct db_ends *e, sqlite3 *db, int schema_version)
{
	static const int proc_cols[] = { DB_PROCESSES_PID, DB_PROCESSES_EXE };
	struct db_id_text status = { 0 };
	int ret;

	memset(e, 0, sizeof(*e));
	ret = db_procs_load(&e->procs, db, proc_cols, 2);
	/* each log file's status by file_id */
	if (!ret)
		ret = db_id_text_load(&status, db, DB_FILES, DB_FILES_FILE_ID,
				      DB_FILES_STATUS, "ok");
	if (!ret)
		ret = find_unclean(e, db, schema_version >= 8, &status);
	if (!ret && e->n)
		ret = count_open_chains(e, db);
	db_id_text_release(&status);
	if (ret)
		db_ends_release(e);
	return ret;
}

void db_ends_release(struct db_ends *e)
{
	free(e->v);
	db_procs_release(&e->procs);
	memset(e, 0, sizeof(*e));
}

void db_unclean_print(FILE *f, const struct db_unclean *u)
{
	const struct db_proc *p = u->proc;

	fprintf(f, "%s pid %lld %s: %s", p && p->host ? p->host : "?",
		p ? (long long)p->pid : 0LL, p && p->exe ? p->exe : "?",
		u->how);
	if (u->last_ns >= 0)
		fprintf(f, "; last record %.3f s after its start",
			(double)u->last_ns / 1e9);
	fprintf(f, "; %lld chain%s left open", (long long)u->open_chains,
		u->open_chains == 1 ? "" : "s");
}
