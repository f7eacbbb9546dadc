/*
 * exact-totals.c - the exact totals of a sampled trace (exact-totals.h).
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "causal/latency-hist.h"
#include "causal/sample.h"
#include "ccsg.h"
#include "db-read.h"
#include "usage.h"
#include "exact-totals.h"

#define SCHEMA_TOTALS 11

/* Processes' rates: the lowest, and each one's threshold. */
static int read_rates(struct ccsg_totals *x, sqlite3 *db, const char *path)
{
	static const int cols[] = { DB_PROCESSES_PROC_ID,
				    DB_PROCESSES_SAMPLE_RATE_Q32 };
	struct db_read r;

	if (db_read_open(&r, db, path, DB_PROCESSES, cols, 2, NULL))
		return -1;
	while (db_read_next(&r)) {
		int64_t id =
			db_read_int(&r, DB_PROCESSES_PROC_ID, 0, INT32_MAX, 0);
		int64_t q = db_read_int(&r, DB_PROCESSES_SAMPLE_RATE_Q32, 0,
					(int64_t)1 << 32, 1);
		double rate = q == DB_NONE ? 1 : (double)q / 4294967296.0;

		if (rate < x->rate)
			x->rate = rate;
		if ((size_t)id < x->nprocs)
			x->threshold[id] = causal_sample_threshold_q32(
				q == DB_NONE ? (uint64_t)1 << 32 : (uint64_t)q);
	}
	return db_read_close(&r);
}

static struct ccsg_totals_fn *fn_of(struct ccsg_totals *x, uint32_t prog,
				    uint32_t vers, uint32_t proc, int32_t host)
{
	struct ccsg_totals_fn *f;

	for (size_t i = 0; i < x->nfns; i++) {
		f = &x->fns[i];
		if (f->prog == prog && f->vers == vers && f->proc == proc &&
		    f->host == host)
			return f;
	}
	f = realloc(x->fns, (x->nfns + 1) * sizeof(*f));
	if (!f)
		return NULL;
	x->fns = f;
	f = &x->fns[x->nfns++];
	*f = (struct ccsg_totals_fn){
		.prog = prog, .vers = vers, .proc = proc, .host = host
	};
	return f;
}

static struct ccsg_totals_arc *arc_of(struct ccsg_totals *x,
				      const struct ccsg_totals_arc *key)
{
	struct ccsg_totals_arc *a;

	for (size_t i = 0; i < x->narcs; i++) {
		a = &x->arcs[i];
		if (a->prog == key->prog && a->vers == key->vers &&
		    a->proc == key->proc &&
		    a->caller_prog == key->caller_prog &&
		    a->caller_vers == key->caller_vers &&
		    a->caller_proc == key->caller_proc && a->host == key->host)
			return a;
	}
	a = realloc(x->arcs, (x->narcs + 1) * sizeof(*a));
	if (!a)
		return NULL;
	x->arcs = a;
	a = &x->arcs[x->narcs];
	*a = *key;
	a->hist = calloc(CAUSAL_HIST_BUCKETS, sizeof(uint64_t));
	if (!a->hist)
		return NULL;
	x->narcs++;
	return a;
}

/* "[[bucket, count], ...]" into hist; -1 when malformed. */
static int add_hist(uint64_t *hist, const char *s)
{
	unsigned long long b, n;
	int used;

	if (!s || *s++ != '[')
		return -1;
	while (*s == '[') {
		if (sscanf(s, "[%llu,%llu]%n", &b, &n, &used) != 2 &&
		    sscanf(s, "[%llu, %llu]%n", &b, &n, &used) != 2)
			return -1;
		if (b >= CAUSAL_HIST_BUCKETS)
			return -1;
		hist[b] += n;
		s += used;
		if (*s == ',')
			s++;
		while (*s == ' ')
			s++;
	}
	return *s == ']' ? 0 : -1;
}

static int read_row(struct ccsg_totals *x, struct db_read *r,
		    const struct ccsg_trace *t)
{
	int64_t id = db_read_int(r, DB_CALL_TOTALS_PROC_ID, 0, INT32_MAX, 0);
	int32_t host = (size_t)id < t->nprocs ? t->procs[id].host : -1;
	const char *side = (const char *)sqlite3_column_text(
		r->st, r->at[DB_CALL_TOTALS_SIDE]);
	struct ccsg_totals_arc key = { 0 };

#define COL(C) db_read_int(r, DB_CALL_TOTALS_##C, 0, INT64_MAX, 0)
	key.prog =
		(uint32_t)db_read_int(r, DB_CALL_TOTALS_PROG, 0, UINT32_MAX, 0);
	key.vers =
		(uint32_t)db_read_int(r, DB_CALL_TOTALS_VERS, 0, UINT32_MAX, 0);
	key.proc =
		(uint32_t)db_read_int(r, DB_CALL_TOTALS_PROC, 0, UINT32_MAX, 0);
	key.host = host;
	x->lost += COL(LOST);
	if (side && !strcmp(side, "skeleton")) {
		struct ccsg_totals_fn *f =
			fn_of(x, key.prog, key.vers, key.proc, host);

		if (!f)
			return db_read_nomem(r);
		f->calls += COL(CALLS);
		f->failures += COL(FAILURES);
		f->cpu_ns += COL(CPU_NS);
		f->alloc_bytes += COL(ALLOC_BYTES);
		/* a process at rate 1 counts its unsampled calls only */
		if ((size_t)id < x->nprocs &&
		    x->threshold[id] == CAUSAL_SAMPLE_ALL)
			f->partial = 1;
		else
			f->low = 1;
	} else {
		struct ccsg_totals_arc *a;

		key.caller_prog = (uint32_t)db_read_int(
			r, DB_CALL_TOTALS_CALLER_PROG, 0, UINT32_MAX, 0);
		key.caller_vers = (uint32_t)db_read_int(
			r, DB_CALL_TOTALS_CALLER_VERS, 0, UINT32_MAX, 0);
		key.caller_proc = (uint32_t)db_read_int(
			r, DB_CALL_TOTALS_CALLER_PROC, 0, UINT32_MAX, 0);
		if (!(a = arc_of(x, &key)))
			return db_read_nomem(r);
		a->calls += COL(CALLS);
		a->failures += COL(FAILURES);
		a->latency_ns += COL(LATENCY_NS);
		if (add_hist(a->hist,
			     (const char *)sqlite3_column_text(
				     r->st, r->at[DB_CALL_TOTALS_LATENCY]))) {
			db_read_bad(r, DB_CALL_TOTALS_LATENCY,
				    "not a histogram");
			return -1;
		}
	}
#undef COL
	return 0;
}

static int read_totals(struct ccsg_totals *x, sqlite3 *db, const char *path,
		       const struct ccsg_trace *t)
{
	static const int cols[] = {
		DB_CALL_TOTALS_PROC_ID,	    DB_CALL_TOTALS_SIDE,
		DB_CALL_TOTALS_PROG,	    DB_CALL_TOTALS_VERS,
		DB_CALL_TOTALS_PROC,	    DB_CALL_TOTALS_CALLER_PROG,
		DB_CALL_TOTALS_CALLER_VERS, DB_CALL_TOTALS_CALLER_PROC,
		DB_CALL_TOTALS_CALLS,	    DB_CALL_TOTALS_FAILURES,
		DB_CALL_TOTALS_CPU_NS,	    DB_CALL_TOTALS_ALLOC_BYTES,
		DB_CALL_TOTALS_LATENCY_NS,  DB_CALL_TOTALS_LATENCY,
		DB_CALL_TOTALS_LOST,
	};
	struct db_read r;

	if (db_read_open(&r, db, path, DB_CALL_TOTALS, cols,
			 sizeof(cols) / sizeof(cols[0]), NULL))
		return -1;
	while (db_read_next(&r))
		if (read_row(x, &r, t)) {
			r.bad = 1;
			break;
		}
	return db_read_close(&r);
}

static int by_uuid(const void *a, const void *b, void *arg)
{
	const struct ccsg_trace *t = arg;

	return memcmp(t->procs[*(const int32_t *)a].uuid,
		      t->procs[*(const int32_t *)b].uuid, 16);
}

/* The processes by UUID, for ccsg_chain_sampled(): 0 or -1 after fail(). */
static int index_roots(struct ccsg_totals *x, const struct ccsg_trace *t)
{
	x->by_uuid = malloc((t->nprocs + 1) * sizeof(*x->by_uuid));
	if (!x->by_uuid)
		return fail("out of memory");
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].present)
			x->by_uuid[x->nby_uuid++] = (int32_t)i;
	qsort_r(x->by_uuid, x->nby_uuid, sizeof(*x->by_uuid), by_uuid,
		(void *)t);
	return 0;
}

int ccsg_totals_load(struct ccsg_totals *x, const struct ccsg_trace *t)
{
	sqlite3 *db = NULL;
	int ret = -1;

	memset(x, 0, sizeof(*x));
	x->rate = 1;
	if (t->schema_version < SCHEMA_TOTALS)
		return 0;
	x->threshold = malloc((t->nprocs + 1) * sizeof(*x->threshold));
	if (!x->threshold)
		return fail("out of memory");
	x->nprocs = t->nprocs;
	for (size_t i = 0; i < t->nprocs; i++)
		x->threshold[i] = CAUSAL_SAMPLE_ALL;
	if (sqlite3_open_v2(t->file, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		fail("cannot read '%s': %s", t->path, sqlite3_errmsg(db));
		goto out;
	}
	if (read_rates(x, db, t->path))
		goto out;
	if (x->rate < 1 &&
	    (read_totals(x, db, t->path, t) || index_roots(x, t)))
		goto out;
	ret = 0;
out:
	sqlite3_close(db);
	if (ret)
		ccsg_totals_release(x);
	return ret;
}

void ccsg_totals_release(struct ccsg_totals *x)
{
	for (size_t i = 0; i < x->narcs; i++)
		free(x->arcs[i].hist);
	free(x->arcs);
	free(x->fns);
	free(x->threshold);
	free(x->by_uuid);
	free(x->est.sampled);
	free(x->est.self_sampled);
	free(x->est.self_ci);
	free(x->est.desc_ci);
	memset(x, 0, sizeof(*x));
	x->rate = 1;
}

int ccsg_totals_hosts_of(const struct ccsg_totals *x,
			 const struct ccsg_totals_fn *f)
{
	int n = 0;

	for (size_t i = 0; i < x->nfns; i++)
		n += x->fns[i].prog == f->prog && x->fns[i].vers == f->vers &&
		     x->fns[i].proc == f->proc;
	return n;
}

void ccsg_totals_combine(struct ccsg_totals *x, const struct ccsg_graph *g)
{
	const struct ccsg_trace *t = g->dscg->trace;

	if (g->dims->n != t->nhosts || g->resource != CCSG_RES_CPU)
		return;
	for (size_t i = 0; i < x->nfns; i++) {
		struct ccsg_totals_fn *f = &x->fns[i];
		if (!f->partial || f->low || f->host < 0 ||
		    g->dims->of_host[f->host] != f->host ||
		    ccsg_totals_hosts_of(x, f) != 1)
			continue;
		for (size_t j = 0; j < g->nnodes; j++) { /* --by=object: many */
			const struct ccsg_node *n = &g->nodes[j];

			if (n->kind == CCSG_FUNCTION && n->prog == f->prog &&
			    n->vers == f->vers && n->proc == f->proc) {
				f->calls += n->calls;
				f->failures += n->failed;
				f->cpu_ns += n->self[f->host];
			}
		}
		f->partial = 0;
	}
}

uint64_t ccsg_totals_quantile(const uint64_t *hist, int64_t n, double q)
{
	double want = q * (double)n, seen = 0;

	if (n <= 0)
		return 0;
	for (unsigned b = 0; b < CAUSAL_HIST_BUCKETS; b++) {
		seen += (double)hist[b];
		if (hist[b] && seen >= want)
			return causal_hist_value(b);
	}
	return causal_hist_value(CAUSAL_HIST_BUCKETS - 1);
}

void ccsg_totals_estimate(double y, int64_t n, double r, double *est,
			  double *ci95)
{
	*est = r > 0 ? y / r : y;
	*ci95 = n > 0 && r > 0 && r < 1
			? 1.96 * *est * sqrt((1 - r) / (double)n)
			: 0;
}
