/*
 * trace-calls.c - the rows of rpc_calls into struct ccsg_call, read by
 * typed column (store/db-read.h), their strings interned, and the whole
 * table at once: read in call_id order and sorted here by chain and by
 * the first event of each call, so that the DSCG scan (dscg.c) finds each
 * chain's calls together.  No per-call query: a million calls load in
 * about a second.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "causal/log-format.h"
#include "trace-internal.h"
#include "usage.h"

/* The names the database stores for the log format's enums (enums.def). */
#define NAME_OF(constant, value, name) [value] = name,

const char *const ccsg_reply_names[CCSG_NREPLY] = { CAUSAL_VALUES_reply(
	NAME_OF) };
_Static_assert((int)CCSG_REPLY_SUCCESS == (int)CAUSAL_REPLY_SUCCESS &&
		       (int)CCSG_REPLY_DENIED == (int)CAUSAL_REPLY_DENIED &&
		       (int)CCSG_NREPLY == (int)CAUSAL_REPLY_DENIED + 1,
	       "enum ccsg_reply is enum causal_rpc_reply");

static uint64_t str_hash(const char *s)
{
	return hash_fnv(HASH_FNV_SEED, s, strlen(s));
}

int32_t ccsg_trace_intern(struct ccsg_trace *t, const char *s)
{
	uint64_t h = str_hash(s);
	int32_t i;

	/* Collisions move to the next key: at worst a short walk. */
	for (;; h++) {
		i = hashmap_get(&t->string_map, h);
		if (i < 0)
			break;
		if (!strcmp(t->strings[i], s))
			return i;
	}
	if (GROW(t->strings, t->cap_strings, t->nstrings + 1))
		return -ENOMEM;
	t->strings[t->nstrings] = strdup(s);
	if (!t->strings[t->nstrings])
		return -ENOMEM;
	if (hashmap_put(&t->string_map, h, (int32_t)t->nstrings) < 0)
		return -ENOMEM;
	return (int32_t)t->nstrings++;
}

/* The server's reply was an error (not success, not none sent). */
static int reply_failed(const struct ccsg_call *c)
{
	return c->reply >= 0 && c->reply != CCSG_REPLY_SUCCESS &&
	       c->reply != CCSG_REPLY_NONE;
}

int ccsg_call_failed(const struct ccsg_call *c)
{
	if (c->status >= 0)
		return c->status != CCSG_RPC_SUCCESS &&
		       !(c->one_way && c->status == CCSG_RPC_TIMEDOUT);
	return reply_failed(c);
}

int ccsg_call_side_failed(const struct ccsg_call *c, int server)
{
	return server ? reply_failed(c) : c->failed;
}

/* A lowercase hex digit (tracedump writes them so) or -1. */
static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The rpc_calls columns ccsg reads. */
static const int call_cols[] = {
	DB_RPC_CALLS_CALL_ID,
	DB_RPC_CALLS_CHAIN,
	DB_RPC_CALLS_PROG,
	DB_RPC_CALLS_VERS,
	DB_RPC_CALLS_PROC,
	DB_RPC_CALLS_ONE_WAY,
	DB_RPC_CALLS_CLIENT_PROC_ID,
	DB_RPC_CALLS_CLIENT_TID,
	DB_RPC_CALLS_SITE_SYMBOL,
	DB_RPC_CALLS_PEER,
	DB_RPC_CALLS_STUB_START_EVENT,
	DB_RPC_CALLS_STUB_START_NS,
	DB_RPC_CALLS_STUB_START_CPU_NS,
	DB_RPC_CALLS_STUB_START_EXIT_NS,
	DB_RPC_CALLS_STUB_END_EVENT,
	DB_RPC_CALLS_STUB_END_NS,
	DB_RPC_CALLS_STUB_END_EXIT_NS,
	DB_RPC_CALLS_STUB_END_CPU_NS,
	DB_RPC_CALLS_SERVER_PROC_ID,
	DB_RPC_CALLS_SERVER_TID,
	DB_RPC_CALLS_SERVER_FUNCTION_ID,
	DB_RPC_CALLS_OBJECT_ID,
	DB_RPC_CALLS_SKEL_START_EVENT,
	DB_RPC_CALLS_SKEL_START_EXIT_NS,
	DB_RPC_CALLS_SKEL_START_CPU_NS,
	DB_RPC_CALLS_SKEL_START_NS,
	DB_RPC_CALLS_SKEL_END_EVENT,
	DB_RPC_CALLS_SKEL_END_NS,
	DB_RPC_CALLS_SKEL_END_EXIT_NS,
	DB_RPC_CALLS_SKEL_END_CPU_NS,
	DB_RPC_CALLS_MISSING,
	DB_RPC_CALLS_STATUS,
	DB_RPC_CALLS_STATUS_NAME,
	DB_RPC_CALLS_ARGS_BYTES,
	DB_RPC_CALLS_RESULTS_BYTES,
	DB_RPC_CALLS_REPLY_TAG,
	DB_RPC_CALLS_SERVER_ARGS_BYTES,
	DB_RPC_CALLS_SERVER_RESULTS_BYTES,
	DB_RPC_CALLS_REPLY,
	DB_RPC_CALLS_TAG,
	DB_RPC_CALLS_TRANSPORT,
	/* from version 4 on (CALL_HEAP_COLS) */
	DB_RPC_CALLS_STUB_ALLOC_BYTES,
	DB_RPC_CALLS_STUB_FREED_BYTES,
	DB_RPC_CALLS_SKEL_ALLOC_BYTES,
	DB_RPC_CALLS_SKEL_FREED_BYTES,
};
#define CALL_HEAP_COLS 4

_Static_assert(sizeof(call_cols) / sizeof(call_cols[0]) + 2 <=
		       DB_RPC_CALLS_NCOLS,
	       "call_cols[] and the monitoring's two fit a read");

int trace_calls_open(struct call_read *cr, sqlite3 *db,
		     const struct ccsg_trace *t, int with_mon, const char *tail)
{
	size_t ncols = sizeof(call_cols) / sizeof(call_cols[0]) -
		       (t->has_heap ? 0 : CALL_HEAP_COLS);
	int cols[DB_RPC_CALLS_NCOLS];

	memset(cr->last, 0, sizeof(cr->last));
	memcpy(cols, call_cols, sizeof(call_cols));
	if (with_mon) {
		cols[ncols++] = DB_RPC_CALLS_CLIENT_MON;
		cols[ncols++] = DB_RPC_CALLS_SERVER_MON;
	}
	return db_read_open(&cr->r, db, t->path, DB_RPC_CALLS, cols, ncols,
			    "%s", tail);
}

/*
 * The order of trace.calls: by chain, then by the first event of the
 * call (SQL: coalesce(stub_start_event, skel_start_event, skel_end_event,
 * stub_end_event), NULL first), then call_id.  The rows are read in
 * call_id order (the table's own, no sort) and sorted here: SQLite's
 * ORDER BY walked the chain index and fetched each row from it (1M calls:
 * 5 s against 0.3 s).
 */
struct call_key {
	uint32_t chain; /* rank of the chain id among the distinct ones */
	uint32_t index; /* into the calls as read */
	int64_t event;	/* CCSG_NONE (INT64_MIN) for NULL: first */
	int64_t call_id;
};

/* An optional string column interned: its index, -1 for NULL, -2 after an
 * error. */
static int32_t rd_intern(struct call_read *cr, struct ccsg_trace *t, int col)
{
	struct db_read *r = &cr->r;
	const char *s = db_read_text(r, col, 1);
	size_t len;
	int32_t k;

	if (!s)
		return r->bad ? -2 : -1;
	len = strlen(s);
	if (cr->last[col].ok && cr->last[col].len == len &&
	    !memcmp(cr->last[col].s, s, len))
		return cr->last[col].k;
	if ((k = ccsg_trace_intern(t, s)) < 0) {
		db_read_nomem(r);
		return -2;
	}
	cr->last[col].ok = len < sizeof(cr->last[col].s);
	if (cr->last[col].ok) {
		cr->last[col].len = (uint8_t)len;
		cr->last[col].k = k;
		memcpy(cr->last[col].s, s, len);
	}
	return k;
}

/* The thread of one side of a call: process and tid, 0 when unknown. */
static void rd_thread(struct db_read *r, int proc_col, int32_t *proc,
		      int tid_col, int32_t *tid)
{
	*proc = db_read_i32(r, proc_col, 1, MAX_PROC, 0);
	*tid = db_read_i32(r, tid_col, 0, INT32_MAX, 0);
}

/* The columns of each probe of a call (by enum ccsg_probe): its event,
 * time and CPU. */
static const struct {
	int event, ns, cpu;
} probe_cols[] = {
	[CCSG_STUB_START] = { DB_RPC_CALLS_STUB_START_EVENT,
			      DB_RPC_CALLS_STUB_START_NS,
			      DB_RPC_CALLS_STUB_START_CPU_NS },
	[CCSG_SKEL_START] = { DB_RPC_CALLS_SKEL_START_EVENT,
			      DB_RPC_CALLS_SKEL_START_EXIT_NS,
			      DB_RPC_CALLS_SKEL_START_CPU_NS },
	[CCSG_SKEL_END] = { DB_RPC_CALLS_SKEL_END_EVENT,
			    DB_RPC_CALLS_SKEL_END_NS,
			    DB_RPC_CALLS_SKEL_END_CPU_NS },
	[CCSG_STUB_END] = { DB_RPC_CALLS_STUB_END_EVENT,
			    DB_RPC_CALLS_STUB_END_EXIT_NS,
			    DB_RPC_CALLS_STUB_END_CPU_NS },
};

/* Probe kind of a call: its event, its time into *ns, its CPU. */
static void rd_probe(struct db_read *r, struct ccsg_call *c,
		     enum ccsg_probe kind, int64_t *ns)
{
	c->ev[kind] = db_read_int(r, probe_cols[kind].event, 0, MAX_EVENT, 1);
	*ns = db_read_int(r, probe_cols[kind].ns, 0, MAX_NS, 1);
	c->cpu[kind] = db_read_int(r, probe_cols[kind].cpu, 0, MAX_NS, 1);
}

/*
 * Whether the client_mon and server_mon values read so far (text, NULL
 * aside) are all one: *first holds it (malloc'd), *mixed says not.
 */
static int note_mon(struct db_read *r, int col, char **first, int *mixed)
{
	const char *s;

	if (*mixed || db_get_type(r, col) == SQLITE_NULL)
		return 0;
	s = db_get_text(r, col);
	if (!s)
		return db_read_nomem(r);
	if (!*first)
		return (*first = strdup(s)) ? 0 : db_read_nomem(r);
	*mixed = strcmp(*first, s) != 0;
	return 0;
}

int trace_read_call(struct call_read *cr, struct ccsg_trace *t,
		    struct ccsg_call *c, char **mon, int *mon_mixed)
{
	/* by enum ccsg_missing - 1 */
	static const char *const missing[] = { DB_MISSING_SERVER,
					       DB_MISSING_CLIENT };
	struct db_read *r = &cr->r;
	int64_t prog, vers, proc, v;

	memset(c, 0, sizeof(*c));
	prog = db_read_int(r, DB_RPC_CALLS_PROG, 0, UINT32_MAX, 1);
	vers = db_read_int(r, DB_RPC_CALLS_VERS, 0, UINT32_MAX, 1);
	proc = db_read_int(r, DB_RPC_CALLS_PROC, 0, UINT32_MAX, 1);
	v = db_read_int(r, DB_RPC_CALLS_ONE_WAY, 0, 1, 1);
	c->one_way = v == 1;
	rd_thread(r, DB_RPC_CALLS_CLIENT_PROC_ID, &c->client_proc,
		  DB_RPC_CALLS_CLIENT_TID, &c->client_tid);
	c->symbol = rd_intern(cr, t, DB_RPC_CALLS_SITE_SYMBOL);
	c->peer = rd_intern(cr, t, DB_RPC_CALLS_PEER);
	rd_probe(r, c, CCSG_STUB_START, &c->stub_start_ns);
	rd_probe(r, c, CCSG_STUB_END, &c->stub_end_exit_ns);
	rd_thread(r, DB_RPC_CALLS_SERVER_PROC_ID, &c->server_proc,
		  DB_RPC_CALLS_SERVER_TID, &c->server_tid);
	c->server_function_id = db_read_int(r, DB_RPC_CALLS_SERVER_FUNCTION_ID,
					    0, INT64_MAX, 1);
	c->object_id = db_read_i32(r, DB_RPC_CALLS_OBJECT_ID, 0, INT32_MAX, -1);
	rd_probe(r, c, CCSG_SKEL_START, &c->skel_start_exit_ns);
	rd_probe(r, c, CCSG_SKEL_END, &c->skel_end_ns);
	/* each probe's other edge */
	c->stub_start_exit_ns =
		db_read_int(r, DB_RPC_CALLS_STUB_START_EXIT_NS, 0, MAX_NS, 1);
	c->stub_end_ns = db_read_int(r, DB_RPC_CALLS_STUB_END_NS, 0, MAX_NS, 1);
	c->skel_start_ns =
		db_read_int(r, DB_RPC_CALLS_SKEL_START_NS, 0, MAX_NS, 1);
	c->skel_end_exit_ns =
		db_read_int(r, DB_RPC_CALLS_SKEL_END_EXIT_NS, 0, MAX_NS, 1);
	c->missing =
		(uint8_t)(db_read_enum(r, DB_RPC_CALLS_MISSING, missing, 2) +
			  1);
	c->status = db_read_i32(r, DB_RPC_CALLS_STATUS, 0, INT32_MAX, -1);
	c->status_name = rd_intern(cr, t, DB_RPC_CALLS_STATUS_NAME);
	c->args_bytes =
		db_read_int(r, DB_RPC_CALLS_ARGS_BYTES, 0, INT64_MAX, 1);
	c->results_bytes =
		db_read_int(r, DB_RPC_CALLS_RESULTS_BYTES, 0, INT64_MAX, 1);
	c->reply_tag = rd_intern(cr, t, DB_RPC_CALLS_REPLY_TAG);
	c->server_args_bytes =
		db_read_int(r, DB_RPC_CALLS_SERVER_ARGS_BYTES, 0, INT64_MAX, 1);
	c->server_results_bytes = db_read_int(
		r, DB_RPC_CALLS_SERVER_RESULTS_BYTES, 0, INT64_MAX, 1);
	c->reply = (int8_t)db_read_enum(r, DB_RPC_CALLS_REPLY, ccsg_reply_names,
					CCSG_NREPLY);
	c->tag = rd_intern(cr, t, DB_RPC_CALLS_TAG);
	c->transport = rd_intern(cr, t, DB_RPC_CALLS_TRANSPORT);
	c->stub_heap[0] =
		db_read_int(r, DB_RPC_CALLS_STUB_ALLOC_BYTES, 0, MAX_BYTES, 1);
	c->stub_heap[1] =
		db_read_int(r, DB_RPC_CALLS_STUB_FREED_BYTES, 0, MAX_BYTES, 1);
	c->skel_heap[0] =
		db_read_int(r, DB_RPC_CALLS_SKEL_ALLOC_BYTES, 0, MAX_BYTES, 1);
	c->skel_heap[1] =
		db_read_int(r, DB_RPC_CALLS_SKEL_FREED_BYTES, 0, MAX_BYTES, 1);
	if (r->bad)
		return -1;
	/* the start probes give the numbers: without one, the function is
	 * unknown (its record was dropped) */
	c->lost = c->ev[CCSG_STUB_START] == CCSG_NONE &&
		  c->ev[CCSG_SKEL_START] == CCSG_NONE;
	if (!c->lost &&
	    (prog == CCSG_NONE || vers == CCSG_NONE || proc == CCSG_NONE)) {
		db_read_bad(r,
			    prog == CCSG_NONE	? DB_RPC_CALLS_PROG
			    : vers == CCSG_NONE ? DB_RPC_CALLS_VERS
						: DB_RPC_CALLS_PROC,
			    "NULL although the call has a start probe");
		return -1;
	}
	if (!c->lost) {
		c->prog = (uint32_t)prog;
		c->vers = (uint32_t)vers;
		c->proc = (uint32_t)proc;
	}
	if (c->status >= 0 && c->status_name < 0) {
		char name[32];

		snprintf(name, sizeof(name), "clnt_stat %d", c->status);
		if ((c->status_name = ccsg_trace_intern(t, name)) < 0)
			return db_read_nomem(r);
	}
	c->failed = (uint8_t)ccsg_call_failed(c);
	c->parent = -1;
	c->depth = 1;
	return note_mon(r, DB_RPC_CALLS_CLIENT_MON, mon, mon_mixed) ||
			       note_mon(r, DB_RPC_CALLS_SERVER_MON, mon,
					mon_mixed)
		       ? -1
		       : 0;
}

/*
 * The chain id: 20 bytes, a BLOB (schema version 3) or 40 lowercase hex
 * digits of TEXT (version 2, read on purpose: the same ids, in the same
 * order).
 */
static int read_chain(struct db_read *r, int version, uint8_t id[DB_CHAIN_LEN])
{
	const char *s, *what = "40 lowercase hex digits";
	const void *blob;
	char d[64];
	int n;

	if (version >= 3) {
		if (db_get_type(r, DB_RPC_CALLS_CHAIN) == SQLITE_BLOB &&
		    (blob = db_get_blob(r, DB_RPC_CALLS_CHAIN, &n)) &&
		    n == DB_CHAIN_LEN) {
			memcpy(id, blob, DB_CHAIN_LEN);
			return 0;
		}
		what = "a blob of 20 bytes";
	} else if ((s = db_read_text(r, DB_RPC_CALLS_CHAIN, 0))) {
		int k = 0;

		for (; k < DB_CHAIN_LEN && hexval(s[2 * k]) >= 0 &&
		       hexval(s[2 * k + 1]) >= 0;
		     k++)
			id[k] = (uint8_t)(hexval(s[2 * k]) << 4 |
					  hexval(s[2 * k + 1]));
		if (k == DB_CHAIN_LEN && !s[2 * k])
			return 0;
	}
	if (!r->bad)
		db_read_bad(
			r, DB_RPC_CALLS_CHAIN, "%s is not a chain id (%s)",
			db_read_describe(r, DB_RPC_CALLS_CHAIN, d, sizeof(d)),
			what);
	return -1;
}

int trace_read_call_key(struct db_read *r, int version, int64_t *id,
			uint8_t chain[DB_CHAIN_LEN])
{
	*id = db_read_int(r, DB_RPC_CALLS_CALL_ID, INT64_MIN + 1, INT64_MAX, 0);
	if (r->bad)
		return -1;
	db_read_key(r, DB_RPC_CALLS_CALL_ID, *id);
	return read_chain(r, version, chain);
}

int64_t trace_first_event(const struct ccsg_call *c)
{
	static const enum ccsg_probe order[] = { CCSG_STUB_START,
						 CCSG_SKEL_START, CCSG_SKEL_END,
						 CCSG_STUB_END };

	for (size_t i = 0; i < 4; i++)
		if (c->ev[order[i]] != CCSG_NONE)
			return c->ev[order[i]];
	return CCSG_NONE;
}

static int cmp_key(const void *a, const void *b)
{
	const struct call_key *x = a, *y = b;

	if (x->chain != y->chain)
		return x->chain < y->chain ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->call_id != y->call_id)
		return x->call_id < y->call_id ? -1 : 1;
	return 0;
}

/* Distinct chain ids, as first seen, then ranked by their bytes. */
struct chain_set {
	uint8_t (*id)[DB_CHAIN_LEN];
	size_t n, cap;
	struct hashmap map; /* hash of the id -> index */
	uint32_t *rank;	    /* index -> rank in byte order */
};

static int64_t chain_set_add(struct chain_set *cs, const uint8_t *id)
{
	uint64_t h = hash_fnv(HASH_FNV_SEED, id, DB_CHAIN_LEN);
	int32_t i;

	/* collisions move to the next key: at worst a short walk */
	for (;; h++) {
		if ((i = hashmap_get(&cs->map, h)) < 0)
			break;
		if (!memcmp(cs->id[i], id, DB_CHAIN_LEN))
			return i;
	}
	if (cs->n >= INT32_MAX || GROW(cs->id, cs->cap, cs->n + 1) ||
	    hashmap_put(&cs->map, h, (int32_t)cs->n) < 0)
		return -ENOMEM;
	memcpy(cs->id[cs->n], id, DB_CHAIN_LEN);
	return (int64_t)cs->n++;
}

static const struct chain_set *sort_set;

static int cmp_chain(const void *a, const void *b)
{
	return memcmp(sort_set->id[*(const uint32_t *)a],
		      sort_set->id[*(const uint32_t *)b], DB_CHAIN_LEN);
}

/* Rank the distinct chain ids by their bytes: 0 or -ENOMEM. */
static int chain_set_rank(struct chain_set *cs)
{
	uint32_t *order = malloc((cs->n + 1) * sizeof(*order));

	if (!order || !(cs->rank = malloc((cs->n + 1) * sizeof(*cs->rank)))) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cs->n; i++)
		order[i] = (uint32_t)i;
	sort_set = cs;
	qsort(order, cs->n, sizeof(*order), cmp_chain);
	sort_set = NULL;
	for (size_t i = 0; i < cs->n; i++)
		cs->rank[order[i]] = (uint32_t)i;
	free(order);
	return 0;
}

static void chain_set_release(struct chain_set *cs)
{
	free(cs->id);
	free(cs->rank);
	hashmap_release(&cs->map);
}

/*
 * Put the calls in key order: calls[i] becomes the call key[i] names,
 * moved along the permutation's cycles (no second array of calls).
 */
static void permute_calls(struct ccsg_trace *t, struct call_key *key)
{
	for (size_t i = 0; i < t->ncalls; i++) {
		struct ccsg_call tmp;
		size_t j = i;

		if (key[i].index == i)
			continue;
		tmp = t->calls[i];
		while (key[j].index != i) {
			size_t k = key[j].index;

			t->calls[j] = t->calls[k];
			key[j].index = (uint32_t)j;
			j = k;
		}
		t->calls[j] = tmp;
		key[j].index = (uint32_t)j;
	}
}

int trace_load_calls(struct ccsg_trace *t, sqlite3 *db, int with_mon,
		     int *mon_mixed)
{
	size_t cap = 0, kcap = 0, ccap = 0;
	struct chain_set cs = { 0 };
	struct call_key *key = NULL;
	struct call_read cr;
	char *mon = NULL, order[64];
	int ret = -1;

	*mon_mixed = 0;
	snprintf(order, sizeof(order), "ORDER BY %s",
		 DB_NAME(RPC_CALLS, CALL_ID));
	if (trace_calls_open(&cr, db, t, with_mon, order))
		return -1;
	while (db_read_next(&cr.r)) {
		struct ccsg_call *c;
		uint8_t cid[DB_CHAIN_LEN];
		int64_t id, chain;

		if (trace_read_call_key(&cr.r, t->schema_version, &id, cid))
			break;
		if (t->ncalls >= INT32_MAX ||
		    GROW(t->calls, cap, t->ncalls + 1) ||
		    GROW(key, kcap, t->ncalls + 1) ||
		    (chain = chain_set_add(&cs, cid)) < 0) {
			db_read_nomem(&cr.r);
			break;
		}
		c = &t->calls[t->ncalls];
		if (trace_read_call(&cr, t, c, &mon, mon_mixed))
			break;
		c->call_id = id;
		c->chain = (int32_t)chain;
		key[t->ncalls] =
			(struct call_key){ (uint32_t)chain, (uint32_t)t->ncalls,
					   trace_first_event(c), id };
		t->ncalls++;
	}
	if (db_read_close(&cr.r))
		goto out;
	if (chain_set_rank(&cs)) {
		fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < t->ncalls; i++)
		key[i].chain = cs.rank[key[i].chain];
	if (t->ncalls)
		qsort(key, t->ncalls, sizeof(*key), cmp_key);
	permute_calls(t, key);
	/* the chains in order, each with its run of calls */
	for (size_t i = 0; i < t->ncalls; i++) {
		if (!i || key[i].chain != key[i - 1].chain) {
			struct ccsg_chain *ch;

			if (GROW(t->chains, ccap, t->nchains + 1)) {
				fail("out of memory");
				goto out;
			}
			ch = &t->chains[t->nchains++];
			memset(ch, 0, sizeof(*ch));
			ch->first = (int32_t)i;
			ch->owner = -1;
			memcpy(ch->id, cs.id[t->calls[i].chain], DB_CHAIN_LEN);
		}
		t->chains[t->nchains - 1].n++;
		t->calls[i].chain = (int32_t)t->nchains - 1;
	}
	ret = 0;
out:
	free(mon);
	free(key);
	chain_set_release(&cs);
	return ret;
}
