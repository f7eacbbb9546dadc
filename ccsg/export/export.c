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

static void min_time(int64_t *base, int64_t v)
{
	if (v != CCSG_NONE && (*base == CCSG_NONE || v < *base))
		*base = v;
}

struct aligning {
	const struct export_ctx *x;
	struct pair *v;
	size_t n, cap;
	struct hashmap m;
	int64_t *weight; /* per host: calls with another host */
	/* per host + 1 (0: unknown), the earliest stub start, and skeleton
	 * start of a call the alignment cannot move (a probe missing) */
	int64_t *min_c0, *min_s0;
	int64_t same_clamped; /* calls within a host, outside their stub */
	int unknown;	      /* a call between a host and an unknown one */
	export_part_fn also;
	void *arg;
};

static int align_part(void *arg, const struct export_part *p)
{
	struct aligning *al = arg;
	const struct ccsg_trace *t = al->x->t;

	for (size_t i = 0; i < p->n; i++) {
		const struct ccsg_call *c = &p->calls[i];
		int32_t a = ccsg_trace_host(t, c->client_proc),
			b = ccsg_trace_host(t, c->server_proc);
		int64_t lo, hi;

		int whole = c->stub_start_ns != CCSG_NONE &&
			    c->stub_end_exit_ns != CCSG_NONE &&
			    c->skel_start_exit_ns != CCSG_NONE &&
			    c->skel_end_ns != CCSG_NONE;

		/* the earliest times: a whole call's skeleton ends inside its
		 * stub (export_call_times()), its stub start is its earliest */
		min_time(&al->min_c0[a + 1], c->stub_start_ns);
		if (!whole)
			min_time(&al->min_s0[b + 1], c->skel_start_exit_ns);
		if (whole && a == b && /* one clock: as they are */
		    (c->skel_start_exit_ns < c->stub_start_ns ||
		     c->skel_end_ns > c->stub_end_exit_ns))
			al->same_clamped++;
		al->unknown |= whole && a != b && (a < 0 || b < 0);
		if (a < 0 || b < 0 || a == b || !whole)
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
		if (add_pair(&al->v, &al->n, &al->cap, &al->m, a, b, lo, hi))
			return -ENOMEM;
		al->weight[a]++;
		al->weight[b]++;
	}
	return al->also ? al->also(al->arg, p) : 0;
}

/* Prim's spanning tree from the busiest host, the pair of least error
 * first; another component starts from its busiest host. */
static int span_hosts(struct export_ctx *x, struct aligning *al)
{
	const struct ccsg_trace *t = x->t;
	struct pair *v = al->v;
	size_t n = al->n;
	uint8_t *done = calloc(t->nhosts + 1, 1);

	if (!done)
		return -ENOMEM;
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
			if (!done[h] &&
			    (ref < 0 || al->weight[h] > al->weight[ref]))
				ref = (int32_t)h;
		if (ref < 0)
			break;
		done[ref] = 1;
		x->hosts[ref].ref = ref;
	}
	free(done);
	return 0;
}

int export_align(struct export_ctx *x, const struct export_source *src,
		 export_part_fn also, void *arg)
{
	const struct ccsg_trace *t = x->t;
	struct aligning al = { .x = x, .also = also, .arg = arg };
	int ret = -ENOMEM;

	for (size_t h = 0; h < t->nhosts; h++) {
		x->hosts[h].offset_ns = x->hosts[h].error_ns = 0;
		x->hosts[h].pairs = 0;
		x->hosts[h].via = x->hosts[h].ref = -1;
		x->hosts[h].inconsistent = 0;
	}
	al.weight = calloc(t->nhosts + 1, sizeof(int64_t));
	al.min_c0 = malloc((t->nhosts + 1) * sizeof(int64_t));
	al.min_s0 = malloc((t->nhosts + 1) * sizeof(int64_t));
	if (!al.weight || !al.min_c0 || !al.min_s0)
		goto out;
	for (size_t h = 0; h <= t->nhosts; h++)
		al.min_c0[h] = al.min_s0[h] = CCSG_NONE;
	if ((ret = src->pass(src, align_part, &al)) ||
	    (ret = span_hosts(x, &al)))
		goto out;
	/* a pair whose calls' intervals all hold its offset moves none of
	 * them: else the bounds take a pass of their own */
	x->bounds_pass = al.unknown;
	for (size_t p = 0; p < al.n; p++) {
		const struct pair *q = &al.v[p];
		int64_t d = x->hosts[q->b].offset_ns - x->hosts[q->a].offset_ns;

		x->bounds_pass |= d < q->lo || d > q->hi;
	}
	x->align_clamped = al.same_clamped;
	x->align_base = CCSG_NONE;
	for (size_t h = 0; h <= t->nhosts; h++) {
		int64_t off = h ? x->hosts[h - 1].offset_ns : 0;

		if (al.min_c0[h] != CCSG_NONE)
			min_time(&x->align_base, al.min_c0[h] + off);
		if (al.min_s0[h] != CCSG_NONE)
			min_time(&x->align_base, al.min_s0[h] + off);
	}
	/* unix time: the reference's anchor, through the offsets */
	for (size_t h = 0; h < t->nhosts; h++) {
		struct export_host *e = &x->hosts[h];

		if (e->ref >= 0 && (size_t)e->ref != h)
			e->unix_ns = x->hosts[e->ref].unix_ns;
	}
out:
	free(al.v);
	free(al.weight);
	free(al.min_c0);
	free(al.min_s0);
	hashmap_release(&al.m);
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

static int bounds_part(void *arg, const struct export_part *p)
{
	struct export_ctx *x = arg;

	for (size_t i = 0; i < p->n; i++) {
		int64_t c0, c1, s0, s1;

		x->clamped +=
			export_call_times(x, &p->calls[i], &c0, &c1, &s0, &s1);
		min_time(&x->base_ns, c0);
		min_time(&x->base_ns, s0);
	}
	return 0;
}

int export_bounds(struct export_ctx *x, const struct export_source *src)
{
	const struct ccsg_trace *t = x->t;
	int ret;

	x->base_ns = x->align_base;
	x->clamped = x->align_clamped;
	if (x->bounds_pass) {
		x->base_ns = CCSG_NONE;
		x->clamped = 0;
		if ((ret = src->pass(src, bounds_part, x)))
			return ret;
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
	if (load_columns(x)) {
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
	memset(x, 0, sizeof(*x));
}
