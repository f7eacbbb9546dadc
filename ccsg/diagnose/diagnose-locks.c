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
	static const char sql[] =
		"SELECT proc_id, tid, mono_ns, op, lock FROM lock_events "
		"ORDER BY proc_id, tid, seq";
	struct diag_wait open = { .proc = -1 };
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	size_t cap = 0;
	int rc;

	l->v = NULL;
	l->n = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(db);
		return fail("cannot open '%s'", path);
	}
	/* no such table (an older trace, or locks never on): no waits */
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return 0;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct diag_wait w = {
			.proc = sqlite3_column_int(st, 0),
			.tid = sqlite3_column_int(st, 1),
			.start = sqlite3_column_int64(st, 2),
			.lock = (uint64_t)sqlite3_column_int64(st, 4),
		};
		const char *op = (const char *)sqlite3_column_text(st, 3);

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
		open.proc = -1;
		if (GROW(l->v, cap, l->n + 1)) {
			rc = -ENOMEM;
			break;
		}
		l->v[l->n] = w;
		l->v[l->n].start = open.start;
		l->v[l->n++].end = open.end;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (rc != SQLITE_DONE) {
		diag_locks_release(l);
		return fail(rc == -ENOMEM ? "out of memory reading the locks "
					    "of '%s'"
					  : "cannot read the locks of '%s'",
			    path);
	}
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
