/*
 * diagnose-locks.c - the lock waits of a trace (table lock_events, the
 * monitoring type locks: docs/tracing.md, "Locks"): a 'wait' and the
 * thread's next 'acquired' or 'failed' of the same lock are one wait.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "array.h"
#include "db-read.h"
#include "diagnose.h"
#include "usage.h"

static int cmp_wait(const void *a, const void *b)
{
	const struct diag_wait *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

int diag_locks_load(struct diag_locks *l, const char *path)
{
	static const int cols[] = { DB_LOCK_EVENTS_PROC_ID, DB_LOCK_EVENTS_TID,
				    DB_LOCK_EVENTS_MONO_NS, DB_LOCK_EVENTS_OP,
				    DB_LOCK_EVENTS_LOCK };
	struct diag_wait open = { .proc = -1 };
	struct db_read r = { 0 };
	sqlite3 *db = NULL;
	size_t cap = 0;
	int has = 0, ret = -1;

	l->v = NULL;
	l->n = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
		    SQLITE_OK ||
	    (has = db_has_table(db, DB_LOCK_EVENTS)) < 0) {
		fail("cannot read '%s': %s", path, sqlite3_errmsg(db));
		goto out;
	}
	if (!has) { /* an older trace: no waits */
		ret = 0;
		goto out;
	}
	if (db_read_open(&r, db, path, DB_LOCK_EVENTS, cols, 5,
			 "ORDER BY %s, %s, %s", DB_NAME(LOCK_EVENTS, PROC_ID),
			 DB_NAME(LOCK_EVENTS, TID), DB_NAME(LOCK_EVENTS, SEQ)))
		goto out;
	while (db_read_next(&r)) {
		struct diag_wait w = {
			.proc = (int32_t)db_get_int(&r, DB_LOCK_EVENTS_PROC_ID),
			.tid = (int32_t)db_get_int(&r, DB_LOCK_EVENTS_TID),
			.start = db_get_int(&r, DB_LOCK_EVENTS_MONO_NS),
			.lock = (uint64_t)db_get_int(&r, DB_LOCK_EVENTS_LOCK),
		};
		const char *op = db_get_text(&r, DB_LOCK_EVENTS_OP);

		if (!op)
			continue;
		if (!strcmp(op, "wait")) {
			open = w;
			continue;
		}
		if ((strcmp(op, "acquired") && strcmp(op, "failed")) ||
		    open.proc != w.proc || open.tid != w.tid ||
		    open.lock != w.lock)
			continue;
		open.end = w.start;
		if (GROW(l->v, cap, l->n + 1)) {
			fail("out of memory reading the locks of '%s'", path);
			r.bad = 1;
			break;
		}
		l->v[l->n++] = open;
		open.proc = -1;
	}
	ret = db_read_close(&r);
out:
	sqlite3_close(db);
	if (ret) {
		diag_locks_release(l);
		return -1;
	}
	if (l->n) /* qsort wants an array, even of none */
		qsort(l->v, l->n, sizeof(*l->v), cmp_wait);
	return 0;
}

int64_t diag_locks_blocked(const struct diag_locks *l, int32_t proc,
			   int32_t tid, int64_t a, int64_t b, uint64_t *lock)
{
	size_t lo = 0, hi = l->n;
	int64_t sum = 0, most = 0;

	*lock = 0;
	while (lo < hi) { /* the thread's first wait */
		size_t mid = lo + (hi - lo) / 2;
		const struct diag_wait *w = &l->v[mid];

		if (w->proc < proc || (w->proc == proc && w->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->n && l->v[lo].proc == proc && l->v[lo].tid == tid;
	     lo++) {
		const struct diag_wait *w = &l->v[lo];
		int64_t s = w->start > a ? w->start : a;
		int64_t e = w->end < b ? w->end : b;

		if (w->start >= b)
			break;
		if (e <= s)
			continue;
		sum += e - s;
		if (e - s > most) {
			most = e - s;
			*lock = w->lock;
		}
	}
	return sum;
}

void diag_locks_release(struct diag_locks *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
