/*
 * pes-trace.c - a thread's program execution sequence from a merged
 * trace (pes-trace.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "array.h"
#include "db-read.h"
#include "names.h"
#include "pes-trace.h"
#include "usage.h"

/* One end of an interval the thread spent in a call or waiting for a
 * lock, or a change of the state under them (EDGE_BASE: holding N). */
struct edge {
	int64_t t;
	int64_t len;   /* the interval's length */
	int32_t state; /* the state inside */
	int start;     /* 1: it begins here, 0: it ends, EDGE_BASE */
};

#define EDGE_BASE 2

/* At one time: ends first, the inner (shorter) first; then starts, the
 * outer (longer) first, so that nesting survives equal time stamps; then
 * changes of the held locks. */
static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->start != y->start)
		return x->start - y->start;
	if (x->len != y->len)
		return (x->len < y->len) == !x->start ? -1 : 1;
	return 0;
}

static int64_t call_state(struct pes *p, const struct ccsg_trace *t,
			  const struct idl_names *nm, const struct ccsg_call *c,
			  int serving)
{
	char name[512], fn[480];

	ccsg_call_name(nm, t, c, fn, sizeof(fn));
	for (char *s = fn; *s; s++)
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ||
		    *s == '\v' || *s == '\f')
			*s = '_';
	snprintf(name, sizeof(name), "%s:%s", serving ? "serving" : "waiting",
		 fn);
	return pes_state(p, name, 1);
}

/*
 * The thread's LOCK records (table lock_events of db, when given and the
 * trace has it):
 * waiting-for-lock from each wait to the acquired or failed of the same
 * lock, and the base state, running or holding:N, at each acquired and
 * released.  0, -ENOMEM, or -EIO after a message.
 */
static int lock_edges(struct pes *p, const struct ccsg_trace *t, sqlite3 *db,
		      int32_t proc, int32_t tid, int64_t running,
		      struct edge **e, size_t *n, size_t *cap)
{
	static const int cols[] = { DB_LOCK_EVENTS_OP, DB_LOCK_EVENTS_MONO_NS,
				    DB_LOCK_EVENTS_LOCK };
	struct db_read r = { 0 };
	int64_t wait_at = CCSG_NONE, wait_lock = 0, waiting, held = 0;
	int ret = -EIO, has;

	if (!db)
		return 0;
	if ((has = db_has_table(db, DB_LOCK_EVENTS)) <= 0) {
		ret = has ? -EIO : 0;
		goto out;
	}
	if (db_read_open(&r, db, NULL, DB_LOCK_EVENTS, cols, 3,
			 "WHERE %s = ? AND %s = ? ORDER BY %s",
			 DB_NAME(LOCK_EVENTS, PROC_ID),
			 DB_NAME(LOCK_EVENTS, TID),
			 DB_NAME(LOCK_EVENTS, SEQ)) ||
	    (waiting = pes_state(p, "waiting-for-lock", 1)) < 0)
		goto out;
	db_read_bind(&r, 1, proc);
	db_read_bind(&r, 2, tid);
	while (db_read_next(&r)) {
		const char *op = db_get_text(&r, DB_LOCK_EVENTS_OP);
		int64_t at = db_get_int(&r, DB_LOCK_EVENTS_MONO_NS);
		int64_t lock = db_get_int(&r, DB_LOCK_EVENTS_LOCK);
		int64_t base = -1;
		char name[32];

		if (!op)
			continue;
		if (!strcmp(op, "wait")) {
			wait_at = at;
			wait_lock = lock;
			continue;
		}
		if (wait_at != CCSG_NONE && lock == wait_lock &&
		    at >= wait_at) {
			if (GROW(*e, *cap, *n + 2))
				goto nomem;
			(*e)[(*n)++] = (struct edge){ wait_at, at - wait_at,
						      (int32_t)waiting, 1 };
			(*e)[(*n)++] = (struct edge){ at, at - wait_at,
						      (int32_t)waiting, 0 };
			wait_at = CCSG_NONE;
		}
		if (!strcmp(op, "acquired"))
			held++;
		else if (!strcmp(op, "released") && held > 0)
			held--;
		else
			continue;
		if (!held) {
			base = running;
		} else {
			snprintf(name, sizeof(name), "holding:%lld",
				 (long long)held);
			if ((base = pes_state(p, name, 1)) < 0)
				goto nomem;
		}
		if (GROW(*e, *cap, *n + 1))
			goto nomem;
		(*e)[(*n)++] = (struct edge){ at, 0, (int32_t)base, EDGE_BASE };
	}
	ret = r.bad ? -EIO : 0;
	goto out;
nomem:
	ret = -ENOMEM;
out:
	if (ret == -EIO)
		fail("'%s': lock events: %s", t->path, sqlite3_errmsg(db));
	db_read_close(&r);
	return ret;
}

int pes_from_thread(struct pes *p, const struct ccsg_trace *t, sqlite3 *db,
		    const struct idl_names *nm, int32_t proc, int32_t tid,
		    size_t *skipped)
{
	struct edge *e = NULL;
	size_t n = 0, cap = 0, depth = 0, cap_stack = 0;
	int32_t *stack = NULL, th = ccsg_trace_thread(t, proc, tid);
	int64_t running, s, base;
	int ret = -ENOMEM;

	*skipped = 0;
	if (pes_init(p, "ns"))
		return -EINVAL;
	if (th < 0)
		return fail("no thread %d:%d in '%s'", proc, tid, t->path),
		       -ENOENT;
	if ((running = pes_state(p, "running", 1)) < 0)
		goto out;
	base = running;
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];

		for (int serving = 0; serving < 2; serving++) {
			int64_t a = serving ? c->skel_start_exit_ns
					    : c->stub_start_ns;
			int64_t b =
				serving ? c->skel_end_ns : c->stub_end_exit_ns;

			if ((serving ? c->server_proc : c->client_proc) !=
				    proc ||
			    (serving ? c->server_tid : c->client_tid) != tid)
				continue;
			if (a == CCSG_NONE || b == CCSG_NONE || b < a) {
				(*skipped)++;
				continue;
			}
			if ((s = call_state(p, t, nm, c, serving)) < 0 ||
			    GROW(e, cap, n + 2))
				goto out;
			e[n++] = (struct edge){ a, b - a, (int32_t)s, 1 };
			e[n++] = (struct edge){ b, b - a, (int32_t)s, 0 };
		}
	}
	if ((ret = lock_edges(p, t, db, proc, tid, running, &e, &n, &cap))) {
		if (ret == -EIO)
			ret = -ENOENT; /* said */
		goto out;
	}
	ret = -ENOMEM;
	if (!n) {
		fail("thread %d:%d makes, serves and locks nothing in '%s'",
		     proc, tid, t->path);
		ret = -ENOENT;
		goto out;
	}
	qsort(e, n, sizeof(*e), edge_cmp);
	/* from the thread's start when the trace has it: what it did before
	 * its first call or lock (a philosopher's first thinking) counts */
	{
		const struct ccsg_thread *st = &t->threads[th];
		int64_t from = st->start_mono_ns != CCSG_NONE &&
					       st->start_mono_ns < e[0].t
				       ? st->start_mono_ns
				       : e[0].t;

		if (pes_append(p, from, (uint32_t)running))
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (e[i].start == EDGE_BASE) {
			base = e[i].state;
		} else if (e[i].start) {
			if (GROW(stack, cap_stack, depth + 1))
				goto out;
			stack[depth++] = e[i].state;
		} else {
			/* the innermost open call of that state */
			size_t k = depth;

			while (k > 0 && stack[k - 1] != e[i].state)
				k--;
			if (k > 0) {
				memmove(stack + k - 1, stack + k,
					(depth - k) * sizeof(*stack));
				depth--;
			}
		}
		uint32_t now =
			depth ? (uint32_t)stack[depth - 1] : (uint32_t)base;
		if (p->seq[p->n - 1] == now)
			continue;
		if (p->t[p->n - 1] == e[i].t) {
			/* no time in the state before: replace it */
			p->seq[p->n - 1] = now;
			if (p->n > 1 && p->seq[p->n - 2] == now)
				p->n--;
			continue;
		}
		if (pes_append(p, e[i].t, now))
			goto out;
	}
	const struct ccsg_thread *tt = &t->threads[th];
	if (tt->end_mono_ns != CCSG_NONE && tt->end_mono_ns >= p->t[p->n - 1]) {
		if ((s = pes_state(p, "exited", 1)) < 0 ||
		    pes_append(p, tt->end_mono_ns, (uint32_t)s))
			goto out;
	}
	ret = 0;
out:
	if (ret == -ENOMEM)
		fail("out of memory");
	free(e);
	free(stack);
	if (ret)
		pes_release(p);
	return ret;
}

int pes_tuple(struct pes *out, const struct pes *parts, size_t k)
{
	size_t *cur = calloc(k ? k : 1, sizeof(*cur));
	char name[1024];
	int64_t at = INT64_MIN, last = -1;
	int ret = -ENOMEM;

	if (pes_init(out, "ns")) {
		free(cur);
		return -EINVAL;
	}
	if (!cur)
		goto out;
	for (size_t i = 0; i < k; i++) {
		if (!parts[i].n) {
			fail("thread %zu of the tuple has no state", i + 1);
			ret = -ENOENT;
			goto out;
		}
		if (parts[i].t[0] > at)
			at = parts[i].t[0];
	}
	for (;;) {
		int64_t next = INT64_MAX;
		size_t len = 0;
		int64_t s;

		/* each part's entry in force at `at` */
		for (size_t i = 0; i < k; i++) {
			while (cur[i] + 1 < parts[i].n &&
			       parts[i].t[cur[i] + 1] <= at)
				cur[i]++;
			if (cur[i] + 1 < parts[i].n &&
			    parts[i].t[cur[i] + 1] < next)
				next = parts[i].t[cur[i] + 1];
			len += (size_t)snprintf(
				name + len,
				len < sizeof(name) ? sizeof(name) - len : 0,
				"%s%s", i ? "," : "",
				parts[i].states[parts[i].seq[cur[i]]].name);
		}
		if (len >= sizeof(name)) {
			fail("a tuple state is longer than %zu bytes",
			     sizeof(name) - 1);
			ret = -EINVAL;
			goto out;
		}
		if ((s = pes_state(out, name, 1)) < 0)
			goto out;
		if (s != last && pes_append(out, at, (uint32_t)s))
			goto out;
		last = s;
		if (next == INT64_MAX)
			break;
		at = next;
	}
	ret = 0;
out:
	if (ret == -ENOMEM)
		fail("out of memory");
	free(cur);
	if (ret)
		pes_release(out);
	return ret;
}
