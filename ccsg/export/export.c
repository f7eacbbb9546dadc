/*
 * export.c - what every export needs (export.h): the columns of the
 * database the CCSG engine does not load, and the sources of the calls
 * (the hosts' clocks are aligned in align.c).
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "exact-totals.h"
#include "export.h"
#include "json.h"
#include "stream.h"
#include "usage.h"

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

static int load_columns(struct export_ctx *x)
{
	static const int th_cols[] = { DB_THREADS_PROC_ID, DB_THREADS_TID,
				       DB_THREADS_OS_TID,
				       DB_THREADS_START_MONO_NS,
				       DB_THREADS_SPAWN_MONO_NS };
	static const int pr_cols[] = { DB_PROCESSES_PROC_ID, DB_PROCESSES_UUID,
				       DB_PROCESSES_START_REALTIME_NS,
				       DB_PROCESSES_START_MONO_NS,
				       DB_PROCESSES_END_MONO_NS };
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
	sqlite3_close(db);
	return ret;
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

static int loaded_pass(const struct export_source *src, export_part_fn fn,
		       void *arg)
{
	const struct ccsg_graph *g = src->arg;
	const struct ccsg_trace *t = g->dscg->trace;
	struct export_part p = { t, t->calls,	  t->ncalls,
				 0, g->call_node, g->call_self };
	struct export_part end = {
		t, t->calls, 0, (int64_t)t->ncalls, g->call_node, g->call_self
	};
	int ret = fn(arg, &p);

	return ret ? ret : fn(arg, &end);
}

int export_gather_add(struct export_gather *gt, const struct export_part *p,
		      size_t from, size_t to)
{
	const struct ccsg_trace *t = p->t;
	size_t base = gt->n, n = to - from;
	int32_t last = -1;

	if (!n)
		return 0;
	if (GROW(gt->calls, gt->cap, gt->n + n) ||
	    GROW(gt->node, gt->cap_node, gt->n + n) ||
	    GROW(gt->self, gt->cap_self, gt->n + n) ||
	    GROW(gt->strings, gt->cap_strings, t->nstrings + 1))
		return -ENOMEM;
	/* the strings interned since the last range */
	if (t->nstrings > gt->nstrings) {
		memcpy(gt->strings + gt->nstrings, t->strings + gt->nstrings,
		       (t->nstrings - gt->nstrings) * sizeof(char *));
		gt->nstrings = t->nstrings;
	}
	if (!gt->n) {
		gt->ord0 = p->ord0 + (int64_t)from;
		gt->t = *t; /* its chains and strings replaced when read */
	}
	for (size_t i = 0; i < n; i++) {
		struct ccsg_call *c = &gt->calls[base + i];

		*c = p->calls[from + i];
		/* a part's chains are few and in order: renumber the runs */
		if (c->chain != last) {
			if (GROW(gt->chains, gt->cap_chains, gt->nchains + 1))
				return -ENOMEM;
			gt->chains[gt->nchains++] = t->chains[c->chain];
			last = c->chain;
		}
		c->chain = (int32_t)gt->nchains - 1;
		c->parent =
			c->parent >= (int32_t)from && c->parent < (int32_t)to
				? c->parent - (int32_t)from + (int32_t)base
				: -1;
	}
	memcpy(gt->node + base, p->node + from, n * sizeof(*p->node));
	memcpy(gt->self + base, p->self + from, n * sizeof(*p->self));
	gt->n += n;
	return 0;
}

void export_gather_part(struct export_gather *gt, struct export_part *p)
{
	gt->t.chains = gt->chains;
	gt->t.nchains = gt->nchains;
	gt->t.calls = gt->calls;
	gt->t.ncalls = gt->n;
	gt->t.strings = gt->strings;
	gt->t.nstrings = gt->nstrings;
	*p = (struct export_part){ &gt->t,   gt->calls, gt->n,
				   gt->ord0, gt->node,	gt->self };
}

void export_gather_clear(struct export_gather *gt)
{
	gt->n = gt->nchains = 0;
}

void export_gather_release(struct export_gather *gt)
{
	free(gt->calls);
	free(gt->node);
	free(gt->self);
	free(gt->chains);
	free(gt->strings);
	memset(gt, 0, sizeof(*gt));
}

void export_source_loaded(struct export_source *src, const struct ccsg_graph *g)
{
	src->pass = loaded_pass;
	src->arg = g;
}

struct stream_pass {
	export_part_fn fn;
	void *arg;
	int err;
};

static int pass_chain(void *arg, const struct ccsg_graph *g,
		      const struct ccsg_chain *ch, const int32_t *node,
		      int64_t ord0)
{
	struct stream_pass *sp = arg;
	const struct ccsg_trace *t = g->dscg->trace;
	/* a stream's chain is its calls from 0 (stream.h) */
	struct export_part p = { t,    t->calls, (size_t)ch->n,
				 ord0, node,	 ccsg_graph_chain_self(g) };
	int ret = sp->fn(sp->arg, &p);

	if (ret != -ENOMEM) /* the stream says out of memory itself */
		sp->err = ret;
	return ret;
}

/* Fold the calls of t (opened) into g, each part to sp; then the end. */
static int stream_fold(struct ccsg_trace *t, struct ccsg_dscg *d,
		       struct ccsg_dims *dims, struct ccsg_graph *g,
		       struct stream_pass *sp)
{
	const struct ccsg_stream_watch watch = { pass_chain, sp, NULL };
	struct ccsg_graph *graphs[] = { g };
	const int resources[] = { CCSG_RES_CPU };
	struct export_part end;

	if (ccsg_stream_build(d, t, dims, 0, graphs, resources, 1, &watch))
		return sp->err ? sp->err : -1; /* a part's (a write), or said */
	/* the end, while the trace's strings are there */
	end = (struct export_part){ t,	  t->calls, 0, (int64_t)d->stats.calls,
				    NULL, NULL };
	return sp->fn(sp->arg, &end);
}

static int stream_pass(const struct export_source *src, export_part_fn fn,
		       void *arg)
{
	struct export_stream *ss = (struct export_stream *)src->arg;
	struct stream_pass sp = { fn, arg, 0 };
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	int ret;

	ss->passes++;
	if (!ss->folded) { /* the first: the graph */
		ss->folded = 1;
		if ((ret = stream_fold(&ss->t, &ss->d, &ss->dims, &ss->g, &sp)))
			return ret;
		if (ccsg_graph_name(&ss->g, ss->nm))
			return fail("out of memory naming the CCSG of '%s'",
				    ss->path);
		return 0;
	}
	memset(&dims, 0, sizeof(dims));
	if (ccsg_trace_open(&t, ss->path)) {
		ret = -1;
	} else if (ccsg_dims_hosts(&dims, &t)) {
		ret = fail("out of memory");
	} else if (!(ret = stream_fold(&t, &d, &dims, &g, &sp))) {
		ccsg_graph_release(&g);
		ccsg_dscg_release(&d);
	}
	ccsg_dims_release(&dims);
	ccsg_trace_release(&t);
	return ret;
}

int export_stream_open(struct export_stream *ss, const char *path,
		       const struct idl_names *nm)
{
	memset(ss, 0, sizeof(*ss));
	ss->path = path;
	ss->nm = nm;
	ss->src.pass = stream_pass;
	ss->src.arg = ss;
	if (ccsg_trace_open(&ss->t, path))
		return -1;
	if (ccsg_dims_hosts(&ss->dims, &ss->t))
		return fail("out of memory");
	/* what the export context needs of the graph before it is folded */
	ss->g.dscg = &ss->d;
	ss->g.dims = &ss->dims;
	ss->d.trace = &ss->t;
	return 0;
}

void export_stream_close(struct export_stream *ss)
{
	if (ss->folded) { /* a fold that failed released them */
		ccsg_graph_release(&ss->g);
		ccsg_dscg_release(&ss->d);
	}
	ccsg_dims_release(&ss->dims);
	ccsg_trace_release(&ss->t);
}

void export_spawned(const struct export_ctx *x, uint8_t *seen,
		    const struct ccsg_call *c, int64_t ord,
		    void (*fn)(void *arg, int32_t th), void *arg)
{
	const struct ccsg_spawns *sp = &x->g->dscg->spawns;
	int32_t head;

	/* as ccsg_spawns_note() decides */
	if (c->lost || !c->server_proc || c->server_function_id == CCSG_NONE)
		return;
	head = ccsg_spawns_first(sp, c->server_proc, c->server_function_id);
	if (head < 0 || seen[head])
		return;
	seen[head] = 1;
	for (int32_t th = head; th >= 0; th = ccsg_spawns_next(sp, th))
		if (x->t->threads[th].spawn_call == ord)
			fn(arg, th);
}

/* A sampled trace's rates: the exports say them, the aggregates scale. */
static int load_sampling(struct export_ctx *x)
{
	struct ccsg_totals *s = malloc(sizeof(*s));

	x->sample_rate = 1;
	if (!s)
		return fail("out of memory");
	if (ccsg_totals_load(s, x->t)) {
		free(s);
		return -1;
	}
	if (s->rate < 1) {
		x->sampling = s;
		x->sample_rate = s->rate;
	} else {
		ccsg_totals_release(s);
		free(s);
	}
	return 0;
}

int export_ctx_init(struct export_ctx *x, const struct ccsg_trace *t,
		    const struct ccsg_graph *g, const struct idl_names *nm)
{
	size_t nt = t->nthreads + 1, np = t->nprocs + 1;

	memset(x, 0, sizeof(*x));
	x->g = g;
	x->t = t;
	x->names = nm;
	x->th_start = malloc(nt * sizeof(int64_t));
	x->th_spawn = malloc(nt * sizeof(int64_t));
	x->os_tid = calloc(nt, sizeof(int32_t));
	x->uuid = calloc(np, sizeof(*x->uuid));
	x->proc_start = malloc(np * sizeof(int64_t));
	x->proc_end = malloc(np * sizeof(int64_t));
	x->hosts = calloc(t->nhosts + 1, sizeof(*x->hosts));
	if (!x->th_start || !x->th_spawn || !x->os_tid || !x->uuid ||
	    !x->proc_start || !x->proc_end || !x->hosts) {
		export_ctx_release(x);
		return fail("out of memory");
	}
	for (size_t i = 0; i < nt; i++)
		x->th_start[i] = x->th_spawn[i] = CCSG_NONE;
	for (size_t i = 0; i < np; i++)
		x->proc_start[i] = x->proc_end[i] = CCSG_NONE;
	for (size_t h = 0; h < t->nhosts; h++)
		x->hosts[h].via = x->hosts[h].ref = -1;
	if (load_columns(x) || load_sampling(x)) {
		export_ctx_release(x);
		return -1;
	}
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
	free(x->hosts);
	if (x->sampling)
		ccsg_totals_release(x->sampling);
	free(x->sampling);
	memset(x, 0, sizeof(*x));
}
