/*
 * ch-calls.c - the rows of rpc_calls in a store's copy (internal.h): the
 * calls whose client and server sides were loaded apart (two hosts, two
 * loads) joined by merge's rule, in C, on their keys only: one list of
 * client sides, one of server sides, each in (new proc_id, call_id)
 * order, which is merge's (proc_id, seq) order within a load.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "hashmap.h"
#include "internal.h"
#include "side-ends.h"
#include "usage.h"

/* What the SQL text and the lists below name (db-schema.h): renamed in
 * db-schema.def, they stop the build here. */
DB_NAMED_TABLE(rpc_calls);
DB_NAMED_TABLE(meta);
DB_NAMED(RPC_CALLS, call_id);
DB_NAMED(RPC_CALLS, chain);
DB_NAMED(RPC_CALLS, missing);
DB_NAMED(RPC_CALLS, xid);
DB_NAMED(RPC_CALLS, flags);
DB_NAMED(RPC_CALLS, one_way);
DB_NAMED(RPC_CALLS, site_symbol);
DB_NAMED(RPC_CALLS, peer);
DB_NAMED(RPC_CALLS, status);
DB_NAMED(RPC_CALLS, status_name);
DB_NAMED(RPC_CALLS, args_bytes);
DB_NAMED(RPC_CALLS, results_bytes);
DB_NAMED(RPC_CALLS, reply_tag);
DB_NAMED(RPC_CALLS, object_id);
DB_NAMED(RPC_CALLS, caller_address);
DB_NAMED(RPC_CALLS, reply);
DB_NAMED(RPC_CALLS, tag);
DB_NAMED(RPC_CALLS, client_proc_id);
DB_NAMED(RPC_CALLS, server_proc_id);
DB_NAMED(RPC_CALLS, stub_start_event);
DB_NAMED(RPC_CALLS, skel_start_event);
DB_NAMED(RPC_CALLS, skel_end_event);
DB_NAMED(RPC_CALLS, stub_end_event);
DB_NAMED(PROCESSES, proc_id);

/* Which side of a call a column of rpc_calls describes. */
enum side { SHARED, CLIENT, SERVER, OWN };

static enum side column_side(const char *name)
{
	static const char *const client[] = {
		"flags",      "one_way",       "site_symbol",
		"peer",	      "status",	       "status_name",
		"args_bytes", "results_bytes", "reply_tag",
	};
	static const char *const server[] = {
		"object_id",
		"caller_address",
		"reply",
		"tag",
	};

	if (!strcmp(name, "call_id") || !strcmp(name, "missing"))
		return OWN;
	if (!strncmp(name, "client_", 7) || !strncmp(name, "stub_", 5))
		return CLIENT;
	if (!strncmp(name, "server_", 7) || !strncmp(name, "skel_", 5))
		return SERVER;
	for (size_t i = 0; i < sizeof(client) / sizeof(*client); i++)
		if (!strcmp(name, client[i]))
			return CLIENT;
	for (size_t i = 0; i < sizeof(server) / sizeof(*server); i++)
		if (!strcmp(name, server[i]))
			return SERVER;
	return SHARED; /* chain, prog, vers, proc, transport, xid */
}

struct side_key {
	/* its order: new proc_id, its segment, then call_id */
	int64_t proc, ord, call_id;
	int64_t rowid;
	uint8_t chain[DB_CHAIN_LEN];
	int64_t event;
	bool has_event; /* a start probe: the side can join */
	bool used;	/* a server joined */
	uint32_t next;	/* the next server with its key, or NONE */
};

#define NONE UINT32_MAX

struct sides {
	struct side_key *v;
	size_t n, cap;
};

static int cmp_side(const void *a, const void *b)
{
	const struct side_key *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->ord != y->ord)
		return x->ord < y->ord ? -1 : 1;
	return (x->call_id > y->call_id) - (x->call_id < y->call_id);
}

/*
 * The sides of the kept processes, in (new proc id, call_id) order (a
 * sort here, on the keys alone, is much faster than SQL's ORDER BY).
 */
static int read_sides(struct ch_copy *r, bool server, struct sides *s)
{
	char sql[512];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof(sql),
		 "SELECT x.rowid, x.chain, x.%s, %s, pm.new_id, x.call_id, "
		 "pm.ord "
		 "FROM s_rpc_calls x JOIN pmap pm ON pm.load_id = x.load_id "
		 "AND pm.proc_id = x.%s",
		 server ? "skel_start_event" : "stub_start_event",
		 server ? "x.tag = 'ok'" : "1",
		 server ? "server_proc_id" : "client_proc_id");
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return copy_fail(r, sql);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct side_key *k;
		const void *chain = sqlite3_column_blob(st, 1);

		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 1024;
			struct side_key *v = realloc(s->v, cap * sizeof(*v));

			if (!v) {
				sqlite3_finalize(st);
				return fail("out of memory");
			}
			s->v = v;
			s->cap = cap;
		}
		k = &s->v[s->n++];
		memset(k, 0, sizeof(*k));
		k->rowid = sqlite3_column_int64(st, 0);
		if (chain && sqlite3_column_bytes(st, 1) == DB_CHAIN_LEN)
			memcpy(k->chain, chain, DB_CHAIN_LEN);
		k->has_event = sqlite3_column_type(st, 2) != SQLITE_NULL &&
			       sqlite3_column_int(st, 3);
		k->event = sqlite3_column_int64(st, 2);
		k->proc = sqlite3_column_int64(st, 4);
		k->call_id = sqlite3_column_int64(st, 5);
		k->ord = sqlite3_column_int64(st, 6);
		k->next = NONE;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return copy_fail(r, "reading the calls");
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_side);
	return 0;
}

static uint64_t key_hash(const uint8_t *chain, int64_t event)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < DB_CHAIN_LEN; i++)
		h = (h ^ chain[i]) * 1099511628211ull;
	return (h ^ (uint64_t)event) * 1099511628211ull;
}

/* The first server with s's key, by linear probing from its hash. */
static int32_t find_server(const struct hashmap *map, const struct sides *sv,
			   const uint8_t *chain, int64_t event, uint64_t *h)
{
	int32_t j;

	for (*h = key_hash(chain, event);; (*h)++) {
		if ((j = hashmap_get(map, *h)) < 0)
			return -1;
		if (!memcmp(sv->v[j].chain, chain, DB_CHAIN_LEN) &&
		    sv->v[j].event == event)
			return j;
	}
}

/* One row of pairs: client c and server s, as rowids (-1: none). */
static int add_pair(struct ch_copy *r, sqlite3_stmt *st, int64_t c, int64_t s)
{
	if (c < 0)
		sqlite3_bind_null(st, 1);
	else
		sqlite3_bind_int64(st, 1, c);
	if (s < 0)
		sqlite3_bind_null(st, 2);
	else
		sqlite3_bind_int64(st, 2, s);
	if (sqlite3_step(st) != SQLITE_DONE)
		return copy_fail(r, "pairs");
	sqlite3_reset(st);
	return 0;
}

/*
 * pairs(seq, c, s): the rows of rpc_calls in order, as rowids of staged
 * rows: each client side with the first unused server side of its key
 * (or none), then the server sides left alone.
 */
static int join_sides(struct ch_copy *r, struct sides *cl, struct sides *sv)
{
	struct hashmap map = { 0 };
	uint32_t *tail = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (copy_exec(r, "DROP TABLE IF EXISTS pairs; CREATE TABLE pairs(seq "
			 "INTEGER PRIMARY KEY, c, s)"))
		return -1;
	tail = calloc(sv->n ? sv->n : 1, sizeof(*tail));
	if (!tail) {
		fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < sv->n; i++) {
		struct side_key *s = &sv->v[i];
		uint64_t h;
		int32_t j;

		if (!s->has_event)
			continue;
		j = find_server(&map, sv, s->chain, s->event, &h);
		if (j < 0) {
			if (hashmap_put(&map, h, (int32_t)i) < 0) {
				fail("out of memory");
				goto out;
			}
			tail[i] = (uint32_t)i;
		} else {
			sv->v[tail[j]].next = (uint32_t)i;
			tail[j] = (uint32_t)i;
		}
	}
	if (sqlite3_prepare_v2(r->db, "INSERT INTO pairs(c, s) VALUES(?, ?)",
			       -1, &st, NULL) != SQLITE_OK) {
		copy_fail(r, "pairs");
		goto out;
	}
	for (size_t i = 0; i < cl->n; i++) {
		const struct side_key *c = &cl->v[i];
		uint32_t k = NONE;
		uint64_t h;

		if (c->has_event) {
			int32_t j = find_server(&map, sv, c->chain,
						c->event + 1, &h);

			for (k = j < 0 ? NONE : (uint32_t)j;
			     k != NONE && sv->v[k].used; k = sv->v[k].next)
				;
		}
		if (k != NONE)
			sv->v[k].used = true;
		if (add_pair(r, st, c->rowid, k != NONE ? sv->v[k].rowid : -1))
			goto out;
	}
	for (size_t i = 0; i < sv->n; i++)
		if (!sv->v[i].used && add_pair(r, st, -1, sv->v[i].rowid))
			goto out;
	ret = 0;
out:
	sqlite3_finalize(st);
	hashmap_release(&map);
	free(tail);
	return ret;
}

/* A column both sides have: the client's unless only the server started. */
static void shared_column(FILE *f, const char *name)
{
	fprintf(f,
		"CASE WHEN c.stub_start_event IS NOT NULL "
		"OR s.rowid IS NULL THEN c.%s ELSE s.%s END",
		name, name);
}

/*
 * A side cut by a segment boundary (its process loaded a segment a load,
 * by `tracedump merge --follow`): the later segment's end-only row folded
 * into the open row of the same process and function id of an earlier
 * one, each row in one pair at most (follow-copy.h's rule).
 */
static int fold_cuts(struct ch_copy *r, bool server)
{
	const char *side = server ? "server" : "client",
		   *probe = server ? "skel" : "stub",
		   *cols = server ? SKEL_END_COLS : STUB_END_COLS;
	char *sql = NULL;
	size_t n;
	FILE *f = open_memstream(&sql, &n);

	if (!f)
		return fail("out of memory");
	fprintf(f,
		"CREATE INDEX IF NOT EXISTS s_open_%s ON s_rpc_calls(load_id, "
		"%s_proc_id, %s_function_id) WHERE %s_end_event IS NULL;"
		"DROP TABLE IF EXISTS cuts;"
		"CREATE TABLE cuts(keep INTEGER PRIMARY KEY, gone UNIQUE);"
		"INSERT OR IGNORE INTO cuts SELECT o.rowid, e.rowid "
		"FROM s_rpc_calls e JOIN pmap pn ON pn.load_id = e.load_id AND "
		"pn.proc_id = e.%s_proc_id "
		"JOIN pmap po ON po.new_id = pn.new_id AND po.ord < pn.ord "
		"JOIN s_rpc_calls o ON o.load_id = po.load_id AND "
		"o.%s_proc_id = po.proc_id AND o.%s_function_id = "
		"e.%s_function_id AND o.%s_end_event IS NULL AND "
		"o.%s_start_event IS NOT NULL "
		"WHERE e.%s_start_event IS NULL AND e.%s_end_event IS NOT NULL "
		"ORDER BY pn.ord, e.call_id, po.ord, o.call_id;"
		"UPDATE s_rpc_calls SET (%s) = (SELECT %s FROM cuts c JOIN "
		"s_rpc_calls e ON e.rowid = c.gone WHERE c.keep = "
		"s_rpc_calls.rowid) WHERE rowid IN (SELECT keep FROM cuts);"
		"DELETE FROM s_rpc_calls WHERE rowid IN (SELECT gone FROM "
		"cuts)",
		side, side, side, probe, side, side, side, side, probe, probe,
		probe, probe, cols, cols);
	return copy_exec_built(r, f, &sql);
}

/* The rows of rpc_calls from the pairs. */
int copy_calls(struct ch_copy *r)
{
	const struct db_table_def *d = &db_tables[DB_RPC_CALLS];
	struct sides cl = { 0 }, sv = { 0 };
	char *sql = NULL;
	size_t n;
	FILE *f;
	int ret = -1;

	if (fold_cuts(r, false) || fold_cuts(r, true) ||
	    read_sides(r, false, &cl) || read_sides(r, true, &sv) ||
	    join_sides(r, &cl, &sv))
		goto out;
	f = open_memstream(&sql, &n);
	if (!f) {
		fail("out of memory");
		goto out;
	}
	fputs("INSERT INTO rpc_calls SELECT ", f);
	for (int i = 0; i < d->ncols; i++) {
		const char *name = d->cols[i].name;

		fputs(i ? ", " : "", f);
		if (!strcmp(name, "call_id")) {
			/* in chain order, as merge numbers them
			 * (DB_META_CALLS_ORDER), pairs' order for ties */
			fputs("row_number() OVER (ORDER BY ", f);
			shared_column(f, "chain");
			fprintf(f,
				", coalesce(c.stub_start_event, "
				"s.skel_start_event, "
				"s.skel_end_event, c.stub_end_event), pr.seq) "
				"+ %lld",
				(long long)r->calls);
		} else if (!strcmp(name, "missing"))
			fputs("CASE WHEN pr.c IS NULL THEN 'client' WHEN pr.s "
			      "IS NULL THEN 'server' END",
			      f);
		else if (!strcmp(name, "client_proc_id"))
			fputs("pc.new_id", f);
		else if (!strcmp(name, "server_proc_id"))
			fputs("ps.new_id", f);
		else if (!strcmp(name, "xid"))
			/* the stub learns the xid only while encoding */
			fputs("coalesce(nullif(c.xid, 0), s.xid, c.xid)", f);
		else if (column_side(name) == SHARED)
			shared_column(f, name);
		else
			fprintf(f, "%s.%s",
				column_side(name) == CLIENT ? "c" : "s", name);
	}
	fputs(" FROM pairs pr"
	      " LEFT JOIN s_rpc_calls c ON c.rowid = pr.c"
	      " LEFT JOIN s_rpc_calls s ON s.rowid = pr.s"
	      " LEFT JOIN pmap pc ON pc.load_id = c.load_id"
	      "  AND pc.proc_id = c.client_proc_id"
	      " LEFT JOIN pmap ps ON ps.load_id = s.load_id"
	      "  AND ps.proc_id = s.server_proc_id"
	      ";"
	      "INSERT OR REPLACE INTO meta VALUES('" DB_META_CALLS_ORDER
	      "', '" DB_CALLS_ORDER_CHAIN "')",
	      f);
	ret = copy_exec_built(r, f, &sql);
	if (!ret) { /* the next range's ids follow this one's */
		sqlite3_stmt *st;

		if (sqlite3_prepare_v2(r->db, "SELECT count(*) FROM rpc_calls",
				       -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			ret = copy_fail(r, "count the calls");
		} else {
			r->calls += sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
		}
	}
out:
	free(sql);
	free(cl.v);
	free(sv.v);
	return ret;
}
