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
#include "rpc-side.h"
#include "schema.h"

#define NONE UINT32_MAX
#define NO_STR 0 /* strings[0] is a placeholder: offset 0 is "none" */

/* Rows per INSERT: fewer statement runs (1M calls: 2.6 s against 3.3 s). */
#define CALL_ROWS 16

struct rpc_site {
	int64_t proc_id;
	uint64_t site_id, seq;
	size_t symbol; /* strings offset */
};

struct rpc_heap {
	uint64_t alloc_bytes, freed_bytes;
	uint32_t epoch;
};

/* A side still waiting for its end, by (server, function). */
struct rpc_open {
	uint64_t function;
	uint32_t side;
	bool server, used;
};

/* A raw sockaddr seen, and the text it was formatted to. */
struct rpc_addr {
	uint32_t raw, len; /* strings offset and length of the raw bytes */
	uint32_t text;	   /* strings offset of the text */
};

void rpc_calls_init(struct rpc_calls *rc)
{
	memset(rc, 0, sizeof(*rc));
}

void rpc_calls_release(struct rpc_calls *rc)
{
	free(rc->clients);
	free(rc->servers);
	free(rc->sites);
	free(rc->heaps);
	free(rc->chains);
	free(rc->addrs);
	free(rc->strings);
	free(rc->open);
	rpc_forks_release(&rc->forks);
	hashmap_release(&rc->chain_map);
	hashmap_release(&rc->addr_map);
	memset(rc, 0, sizeof(*rc));
}

size_t rpc_calls_bytes(const struct rpc_calls *rc)
{
	return rc->cap_clients * sizeof(*rc->clients) +
	       rc->cap_servers * sizeof(*rc->servers) +
	       rc->cap_heaps * sizeof(*rc->heaps) + rc->cap_strings +
	       rc->cap_chains * sizeof(*rc->chains) +
	       rpc_forks_bytes(&rc->forks);
}

/* Copy s (n bytes) into the string arena; its offset in *off. */
static int add_string(struct rpc_calls *rc, const void *s, size_t n,
		      uint32_t *off)
{
	size_t need = rc->n_strings + n + 1 + (rc->n_strings ? 0 : 1);

	if (need > UINT32_MAX || GROW(rc->strings, rc->cap_strings, need))
		return -ENOMEM;
	if (!rc->n_strings)
		rc->strings[rc->n_strings++] = '\0';
	*off = (uint32_t)rc->n_strings;
	memcpy(rc->strings + rc->n_strings, s, n);
	rc->strings[rc->n_strings + n] = '\0';
	rc->n_strings += n + 1;
	return 0;
}

static uint64_t bytes_hash(const uint8_t *p, size_t n)
{
	return hash_fnv(HASH_FNV_SEED, p, n);
}

/*
 * The peer address as text, formatted once per distinct raw address (a
 * process talks to few): its strings offset in *off, NO_STR for none.
 */
static int add_addr(struct rpc_calls *rc, const struct record_bin *b,
		    uint32_t *off)
{
	char buf[RECORD_SOCKADDR_MAX];
	struct rpc_addr *a;
	uint64_t h;
	int32_t i;

	*off = NO_STR;
	if (!b->ptr)
		return 0;
	/* collisions move to the next key: at worst a short walk */
	for (h = bytes_hash(b->ptr, b->len);; h++) {
		if ((i = hashmap_get(&rc->addr_map, h)) < 0)
			break;
		a = &rc->addrs[i];
		if (a->len == b->len &&
		    !memcmp(rc->strings + a->raw, b->ptr, b->len)) {
			*off = a->text;
			return 0;
		}
	}
	if (rc->n_addrs >= INT32_MAX ||
	    GROW(rc->addrs, rc->cap_addrs, rc->n_addrs + 1))
		return -ENOMEM;
	a = &rc->addrs[rc->n_addrs];
	record_sockaddr(buf, b->ptr, b->len);
	if (add_string(rc, b->ptr, b->len, &a->raw) ||
	    add_string(rc, buf, strlen(buf), &a->text) ||
	    hashmap_put(&rc->addr_map, h, (int32_t)rc->n_addrs) < 0)
		return -ENOMEM;
	a->len = (uint32_t)b->len;
	rc->n_addrs++;
	*off = a->text;
	return 0;
}

/* The index of a chain id in chains, added on first sight; -ENOMEM. */
static int64_t chain_index(struct rpc_calls *rc, const uint8_t *chain)
{
	uint64_t h;
	int32_t i;

	for (h = bytes_hash(chain, CAUSAL_CHAIN_ID_LEN);; h++) {
		if ((i = hashmap_get(&rc->chain_map, h)) < 0)
			break;
		if (!memcmp(rc->chains[i], chain, CAUSAL_CHAIN_ID_LEN))
			return i;
	}
	if (rc->n_chains >= INT32_MAX ||
	    GROW(rc->chains, rc->cap_chains, rc->n_chains + 1) ||
	    hashmap_put(&rc->chain_map, h, (int32_t)rc->n_chains) < 0)
		return -ENOMEM;
	memcpy(rc->chains[rc->n_chains], chain, CAUSAL_CHAIN_ID_LEN);
	return (int64_t)rc->n_chains++;
}

/* ---- open sides: linear probing, deletion by backward shift ---- */

static size_t open_home(const struct rpc_calls *rc, bool server,
			uint64_t function)
{
	return hash64(function * 2 + server) & (rc->cap_open - 1);
}

/* The slot of (server, function), or of the free slot where it goes. */
static size_t open_slot(const struct rpc_calls *rc, bool server,
			uint64_t function)
{
	size_t i = open_home(rc, server, function);

	while (rc->open[i].used && (rc->open[i].function != function ||
				    rc->open[i].server != server))
		i = (i + 1) & (rc->cap_open - 1);
	return i;
}

static int open_grow(struct rpc_calls *rc)
{
	struct rpc_open *old = rc->open;
	size_t old_cap = rc->cap_open;
	size_t cap = old_cap ? 2 * old_cap : 64;

	if (!(rc->open = calloc(cap, sizeof(*rc->open)))) {
		rc->open = old;
		return -ENOMEM;
	}
	rc->cap_open = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].used)
			rc->open[open_slot(rc, old[i].server,
					   old[i].function)] = old[i];
	free(old);
	return 0;
}

static void open_delete(struct rpc_calls *rc, size_t i)
{
	size_t mask = rc->cap_open - 1, j = i;

	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!rc->open[j].used)
			break;
		k = open_home(rc, rc->open[j].server, rc->open[j].function);
		/* move j back to i unless its home lies in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		rc->open[i] = rc->open[j];
		i = j;
	}
	rc->open[i].used = false;
	rc->n_open--;
}

void rpc_calls_file_begin(struct rpc_calls *rc, int64_t proc_id)
{
	rc->proc_id = proc_id;
	rc->file_clients = rc->n_clients;
	rc->file_servers = rc->n_servers;
	rc->file_sites = rc->n_sites;
	rc->file_heaps = rc->n_heaps;
	if (rc->n_open)
		memset(rc->open, 0, rc->cap_open * sizeof(*rc->open));
	rc->n_open = 0;
}

int rpc_calls_file_end(struct rpc_calls *rc, bool keep, const uint8_t *uuid,
		       const uint8_t *parent_uuid)
{
	if (!keep) {
		rc->n_clients = rc->file_clients;
		rc->n_servers = rc->file_servers;
		rc->n_sites = rc->file_sites;
		rc->n_heaps = rc->file_heaps;
	}
	if (rc->n_open)
		memset(rc->open, 0, rc->cap_open * sizeof(*rc->open));
	rc->n_open = 0;
	if (!keep)
		return 0;
	return rpc_forks_process(&rc->forks, (uint32_t)rc->proc_id, uuid,
				 parent_uuid);
}

/* The probe's heap counters, kept when counted; 0 or -ENOMEM. */
static int take_heap(struct rpc_calls *rc, struct rpc_pr *p, uint64_t epoch,
		     uint64_t alloc, uint64_t freed)
{
	p->heap = 0;
	if (!(uint32_t)epoch)
		return 0;
	if (!rc->n_heaps)
		rc->n_heaps = 1; /* [0] means none */
	if (rc->n_heaps >= UINT32_MAX ||
	    GROW(rc->heaps, rc->cap_heaps, rc->n_heaps + 1))
		return -ENOMEM;
	rc->heaps[rc->n_heaps] =
		(struct rpc_heap){ alloc, freed, (uint32_t)epoch };
	p->heap = (uint32_t)rc->n_heaps++;
	return 0;
}

#define TAKE_HEAP(rc, p, m)                                                    \
	take_heap(rc, p, (m).heap_epoch, (m).alloc_bytes, (m).freed_bytes)

static void take_common(struct rpc_pr *p, const struct record *r,
			const struct record_rpc *rr, uint64_t mon_off)
{
	p->has = true;
	p->event = rr->event;
	p->mono = r->mono_ns;
	p->mono_exit = rr->mono_exit_ns;
	p->cpu = rr->cpu_ns;
	p->mon_off = (uint8_t)mon_off;
}

/* A new side whose first probe is r (with its record_rpc rr). */
static struct rpc_side *new_side(struct rpc_calls *rc, bool server,
				 const struct record *r,
				 const struct record_rpc *rr, uint32_t *index)
{
	struct rpc_side **v = server ? &rc->servers : &rc->clients;
	size_t *n = server ? &rc->n_servers : &rc->n_clients;
	size_t *cap = server ? &rc->cap_servers : &rc->cap_clients;
	int64_t chain = chain_index(rc, rr->chain);
	struct rpc_side *s;

	if (chain < 0 || *n >= INT32_MAX || GROW(*v, *cap, *n + 1))
		return NULL;
	s = &(*v)[*n];
	memset(s, 0, sizeof(*s));
	s->tid = r->tid;
	s->function = rr->function;
	s->chain = (uint32_t)chain;
	s->proc_id = (uint32_t)rc->proc_id;
	s->next = NONE;
	*index = (uint32_t)(*n)++;
	return s;
}

static int add_site(struct rpc_calls *rc, uint64_t seq, const struct record *r)
{
	struct rpc_site *s;
	uint32_t off;

	/* a site in no function the file names has no symbol: NULL */
	off = NO_STR;
	if (GROW(rc->sites, rc->cap_sites, rc->n_sites + 1) ||
	    (r->rpc_site.symbol.len &&
	     add_string(rc, r->rpc_site.symbol.ptr, r->rpc_site.symbol.len,
			&off)))
		return -ENOMEM;
	s = &rc->sites[rc->n_sites++];
	*s = (struct rpc_site){ rc->proc_id, r->rpc_site.site_id, seq, off };
	return 0;
}

/* A start probe: a side opens (an older open one stays alone). */
static int add_start(struct rpc_calls *rc, const struct record *r)
{
	bool server = r->type == CAUSAL_REC_RPC_SKEL_START;
	const struct record_rpc *rr =
		server ? &r->skel_start.p : &r->stub_start.p;
	struct rpc_side *s;
	uint32_t index;
	size_t slot;

	if (2 * (rc->n_open + 1) > rc->cap_open && open_grow(rc))
		return -ENOMEM;
	if (!(s = new_side(rc, server, r, rr, &index)))
		return -ENOMEM;
	slot = open_slot(rc, server, rr->function);
	if (!rc->open[slot].used) {
		rc->open[slot] =
			(struct rpc_open){ rr->function, index, server, true };
		rc->n_open++;
	} else {
		rc->open[slot].side = index;
	}
	if (server) {
		const struct record_rpc_skel_start *k = &r->skel_start;

		take_common(&s->start, r, rr, k->mon_off);
		s->prog = (uint32_t)k->prog;
		s->vers = (uint32_t)k->vers;
		s->proc = (uint32_t)k->proc;
		s->transport = (uint8_t)k->transport;
		s->id = k->object_id;
		s->xid = (uint32_t)k->xid;
		s->args_bytes = k->args_bytes;
		s->start_tag = (uint8_t)k->tag;
		if (TAKE_HEAP(rc, &s->start, *k))
			return -ENOMEM;
		return add_addr(rc, &k->peer, &s->addr);
	} else {
		const struct record_rpc_stub_start *k = &r->stub_start;

		take_common(&s->start, r, rr, k->mon_off);
		s->prog = (uint32_t)k->prog;
		s->vers = (uint32_t)k->vers;
		s->proc = (uint32_t)k->proc;
		s->transport = (uint8_t)k->transport;
		s->id = k->site_id;
		s->xid = (uint32_t)k->xid;
		s->start_flags = (uint32_t)k->flags;
		if (TAKE_HEAP(rc, &s->start, *k))
			return -ENOMEM;
		return add_addr(rc, &k->peer, &s->addr);
	}
}

/* An end probe: it closes its open side, or makes a side alone. */
static int add_end(struct rpc_calls *rc, const struct record *r)
{
	bool server = r->type == CAUSAL_REC_RPC_SKEL_END;
	const struct record_rpc *rr = server ? &r->skel_end.p : &r->stub_end.p;
	struct rpc_side *s;
	uint32_t index;
	size_t slot;

	slot = rc->cap_open ? open_slot(rc, server, rr->function) : 0;
	if (rc->cap_open && rc->open[slot].used) {
		index = rc->open[slot].side;
		s = server ? &rc->servers[index] : &rc->clients[index];
		open_delete(rc, slot);
	} else if (!(s = new_side(rc, server, r, rr, &index))) {
		return -ENOMEM;
	}
	if (server) {
		const struct record_rpc_skel_end *k = &r->skel_end;

		take_common(&s->end, r, rr, k->mon_off);
		s->end.fork = (uint8_t)k->fork;
		s->status = (uint32_t)k->reply;
		s->results_bytes = k->results_bytes;
		return TAKE_HEAP(rc, &s->end, *k);
	} else {
		const struct record_rpc_stub_end *k = &r->stub_end;

		take_common(&s->end, r, rr, k->mon_off);
		s->status = (uint32_t)k->status;
		s->args_bytes = k->args_bytes;
		s->results_bytes = k->results_bytes;
		s->end_tag = (uint8_t)k->reply_tag;
		/* whether the tag went out is known only at the stub's end */
		s->end_flags = k->tag_sent ? CAUSAL_RPC_TAG_SENT : 0;
		return TAKE_HEAP(rc, &s->end, *k);
	}
}

int rpc_calls_add(struct rpc_calls *rc, uint64_t seq, const struct record *r)
{
	switch (r->type) {
	case CAUSAL_REC_RPC_SITE:
		return add_site(rc, seq, r);
	case CAUSAL_REC_RPC_STUB_START:
	case CAUSAL_REC_RPC_SKEL_START:
		return add_start(rc, r);
	case CAUSAL_REC_RPC_STUB_END:
	case CAUSAL_REC_RPC_SKEL_END:
		return add_end(rc, r);
	}
	return 0;
}

#define CMP(a, b)                                                              \
	do {                                                                   \
		if ((a) != (b))                                                \
			return (a) < (b) ? -1 : 1;                             \
	} while (0)

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
	    rc->sites[lo].site_id == site_id && rc->sites[lo].symbol != NO_STR)
		return rc->strings + rc->sites[lo].symbol;
	return NULL;
}

static uint64_t key_hash(uint32_t chain, uint64_t event)
{
	return hash64(event) ^ ((uint64_t)chain * 0x9e3779b97f4a7c15ULL);
}

/*
 * Index the server sides with a start and tag 'ok' (an untagged call
 * started a chain of its own) by their (chain, event): the map gives the
 * first in row order, next the one after.  tail: scratch of n_servers.
 */
static int index_servers(struct rpc_calls *rc, struct hashmap *map,
			 uint32_t *tail)
{
	for (size_t i = 0; i < rc->n_servers; i++) {
		struct rpc_side *s = &rc->servers[i];
		uint64_t h;
		int32_t j;

		if (!s->start.has || s->start_tag != CAUSAL_TAG_OK)
			continue;
		for (h = key_hash(s->chain, s->start.event);; h++) {
			const struct rpc_side *t;

			if ((j = hashmap_get(map, h)) < 0)
				break;
			t = &rc->servers[j];
			if (t->chain == s->chain &&
			    t->start.event == s->start.event)
				break;
		}
		if (j < 0) {
			if (hashmap_put(map, h, (int32_t)i) < 0)
				return -ENOMEM;
			tail[i] = (uint32_t)i;
		} else {
			rc->servers[tail[j]].next = (uint32_t)i;
			tail[j] = (uint32_t)i;
		}
	}
	return 0;
}

/* Give each client side its server: the first unused one with its key. */
static void match_sides(struct rpc_calls *rc, const struct hashmap *map)
{
	for (size_t i = 0; i < rc->n_clients; i++) {
		struct rpc_side *c = &rc->clients[i];
		uint64_t event = c->start.event + 1;
		uint64_t h;
		int32_t j;

		c->next = NONE;
		if (!c->start.has)
			continue;
		for (h = key_hash(c->chain, event);; h++) {
			const struct rpc_side *t;

			if ((j = hashmap_get(map, h)) < 0)
				break;
			t = &rc->servers[j];
			if (t->chain == c->chain && t->start.event == event)
				break;
		}
		for (uint32_t k = j < 0 ? NONE : (uint32_t)j; k != NONE;
		     k = rc->servers[k].next)
			if (!rc->servers[k].used) {
				rc->servers[k].used = true;
				c->next = k;
				break;
			}
	}
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

/* A row's columns: column col of row k of a multi-row INSERT. */
struct row {
	sqlite3_stmt *st;
	int base; /* k * DB_RPC_CALLS_NCOLS */
};

static void put_u64(const struct row *w, int col, uint64_t v)
{
	schema_bind_u64(w->st, w->base + col, v);
}

static void put_text(const struct row *w, int col, const char *s)
{
	schema_bind_text(w->st, w->base + col, s, -1);
}

static void bind_probe(const struct row *w, const struct probe_cols *col,
		       const struct rpc_pr *p)
{
	if (!p)
		return;
	put_u64(w, col->event, p->event);
	/* what it did not measure (mon_off) stays NULL */
	if (!(p->mon_off & CAUSAL_MONTYPE_LATENCY)) {
		put_u64(w, col->ns, p->mono);
		put_u64(w, col->exit_ns, p->mono_exit);
	}
	if (!(p->mon_off & CAUSAL_MONTYPE_CPU))
		put_u64(w, col->cpu_ns, p->cpu);
}

/* Did p record what it says of the call (monitoring type semantics)? */
static bool semantic(const struct rpc_pr *p)
{
	return p && !(p->mon_off & CAUSAL_MONTYPE_SEMANTICS);
}

#define MON_TYPES                                                              \
	(CAUSAL_MONTYPE_SEMANTICS | CAUSAL_MONTYPE_LATENCY | CAUSAL_MONTYPE_CPU)

/* The types a side was monitored with: 'semantics|latency|cpu'. */
static void bind_mon(const struct row *w, int col, const struct rpc_pr *p,
		     char text[MON_TYPES + 1][64])
{
	if (!p)
		return;
	put_text(w, col, text[MON_TYPES & ~p->mon_off]);
}

static void bind_str(const struct rpc_calls *rc, const struct row *w, int col,
		     uint32_t off)
{
	if (off != NO_STR)
		put_text(w, col, rc->strings + off);
}

/*
 * Bytes allocated and freed by a side, from its start probe a to its end
 * probe b (its stub or skeleton: Equation 1 of the CPU paper with bytes),
 * into the columns alloc and freed; NULL unless both counted it in one
 * accounting period (records.def, CAUSAL_FIELDS_HEAP).
 */
static void bind_heap(const struct rpc_calls *rc, const struct row *w,
		      int alloc, int freed, const struct rpc_pr *a,
		      const struct rpc_pr *b)
{
	const struct rpc_heap *x, *y;

	if (!a || !b || !a->heap || !b->heap)
		return;
	x = &rc->heaps[a->heap];
	y = &rc->heaps[b->heap];
	if (x->epoch != y->epoch)
		return;
	put_u64(w, alloc, y->alloc_bytes - x->alloc_bytes);
	put_u64(w, freed, y->freed_bytes - x->freed_bytes);
}

#define START(s) ((s) && (s)->start.has ? &(s)->start : NULL)
#define END(s) ((s) && (s)->end.has ? &(s)->end : NULL)

/*
 * One row: client side c and/or server side s (NULL when missing).
 * Strings and the chain are bound in place: rc outlives the step.
 */
static void store_row(const struct rpc_calls *rc, const struct row *w,
		      int64_t call_id, const struct rpc_side *c,
		      const struct rpc_side *s, char mon[MON_TYPES + 1][64])
{
	const struct rpc_pr *cs = START(c), *ce = END(c);
	const struct rpc_pr *ss = START(s), *se = END(s);
	const struct rpc_side *any = c ? c : s;
	const struct rpc_side *call = cs ? c : ss ? s : NULL; /* prog, ... */

	put_u64(w, DB_RPC_CALLS_CALL_ID, (uint64_t)call_id);
	schema_bind_chain(w->st, w->base + DB_RPC_CALLS_CHAIN,
			  rc->chains[any->chain]);
	if (call) {
		/* the stub learns the xid only while encoding: the skeleton
		 * start has it when the stub start does not */
		uint32_t xid = cs && c->xid ? c->xid : ss ? s->xid : 0;

		put_u64(w, DB_RPC_CALLS_PROG, call->prog);
		put_u64(w, DB_RPC_CALLS_VERS, call->vers);
		put_u64(w, DB_RPC_CALLS_PROC, call->proc);
		put_text(w, DB_RPC_CALLS_TRANSPORT,
			 record_transport_name(call->transport));
		put_u64(w, DB_RPC_CALLS_XID, xid);
	}
	if (c) {
		put_u64(w, DB_RPC_CALLS_CLIENT_PROC_ID, c->proc_id);
		put_u64(w, DB_RPC_CALLS_CLIENT_TID, c->tid);
		put_u64(w, DB_RPC_CALLS_CLIENT_FUNCTION_ID, c->function);
	}
	if (cs) {
		put_u64(w, DB_RPC_CALLS_FLAGS,
			c->start_flags | (ce ? c->end_flags : 0));
		put_u64(w, DB_RPC_CALLS_ONE_WAY,
			!!(c->start_flags & CAUSAL_RPC_ONE_WAY));
	}
	if (semantic(cs)) {
		put_text(w, DB_RPC_CALLS_SITE_SYMBOL,
			 site_symbol(rc, c->proc_id, c->id));
		bind_str(rc, w, DB_RPC_CALLS_PEER, c->addr);
	}
	bind_probe(w, &stub_start_cols, cs);
	bind_probe(w, &stub_end_cols, ce);
	if (semantic(ce)) {
		put_u64(w, DB_RPC_CALLS_STATUS, c->status);
		put_text(w, DB_RPC_CALLS_STATUS_NAME,
			 record_clnt_stat_name(c->status));
		put_u64(w, DB_RPC_CALLS_ARGS_BYTES, c->args_bytes);
		put_u64(w, DB_RPC_CALLS_RESULTS_BYTES, c->results_bytes);
		put_text(w, DB_RPC_CALLS_REPLY_TAG,
			 record_tag_status_name(c->end_tag));
	}
	if (s) {
		put_u64(w, DB_RPC_CALLS_SERVER_PROC_ID, s->proc_id);
		if (s->reply_proc)
			put_u64(w, DB_RPC_CALLS_REPLY_PROC_ID, s->reply_proc);
		put_u64(w, DB_RPC_CALLS_SERVER_TID, s->tid);
		put_u64(w, DB_RPC_CALLS_SERVER_FUNCTION_ID, s->function);
	}
	if (ss)
		put_u64(w, DB_RPC_CALLS_OBJECT_ID, s->id);
	if (semantic(ss)) {
		bind_str(rc, w, DB_RPC_CALLS_CALLER_ADDRESS, s->addr);
		put_u64(w, DB_RPC_CALLS_SERVER_ARGS_BYTES, s->args_bytes);
		put_text(w, DB_RPC_CALLS_TAG,
			 record_tag_status_name(s->start_tag));
	}
	bind_probe(w, &skel_start_cols, ss);
	bind_probe(w, &skel_end_cols, se);
	if (semantic(se)) {
		put_u64(w, DB_RPC_CALLS_SERVER_RESULTS_BYTES, s->results_bytes);
		put_text(w, DB_RPC_CALLS_REPLY, record_reply_name(s->status));
	}
	if (!c || !s)
		put_text(w, DB_RPC_CALLS_MISSING,
			 c ? DB_MISSING_SERVER : DB_MISSING_CLIENT);
	bind_mon(w, DB_RPC_CALLS_CLIENT_MON, cs ? cs : ce, mon);
	bind_mon(w, DB_RPC_CALLS_SERVER_MON, ss ? ss : se, mon);
	bind_heap(rc, w, DB_RPC_CALLS_STUB_ALLOC_BYTES,
		  DB_RPC_CALLS_STUB_FREED_BYTES, cs, ce);
	bind_heap(rc, w, DB_RPC_CALLS_SKEL_ALLOC_BYTES,
		  DB_RPC_CALLS_SKEL_FREED_BYTES, ss, se);
}

/* Rows go CALL_ROWS to a statement; the last few one by one. */
struct writer {
	sqlite3_stmt *one, *many;
	int rows;    /* bound in many */
	size_t left; /* rows still to come */
	char mon[MON_TYPES + 1][64];
};

static int run(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

static int write_row(const struct rpc_calls *rc, struct writer *wr,
		     int64_t call_id, const struct rpc_side *c,
		     const struct rpc_side *s)
{
	struct row w;

	if (!wr->rows && wr->left < CALL_ROWS) {
		w = (struct row){ wr->one, 0 };
		store_row(rc, &w, call_id, c, s, wr->mon);
		wr->left--;
		return run(wr->one);
	}
	w = (struct row){ wr->many, wr->rows * DB_RPC_CALLS_NCOLS };
	store_row(rc, &w, call_id, c, s, wr->mon);
	wr->left--;
	if (++wr->rows < CALL_ROWS)
		return 0;
	wr->rows = 0;
	return run(wr->many);
}

static int prepare(sqlite3 *db, int rows, sqlite3_stmt **st)
{
	char *sql = db_sql_insert(DB_RPC_CALLS, "INSERT", rows);
	int rc;

	if (!sql)
		return -ENOMEM;
	rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
	free(sql);
	return rc == SQLITE_OK ? 0 : -EIO;
}

/*
 * The order of the rows (DB_CALLS_ORDER_CHAIN): by chain id, then by the
 * call's first event (coalesce of stub start, skeleton start, skeleton
 * end, stub end; none first), then clients before servers left alone,
 * each in the order they were read.  call_id numbers them in this order,
 * so a reader gets the calls chain by chain without sorting.
 */
struct row_key {
	uint32_t chain; /* rank of the chain id */
	uint32_t row;	/* client i, or n_clients + server i */
	int64_t event;	/* INT64_MIN: none */
};

static int cmp_chain_id(const void *a, const void *b, void *arg)
{
	const uint8_t(*chains)[CAUSAL_CHAIN_ID_LEN] = arg;

	return memcmp(chains[*(const uint32_t *)a],
		      chains[*(const uint32_t *)b], CAUSAL_CHAIN_ID_LEN);
}

static int cmp_row_key(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	if (x->chain != y->chain)
		return x->chain < y->chain ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int64_t first_event(const struct rpc_side *c, const struct rpc_side *s)
{
	const struct rpc_pr *order[] = { START(c), START(s), END(s), END(c) };

	for (size_t i = 0; i < 4; i++)
		if (order[i])
			return (int64_t)order[i]->event;
	return INT64_MIN;
}

/* The rows to write, in order; NULL when out of memory. */
static struct row_key *order_rows(const struct rpc_calls *rc, size_t *n)
{
	uint32_t *rank = malloc((rc->n_chains + 1) * sizeof(*rank));
	uint32_t *by_id = malloc((rc->n_chains + 1) * sizeof(*by_id));
	struct row_key *k =
		malloc((rc->n_clients + rc->n_servers + 1) * sizeof(*k));

	*n = 0;
	if (!rank || !by_id || !k) {
		free(k);
		k = NULL;
		goto out;
	}
	for (size_t i = 0; i < rc->n_chains; i++)
		by_id[i] = (uint32_t)i;
	if (rc->n_chains > 1)
		qsort_r(by_id, rc->n_chains, sizeof(*by_id), cmp_chain_id,
			rc->chains);
	for (size_t i = 0; i < rc->n_chains; i++)
		rank[by_id[i]] = (uint32_t)i;
	for (size_t i = 0; i < rc->n_clients; i++) {
		const struct rpc_side *c = &rc->clients[i];
		const struct rpc_side *s =
			c->next == NONE ? NULL : &rc->servers[c->next];

		k[(*n)++] = (struct row_key){ rank[c->chain], (uint32_t)i,
					      first_event(c, s) };
	}
	for (size_t i = 0; i < rc->n_servers; i++)
		if (!rc->servers[i].used)
			k[(*n)++] = (struct row_key){
				rank[rc->servers[i].chain],
				(uint32_t)(rc->n_clients + i),
				first_event(NULL, &rc->servers[i])
			};
	if (*n > 1)
		qsort(k, *n, sizeof(*k), cmp_row_key);
out:
	free(rank);
	free(by_id);
	return k;
}

/* Insert the joined rows, and the client and server sides left alone. */
static int write_rows(const struct rpc_calls *rc, sqlite3 *db,
		      struct rpc_calls_stats *stats)
{
	struct writer wr = { 0 };
	struct row_key *rows;
	size_t n;
	int ret;

	if (!(rows = order_rows(rc, &n)))
		return -ENOMEM;
	wr.left = n;
	for (unsigned m = 0; m <= MON_TYPES; m++)
		record_monitor_types(wr.mon[m], sizeof(wr.mon[m]), m, '|');
	if ((ret = prepare(db, 1, &wr.one)) ||
	    (ret = prepare(db, CALL_ROWS, &wr.many)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct rpc_side *c = NULL, *s;

		if (rows[i].row < rc->n_clients) {
			c = &rc->clients[rows[i].row];
			s = c->next == NONE ? NULL : &rc->servers[c->next];
			stats->no_server += !s;
		} else {
			s = &rc->servers[rows[i].row - rc->n_clients];
			stats->no_client++;
		}
		if ((ret = write_row(rc, &wr, (int64_t)i + 1, c, s)))
			goto out;
	}
	stats->calls = (uint64_t)n;
out:
	free(rows);
	sqlite3_finalize(wr.one);
	sqlite3_finalize(wr.many);
	return ret;
}

int rpc_calls_store(struct rpc_calls *rc, sqlite3 *db,
		    struct rpc_calls_stats *stats)
{
	struct hashmap map = { 0 };
	uint32_t *tail;
	int64_t joined;
	int ret;

	memset(stats, 0, sizeof(*stats));
	if (!rc->n_clients && !rc->n_servers)
		return 0;
	/* No sites (only untraced callers): sites is NULL, which qsort
	 * must not be given even with no element. */
	if (rc->n_sites)
		qsort(rc->sites, rc->n_sites, sizeof(*rc->sites), cmp_site);
	if ((joined = rpc_forks_join(&rc->forks, rc->servers, rc->n_servers)) <
	    0)
		return (int)joined;
	if (!(tail = malloc((rc->n_servers + 1) * sizeof(*tail))))
		return -ENOMEM;
	ret = index_servers(rc, &map, tail);
	free(tail);
	if (!ret) {
		match_sides(rc, &map);
		hashmap_release(&map);
		ret = write_rows(rc, db, stats);
	}
	hashmap_release(&map);
	return ret;
}
