/*
 * trace.c - a merged trace database (or a store's copy) into the arrays
 * of trace.h: at once (ccsg_trace_load()), or chain by chain
 * (ccsg_trace_open()): everything but the calls loaded at once
 * (trace-tables.c), then the rows of rpc_calls (trace-calls.c) in chain
 * order, a part of a chain at a time; of a store URL, range of chains by
 * range (store/store.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "store-url.h"
#include "store.h"
#include "trace-internal.h"
#include "usage.h"

static int trace_load(struct ccsg_trace *t, const char *given, int empty_ok)
{
	int with_mon, mon_mixed;
	sqlite3 *db;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	t->empty_ok = empty_ok;
	/* a store URL: its copy as an SQLite file */
	if (trace_open(t, given, store_sqlite_path(given), &db, &with_mon)) {
		ccsg_trace_release(t);
		return -1;
	}
	/* trace_open() read the intervals: now with the cuts */
	ccsg_monitoring_release(&t->mon);
	if (!trace_load_calls(t, db, with_mon, &mon_mixed) &&
	    !ccsg_monitoring_load_cuts(&t->mon, db, mon_mixed, NULL))
		ret = 0;
	sqlite3_close(db);
	if (ret)
		ccsg_trace_release(t);
	return ret;
}

int ccsg_trace_load(struct ccsg_trace *t, const char *given)
{
	return trace_load(t, given, 0);
}

int ccsg_trace_load_empty_ok(struct ccsg_trace *t, const char *given)
{
	return trace_load(t, given, 1);
}

/* Does meta say call_id follows chain order (DB_META_CALLS_ORDER)? */
static int calls_in_chain_order(sqlite3 *db)
{
	static const int cols[] = { DB_META_VALUE };
	struct db_read r;
	int yes = 0;

	if (db_read_open(&r, db, NULL, DB_META, cols, 1, "WHERE %s = '%s'",
			 DB_NAME(META, KEY), DB_META_CALLS_ORDER))
		return 0;
	if (db_read_next(&r))
		yes = !strcmp(db_get_text(&r, DB_META_VALUE) ?: "",
			      DB_CALLS_ORDER_CHAIN);
	db_read_close(&r);
	return yes;
}

/* A trace read chain by chain (ccsg_trace_open()). */
struct ccsg_stream {
	struct store_stream *store; /* a store's calls, range by range */
	sqlite3 *db;
	struct call_read cr;
	int with_mon, mon_mixed;
	char *mon;
	int ordered;	    /* call_id order is chain order: checked */
	char share[64];	    /* an SQLite share's chains: SQL on rpc_calls */
	int store_share;    /* a share of a store's chains */
	int64_t prev_event; /* the first event of the row before */
	int have_row;	    /* r is on the first row of the next chain */
	int last;	    /* r has no row left (a step more restarts it) */
	int done;
	uint8_t next[DB_CHAIN_LEN]; /* that row's chain, call_id, first event */
	int64_t next_id, next_first;
	int chain_over;	   /* the pending row begins a chain */
	int in_chain;	   /* a call of the chain was read */
	int64_t max_event; /* the chain's latest event read */
	size_t cap_calls;
};

/* causal_shard(chain): the key that shares an SQLite trace's chains
 * among workers (FNV-1a of the id's bytes, as an SQLite integer >= 0). */
static void shard_of_chain(sqlite3_context *ctx, int argc, sqlite3_value **v)
{
	const void *p = sqlite3_value_blob(v[0]);
	size_t n = p ? (size_t)sqlite3_value_bytes(v[0]) : 0;

	(void)argc;
	sqlite3_result_int64(
		ctx, (sqlite3_int64)(hash_fnv(HASH_FNV_SEED, p, n) >> 1));
}

int ccsg_trace_open(struct ccsg_trace *t, const char *given)
{
	return ccsg_trace_open_share(t, given, 0, 1);
}

int ccsg_trace_open_share(struct ccsg_trace *t, const char *given,
			  unsigned share, unsigned shares)
{
	struct ccsg_stream *s;
	char order[384], where[96] = "";
	sqlite3 *db;
	int with_mon;

	memset(t, 0, sizeof(*t));
	if (!(s = t->stream = calloc(1, sizeof(*s))))
		return fail("out of memory");
	/* a store URL: all but the calls copied, which come range by range */
	if (trace_open(
		    t, given,
		    store_is_url(given)
			    ? store_stream_open(given, share, shares, &s->store)
			    : given,
		    &db, &with_mon)) {
		ccsg_trace_release(t);
		return -1;
	}
	s->db = db;
	s->with_mon = with_mon;
	/* the order of trace.calls (above): the table's own when the merge
	 * wrote it so, else SQLite's sorter, which spills to temporary
	 * files rather than hold the table (1M calls: +1.7 s of CPU) */
	s->ordered = s->store || calls_in_chain_order(db);
	s->store_share = s->store && shares > 1;
	/* a share of an SQLite file's chains: a WHERE here (a store's is
	 * the server's) */
	if (shares > 1 && !s->store) {
		if (sqlite3_create_function(db, "causal_shard", 1,
					    SQLITE_UTF8 | SQLITE_DETERMINISTIC,
					    NULL, shard_of_chain, NULL,
					    NULL) != SQLITE_OK) {
			fail("'%s': %s", t->path, sqlite3_errmsg(db));
			ccsg_trace_release(t);
			return -1;
		}
		snprintf(s->share, sizeof(s->share),
			 "causal_shard(%s) %% %u = %u",
			 DB_NAME(RPC_CALLS, CHAIN), shares, share);
		snprintf(where, sizeof(where), "WHERE %s ", s->share);
	}
	if (s->ordered)
		snprintf(order, sizeof(order), "%sORDER BY %s", where,
			 DB_NAME(RPC_CALLS, CALL_ID));
	else
		snprintf(order, sizeof(order),
			 "%sORDER BY %s, coalesce(%s, %s, %s, %s), %s", where,
			 DB_NAME(RPC_CALLS, CHAIN),
			 DB_NAME(RPC_CALLS, STUB_START_EVENT),
			 DB_NAME(RPC_CALLS, SKEL_START_EVENT),
			 DB_NAME(RPC_CALLS, SKEL_END_EVENT),
			 DB_NAME(RPC_CALLS, STUB_END_EVENT),
			 DB_NAME(RPC_CALLS, CALL_ID));
	if (trace_calls_open(&s->cr, db, t, with_mon, order)) {
		ccsg_trace_release(t);
		return -1;
	}
	return 0;
}

/* A store's cuts once its shares are merged, by SQL on every call. */
static int store_cuts(struct ccsg_trace *t, struct ccsg_stream *s)
{
	ccsg_monitoring_release(&t->mon);
	return store_stream_all_calls(s->store) ||
			       ccsg_monitoring_load_cuts(&t->mon, s->db, 1,
							 NULL)
		       ? -1
		       : 0;
}

/*
 * The stream's end: the monitoring, and its cuts when the calls read
 * were not all monitored alike (SQL on the calls; only then can a chain
 * be cut).  A store's copy held the last range only: it gets every call
 * first.  An SQLite share's cuts are those of its chains; a store
 * share's come once the shares are merged (ccsg_trace_shares_end()).
 */
static int stream_end(struct ccsg_trace *t, struct ccsg_stream *s)
{
	int cuts = s->mon_mixed && !s->store_share;

	s->done = 1;
	ccsg_monitoring_release(&t->mon); /* trace_open()'s, cuts aside */
	if (db_read_close(&s->cr.r) ||
	    (cuts && s->store && store_stream_all_calls(s->store)) ||
	    ccsg_monitoring_load_cuts(&t->mon, s->db, cuts,
				      s->share[0] ? s->share : NULL))
		return -1;
	return 0;
}

/* The next row: 1, or 0 at the end (or on an error: then r->bad).  A
 * store's next range of chains is fetched when one is read. */
static int stream_step(struct ccsg_stream *s)
{
	int got = 0;

	if (db_read_next(&s->cr.r))
		return 1;
	/* a step after the end runs the query again, on the new range */
	while (!s->cr.r.bad && s->store &&
	       (got = store_stream_next(s->store)) > 0)
		if (db_read_next(&s->cr.r))
			return 1;
	if (got < 0)
		s->cr.r.bad = 1;
	return 0;
}

/* meta.calls_order promised what the rows break: a corrupt database. */
static int out_of_order(const struct ccsg_trace *t, struct db_read *r,
			int64_t call_id)
{
	r->bad = 1;
	db_read_close(r);
	return fail("'%s': rpc_calls is not in chain order at call_id %lld "
		    "although "
		    "meta.calls_order says so; merge the logs again",
		    t->path, (long long)call_id);
}

/* The first event of the row r is on (trace_first_event()'s order),
 * CCSG_NONE. */
static int64_t row_first_event(struct db_read *r)
{
	static const int cols[] = { DB_RPC_CALLS_STUB_START_EVENT,
				    DB_RPC_CALLS_SKEL_START_EVENT,
				    DB_RPC_CALLS_SKEL_END_EVENT,
				    DB_RPC_CALLS_STUB_END_EVENT };

	for (size_t i = 0; i < 4; i++) {
		int64_t e = db_read_int(r, cols[i], 0, MAX_EVENT, 1);

		if (e != CCSG_NONE)
			return e;
	}
	return CCSG_NONE;
}

/* A part ends here, before the pending row, when the part is not too
 * short to be worth a fold and every event read comes before the rest. */
#define PART_MIN 256

/* The pending row: its key, and its first event. */
static int read_next_key(struct ccsg_trace *t, struct ccsg_stream *s)
{
	if (trace_read_call_key(&s->cr.r, t->schema_version, &s->next_id,
				s->next))
		return -1;
	s->next_first = row_first_event(&s->cr.r);
	return s->cr.r.bad ? -1 : 0;
}

/* The pending row begins a chain: the chain's entry, its order anew. */
static void chain_begins(struct ccsg_trace *t, struct ccsg_stream *s)
{
	memset(t->chains, 0, sizeof(*t->chains));
	t->chains->owner = -1;
	memcpy(t->chains->id, s->next, DB_CHAIN_LEN);
	t->nchains = 1;
	t->ncalls = 0;
	t->part.from = 0;
	t->part.starts = 1;
	s->in_chain = 0;
	s->max_event = CCSG_NONE;
	s->chain_over = 0;
}

int ccsg_trace_next_part(struct ccsg_trace *t, int keep)
{
	struct ccsg_stream *s = t->stream;
	struct db_read *r = &s->cr.r;

	if (!keep)
		t->ncalls = 0;
	t->part = (struct ccsg_part){ (int32_t)t->ncalls, 0, 0 };
	if (s->done)
		return 0;
	if (!t->chains && !(t->chains = calloc(1, sizeof(*t->chains))))
		return db_read_nomem(r), db_read_close(r), -1;
	if (!s->have_row) { /* the first row, or none left */
		if (s->last || !stream_step(s))
			return stream_end(t, s) ? -1 : 0;
		if (read_next_key(t, s))
			return db_read_close(r), -1;
		s->have_row = 1;
		s->chain_over = 1;
	}
	if (s->chain_over)
		chain_begins(t, s);
	for (;;) {
		struct ccsg_call *c;

		if (t->ncalls >= INT32_MAX ||
		    GROW(t->calls, s->cap_calls, t->ncalls + 1))
			return db_read_nomem(r), db_read_close(r), -1;
		c = &t->calls[t->ncalls];
		if (trace_read_call(&s->cr, t, c, &s->mon, &s->mon_mixed))
			return db_read_close(r), -1;
		c->call_id = s->next_id;
		c->chain = 0;
		if (s->ordered && s->in_chain &&
		    trace_first_event(c) < s->prev_event)
			return out_of_order(t, r, c->call_id);
		s->in_chain = 1;
		s->prev_event = trace_first_event(c);
		for (int k = 0; k < 4; k++)
			if (c->ev[k] != CCSG_NONE && c->ev[k] > s->max_event)
				s->max_event = c->ev[k];
		t->ncalls++;
		if (!stream_step(s)) {
			s->have_row = 0;
			s->last = 1;
			if (r->bad)
				return db_read_close(r), -1;
			t->part.ends = 1;
			break;
		}
		if (read_next_key(t, s))
			return db_read_close(r), -1;
		if (memcmp(s->next, t->chains->id, DB_CHAIN_LEN)) {
			if (s->ordered &&
			    memcmp(s->next, t->chains->id, DB_CHAIN_LEN) < 0)
				return out_of_order(t, r, s->next_id);
			t->part.ends = 1;
			s->chain_over = 1;
			break;
		}
		if ((int32_t)t->ncalls - t->part.from >= PART_MIN &&
		    s->next_first != CCSG_NONE && s->next_first > s->max_event)
			break;
	}
	t->chains->n = (int32_t)t->ncalls;
	return 1;
}

int ccsg_trace_merge_mon(struct ccsg_trace *into, const struct ccsg_trace *from)
{
	/* a cut is in a chain not all monitored alike, which its share saw
	 * whole: an SQLite share found it */
	into->stream->mon_mixed |= from->stream->mon_mixed;
	return ccsg_monitoring_add_cuts(&into->mon, &from->mon);
}

int ccsg_trace_shares_end(struct ccsg_trace *t)
{
	struct ccsg_stream *s = t->stream;

	return s->store_share && s->mon_mixed ? store_cuts(t, s) : 0;
}

static void stream_close(struct ccsg_stream *s)
{
	if (!s)
		return;
	db_read_close(&s->cr.r);
	sqlite3_close(s->db);
	store_stream_close(s->store);
	free(s->mon);
	free(s);
}

void ccsg_trace_release(struct ccsg_trace *t)
{
	db_ends_release(&t->ends);
	for (size_t i = 0; i < t->nhosts; i++)
		free(t->hosts[i]);
	for (size_t i = 0; i < t->nprocs; i++)
		free(t->procs[i].exe);
	for (size_t i = 0; i < t->nobjects; i++)
		free(t->objects[i].address);
	for (size_t i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->hosts);
	free(t->procs);
	free(t->threads);
	free(t->calls);
	free(t->chains);
	free(t->objects);
	free(t->sites);
	free(t->strings);
	free(t->path);
	free(t->file);
	stream_close(t->stream);
	hashmap_release(&t->thread_map);
	hashmap_release(&t->string_map);
	ccsg_monitoring_release(&t->mon);
	memset(t, 0, sizeof(*t));
}
