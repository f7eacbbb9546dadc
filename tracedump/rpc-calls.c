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
#include "hex.h"
#include "rpc-calls.h"

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
		if (add_addr(rc, &r->skel_start.peer, &p->addr))
			return -ENOMEM;
		break;
	case CAUSAL_REC_RPC_SKEL_END:
		take_common(p, &r->skel_end.p);
		TAKE_HEAP(p, r->skel_end);
		p->status = r->skel_end.reply;
		p->results_bytes = r->skel_end.results_bytes;
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

/* qsort has no context argument: the arrays being sorted set these. */
static const struct rpc_probe *sort_probes;
static const struct side *sort_sides;

/* Pairing order: the two probes of one side become neighbours. */
static int cmp_pairing(const void *a, const void *b)
{
	const struct rpc_probe *x = &sort_probes[*(const size_t *)a];
	const struct rpc_probe *y = &sort_probes[*(const size_t *)b];

	CMP(x->proc_id, y->proc_id);
	CMP(is_server(x->type), is_server(y->type));
	CMP(x->function, y->function);
	CMP(x->seq, y->seq);
	return 0;
}

static const struct rpc_probe *first_probe(const struct side *s)
{
	return &sort_probes[s->start != NONE ? s->start : s->end];
}

/* Row order: by process, then by the side's first record. */
static int cmp_row(const void *a, const void *b)
{
	const struct rpc_probe *x = first_probe(&sort_sides[*(const size_t *)a]);
	const struct rpc_probe *y = first_probe(&sort_sides[*(const size_t *)b]);

	CMP(x->proc_id, y->proc_id);
	CMP(x->seq, y->seq);
	return 0;
}

/* Server sides by the (chain, event) their client had, minus one. */
static int cmp_server_key(const void *a, const void *b)
{
	const struct rpc_probe *x = &sort_probes[sort_sides[*(const size_t *)a].start];
	const struct rpc_probe *y = &sort_probes[sort_sides[*(const size_t *)b].start];
	int c = memcmp(x->chain, y->chain, CAUSAL_CHAIN_ID_LEN);

	if (c)
		return c;
	CMP(x->event, y->event);
	CMP(x->proc_id, y->proc_id);
	CMP(x->seq, y->seq);
	return 0;
}

/* First index in idx[0..n) whose server start is >= (chain, event). */
static size_t lower_bound(const size_t *idx, size_t n, const uint8_t *chain,
			  uint64_t event)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rpc_probe *p = &sort_probes[sort_sides[idx[mid]].start];
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

static void bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	sqlite3_bind_int64(st, col, (int64_t)v);
}

static void bind_name(sqlite3_stmt *st, int col, const char *name)
{
	if (name)
		sqlite3_bind_text(st, col, name, -1, SQLITE_STATIC);
}

static void bind_str(const struct rpc_calls *rc, sqlite3_stmt *st, int col,
		     size_t off)
{
	if (off != NO_STR)
		sqlite3_bind_text(st, col, rc->strings + off, -1, SQLITE_STATIC);
}

/* event, ns, exit_ns, cpu_ns of one probe from column col on. */
static void bind_probe(sqlite3_stmt *st, int col, const struct rpc_probe *p)
{
	if (!p)
		return;
	bind_u64(st, col, p->event);
	bind_u64(st, col + 1, p->mono);
	bind_u64(st, col + 2, p->mono_exit);
	bind_u64(st, col + 3, p->cpu);
}

/*
 * Bytes allocated and freed by a side, from its start probe a to its end
 * probe b (its stub or skeleton: Equation 1 of the CPU paper with bytes),
 * from column col on; NULL unless both counted it in one accounting
 * period (records.def, CAUSAL_FIELDS_HEAP).
 */
static void bind_heap(sqlite3_stmt *st, int col, const struct rpc_probe *a,
		      const struct rpc_probe *b)
{
	if (!a || !b || !a->heap_epoch || a->heap_epoch != b->heap_epoch)
		return;
	sqlite3_bind_int64(st, col, (int64_t)(b->alloc_bytes - a->alloc_bytes));
	sqlite3_bind_int64(st, col + 1,
			   (int64_t)(b->freed_bytes - a->freed_bytes));
}

#define PROBE(i) ((i) == NONE ? NULL : &rc->probes[i])

/* One row: client side c and/or server side s (NULL when missing). */
static int store_row(const struct rpc_calls *rc, sqlite3_stmt *st,
		     int64_t call_id, const struct side *c, const struct side *s)
{
	const struct rpc_probe *cs = c ? PROBE(c->start) : NULL;
	const struct rpc_probe *ce = c ? PROBE(c->end) : NULL;
	const struct rpc_probe *ss = s ? PROBE(s->start) : NULL;
	const struct rpc_probe *se = s ? PROBE(s->end) : NULL;
	const struct rpc_probe *any = c ? first_probe(c) : first_probe(s);
	const struct rpc_probe *call = cs ? cs : ss;	/* prog, vers, ... */
	char chain[2 * CAUSAL_CHAIN_ID_LEN + 1];
	int rc_step;

	sqlite3_bind_int64(st, 1, call_id);
	hex_encode(chain, any->chain, CAUSAL_CHAIN_ID_LEN);
	sqlite3_bind_text(st, 2, chain, -1, SQLITE_TRANSIENT);
	if (call) {
		bind_u64(st, 3, call->prog);
		bind_u64(st, 4, call->vers);
		bind_u64(st, 5, call->proc);
		bind_name(st, 6, record_transport_name(call->transport));
		/* the stub learns the xid only while encoding: the skeleton
		 * start has it when the stub start does not */
		bind_u64(st, 7, cs && cs->xid ? cs->xid : ss ? ss->xid : 0);
	}
	if (c) {
		sqlite3_bind_int64(st, 10, any->proc_id);
		bind_u64(st, 11, any->tid);
		bind_u64(st, 12, any->function);
	}
	if (cs) {
		bind_u64(st, 8, cs->flags | (ce ? ce->flags : 0));
		sqlite3_bind_int(st, 9, !!(cs->flags & CAUSAL_RPC_ONE_WAY));
		bind_name(st, 13, site_symbol(rc, cs->proc_id, cs->id));
		bind_str(rc, st, 14, cs->addr);
	}
	bind_probe(st, 15, cs);
	bind_probe(st, 19, ce);
	if (ce) {
		bind_u64(st, 23, ce->status);
		bind_name(st, 24, record_clnt_stat_name(ce->status));
		bind_u64(st, 25, ce->args_bytes);
		bind_u64(st, 26, ce->results_bytes);
		bind_name(st, 27, record_tag_status_name(ce->tag));
	}
	if (s) {
		const struct rpc_probe *sp = first_probe(s);

		sqlite3_bind_int64(st, 28, sp->proc_id);
		bind_u64(st, 29, sp->tid);
		bind_u64(st, 30, sp->function);
	}
	if (ss) {
		bind_u64(st, 31, ss->id);
		bind_str(rc, st, 32, ss->addr);
		bind_u64(st, 41, ss->args_bytes);
		bind_name(st, 44, record_tag_status_name(ss->tag));
	}
	bind_probe(st, 33, ss);
	bind_probe(st, 37, se);
	if (se) {
		bind_u64(st, 42, se->results_bytes);
		bind_name(st, 43, record_reply_name(se->status));
	}
	if (!c || !s)
		sqlite3_bind_text(st, 45, c ? "server" : "client", -1, SQLITE_STATIC);
	bind_heap(st, 46, cs, ce);
	bind_heap(st, 48, ss, se);
	rc_step = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc_step == SQLITE_DONE ? 0 : -EIO;
}

/* Pair starts with ends into sides; returns their number. */
static size_t make_sides(const struct rpc_calls *rc, size_t *order,
			 struct side *sides)
{
	size_t n = 0;

	for (size_t i = 0; i < rc->n_probes; i++)
		order[i] = i;
	qsort(order, rc->n_probes, sizeof(*order), cmp_pairing);
	for (size_t i = 0; i < rc->n_probes; i++) {
		const struct rpc_probe *p = &rc->probes[order[i]];
		struct side *s = &sides[n++];

		*s = (struct side){ NONE, NONE, NONE, false };
		if (!is_start(p->type)) {
			s->end = order[i];	/* its start was lost */
			continue;
		}
		s->start = order[i];
		if (i + 1 < rc->n_probes) {
			const struct rpc_probe *q = &rc->probes[order[i + 1]];

			if (!is_start(q->type) && q->proc_id == p->proc_id &&
			    is_server(q->type) == is_server(p->type) &&
			    q->function == p->function)
				s->end = order[++i];
		}
	}
	return n;
}

int rpc_calls_store(struct rpc_calls *rc, sqlite3 *db,
		    struct rpc_calls_stats *stats)
{
	static const char sql[] =
		"INSERT INTO rpc_calls VALUES(?,?,?,?,?,?,?,?,?,?,"
		"?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
		"?,?,?,?,?,?,?,?,?)";
	size_t n = rc->n_probes, n_sides, n_clients = 0, n_servers = 0, n_keyed = 0;
	size_t *order = NULL, *clients = NULL, *servers = NULL, *keyed = NULL;
	struct side *sides = NULL;
	sqlite3_stmt *st = NULL;
	int64_t call_id = 0;
	int ret = -ENOMEM;

	memset(stats, 0, sizeof(*stats));
	if (!n)
		return 0;
	order = malloc(n * sizeof(*order));
	sides = malloc(n * sizeof(*sides));
	clients = malloc(n * sizeof(*clients));
	servers = malloc(n * sizeof(*servers));
	keyed = malloc(n * sizeof(*keyed));
	if (!order || !sides || !clients || !servers || !keyed)
		goto out;
	/* No sites (only untraced callers): sites is NULL, which qsort
	 * must not be given even with no element. */
	if (rc->n_sites)
		qsort(rc->sites, rc->n_sites, sizeof(*rc->sites), cmp_site);
	sort_probes = rc->probes;
	n_sides = make_sides(rc, order, sides);
	sort_sides = sides;

	for (size_t i = 0; i < n_sides; i++) {
		const struct rpc_probe *p = first_probe(&sides[i]);

		if (!is_server(p->type)) {
			clients[n_clients++] = i;
		} else {
			servers[n_servers++] = i;
			/* An untagged call started a chain of its own. */
			if (sides[i].start != NONE && p->tag == CAUSAL_TAG_OK)
				keyed[n_keyed++] = i;
		}
	}
	qsort(clients, n_clients, sizeof(*clients), cmp_row);
	qsort(servers, n_servers, sizeof(*servers), cmp_row);
	qsort(keyed, n_keyed, sizeof(*keyed), cmp_server_key);

	for (size_t i = 0; i < n_clients; i++) {
		struct side *c = &sides[clients[i]];
		const struct rpc_probe *p;
		size_t k;

		if (c->start == NONE)
			continue;
		p = &rc->probes[c->start];
		k = lower_bound(keyed, n_keyed, p->chain, p->event + 1);
		for (; k < n_keyed; k++) {
			struct side *s = &sides[keyed[k]];
			const struct rpc_probe *q = &rc->probes[s->start];

			if (memcmp(q->chain, p->chain, CAUSAL_CHAIN_ID_LEN) ||
			    q->event != p->event + 1)
				break;
			if (!s->used) {
				s->used = true;
				c->peer = keyed[k];
				break;
			}
		}
	}

	ret = -EIO;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < n_clients; i++) {
		const struct side *c = &sides[clients[i]];
		const struct side *s = c->peer == NONE ? NULL : &sides[c->peer];

		if (store_row(rc, st, ++call_id, c, s))
			goto out;
		if (!s)
			stats->no_server++;
	}
	for (size_t i = 0; i < n_servers; i++) {
		const struct side *s = &sides[servers[i]];

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
	free(order);
	free(sides);
	free(clients);
	free(servers);
	free(keyed);
	return ret;
}
