/*
 * export.c - what every export needs (export.h): the columns of the
 * database the CCSG engine does not load, and the hosts' clocks aligned
 * on one another from the calls between them.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "export-buf.h"
#include "export.h"
#include "json.h"
#include "usage.h"

/* Plain printable ASCII, the common case, needs no escaping. */
static int plain(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
			return 0;
	*len = (size_t)(p - (const unsigned char *)s);
	return 1;
}

void xb_json(struct xbuf *x, const char *s)
{
	size_t n;

	if (s && plain(s, &n)) {
		xb_ch(x, '"');
		xb_put(x, s, n);
		xb_ch(x, '"');
		return;
	}
	/* through the buffer (never x->f itself: a writer thread may own
	 * it, export-pipe.c) */
	xb_ch(x, '"');
	xb_json_body(x, s);
	xb_ch(x, '"');
}

void xb_json_body(struct xbuf *x, const char *s)
{
	char *p = NULL;
	size_t n = 0;
	FILE *m;

	if (!s || plain(s, &n)) {
		xb_put(x, s ? s : "", n);
		return;
	}
	/* escaped apart, then without its quotes */
	if (!(m = open_memstream(&p, &n))) {
		x->err = 1;
		return;
	}
	json_cstr(m, s);
	if (fclose(m) || n < 2) {
		x->err = 1;
	} else {
		xb_put(x, p + 1, n - 2);
	}
	free(p);
}

static int64_t col_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_INTEGER
		       ? sqlite3_column_int64(st, i)
		       : CCSG_NONE;
}

/* Run "SELECT cols FROM table", calling row() on each row. */
static int select_rows(sqlite3 *db, const char *path, enum db_table tab,
		       const int *cols, size_t n,
		       int (*row)(struct export_ctx *, sqlite3_stmt *),
		       struct export_ctx *x)
{
	char *sql = db_sql_select(tab, cols, n, "");
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	if (!sql)
		return fail("out of memory");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		ret = fail("cannot read '%s': %s", path, sqlite3_errmsg(db));
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((ret = row(x, st)))
			goto out;
	if (rc != SQLITE_DONE)
		ret = fail("cannot read '%s': %s", path, sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	free(sql);
	return ret;
}

static int thread_row(struct export_ctx *x, sqlite3_stmt *st)
{
	int64_t proc = col_int(st, 0), tid = col_int(st, 1);
	int32_t i;

	if (proc <= 0 || proc > INT32_MAX || tid < 0 || tid > INT32_MAX)
		return 0;
	if ((i = ccsg_trace_thread(x->t, (int32_t)proc, (int32_t)tid)) < 0)
		return 0;
	x->os_tid[i] =
		(int32_t)(col_int(st, 2) > 0 && col_int(st, 2) <= INT32_MAX
				  ? col_int(st, 2)
				  : 0);
	x->th_start[i] = col_int(st, 3);
	x->th_spawn[i] = col_int(st, 4);
	return 0;
}

static int proc_row(struct export_ctx *x, sqlite3_stmt *st)
{
	int64_t proc = col_int(st, 0), real = col_int(st, 2),
		mono = col_int(st, 3);
	const unsigned char *uuid = sqlite3_column_text(st, 1);
	int32_t h;

	if (proc <= 0 || (size_t)proc >= x->t->nprocs)
		return 0;
	snprintf(x->uuid[proc], sizeof(x->uuid[proc]), "%s",
		 uuid ? (const char *)uuid : "");
	x->proc_start[proc] = mono;
	x->proc_end[proc] = col_int(st, 4);
	h = ccsg_trace_host(x->t, (int32_t)proc);
	/* a host's unix anchor: its first process's */
	if (h >= 0 && !x->hosts[h].unix_ns && real != CCSG_NONE &&
	    mono != CCSG_NONE)
		x->hosts[h].unix_ns = real - mono;
	return 0;
}

/* call_id -> index, for the transports */
static struct hashmap call_index;

static int call_row(struct export_ctx *x, sqlite3_stmt *st)
{
	int64_t id = col_int(st, 0);
	const unsigned char *tr = sqlite3_column_text(st, 1);
	int32_t i, s;

	if (id == CCSG_NONE || !tr ||
	    (i = hashmap_get(&call_index, (uint64_t)id)) < 0)
		return 0;
	/* the string table is the trace's: interning adds to it */
	s = ccsg_trace_intern((struct ccsg_trace *)x->t, (const char *)tr);
	if (s < 0)
		return fail("out of memory");
	x->transport[i] = s;
	return 0;
}

static int load_columns(struct export_ctx *x, int transports)
{
	static const int th_cols[] = { DB_THREADS_PROC_ID, DB_THREADS_TID,
				       DB_THREADS_OS_TID,
				       DB_THREADS_START_MONO_NS,
				       DB_THREADS_SPAWN_MONO_NS };
	static const int pr_cols[] = { DB_PROCESSES_PROC_ID, DB_PROCESSES_UUID,
				       DB_PROCESSES_START_REALTIME_NS,
				       DB_PROCESSES_START_MONO_NS,
				       DB_PROCESSES_END_MONO_NS };
	static const int call_cols[] = { DB_RPC_CALLS_CALL_ID,
					 DB_RPC_CALLS_TRANSPORT };
	const char *path = x->t->file;
	sqlite3 *db = NULL;
	int ret;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		ret = fail("cannot open '%s': %s", path,
			   db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return ret;
	}
	ret = select_rows(db, path, DB_THREADS, th_cols, 5, thread_row, x);
	if (!ret)
		ret = select_rows(db, path, DB_PROCESSES, pr_cols, 5, proc_row,
				  x);
	if (!ret && transports) {
		for (size_t i = 0; i < x->t->ncalls && !ret; i++)
			if (hashmap_put(&call_index,
					(uint64_t)x->t->calls[i].call_id,
					(int32_t)i) < 0)
				ret = fail("out of memory");
		if (!ret)
			ret = select_rows(db, path, DB_RPC_CALLS, call_cols, 2,
					  call_row, x);
		hashmap_release(&call_index);
	}
	sqlite3_close(db);
	return ret;
}

/* ---- clock alignment ------------------------------------------------- */

struct pair {
	int32_t a, b;	/* a < b */
	int64_t lo, hi; /* offset_b - offset_a in [lo, hi] */
	int64_t n;
	uint8_t used;
};

static int add_pair(struct pair **v, size_t *n, size_t *cap, struct hashmap *m,
		    int32_t a, int32_t b, int64_t lo, int64_t hi)
{
	int32_t i = hashmap_get(m, hashmap_key2((uint32_t)a, (uint32_t)b));

	if (i < 0) {
		if (GROW(*v, *cap, *n + 1) ||
		    hashmap_put(m, hashmap_key2((uint32_t)a, (uint32_t)b),
				(int32_t)*n) < 0)
			return -ENOMEM;
		i = (int32_t)(*n)++;
		(*v)[i] = (struct pair){ a, b, lo, hi, 0, 0 };
	}
	if (lo > (*v)[i].lo)
		(*v)[i].lo = lo;
	if (hi < (*v)[i].hi)
		(*v)[i].hi = hi;
	(*v)[i].n++;
	return 0;
}

static int64_t pair_mid(const struct pair *p)
{
	return p->lo + (p->hi - p->lo) / 2;
}

static int64_t pair_err(const struct pair *p)
{
	int64_t w = p->hi - p->lo;

	return (w < 0 ? -w : w) / 2 + ((w < 0 ? -w : w) & 1);
}

static int align(struct export_ctx *x)
{
	const struct ccsg_trace *t = x->t;
	struct pair *v = NULL;
	size_t n = 0, cap = 0;
	struct hashmap m = { 0 };
	int64_t *weight = calloc(t->nhosts + 1, sizeof(int64_t));
	uint8_t *done = calloc(t->nhosts + 1, 1);
	int ret = -ENOMEM;

	if (!weight || !done)
		goto out;
	for (size_t h = 0; h < t->nhosts; h++)
		x->hosts[h].via = x->hosts[h].ref = -1;
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];
		int32_t a = ccsg_trace_host(t, c->client_proc),
			b = ccsg_trace_host(t, c->server_proc);
		int64_t lo, hi;

		if (a < 0 || b < 0 || a == b || c->stub_start_ns == CCSG_NONE ||
		    c->stub_end_exit_ns == CCSG_NONE ||
		    c->skel_start_exit_ns == CCSG_NONE ||
		    c->skel_end_ns == CCSG_NONE)
			continue;
		/* offset_b - offset_a in [c0 - s0, c1 - s1] */
		lo = c->stub_start_ns - c->skel_start_exit_ns;
		hi = c->stub_end_exit_ns - c->skel_end_ns;
		if (a > b) { /* offset_a - offset_b in [lo, hi] */
			int32_t s = a;
			int64_t l = lo;

			a = b;
			b = s;
			lo = -hi;
			hi = -l;
		}
		if (add_pair(&v, &n, &cap, &m, a, b, lo, hi))
			goto out;
		weight[a]++;
		weight[b]++;
	}
	/* Prim's spanning tree from the busiest host, the pair of least
	 * error first; another component starts from its busiest host */
	for (;;) {
		int32_t ref = -1, best = -1, from = -1, to = -1;

		for (size_t p = 0; p < n; p++) {
			const struct pair *q = &v[p];

			if (q->used || done[q->a] == done[q->b])
				continue;
			if (best < 0 || pair_err(q) < pair_err(&v[best]) ||
			    (pair_err(q) == pair_err(&v[best]) &&
			     q->n > v[best].n))
				best = (int32_t)p;
		}
		if (best >= 0) {
			struct pair *q = &v[best];
			int64_t d = pair_mid(q);
			struct export_host *hf, *ht;

			from = done[q->a] ? q->a : q->b;
			to = done[q->a] ? q->b : q->a;
			hf = &x->hosts[from];
			ht = &x->hosts[to];
			q->used = 1;
			ht->offset_ns = hf->offset_ns + (to == q->b ? d : -d);
			ht->error_ns = hf->error_ns + pair_err(q);
			ht->pairs = q->n;
			ht->via = from;
			ht->ref = hf->ref;
			ht->inconsistent = q->lo > q->hi;
			done[to] = 1;
			continue;
		}
		for (size_t h = 0; h < t->nhosts; h++)
			if (!done[h] && (ref < 0 || weight[h] > weight[ref]))
				ref = (int32_t)h;
		if (ref < 0)
			break;
		done[ref] = 1;
		x->hosts[ref].ref = ref;
	}
	/* unix time: the reference's anchor, through the offsets */
	for (size_t h = 0; h < t->nhosts; h++) {
		struct export_host *e = &x->hosts[h];

		if (e->ref >= 0 && (size_t)e->ref != h)
			e->unix_ns = x->hosts[e->ref].unix_ns;
	}
	ret = 0;
out:
	free(v);
	free(weight);
	free(done);
	hashmap_release(&m);
	return ret;
}

int export_call_times(const struct export_ctx *x, const struct ccsg_call *c,
		      int64_t *c0, int64_t *c1, int64_t *s0, int64_t *s1)
{
	int64_t shift = 0;

	*c0 = c->stub_start_ns == CCSG_NONE
		      ? CCSG_NONE
		      : export_time(x, c->client_proc, c->stub_start_ns);
	*c1 = c->stub_end_exit_ns == CCSG_NONE
		      ? CCSG_NONE
		      : export_time(x, c->client_proc, c->stub_end_exit_ns);
	*s0 = c->skel_start_exit_ns == CCSG_NONE
		      ? CCSG_NONE
		      : export_time(x, c->server_proc, c->skel_start_exit_ns);
	*s1 = c->skel_end_ns == CCSG_NONE
		      ? CCSG_NONE
		      : export_time(x, c->server_proc, c->skel_end_ns);
	if (*c0 == CCSG_NONE || *c1 == CCSG_NONE || *s0 == CCSG_NONE ||
	    *s1 == CCSG_NONE || (*s0 >= *c0 && *s1 <= *c1))
		return 0;
	if (*s0 < *c0)
		shift = *c0 - *s0;
	else if (*s1 > *c1)
		shift = *c1 - *s1;
	*s0 += shift;
	*s1 += shift;
	if (*s0 < *c0)
		*s0 = *c0;
	if (*s1 > *c1)
		*s1 = *c1;
	if (*s1 < *s0)
		*s1 = *s0;
	return 1;
}

const char *export_exe(const struct export_ctx *x, int32_t proc)
{
	const char *exe = proc > 0 && (size_t)proc < x->t->nprocs
				  ? x->t->procs[proc].exe
				  : NULL;

	if (!exe || !*exe)
		return "?";
	return strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
}

void export_proc_label(const struct export_ctx *x, int32_t proc, char *buf,
		       size_t len)
{
	int32_t h = ccsg_trace_host(x->t, proc);

	snprintf(buf, len, "%s/%d/%s", h >= 0 ? x->t->hosts[h] : "?",
		 proc > 0 && (size_t)proc < x->t->nprocs ? x->t->procs[proc].pid
							 : 0,
		 export_exe(x, proc));
}

static void min_time(int64_t *base, int64_t v)
{
	if (v != CCSG_NONE && (*base == CCSG_NONE || v < *base))
		*base = v;
}

int export_ctx_init(struct export_ctx *x, const struct ccsg_graph *g,
		    const struct idl_names *nm, int transports)
{
	const struct ccsg_trace *t = g->dscg->trace;
	size_t nt = t->nthreads + 1, np = t->nprocs + 1;

	memset(x, 0, sizeof(*x));
	x->g = g;
	x->d = g->dscg;
	x->t = t;
	x->names = nm;
	x->th_start = malloc(nt * sizeof(int64_t));
	x->th_spawn = malloc(nt * sizeof(int64_t));
	x->os_tid = calloc(nt, sizeof(int32_t));
	x->uuid = calloc(np, sizeof(*x->uuid));
	x->proc_start = malloc(np * sizeof(int64_t));
	x->proc_end = malloc(np * sizeof(int64_t));
	x->hosts = calloc(t->nhosts + 1, sizeof(*x->hosts));
	if (transports)
		x->transport = malloc((t->ncalls + 1) * sizeof(int32_t));
	if (!x->th_start || !x->th_spawn || !x->os_tid || !x->uuid ||
	    !x->proc_start || !x->proc_end || !x->hosts ||
	    (transports && !x->transport)) {
		export_ctx_release(x);
		return fail("out of memory");
	}
	for (size_t i = 0; i < nt; i++)
		x->th_start[i] = x->th_spawn[i] = CCSG_NONE;
	for (size_t i = 0; i < np; i++)
		x->proc_start[i] = x->proc_end[i] = CCSG_NONE;
	if (transports)
		memset(x->transport, 0xff, (t->ncalls + 1) * sizeof(int32_t));
	if (load_columns(x, transports)) {
		export_ctx_release(x);
		return -1;
	}
	if (align(x)) {
		export_ctx_release(x);
		return fail("out of memory");
	}
	x->base_ns = CCSG_NONE;
	for (size_t i = 0; i < t->ncalls; i++) {
		int64_t c0, c1, s0, s1;

		x->clamped +=
			export_call_times(x, &t->calls[i], &c0, &c1, &s0, &s1);
		min_time(&x->base_ns, c0);
		min_time(&x->base_ns, s0);
	}
	for (size_t i = 0; i < t->nthreads; i++)
		if (x->th_start[i] != CCSG_NONE)
			min_time(&x->base_ns, export_time(x, t->threads[i].proc,
							  x->th_start[i]));
	if (x->base_ns == CCSG_NONE)
		x->base_ns = 0;
	x->base_ns -= x->base_ns % 1000; /* a whole microsecond */
	return 0;
}

void export_ctx_release(struct export_ctx *x)
{
	free(x->th_start);
	free(x->th_spawn);
	free(x->os_tid);
	free(x->uuid);
	free(x->proc_start);
	free(x->proc_end);
	free(x->transport);
	free(x->hosts);
	memset(x, 0, sizeof(*x));
}
