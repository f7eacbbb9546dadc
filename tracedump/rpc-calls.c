/*
 * rpc-calls.c - one row per Sun RPC call from the four probes of its
 * client and server sides.  See rpc-calls.h for the joining rule.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "causal/log-format.h"
#include "rpc-calls.h"
#include "schema.h"

#define NONE SIZE_MAX
#define NO_STR 0	/* strings[0] is a placeholder: offset 0 is "none" */

/* One probe with the fields of its type; the others stay 0. */
struct rpc_probe {
	int64_t proc_id;
	uint64_t seq, tid, function, event;
	uint64_t mono, mono_exit, cpu;
	uint64_t prog, vers, proc, transport, xid;
	uint64_t id;			/* stub start: site; skel start: object */
	uint64_t flags, args_bytes, results_bytes;
	uint64_t status;		/* stub end: clnt_stat; skel end: reply */
	uint64_t tag;			/* stub end: reply_tag; skel start: tag */
	size_t addr;			/* strings offset of the peer, or NO_STR */
	uint64_t alloc_bytes, freed_bytes; /* heap counters, at heap_epoch */
	unsigned type;
	unsigned mon_off;    /* CAUSAL_MONTYPE_* not measured */
	uint32_t heap_epoch; /* 0: not counted */
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
};

struct rpc_site {
	int64_t proc_id;
	uint64_t site_id, seq;
	size_t symbol;			/* strings offset */
};

/* A start and its end, by index into probes; either may be NONE. */
struct side {
	size_t start, end;
	size_t peer;			/* joined side (index into sides), or NONE */
	bool used;
};

void rpc_calls_init(struct rpc_calls *rc)
{
	memset(rc, 0, sizeof(*rc));
}

void rpc_calls_release(struct rpc_calls *rc)
{
	free(rc->probes);
	free(rc->sites);
	free(rc->strings);
	memset(rc, 0, sizeof(*rc));
}

/* Copy s (n bytes) into the string arena; its offset in *off. */
static int add_string(struct rpc_calls *rc, const char *s, size_t n, size_t *off)
{
	size_t need = rc->n_strings + n + 1 + (rc->n_strings ? 0 : 1);

	if (GROW(rc->strings, rc->cap_strings, need))
		return -ENOMEM;
	if (!rc->n_strings)
		rc->strings[rc->n_strings++] = '\0';
	*off = rc->n_strings;
	memcpy(rc->strings + rc->n_strings, s, n);
	rc->strings[rc->n_strings + n] = '\0';
	rc->n_strings += n + 1;
	return 0;
}

static int add_addr(struct rpc_calls *rc, const struct record_bin *b, size_t *off)
{
	char buf[RECORD_SOCKADDR_MAX];

	*off = NO_STR;
	if (!b->ptr)
		return 0;
	record_sockaddr(buf, b->ptr, b->len);
	return add_string(rc, buf, strlen(buf), off);
}

/* The heap fields of a probe record (the same in the four types). */
#define TAKE_HEAP(p, m)                                                        \
	do {                                                                   \
		(p)->heap_epoch = (uint32_t)(m).heap_epoch;                    \
		(p)->alloc_bytes = (m).alloc_bytes;                            \
		(p)->freed_bytes = (m).freed_bytes;                            \
	} while (0)

static void take_common(struct rpc_probe *p, const struct record_rpc *r)
{
	memcpy(p->chain, r->chain, CAUSAL_CHAIN_ID_LEN);
	p->event = r->event;
	p->function = r->function;
	p->mono_exit = r->mono_exit_ns;
	p->cpu = r->cpu_ns;
}

int rpc_calls_add(struct rpc_calls *rc, int64_t proc_id, uint64_t seq,
		  const struct record *r)
{
	struct rpc_probe *p;

	if (r->type == CAUSAL_REC_RPC_SITE) {
		struct rpc_site *s;

		if (GROW(rc->sites, rc->cap_sites, rc->n_sites + 1))
			return -ENOMEM;
		s = &rc->sites[rc->n_sites];
		*s = (struct rpc_site){ proc_id, r->rpc_site.site_id, seq, NO_STR };
		if (add_string(rc, r->rpc_site.symbol.ptr, r->rpc_site.symbol.len,
			       &s->symbol))
			return -ENOMEM;
		rc->n_sites++;
		return 0;
	}
	if (!record_rpc_kind(r->type))
		return 0;
	if (GROW(rc->probes, rc->cap_probes, rc->n_probes + 1))
		return -ENOMEM;
	p = &rc->probes[rc->n_probes];
	memset(p, 0, sizeof(*p));
	p->proc_id = proc_id;
	p->seq = seq;
	p->tid = r->tid;
	p->mono = r->mono_ns;
	p->type = r->type;
	switch (r->type) {
	case CAUSAL_REC_RPC_STUB_START:
		take_common(p, &r->stub_start.p);
		TAKE_HEAP(p, r->stub_start);
		p->prog = r->stub_start.prog;
		p->vers = r->stub_start.vers;
		p->proc = r->stub_start.proc;
		p->transport = r->stub_start.transport;
		p->id = r->stub_start.site_id;
		p->xid = r->stub_start.xid;
		p->flags = r->stub_start.flags;
		p->mon_off = (unsigned)r->stub_start.mon_off;
		if (add_addr(rc, &r->stub_start.peer, &p->addr))
			return -ENOMEM;
		break;
	case CAUSAL_REC_RPC_STUB_END:
		take_common(p, &r->stub_end.p);
		TAKE_HEAP(p, r->stub_end);
		p->status = r->stub_end.status;
		p->args_bytes = r->stub_end.args_bytes;
		p->results_bytes = r->stub_end.results_bytes;
		p->tag = r->stub_end.reply_tag;
		/* whether the tag went out is known only at the stub's end */
		p->flags = r->stub_end.tag_sent ? CAUSAL_RPC_TAG_SENT : 0;
		p->mon_off = (unsigned)r->stub_end.mon_off;
		break;
	case CAUSAL_REC_RPC_SKEL_START:
		take_common(p, &r->skel_start.p);
		TAKE_HEAP(p, r->skel_start);
		p->prog = r->skel_start.prog;
		p->vers = r->skel_start.vers;
		p->proc = r->skel_start.proc;
		p->transport = r->skel_start.transport;
		p->id = r->skel_start.object_id;
		p->xid = r->skel_start.xid;
		p->args_bytes = r->skel_start.args_bytes;
		p->tag = r->skel_start.tag;
		p->mon_off = (unsigned)r->skel_start.mon_off;
		if (add_addr(rc, &r->skel_start.peer, &p->addr))
			return -ENOMEM;
		break;
	case CAUSAL_REC_RPC_SKEL_END:
		take_common(p, &r->skel_end.p);
		TAKE_HEAP(p, r->skel_end);
		p->status = r->skel_end.reply;
		p->results_bytes = r->skel_end.results_bytes;
		p->mon_off = (unsigned)r->skel_end.mon_off;
		break;
	}
	rc->n_probes++;
	return 0;
}

static bool is_server(unsigned type)
{
	return type == CAUSAL_REC_RPC_SKEL_START || type == CAUSAL_REC_RPC_SKEL_END;
}

static bool is_start(unsigned type)
{
	return type == CAUSAL_REC_RPC_STUB_START || type == CAUSAL_REC_RPC_SKEL_START;
}

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

/*
 * The join: sides made of the probes, then matched client to server.  It
 * is the context of the qsort_r() comparators below, which sort indexes
 * into probes and sides.
 */
struct join {
	const struct rpc_probe *probes;
	size_t *order; /* probes in pairing order */
	struct side *sides;
	size_t n_sides;
	size_t *clients, *servers; /* client / server sides in row order */
	size_t n_clients, n_servers;
	size_t *keyed; /* server sides with a tag, by their key */
	size_t n_keyed;
};

/* Pairing order: the two probes of one side become neighbours. */
static int cmp_pairing(const void *a, const void *b, void *arg)
{
	const struct join *j = arg;
	const struct rpc_probe *x = &j->probes[*(const size_t *)a];
	const struct rpc_probe *y = &j->probes[*(const size_t *)b];

	CMP(x->proc_id, y->proc_id);
	CMP(is_server(x->type), is_server(y->type));
	CMP(x->function, y->function);
	CMP(x->seq, y->seq);
	return 0;
}

static const struct rpc_probe *first_probe(const struct rpc_probe *probes,
					   const struct side *s)
{
	return &probes[s->start != NONE ? s->start : s->end];
}

/* Row order: by process, then by the side's first record. */
static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct join *j = arg;
	const struct rpc_probe *x =
		first_probe(j->probes, &j->sides[*(const size_t *)a]);
	const struct rpc_probe *y =
		first_probe(j->probes, &j->sides[*(const size_t *)b]);

	CMP(x->proc_id, y->proc_id);
	CMP(x->seq, y->seq);
	return 0;
}

/* Server sides by the (chain, event) their client had, minus one. */
static int cmp_server_key(const void *a, const void *b, void *arg)
{
	const struct join *j = arg;
	const struct rpc_probe *x =
		&j->probes[j->sides[*(const size_t *)a].start];
	const struct rpc_probe *y =
		&j->probes[j->sides[*(const size_t *)b].start];
	int c = memcmp(x->chain, y->chain, CAUSAL_CHAIN_ID_LEN);

	if (c)
		return c;
	CMP(x->event, y->event);
	CMP(x->proc_id, y->proc_id);
	CMP(x->seq, y->seq);
	return 0;
}

/* First index in keyed whose server start is >= (chain, event). */
static size_t lower_bound(const struct join *j, const uint8_t *chain,
			  uint64_t event)
{
	size_t lo = 0, hi = j->n_keyed;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rpc_probe *p =
			&j->probes[j->sides[j->keyed[mid]].start];
		int c = memcmp(p->chain, chain, CAUSAL_CHAIN_ID_LEN);

		if (c < 0 || (c == 0 && p->event < event))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_site(const void *a, const void *b)
{
	const struct rpc_site *x = a, *y = b;

	CMP(x->proc_id, y->proc_id);
	CMP(x->site_id, y->site_id);
	CMP(x->seq, y->seq);
	return 0;
}

/* The symbol of the first RPC_SITE record for (proc_id, site_id). */
static const char *site_symbol(const struct rpc_calls *rc, int64_t proc_id,
			       uint64_t site_id)
{
	size_t lo = 0, hi = rc->n_sites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rpc_site *s = &rc->sites[mid];

		if (s->proc_id < proc_id ||
		    (s->proc_id == proc_id && s->site_id < site_id))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < rc->n_sites && rc->sites[lo].proc_id == proc_id &&
	    rc->sites[lo].site_id == site_id)
		return rc->strings + rc->sites[lo].symbol;
	return NULL;
}

/* Pair starts with ends into sides (order: the probes, sorted). */
static void make_sides(struct join *j, size_t n)
{
	const struct rpc_probe *probes = j->probes;

	for (size_t i = 0; i < n; i++)
		j->order[i] = i;
	qsort_r(j->order, n, sizeof(*j->order), cmp_pairing, j);
	j->n_sides = 0;
	for (size_t i = 0; i < n; i++) {
		const struct rpc_probe *p = &probes[j->order[i]];
		struct side *s = &j->sides[j->n_sides++];

		*s = (struct side){ NONE, NONE, NONE, false };
		if (!is_start(p->type)) {
			s->end = j->order[i]; /* its start was lost */
			continue;
		}
		s->start = j->order[i];
		if (i + 1 < n) {
			const struct rpc_probe *q = &probes[j->order[i + 1]];

			if (!is_start(q->type) && q->proc_id == p->proc_id &&
			    is_server(q->type) == is_server(p->type) &&
			    q->function == p->function)
				s->end = j->order[++i];
		}
	}
}

/* Client and server sides in row order; tagged server sides by key. */
static void sort_sides(struct join *j)
{
	for (size_t i = 0; i < j->n_sides; i++) {
		const struct rpc_probe *p =
			first_probe(j->probes, &j->sides[i]);

		if (!is_server(p->type)) {
			j->clients[j->n_clients++] = i;
		} else {
			j->servers[j->n_servers++] = i;
			/* An untagged call started a chain of its own. */
			if (j->sides[i].start != NONE &&
			    p->tag == CAUSAL_TAG_OK)
				j->keyed[j->n_keyed++] = i;
		}
	}
	qsort_r(j->clients, j->n_clients, sizeof(*j->clients), cmp_row, j);
	qsort_r(j->servers, j->n_servers, sizeof(*j->servers), cmp_row, j);
	qsort_r(j->keyed, j->n_keyed, sizeof(*j->keyed), cmp_server_key, j);
}

/* Give each client side its server: the first unused one with its key. */
static void match_sides(struct join *j)
{
	for (size_t i = 0; i < j->n_clients; i++) {
		struct side *c = &j->sides[j->clients[i]];
		const struct rpc_probe *p;

		if (c->start == NONE)
			continue;
		p = &j->probes[c->start];
		for (size_t k = lower_bound(j, p->chain, p->event + 1);
		     k < j->n_keyed; k++) {
			struct side *s = &j->sides[j->keyed[k]];
			const struct rpc_probe *q = &j->probes[s->start];

			if (memcmp(q->chain, p->chain, CAUSAL_CHAIN_ID_LEN) ||
			    q->event != p->event + 1)
				break;
			if (!s->used) {
				s->used = true;
				c->peer = j->keyed[k];
				break;
			}
		}
	}
}

static void join_release(struct join *j)
{
	free(j->order);
	free(j->sides);
	free(j->clients);
	free(j->servers);
	free(j->keyed);
	memset(j, 0, sizeof(*j));
}

/* Join what was added (n_probes > 0); 0 or -ENOMEM. */
static int join_build(struct rpc_calls *rc, struct join *j)
{
	size_t n = rc->n_probes;

	memset(j, 0, sizeof(*j));
	j->probes = rc->probes;
	j->order = malloc(n * sizeof(*j->order));
	j->sides = malloc(n * sizeof(*j->sides));
	j->clients = malloc(n * sizeof(*j->clients));
	j->servers = malloc(n * sizeof(*j->servers));
	j->keyed = malloc(n * sizeof(*j->keyed));
	if (!j->order || !j->sides || !j->clients || !j->servers || !j->keyed) {
		join_release(j);
		return -ENOMEM;
	}
	/* No sites (only untraced callers): sites is NULL, which qsort
	 * must not be given even with no element. */
	if (rc->n_sites)
		qsort(rc->sites, rc->n_sites, sizeof(*rc->sites), cmp_site);
	make_sides(j, n);
	sort_sides(j);
	match_sides(j);
	return 0;
}

/* The four columns of a probe in rpc_calls. */
struct probe_cols {
	int event, ns, exit_ns, cpu_ns;
};

#define PROBE_COLS(P)                                                          \
	DB_RPC_CALLS_##P##_EVENT, DB_RPC_CALLS_##P##_NS,                       \
		DB_RPC_CALLS_##P##_EXIT_NS, DB_RPC_CALLS_##P##_CPU_NS

static const struct probe_cols stub_start_cols = { PROBE_COLS(STUB_START) };
static const struct probe_cols stub_end_cols = { PROBE_COLS(STUB_END) };
static const struct probe_cols skel_start_cols = { PROBE_COLS(SKEL_START) };
static const struct probe_cols skel_end_cols = { PROBE_COLS(SKEL_END) };

static void bind_probe(sqlite3_stmt *st, const struct probe_cols *col,
		       const struct rpc_probe *p)
{
	if (!p)
		return;
	schema_bind_u64(st, col->event, p->event);
	/* what it did not measure (mon_off) stays NULL */
	if (!(p->mon_off & CAUSAL_MONTYPE_LATENCY)) {
		schema_bind_u64(st, col->ns, p->mono);
		schema_bind_u64(st, col->exit_ns, p->mono_exit);
	}
	if (!(p->mon_off & CAUSAL_MONTYPE_CPU))
		schema_bind_u64(st, col->cpu_ns, p->cpu);
}

/* Did p record what it says of the call (monitoring type semantics)? */
static bool semantic(const struct rpc_probe *p)
{
	return p && !(p->mon_off & CAUSAL_MONTYPE_SEMANTICS);
}

/* The types a side was monitored with: 'semantics|latency|cpu'. */
static void bind_mon(sqlite3_stmt *st, int col, const struct rpc_probe *p)
{
	char text[64];

	if (!p)
		return;
	record_monitor_types(text, sizeof(text),
			     (CAUSAL_MONTYPE_SEMANTICS |
			      CAUSAL_MONTYPE_LATENCY | CAUSAL_MONTYPE_CPU) &
				     ~p->mon_off,
			     '|');
	schema_bind_text_copy(st, col, text, -1);
}

static void bind_str(const struct rpc_calls *rc, sqlite3_stmt *st, int col,
		     size_t off)
{
	if (off != NO_STR)
		schema_bind_text(st, col, rc->strings + off, -1);
}

/*
 * Bytes allocated and freed by a side, from its start probe a to its end
 * probe b (its stub or skeleton: Equation 1 of the CPU paper with bytes),
 * into the columns alloc and freed; NULL unless both counted it in one
 * accounting period (records.def, CAUSAL_FIELDS_HEAP).
 */
static void bind_heap(sqlite3_stmt *st, int alloc, int freed,
		      const struct rpc_probe *a, const struct rpc_probe *b)
{
	if (!a || !b || !a->heap_epoch || a->heap_epoch != b->heap_epoch)
		return;
	schema_bind_u64(st, alloc, b->alloc_bytes - a->alloc_bytes);
	schema_bind_u64(st, freed, b->freed_bytes - a->freed_bytes);
}

#define PROBE(i) ((i) == NONE ? NULL : &rc->probes[i])

/*
 * One row: client side c and/or server side s (NULL when missing).
 * Strings and the chain are bound in place: rc outlives the step.
 */
static int store_row(const struct rpc_calls *rc, sqlite3_stmt *st,
		     int64_t call_id, const struct side *c, const struct side *s)
{
	const struct rpc_probe *cs = c ? PROBE(c->start) : NULL;
	const struct rpc_probe *ce = c ? PROBE(c->end) : NULL;
	const struct rpc_probe *ss = s ? PROBE(s->start) : NULL;
	const struct rpc_probe *se = s ? PROBE(s->end) : NULL;
	const struct rpc_probe *any = first_probe(rc->probes, c ? c : s);
	const struct rpc_probe *call = cs ? cs : ss; /* prog, vers, ... */
	int rc_step;

	schema_bind_int(st, DB_RPC_CALLS_CALL_ID, call_id);
	schema_bind_chain(st, DB_RPC_CALLS_CHAIN, any->chain);
	if (call) {
		/* the stub learns the xid only while encoding: the skeleton
		 * start has it when the stub start does not */
		uint64_t xid = cs && cs->xid ? cs->xid : ss ? ss->xid : 0;

		schema_bind_u64(st, DB_RPC_CALLS_PROG, call->prog);
		schema_bind_u64(st, DB_RPC_CALLS_VERS, call->vers);
		schema_bind_u64(st, DB_RPC_CALLS_PROC, call->proc);
		schema_bind_text(st, DB_RPC_CALLS_TRANSPORT,
				 record_transport_name(call->transport), -1);
		schema_bind_u64(st, DB_RPC_CALLS_XID, xid);
	}
	if (c) {
		schema_bind_int(st, DB_RPC_CALLS_CLIENT_PROC_ID, any->proc_id);
		schema_bind_u64(st, DB_RPC_CALLS_CLIENT_TID, any->tid);
		schema_bind_u64(st, DB_RPC_CALLS_CLIENT_FUNCTION_ID,
				any->function);
	}
	if (cs) {
		schema_bind_u64(st, DB_RPC_CALLS_FLAGS,
				cs->flags | (ce ? ce->flags : 0));
		schema_bind_int(st, DB_RPC_CALLS_ONE_WAY,
				!!(cs->flags & CAUSAL_RPC_ONE_WAY));
	}
	if (semantic(cs)) {
		schema_bind_text(st, DB_RPC_CALLS_SITE_SYMBOL,
				 site_symbol(rc, cs->proc_id, cs->id), -1);
		bind_str(rc, st, DB_RPC_CALLS_PEER, cs->addr);
	}
	bind_probe(st, &stub_start_cols, cs);
	bind_probe(st, &stub_end_cols, ce);
	if (semantic(ce)) {
		schema_bind_u64(st, DB_RPC_CALLS_STATUS, ce->status);
		schema_bind_text(st, DB_RPC_CALLS_STATUS_NAME,
				 record_clnt_stat_name(ce->status), -1);
		schema_bind_u64(st, DB_RPC_CALLS_ARGS_BYTES, ce->args_bytes);
		schema_bind_u64(st, DB_RPC_CALLS_RESULTS_BYTES,
				ce->results_bytes);
		schema_bind_text(st, DB_RPC_CALLS_REPLY_TAG,
				 record_tag_status_name(ce->tag), -1);
	}
	if (s) {
		const struct rpc_probe *sp = first_probe(rc->probes, s);

		schema_bind_int(st, DB_RPC_CALLS_SERVER_PROC_ID, sp->proc_id);
		schema_bind_u64(st, DB_RPC_CALLS_SERVER_TID, sp->tid);
		schema_bind_u64(st, DB_RPC_CALLS_SERVER_FUNCTION_ID,
				sp->function);
	}
	if (ss)
		schema_bind_u64(st, DB_RPC_CALLS_OBJECT_ID, ss->id);
	if (semantic(ss)) {
		bind_str(rc, st, DB_RPC_CALLS_CALLER_ADDRESS, ss->addr);
		schema_bind_u64(st, DB_RPC_CALLS_SERVER_ARGS_BYTES,
				ss->args_bytes);
		schema_bind_text(st, DB_RPC_CALLS_TAG,
				 record_tag_status_name(ss->tag), -1);
	}
	bind_probe(st, &skel_start_cols, ss);
	bind_probe(st, &skel_end_cols, se);
	if (semantic(se)) {
		schema_bind_u64(st, DB_RPC_CALLS_SERVER_RESULTS_BYTES,
				se->results_bytes);
		schema_bind_text(st, DB_RPC_CALLS_REPLY,
				 record_reply_name(se->status), -1);
	}
	if (!c || !s)
		schema_bind_text(st, DB_RPC_CALLS_MISSING,
				 c ? DB_MISSING_SERVER : DB_MISSING_CLIENT, -1);
	bind_mon(st, DB_RPC_CALLS_CLIENT_MON, cs ? cs : ce);
	bind_mon(st, DB_RPC_CALLS_SERVER_MON, ss ? ss : se);
	bind_heap(st, DB_RPC_CALLS_STUB_ALLOC_BYTES,
		  DB_RPC_CALLS_STUB_FREED_BYTES, cs, ce);
	bind_heap(st, DB_RPC_CALLS_SKEL_ALLOC_BYTES,
		  DB_RPC_CALLS_SKEL_FREED_BYTES, ss, se);
	rc_step = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc_step == SQLITE_DONE ? 0 : -EIO;
}

/* Insert the joined rows: client sides, then server sides left alone. */
static int write_rows(const struct rpc_calls *rc, const struct join *j,
		      sqlite3 *db, struct rpc_calls_stats *stats)
{
	char *sql = db_sql_insert(DB_RPC_CALLS, "INSERT", 1);
	sqlite3_stmt *st = NULL;
	int64_t call_id = 0;
	int ret = -EIO;

	if (!sql)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < j->n_clients; i++) {
		const struct side *c = &j->sides[j->clients[i]];
		const struct side *s =
			c->peer == NONE ? NULL : &j->sides[c->peer];

		if (store_row(rc, st, ++call_id, c, s))
			goto out;
		if (!s)
			stats->no_server++;
	}
	for (size_t i = 0; i < j->n_servers; i++) {
		const struct side *s = &j->sides[j->servers[i]];

		if (s->used)
			continue;
		if (store_row(rc, st, ++call_id, NULL, s))
			goto out;
		stats->no_client++;
	}
	stats->calls = (uint64_t)call_id;
	ret = 0;
out:
	sqlite3_finalize(st);
	free(sql);
	return ret;
}

int rpc_calls_store(struct rpc_calls *rc, sqlite3 *db,
		    struct rpc_calls_stats *stats)
{
	struct join j;
	int ret;

	memset(stats, 0, sizeof(*stats));
	if (!rc->n_probes)
		return 0;
	if ((ret = join_build(rc, &j)))
		return ret;
	ret = write_rows(rc, &j, db, stats);
	join_release(&j);
	return ret;
}
