/*
 * ch-read.c - a ClickHouse store as an SQLite file to read (store.h):
 * the whole copy (store_sqlite_path()), or all but the calls, which come
 * range of chains by range (store_stream_open()).  ch-copy.c stages and
 * maps the tables, ch-calls.c joins the calls.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "array.h"
#include "ch-store.h"
#include "clickhouse.h"
#include "db-clickhouse.h"
#include "hex.h"
#include "internal.h"
#include "rowbinary.h"
#include "store.h"
#include "tmp-cleanup.h"
#include "usage.h"

/* What the SQL text below names (db-schema.h): renamed in db-schema.def,
 * they stop the build here. */
DB_NAMED_TABLE(rpc_calls);
DB_NAMED(RPC_CALLS, chain);
DB_NAMED(RPC_CALLS, stub_start_event);
DB_NAMED(RPC_CALLS, skel_start_event);
DB_NAMED(RPC_CALLS, skel_end_event);
DB_NAMED(RPC_CALLS, stub_end_event);

/* The one copy a process makes (a command reads one store). */
static struct copy {
	char url[4096];
	struct tmp_file file;
} made;

/* The copy into r->db; without calls, rpc_calls stays empty and nothing
 * is staged for it (store_stream_next() does, range by range).  0, or -1
 * after fail(). */
static int copy_store(struct ch_copy *r, bool calls)
{
	if (copy_tables(r, calls) || (calls && copy_calls(r)))
		return -1;
	/* the staging tables stay: the copy lives as long as the command,
	 * and dropping 600 MB of them (1M calls) only costs time */
	return copy_schema(r, DB_SQL_INDEXES) || copy_exec(r, "COMMIT") ? -1
									: 0;
}

const char *store_sqlite_path(const char *db)
{
	struct ch_copy r = { 0 };
	struct store_url u;
	char why[512];
	int failed;

	if (!store_is_url(db))
		return db;
	if (made.file.path[0] && !strcmp(made.url, db))
		return made.file.path;
	if (store_url_parse(db, &u, why, sizeof(why))) {
		fail("%s", why);
		return NULL;
	}
	tmp_file_remove(&made.file);
	/* removed at exit, and if the command is interrupted */
	if (tmp_file_make(&made.file, "causal-store", "trace.db"))
		return NULL;
	snprintf(made.url, sizeof(made.url), "%s", db);
	r.shown = u.shown;
	r.ch = ch_open(&u);
	if (!r.ch) {
		fail("out of memory");
		tmp_file_remove(&made.file);
		return NULL;
	}
	if (sqlite3_open(made.file.path, &r.db) != SQLITE_OK)
		failed = copy_fail(&r, "open");
	else
		failed = copy_store(&r, true);
	sqlite3_close(r.db);
	ch_close(r.ch);
	if (failed) {
		tmp_file_remove(&made.file);
		return NULL;
	}
	return made.file.path;
}

void store_sqlite_forget(void)
{
	tmp_file_remove(&made.file);
	made.url[0] = '\0';
}

int store_finished_loads(const char *db, uint64_t *count, uint64_t *newest,
			 char *err, size_t len)
{
	struct ch_client *c;
	struct store_url u;
	char *text = NULL;
	int ret = -1;

	*count = *newest = 0;
	if (store_url_parse(db, &u, err, len))
		return -1;
	if (!(c = ch_open(&u))) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	/* no loads table: nothing loaded yet */
	text = ch_select_text(c, "SELECT count() FROM system.tables WHERE "
				 "database = currentDatabase() AND name = "
				 "'loads'");
	if (text && !strcmp(text, "0")) {
		ret = 0;
	} else if (text) {
		free(text);
		text = ch_select_text(c, "SELECT count(), max(load_id) FROM "
					 "loads WHERE state = 'finished' "
					 "FORMAT TabSeparated");
		if (text &&
		    sscanf(text, "%" SCNu64 "\t%" SCNu64, count, newest) == 2)
			ret = 0;
		else if (text)
			snprintf(err, len, "%s: cannot read its loads: '%.64s'",
				 u.shown, text);
	}
	if (!text)
		snprintf(err, len, "%s", ch_error(c));
	free(text);
	ch_close(c);
	return ret;
}

/* ---- the calls, range of chains by range ------------------------------- */

/* Sides (rows of rpc_calls) staged at once: whole chains, or a range of
 * a longer chain.  A report of 100,000 calls from the store peaks at 23
 * MB one chain a range, 86 MB at 64 Ki sides, 129 MB all at once, in
 * about the same time: 16 Ki. */
#define BATCH_SIDES 16384
/* Chains asked for at once when choosing the ranges. */
#define PAGE_CHAINS 4096

/* The tests take smaller ranges and pages with CAUSAL_TEST_STORE_BATCH
 * (sides) and CAUSAL_TEST_STORE_PAGE (chains). */
static uint64_t test_size(const char *name, uint64_t size)
{
	const char *v = getenv(name);
	uint64_t n = v && *v ? strtoull(v, NULL, 10) : 0;

	return n && n <= size ? n : size;
}

/* The next chains and their sides: (chain, count) rows in RowBinary. */
struct chain_page {
	struct ch_client *ch;
	struct rb_buf buf;
	uint8_t (*id)[DB_CHAIN_LEN];
	uint64_t *sides;
	size_t n, next; /* chains in it, the first not read yet */
	size_t size;	/* chains asked for */
};

struct store_stream {
	struct ch_copy r;
	struct store_url u;
	struct chain_page pg;
	struct tmp_file file; /* its copy, removed when it closes */
	char share[96];	      /* " AND <the share's WHERE>", or "" */
	bool started;
	/* a chain of more sides than a range holds, read in ranges of
	 * ROW_KEY: the bounds between them, the next one's */
	bool splitting;
	int64_t *bound;
	size_t nbound, cap_bound, next_bound;
};

/*
 * Where a row of rpc_calls stands in its chain, for cutting a long chain
 * into ranges: its first event, a server side's skeleton start less one,
 * so that the two sides of a call (loaded apart) share it and land in
 * one range to be joined; -1 without any event.
 */
#define ROW_KEY                                                                \
	"coalesce(stub_start_event, skel_start_event - 1, skel_end_event, "    \
	"stub_end_event, -1)"

static int on_page(const char *p, size_t n, void *arg)
{
	struct chain_page *pg = arg;
	struct rb_reader rd;

	rb_put(&pg->buf, p, n);
	if (pg->buf.oom)
		return ch_fail(pg->ch, "out of memory");
	rd.p = pg->buf.p;
	rd.end = pg->buf.p + pg->buf.len;
	for (;;) {
		const unsigned char *at = rd.p, *id;
		size_t len;
		uint64_t count;

		if (rb_get_string(&rd, &id, &len) || rb_get_u64(&rd, &count)) {
			rd.p = at;
			break;
		}
		if (len != DB_CHAIN_LEN || pg->n >= pg->size)
			return ch_fail(pg->ch, "a chain id of %zu bytes", len);
		memcpy(pg->id[pg->n], id, DB_CHAIN_LEN);
		pg->sides[pg->n++] = count;
	}
	pg->buf.len = (size_t)(rd.end - rd.p);
	memmove(pg->buf.p, rd.p, pg->buf.len);
	return 0;
}

/* The chains after the page's last, up to PAGE_CHAINS, in its place.
 * 0 or -1. */
static int next_page(struct store_stream *s)
{
	struct chain_page *pg = &s->pg;
	char sql[512], after[2 * DB_CHAIN_LEN + 1] = "";

	if (pg->n)
		hex_encode(after, pg->id[pg->n - 1], DB_CHAIN_LEN);
	snprintf(sql, sizeof(sql),
		 "SELECT chain, count() FROM rpc_calls "
		 "WHERE " CH_OF_FINISHED_LOADS
		 "%s%s%s%s GROUP BY chain ORDER BY "
		 "chain LIMIT %zu FORMAT RowBinary",
		 pg->n ? " AND chain > unhex('" : "", after, pg->n ? "')" : "",
		 s->share, pg->size);
	pg->n = pg->next = 0;
	if (ch_select(s->r.ch, sql, on_page, pg))
		return fail("%s", ch_error(s->r.ch));
	if (pg->buf.len)
		return fail(
			"%s: the list of chains ends in the middle of a row",
			s->r.shown);
	return 0;
}

const char *store_stream_open(const char *db, unsigned share, unsigned shares,
			      struct store_stream **out)
{
	struct store_stream *s;
	char why[512];

	*out = NULL;
	if (!(s = calloc(1, sizeof(*s))) ||
	    !(s->pg.id = malloc(PAGE_CHAINS * sizeof(*s->pg.id))) ||
	    !(s->pg.sides = malloc(PAGE_CHAINS * sizeof(*s->pg.sides)))) {
		fail("out of memory");
		store_stream_close(s);
		return NULL;
	}
	if (store_url_parse(db, &s->u, why, sizeof(why))) {
		fail("%s", why);
		store_stream_close(s);
		return NULL;
	}
	if (tmp_file_make(&s->file, "causal-store", "trace.db")) {
		store_stream_close(s);
		return NULL;
	}
	if (shares > 1)
		snprintf(s->share, sizeof(s->share),
			 " AND " DB_CH_CHAIN_SHARD " %% %u = %u", shares,
			 share);
	s->r.shown = s->u.shown;
	s->pg.size = test_size("CAUSAL_TEST_STORE_PAGE", PAGE_CHAINS);
	s->pg.ch = s->r.ch = ch_open(&s->u);
	if (!s->r.ch) {
		fail("out of memory");
	} else if (sqlite3_open(s->file.path, &s->r.db) != SQLITE_OK) {
		copy_fail(&s->r, "open");
	} else if (!copy_store(&s->r, false)) {
		*out = s;
		return s->file.path;
	}
	store_stream_close(s);
	return NULL;
}

/*
 * The keys that cut chain id (hex) in ranges of batch rows, in one query
 * (the chain's keys sorted on the server, every batch-th kept), strictly
 * increasing: rows of one key (a call run many times) stay together.
 * 0, or -1 after fail().
 */
static int chain_bounds(struct store_stream *s, const char *id, uint64_t batch)
{
	char sql[1024], *text, *p;

	snprintf(sql, sizeof(sql),
		 "SELECT arrayJoin(arrayFilter((x, i) -> i > 1 AND (i - 1) %% "
		 "%llu = 0, k, arrayEnumerate(k))) FROM (SELECT "
		 "arraySort(groupArray(" ROW_KEY
		 ")) AS k FROM rpc_calls WHERE " CH_OF_FINISHED_LOADS
		 " AND chain = unhex('%s')%s) FORMAT "
		 "TabSeparated",
		 (unsigned long long)batch, id, s->share);
	if (!(text = ch_select_text(s->r.ch, sql)))
		return fail("%s", ch_error(s->r.ch));
	s->nbound = s->next_bound = 0;
	for (p = text; *p;) {
		char *end;
		int64_t v = strtoll(p, &end, 10);

		if (end == p || (*end && *end != '\n')) {
			fail("%s: an answer that is not a list of numbers: "
			     "'%.40s'",
			     s->r.shown, p);
			free(text);
			return -1;
		}
		p = *end ? end + 1 : end;
		if (s->nbound && v <= s->bound[s->nbound - 1])
			continue;
		if (GROW(s->bound, s->cap_bound, s->nbound + 1)) {
			free(text);
			return fail("out of memory");
		}
		s->bound[s->nbound++] = v;
	}
	free(text);
	return 0;
}

/*
 * The next range of the long chain id, batch sides or so: into where.
 * The last one moves the page on.  0, or -1 after fail().
 */
static int chain_range(struct store_stream *s, const uint8_t *id,
		       uint64_t batch, char *where, size_t len)
{
	char hexid[2 * DB_CHAIN_LEN + 1], from[160] = "", to[160] = "";
	size_t b;

	hex_encode(hexid, id, DB_CHAIN_LEN);
	if (!s->splitting) {
		if (chain_bounds(s, hexid, batch))
			return -1;
		s->splitting = true;
	}
	b = s->next_bound++;
	if (b)
		snprintf(from, sizeof(from), " AND " ROW_KEY " >= %lld",
			 (long long)s->bound[b - 1]);
	if (b < s->nbound)
		snprintf(to, sizeof(to), " AND " ROW_KEY " < %lld",
			 (long long)s->bound[b]);
	else { /* its last range */
		s->splitting = false;
		s->pg.next++;
	}
	snprintf(where, len, "chain = unhex('%s')%s%s%s", hexid, s->share, from,
		 to);
	return 0;
}

int store_stream_next(struct store_stream *s)
{
	struct chain_page *pg = &s->pg;
	char where[512], lo[2 * DB_CHAIN_LEN + 1], hi[2 * DB_CHAIN_LEN + 1];
	uint64_t sides = 0,
		 batch = test_size("CAUSAL_TEST_STORE_BATCH", BATCH_SIDES);
	size_t k;

	/* a page read to its end: the next, unless it was the last */
	if (pg->next == pg->n) {
		if (s->started && pg->n < pg->size)
			return 0;
		if (next_page(s))
			return -1;
		s->started = true;
		if (!pg->n)
			return 0;
	}
	if (s->splitting || pg->sides[pg->next] > batch) {
		/* a chain longer than a range: a range of it */
		if (chain_range(s, pg->id[pg->next], batch, where,
				sizeof(where)))
			return -1;
	} else {
		/* whole chains, up to BATCH_SIDES sides */
		for (k = pg->next; k < pg->n && sides + pg->sides[k] <= batch;
		     k++)
			sides += pg->sides[k];
		hex_encode(lo, pg->id[pg->next], DB_CHAIN_LEN);
		hex_encode(hi, pg->id[k - 1], DB_CHAIN_LEN);
		pg->next = k;
		snprintf(where, sizeof(where),
			 "chain >= unhex('%s') AND chain <= unhex('%s')%s", lo,
			 hi, s->share);
	}
	if (copy_exec(&s->r,
		      "BEGIN; DROP TABLE IF EXISTS s_rpc_calls; DELETE FROM "
		      "rpc_calls") ||
	    copy_stage(&s->r, DB_RPC_CALLS, where) || copy_calls(&s->r) ||
	    copy_exec(&s->r, "COMMIT"))
		return -1;
	return 1;
}

int store_stream_all_calls(struct store_stream *s)
{
	/* every share's: the ids are those of the whole trace */
	s->r.calls = 0;
	return copy_exec(&s->r,
			 "BEGIN; DROP TABLE IF EXISTS s_rpc_calls; DELETE "
			 "FROM rpc_calls") ||
			       copy_stage(&s->r, DB_RPC_CALLS, NULL) ||
			       copy_calls(&s->r) || copy_exec(&s->r, "COMMIT")
		       ? -1
		       : 0;
}

void store_stream_close(struct store_stream *s)
{
	if (!s)
		return;
	sqlite3_close(s->r.db);
	tmp_file_remove(&s->file);
	ch_close(s->r.ch);
	free(s->bound);
	free(s->pg.id);
	free(s->pg.sides);
	rb_release(&s->pg.buf);
	free(s);
}
