/*
 * export-otlp.c - OTLP/JSON (export.h): the ExportTraceServiceRequest of
 * opentelemetry-proto in its JSON mapping (lowerCamelCase fields, trace
 * and span ids as hex, 64-bit integers as strings, enums as numbers).
 *
 * A resource per traced process (host.name, process.pid,
 * process.executable.name and .path, service.name, service.instance.id
 * = its UUID), one span per side of every call (kind CLIENT on the
 * calling process, SERVER on the serving one) and one INTERNAL span per
 * thread that calls were made in or that a call spawned, so that the
 * spans' parents are the DSCG's: a server span's parent is its client
 * span, a client span's the server span of the call it was made in
 * (nesting) or the span of its thread, whose calls follow one another
 * (cascading), a thread's the server span of the call that spawned it or
 * its parent thread's span (thread spawn).
 *
 * Trace id: the chain id, its 4-byte counter XORed into the last 4 bytes
 * of its 16-byte process UUID (one trace per chain).  A thread's span is
 * in the trace of the first chain it started, else its parent's.  A
 * thread spawned in a call starts a chain of its own, so its span's
 * parent is in another trace: the parent span id names it all the same,
 * and a link says so for the backends that look for the parent in the
 * same trace.  Span id: 64 bits of a hash of (chain id, the event number
 * of the side's first probe), of (process UUID, thread id) for a thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "export-buf.h"
#include "export-spill.h"
#include "export.h"
#include "json.h"

enum { S_CLIENT, S_SERVER, S_THREAD };

/* The span a thread hangs under when a call spawned it. */
struct spawner {
	uint8_t chain[DB_CHAIN_LEN];
	uint64_t span;
};

struct otlp {
	const struct export_ctx *x;
	const struct export_otlp_opts *o;
	struct xbuf *b;
	char **fn; /* per CCSG node: its name, JSON-escaped, no quotes */
	/* per thread */
	uint8_t *emit;		      /* it has a span */
	uint8_t *roots;		      /* a chain it started has calls */
	uint8_t (*own)[DB_CHAIN_LEN]; /* the first chain it started */
	uint8_t *own_set;
	int32_t *spawn_ctx; /* the thread that started the spawning chain */
	struct spawner *spawner;
	uint8_t *spawner_set;
	int64_t *chains_self; /* CPU of the calls of the chains it started */
	int64_t *sum;	      /* its span's self + descendant CPU, or -1 */
	uint8_t (*th_trace)[16];
	uint8_t *th_trace_set;
	/* the calls that spawned threads: (ordinal, thread) by ordinal, and
	 * the next to meet in the second pass */
	struct spawn_at {
		int64_t ord;
		int32_t th;
	} * spawns;
	size_t nspawns, next_spawn;
	/* the call whose spawns are being noted (the first pass) */
	const struct export_part *at_p;
	size_t at_i;
	int32_t at_owner;
	uint8_t *seen; /* export_spawned()'s */
	/* the part being written: per call, self and descendant CPU */
	int64_t *self, *desc;
	size_t cap_self, cap_desc;
	/* per process: its call spans, a line each */
	struct export_spill spill;
	int32_t cur;	   /* the process a span is formatted for */
	struct xbuf *line; /* formats it, into that process's spill */
	FILE *line_file;
	/* batching */
	size_t in_batch, batches;
	export_batch_fn fn_batch;
	void *arg;
	FILE *mem;
	char *mem_buf;
	size_t mem_len;
	int stopped;
};

/* ---- ids ------------------------------------------------------------- */

static void chain_trace(const uint8_t chain[DB_CHAIN_LEN], uint8_t id[16])
{
	memcpy(id, chain, 16);
	for (int i = 0; i < 4; i++)
		id[12 + i] ^= chain[16 + i];
}

static uint64_t span_id(const uint8_t *key, size_t n, int64_t no, int salt)
{
	uint64_t h = hash_fnv(HASH_FNV_SEED ^ (uint64_t)salt, key, n);

	h = hash64(hash_fnv(h, &no, sizeof(no)));
	return h ? h : 1; /* an all-zero span id is invalid */
}

/* The event number a side is known by: its first probe's. */
static int64_t side_event(const struct ccsg_call *c, int server)
{
	if (server)
		return c->ev[CCSG_SKEL_START] != CCSG_NONE
			       ? c->ev[CCSG_SKEL_START]
			       : c->ev[CCSG_SKEL_END];
	return c->ev[CCSG_STUB_START] != CCSG_NONE ? c->ev[CCSG_STUB_START]
						   : c->ev[CCSG_STUB_END];
}

static int has_client(const struct ccsg_call *c)
{
	return c->client_proc && (c->stub_start_ns != CCSG_NONE ||
				  c->stub_end_exit_ns != CCSG_NONE);
}

static int has_server(const struct ccsg_call *c)
{
	return c->server_proc && (c->skel_start_exit_ns != CCSG_NONE ||
				  c->skel_end_ns != CCSG_NONE);
}

static const uint8_t *chain_of(const struct export_part *p, size_t i)
{
	return p->t->chains[p->calls[i].chain].id;
}

static uint64_t call_span(const struct export_part *p, size_t i, int server)
{
	return span_id(chain_of(p, i), DB_CHAIN_LEN,
		       side_event(&p->calls[i], server), server ? 2 : 1);
}

static uint64_t thread_span(const struct export_ctx *x, size_t j)
{
	const struct ccsg_thread *th = &x->t->threads[j];

	return span_id((const uint8_t *)x->uuid[th->proc],
		       strlen(x->uuid[th->proc]), th->tid, 3);
}

/* A trace of a thread's own (process UUID and thread id). */
static void own_trace(const struct export_ctx *x, size_t j, uint8_t t[16])
{
	uint64_t a = thread_span(x, j), b = hash64(a ^ 0x5bd1e995);

	memcpy(t, &a, 8);
	memcpy(t + 8, &b, 8);
}

/* A thread's trace: its first chain's, else its parent's, else one of
 * its own. */
static void thread_trace(struct otlp *ot, size_t j)
{
	const struct export_ctx *x = ot->x;
	size_t k = j, steps = 0;
	uint8_t t[16];

	if (ot->th_trace_set[j])
		return;
	own_trace(x, j, t); /* unless the walk below finds better */
	/* up through parent threads without a chain, to the first that
	 * settles it (cycles were cut: the walk is bounded) */
	while (steps++ <= x->t->nthreads) {
		const struct ccsg_thread *th = &x->t->threads[k];

		if (ot->th_trace_set[k]) {
			memcpy(t, ot->th_trace[k], 16);
			break;
		}
		if (ot->own_set[k]) {
			chain_trace(ot->own[k], t);
			break;
		}
		if (th->spawn_call >= 0) {
			if (ot->spawner_set[k])
				chain_trace(ot->spawner[k].chain, t);
			break;
		}
		if (th->parent_thread < 0) {
			own_trace(x, k, t);
			break;
		}
		k = (size_t)th->parent_thread;
	}
	memcpy(ot->th_trace[j], t, 16);
	ot->th_trace_set[j] = 1;
}

/* ---- the first pass ---------------------------------------------------- */

/* Thread j's own CPU (Equation 2), on a host of the graph. */
static int64_t thread_cpu(const struct export_ctx *x, size_t j)
{
	return ccsg_proc_dim(x->g, x->t->threads[j].proc) >= 0
		       ? x->g->thread_self[j]
		       : 0;
}

static int64_t self_cpu(const struct otlp *ot, const struct export_part *p,
			size_t i)
{
	const struct ccsg_call *c = &p->calls[i];

	return c->server_proc && ccsg_proc_dim(ot->x->g, c->server_proc) >= 0
		       ? p->self[i]
		       : 0;
}

/* Thread th was spawned by the call ot->at_*. */
static void spawned(void *arg, int32_t th)
{
	struct otlp *ot = arg;
	const struct export_part *p = ot->at_p;
	size_t i = ot->at_i;

	memcpy(ot->spawner[th].chain, chain_of(p, i), DB_CHAIN_LEN);
	ot->spawner[th].span = call_span(p, i, has_server(&p->calls[i]));
	ot->spawner_set[th] = 1;
	ot->spawn_ctx[th] = ot->at_owner;
}

/* Threads' chains, and the calls that spawned threads. */
static int first_part(void *arg, const struct export_part *p)
{
	struct otlp *ot = arg;

	for (size_t i = 0; i < p->n; i++) {
		const struct ccsg_call *c = &p->calls[i];
		int32_t owner = p->t->chains[c->chain].owner;
		int64_t ord = p->ord0 + (int64_t)i;

		if (owner >= 0) {
			if (!ot->own_set[owner]) {
				memcpy(ot->own[owner], chain_of(p, i),
				       DB_CHAIN_LEN);
				ot->own_set[owner] = 1;
			}
			if (c->parent < 0)
				ot->roots[owner] = 1;
			ot->chains_self[owner] += self_cpu(ot, p, i);
		}
		ot->at_p = p;
		ot->at_i = i;
		ot->at_owner = owner;
		export_spawned(ot->x, ot->seen, c, ord, spawned, ot);
	}
	return 0;
}

/* A thread's span's self + descendant CPU: its own, its chains', and
 * that of the threads spawned in them or by it.  0 on a cycle (a
 * corrupt trace), as the DSCG's walk never meets it. */
static int64_t thread_sum(struct otlp *ot, int32_t j, int32_t *const *kids,
			  const size_t *nkids)
{
	const struct export_ctx *x = ot->x;
	int64_t s;

	if (ot->sum[j] >= 0)
		return ot->sum[j];
	if (ot->sum[j] == -2)
		return 0;
	ot->sum[j] = -2;
	s = thread_cpu(x, (size_t)j) + ot->chains_self[j];
	for (size_t k = 0; k < nkids[j]; k++)
		s += thread_sum(ot, kids[j][k], kids, nkids);
	return ot->sum[j] = s;
}

static int add_kid(int32_t **kids, size_t *nkids, size_t *cap, int32_t p,
		   int32_t j)
{
	if (GROW(kids[p], cap[p], nkids[p] + 1))
		return -ENOMEM;
	kids[p][nkids[p]++] = j;
	return 0;
}

static int by_ordinal(const void *a, const void *b)
{
	const struct spawn_at *x = a, *y = b;

	return x->ord != y->ord ? (x->ord < y->ord ? -1 : 1)
				: (x->th > y->th) - (x->th < y->th);
}

/* Which threads have a span, and the sums, once the first pass is in. */
static int settle_threads(struct otlp *ot)
{
	const struct ccsg_trace *t = ot->x->t;
	size_t nt = t->nthreads + 1;
	int32_t **kids = calloc(nt, sizeof(*kids));
	size_t *nkids = calloc(nt, sizeof(size_t)),
	       *cap = calloc(nt, sizeof(size_t));
	int ret = -ENOMEM;

	if (!kids || !nkids || !cap)
		goto out;
	/* threads with a span: those above a call, and those a call made */
	for (size_t j = 0; j < t->nthreads; j++) {
		size_t steps = 0;

		for (int32_t u = (int32_t)j;
		     u >= 0 && ot->roots[j] && !ot->emit[u] &&
		     steps++ <= t->nthreads;
		     u = t->threads[u].spawn_call < 0
				 ? t->threads[u].parent_thread
				 : -1)
			ot->emit[u] = 1;
	}
	for (size_t j = 0; j < t->nthreads; j++) {
		const struct ccsg_thread *th = &t->threads[j];
		int32_t p = th->spawn_call >= 0 ? ot->spawn_ctx[j]
						: th->parent_thread;

		if (th->spawn_call >= 0)
			ot->emit[j] = 1;
		if (th->infra)
			ot->emit[j] = 0;
		if (p >= 0 && add_kid(kids, nkids, cap, p, (int32_t)j))
			goto out;
	}
	for (size_t j = 0; j < t->nthreads; j++)
		thread_sum(ot, (int32_t)j, kids, nkids);
	/* the spawns by call, for the second pass */
	for (size_t j = 0; j < t->nthreads; j++)
		if (t->threads[j].spawn_call >= 0)
			ot->spawns[ot->nspawns++] =
				(struct spawn_at){ t->threads[j].spawn_call,
						   (int32_t)j };
	qsort(ot->spawns, ot->nspawns, sizeof(*ot->spawns), by_ordinal);
	for (size_t j = 0; j < t->nthreads; j++)
		if (ot->emit[j])
			thread_trace(ot, j);
	ret = 0;
out:
	for (size_t j = 0; kids && j < nt; j++)
		free(kids[j]);
	free(kids);
	free(nkids);
	free(cap);
	return ret;
}

/* ---- writing ----------------------------------------------------------- */

static void key(struct xbuf *b, const char *k, int first)
{
	xb_str(b, first ? "{\"key\":\"" : ",{\"key\":\"");
	xb_str(b, k);
	XB_LIT(b, "\",\"value\":");
}

static void attr_str(struct xbuf *b, const char *k, const char *v, int first)
{
	key(b, k, first);
	XB_LIT(b, "{\"stringValue\":");
	xb_json(b, v);
	XB_LIT(b, "}}");
}

/* A string attribute whose value is already JSON-escaped. */
static void attr_raw(struct xbuf *b, const char *k, const char *v, size_t n)
{
	key(b, k, 0);
	XB_LIT(b, "{\"stringValue\":\"");
	xb_put(b, v, n);
	XB_LIT(b, "\"}}");
}

static void attr_int(struct xbuf *b, const char *k, int64_t v, int first)
{
	key(b, k, first);
	XB_LIT(b, "{\"intValue\":\"");
	xb_i64(b, v);
	XB_LIT(b, "\"}}");
}

static void attr_us(struct xbuf *b, const char *k, int64_t ns)
{
	key(b, k, 0);
	XB_LIT(b, "{\"doubleValue\":");
	xb_us(b, ns);
	XB_LIT(b, "}}");
}

/* ,"field":"HEX" */
static void hex_id(struct xbuf *b, const char *field, const uint8_t *id,
		   size_t n)
{
	xb_ch(b, ',');
	xb_ch(b, '"');
	xb_str(b, field);
	XB_LIT(b, "\":\"");
	xb_hex(b, id, n);
	xb_ch(b, '"');
}

static void span_hex(struct xbuf *b, const char *field, uint64_t id)
{
	uint8_t v[8];

	for (int i = 0; i < 8; i++)
		v[i] = (uint8_t)(id >> (56 - 8 * i));
	hex_id(b, field, v, 8);
}

static void unix_time(struct xbuf *b, const char *field,
		      const struct export_ctx *x, int32_t proc, int64_t t)
{
	int32_t h = ccsg_trace_host(x->t, proc);

	XB_LIT(b, ",\"");
	xb_str(b, field);
	XB_LIT(b, "\":\"");
	xb_i64(b, t + (h >= 0 ? x->hosts[h].unix_ns : 0));
	xb_ch(b, '"');
}

static void open_resource(struct otlp *ot, int32_t p, int first)
{
	const struct export_ctx *x = ot->x;
	struct xbuf *b = ot->b;
	const char *exe = export_exe(x, p), *service = exe;
	size_t n = strlen(exe);
	int32_t h = ccsg_trace_host(x->t, p);

	for (size_t i = 0; i < ot->o->nservices; i++)
		if (!strncmp(ot->o->services[i], exe, n) &&
		    ot->o->services[i][n] == '=')
			service = ot->o->services[i] + n + 1;
	xb_str(b, first ? "{\"resource\":{\"attributes\":["
			: ",\n{\"resource\":{\"attributes\":[");
	attr_str(b, "host.name", h >= 0 ? x->t->hosts[h] : "?", 1);
	attr_int(b, "process.pid", x->t->procs[p].pid, 0);
	attr_str(b, "process.executable.name", exe, 0);
	if (x->t->procs[p].exe)
		attr_str(b, "process.executable.path", x->t->procs[p].exe, 0);
	attr_str(b, "service.name", service, 0);
	attr_str(b, "service.instance.id", x->uuid[p], 0);
	XB_LIT(b, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"causal\","
		  "\"version\":\"1\"},\"spans\":[\n");
}

static void close_resource(struct otlp *ot)
{
	xb_str(ot->b, "\n]}]}");
}

/* "127.0.0.1:2049" -> address and port; "[::1]:111" too; "unix:/p". */
static void peer_attrs(struct xbuf *b, const char *peer)
{
	const char *colon = strrchr(peer, ':');
	char addr[256];
	char *end;
	long port;

	if (!strncmp(peer, "unix:", 5) || !colon) {
		attr_str(b, "server.address",
			 strncmp(peer, "unix:", 5) ? peer : peer + 5, 0);
		return;
	}
	port = strtol(colon + 1, &end, 10);
	snprintf(addr, sizeof(addr), "%.*s", (int)(colon - peer), peer);
	if (addr[0] == '[' && addr[strlen(addr) - 1] == ']') {
		memmove(addr, addr + 1, strlen(addr));
		addr[strlen(addr) - 1] = '\0';
	}
	attr_str(b, "server.address", addr, 0);
	if (!*end && port >= 0 && port <= 65535)
		attr_int(b, "server.port", port, 0);
}

static const char *object_address(const struct ccsg_trace *t,
				  const struct ccsg_call *c)
{
	for (size_t i = 0; i < t->nobjects; i++)
		if (t->objects[i].proc == c->server_proc &&
		    t->objects[i].object_id == c->object_id)
			return t->objects[i].address;
	return NULL;
}

static void call_attrs(struct otlp *ot, const struct export_part *p, size_t i,
		       int server)
{
	const struct export_ctx *x = ot->x;
	const struct ccsg_trace *t = p->t;
	const struct ccsg_call *c = &p->calls[i];
	struct xbuf *b = ot->b;
	int32_t n = p->node[i];
	const char *q = n >= 0 ? ot->fn[n] : NULL,
		   *sep = q ? strstr(q, "::") : NULL;
	const char *tr = c->transport >= 0 ? t->strings[c->transport] : NULL;

	attr_str(b, "rpc.system", "onc_rpc", 1);
	if (sep) { /* "PROGRAM::PROCEDURE": the two halves */
		attr_raw(b, "rpc.service", q, (size_t)(sep - q));
		attr_raw(b, "rpc.method", sep + 2, strlen(sep + 2));
		attr_raw(b, "onc_rpc.program.name", q, (size_t)(sep - q));
		attr_raw(b, "onc_rpc.procedure.name", sep + 2, strlen(sep + 2));
	}
	attr_int(b, "onc_rpc.version", c->vers, 0);
	attr_int(b, "onc_rpc.procedure.number", c->proc, 0);
	attr_int(b, "onc_rpc.program.number", c->prog, 0);
	if (tr &&
	    (!strcmp(tr, "tcp") || !strcmp(tr, "udp") || !strcmp(tr, "unix")))
		attr_str(b, "network.transport",
			 strcmp(tr, "unix") ? tr : "unix", 0);
	if (!server && c->peer >= 0)
		peer_attrs(b, t->strings[c->peer]);
	else if (server && c->object_id >= 0 && object_address(x->t, c))
		peer_attrs(b, object_address(x->t, c));
	attr_int(b, "causal.call_id", c->call_id, 0);
	key(b, "causal.chain_id", 0);
	XB_LIT(b, "{\"stringValue\":\"");
	xb_hex(b, chain_of(p, i), DB_CHAIN_LEN);
	XB_LIT(b, "\"}}");
	attr_str(b, "causal.side", server ? "server" : "client", 0);
	if (!server) {
		if (c->args_bytes != CCSG_NONE)
			attr_int(b, "causal.args_bytes", c->args_bytes, 0);
		if (c->results_bytes != CCSG_NONE)
			attr_int(b, "causal.results_bytes", c->results_bytes,
				 0);
		if (c->status_name >= 0)
			attr_str(b, "causal.status", t->strings[c->status_name],
				 0);
	} else {
		if (c->server_args_bytes != CCSG_NONE)
			attr_int(b, "causal.args_bytes", c->server_args_bytes,
				 0);
		if (c->server_results_bytes != CCSG_NONE)
			attr_int(b, "causal.results_bytes",
				 c->server_results_bytes, 0);
		if (c->reply >= 0 && c->reply < CCSG_NREPLY)
			attr_str(b, "causal.reply", ccsg_reply_names[c->reply],
				 0);
		attr_us(b, "causal.cpu.self_us", ot->self[i]);
		attr_us(b, "causal.cpu.descendant_us", ot->desc[i]);
	}
}

/* ,"parentSpanId":... (when it has a parent), its times, and the start
 * of its attributes: what follows a span's ids. */
static void span_tail(struct otlp *ot, uint64_t parent, int32_t proc, int64_t s,
		      int64_t e)
{
	struct xbuf *b = ot->b;

	if (parent)
		span_hex(b, "parentSpanId", parent);
	unix_time(b, "startTimeUnixNano", ot->x, proc, s);
	unix_time(b, "endTimeUnixNano", ot->x, proc, e);
	XB_LIT(b, ",\"attributes\":[");
}

/* The links of a span whose parent is in another trace (a thread
 * spawned in a call starts a chain of its own). */
static void span_links(struct otlp *ot, const uint8_t trace[16],
		       uint64_t parent, const uint8_t ptrace[16])
{
	struct xbuf *b = ot->b;

	if (!parent || !memcmp(trace, ptrace, 16))
		return;
	XB_LIT(b, ",\"links\":[{\"traceId\":\"");
	xb_hex(b, ptrace, 16);
	xb_ch(b, '"');
	span_hex(b, "spanId", parent);
	XB_LIT(b, ",\"attributes\":[");
	attr_str(b, "causal.relation", "parent", 1);
	XB_LIT(b, "]}]");
}

/* Thread j's span. */
static void thread_span_write(struct otlp *ot, size_t j, int first)
{
	const struct export_ctx *x = ot->x;
	const struct ccsg_thread *th = &x->t->threads[j];
	struct xbuf *b = ot->b;
	int64_t end = th->end_mono_ns != CCSG_NONE ? th->end_mono_ns
						   : x->proc_end[th->proc];
	int64_t s = x->th_start[j], e, self;
	uint8_t ptrace[16];
	uint64_t parent = 0;

	/* its parent: the call that spawned it, else its parent thread's
	 * span (when it has one), else none */
	if (th->spawn_call >= 0 && ot->spawner_set[j]) {
		chain_trace(ot->spawner[j].chain, ptrace);
		parent = ot->spawner[j].span;
	} else if (th->spawn_call < 0 && th->parent_thread >= 0 &&
		   ot->emit[th->parent_thread]) {
		memcpy(ptrace, ot->th_trace[th->parent_thread], 16);
		parent = thread_span(x, (size_t)th->parent_thread);
	}
	e = end != CCSG_NONE && s != CCSG_NONE && end > s ? end : s;
	s = s == CCSG_NONE ? 0 : export_time(x, th->proc, s);
	e = e == CCSG_NONE ? s : export_time(x, th->proc, e);
	xb_str(b, first ? "{\"name\":" : ",\n{\"name\":");
	xb_str(b, th->tid == 1 ? "\"main\"" : "\"thread\"");
	XB_LIT(b, ",\"kind\":1");
	hex_id(b, "traceId", ot->th_trace[j], 16);
	span_hex(b, "spanId", thread_span(x, j));
	span_tail(ot, parent, th->proc, s, e);
	self = thread_cpu(x, j);
	attr_int(b, "thread.id", x->os_tid[j] ? x->os_tid[j] : th->tid, 1);
	attr_int(b, "causal.proc_id", th->proc, 0);
	attr_int(b, "causal.tid", th->tid, 0);
	attr_us(b, "causal.cpu.self_us", self);
	attr_us(b, "causal.cpu.descendant_us",
		ot->sum[j] > self ? ot->sum[j] - self : 0);
	xb_ch(b, ']');
	span_links(ot, ot->th_trace[j], parent, ptrace);
	xb_ch(b, '}');
}

/* A side of call i of p: its span, without a leading separator. */
static void call_span_write(struct otlp *ot, const struct export_part *p,
			    size_t i, int server)
{
	const struct export_ctx *x = ot->x;
	const struct ccsg_call *c = &p->calls[i];
	struct xbuf *b = ot->b;
	uint8_t trace[16], ptrace[16];
	uint64_t parent = 0;
	int64_t c0, c1, s0, s1, s, e;
	int32_t n = p->node[i];
	int32_t proc = server ? c->server_proc : c->client_proc;
	int32_t owner = p->t->chains[c->chain].owner;

	export_call_times(x, c, &c0, &c1, &s0, &s1);
	chain_trace(chain_of(p, i), trace);
	s = server ? s0 : c0;
	e = server ? s1 : c1;
	if (s == CCSG_NONE)
		s = e;
	if (e == CCSG_NONE || e < s)
		e = s;
	/* its parent: its client side, the call it was made in, the thread
	 * that started its chain (when it has a span), or none */
	if (server && has_client(c)) {
		memcpy(ptrace, trace, 16);
		parent = call_span(p, i, 0);
	} else if (c->parent >= 0) {
		memcpy(ptrace, trace, 16);
		parent = call_span(p, (size_t)c->parent,
				   has_server(&p->calls[c->parent]));
	} else if (owner >= 0 && ot->emit[owner]) {
		memcpy(ptrace, ot->th_trace[owner], 16);
		parent = thread_span(x, (size_t)owner);
	}
	XB_LIT(b, "{\"name\":\"");
	xb_str(b, n >= 0 ? ot->fn[n] : CCSG_LOST_NAME);
	XB_LIT(b, "\",\"kind\":");
	xb_ch(b, server ? '2' : '3');
	hex_id(b, "traceId", trace, 16);
	span_hex(b, "spanId", call_span(p, i, server));
	span_tail(ot, parent, proc, s, e);
	call_attrs(ot, p, i, server);
	xb_ch(b, ']');
	span_links(ot, trace, parent, ptrace);
	if (c->failed) {
		const char *why = c->status_name >= 0 && !server
					  ? p->t->strings[c->status_name]
				  : c->reply >= 0 && c->reply < CCSG_NREPLY
					  ? ccsg_reply_names[c->reply]
				  : c->status_name >= 0
					  ? p->t->strings[c->status_name]
					  : "failed";

		XB_LIT(b, ",\"status\":{\"code\":2,\"message\":");
		xb_json(b, why);
		xb_ch(b, '}');
	}
	xb_ch(b, '}');
}

/* ---- the second pass: each process's spill ------------------------------- */

/* The line buffer's file: appends to the spill of process ot->cur. */
static ssize_t spill_write(void *cookie, const char *buf, size_t n)
{
	struct otlp *ot = cookie;

	return export_spill_add(&ot->spill, (size_t)ot->cur, buf, n)
		       ? -1
		       : (ssize_t)n;
}

/* A side of a call: its span, a line of its process's spill. */
static int spill_span(struct otlp *ot, const struct export_part *p, size_t i,
		      int server)
{
	struct xbuf *keep = ot->b;

	ot->cur = server ? p->calls[i].server_proc : p->calls[i].client_proc;
	ot->b = ot->line;
	call_span_write(ot, p, i, server);
	xb_ch(ot->b, '\n');
	xb_flush(ot->b);
	ot->b = keep;
	if (ot->line->err)
		return -ENOMEM;
	return export_spill_count(&ot->spill, (size_t)ot->cur);
}

static int second_part(void *arg, const struct export_part *p)
{
	struct otlp *ot = arg;
	int ret;

	if (GROW(ot->self, ot->cap_self, p->n + 1) ||
	    GROW(ot->desc, ot->cap_desc, p->n + 1))
		return -ENOMEM;
	/* self and descendant CPU: the calls made in a call, and the
	 * threads it spawned with all under them; calls come after the call
	 * they were made in */
	for (size_t i = 0; i < p->n; i++) {
		int64_t ord = p->ord0 + (int64_t)i;

		ot->self[i] = self_cpu(ot, p, i);
		ot->desc[i] = 0;
		while (ot->next_spawn < ot->nspawns &&
		       ot->spawns[ot->next_spawn].ord <= ord) {
			const struct spawn_at *sa =
				&ot->spawns[ot->next_spawn++];

			if (sa->ord == ord && ot->sum[sa->th] > 0)
				ot->desc[i] += ot->sum[sa->th];
		}
	}
	for (size_t i = p->n; i-- > 0;) {
		int32_t up = p->calls[i].parent;

		if (up >= 0 && (size_t)up < i)
			ot->desc[up] += ot->self[i] + ot->desc[i];
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct ccsg_call *c = &p->calls[i];

		if (has_client(c) && (ret = spill_span(ot, p, i, 0)))
			return ret;
		if (has_server(c) && (ret = spill_span(ot, p, i, 1)))
			return ret;
	}
	return 0;
}

/* ---- documents and batches -------------------------------------------- */

static const char doc_head[] = "{\"resourceSpans\":[\n";
static const char doc_tail[] = "\n]}\n";

/* Hand the request so far to the callback and start the next one. */
static int cut(struct otlp *ot)
{
	long len;

	xb_str(ot->b, doc_tail);
	xb_flush(ot->b);
	if (ot->b->err || fflush(ot->mem) || (len = ftell(ot->mem)) < 0)
		return -EIO;
	ot->batches++;
	if (ot->fn_batch(ot->mem_buf, (size_t)len, ot->in_batch, ot->arg)) {
		ot->stopped = 1;
		return -ECANCELED;
	}
	ot->in_batch = 0;
	if (fseek(ot->mem, 0, SEEK_SET))
		return -EIO;
	xb_str(ot->b, doc_head);
	return 0;
}

/* Before a span of process q: a new request when the batch is full. */
static int next_span(struct otlp *ot, int32_t q, size_t batch, int *first)
{
	int ret;

	if (batch && ot->in_batch == batch) {
		close_resource(ot);
		if ((ret = cut(ot)))
			return ret;
		open_resource(ot, q, 1);
		*first = 1;
	}
	ot->in_batch++;
	return 0;
}

/* Where the spill's spans go. */
struct lines {
	struct otlp *ot;
	int32_t q;
	size_t batch;
	int *first;
};

/* The spill's lines in s[0 .. n), each a span of process q. */
static int put_lines(void *arg, const char *s, size_t n)
{
	const struct lines *l = arg;
	struct otlp *ot = l->ot;
	int ret;

	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t len = nl ? (size_t)(nl - s) : n;

		if ((ret = next_span(ot, l->q, l->batch, l->first)))
			return ret;
		if (!*l->first)
			XB_LIT(ot->b, ",\n");
		xb_put(ot->b, s, len);
		*l->first = 0;
		len += nl ? 1 : 0;
		s += len;
		n -= len;
	}
	return ot->b->err ? -EIO : 0;
}

static int write_all(struct otlp *ot, size_t batch)
{
	const struct ccsg_trace *t = ot->x->t;
	size_t nt = t->nthreads;
	int32_t *threads = malloc((nt + 1) * sizeof(int32_t));
	size_t *first_th = calloc(t->nprocs + 2, sizeof(size_t));
	int ret = -ENOMEM, first_res = 1;

	if (!threads || !first_th)
		goto out;
	/* each process's threads with a span, in thread order */
	for (size_t j = 0; j < nt; j++)
		if (ot->emit[j])
			first_th[t->threads[j].proc + 1]++;
	for (size_t q = 0; q <= t->nprocs; q++)
		first_th[q + 1] += first_th[q];
	for (size_t j = 0; j < nt; j++)
		if (ot->emit[j])
			threads[first_th[t->threads[j].proc]++] = (int32_t)j;
	for (size_t q = t->nprocs + 1; q-- > 1;)
		first_th[q] = first_th[q - 1];
	first_th[0] = 0;
	xb_str(ot->b, doc_head);
	for (size_t q = 1; q < t->nprocs; q++) {
		size_t a = first_th[q], z = first_th[q + 1];
		int first = 1;

		if (a == z && !ot->spill.group[q].items)
			continue;
		open_resource(ot, (int32_t)q, first_res);
		first_res = 0;
		for (size_t k = a; k < z; k++) {
			if ((ret = next_span(ot, (int32_t)q, batch, &first)))
				goto out;
			thread_span_write(ot, (size_t)threads[k], first);
			first = 0;
		}
		{
			struct lines l = { ot, (int32_t)q, batch, &first };

			if ((ret = export_spill_each(&ot->spill, q, put_lines,
						     &l)))
				goto out;
		}
		close_resource(ot);
	}
	if (batch)
		ret = ot->in_batch ? cut(ot) : 0;
	else {
		xb_str(ot->b, doc_tail);
		ret = 0;
	}
out:
	free(threads);
	free(first_th);
	return ret;
}

static void release(struct otlp *ot)
{
	if (ot->fn)
		for (size_t n = 0; n < ot->x->g->nnodes; n++)
			free(ot->fn[n]);
	free(ot->fn);
	free(ot->emit);
	free(ot->seen);
	free(ot->roots);
	free(ot->own);
	free(ot->own_set);
	free(ot->spawn_ctx);
	free(ot->spawner);
	free(ot->spawner_set);
	free(ot->chains_self);
	free(ot->sum);
	free(ot->th_trace);
	free(ot->th_trace_set);
	free(ot->spawns);
	free(ot->self);
	free(ot->desc);
	export_spill_release(&ot->spill);
	if (ot->line_file)
		fclose(ot->line_file);
	free(ot->line);
	free(ot->b);
}

/* The per-thread arrays, the names, and the two passes. */
static int setup(struct otlp *ot, struct export_ctx *x,
		 const struct export_source *src,
		 const struct export_otlp_opts *o, FILE *f)
{
	static const cookie_io_functions_t io = { .write = spill_write };
	const struct ccsg_trace *t = x->t;
	size_t nt = t->nthreads + 1;
	int ret;

	memset(ot, 0, sizeof(*ot));
	ot->x = x;
	ot->o = o;
	ot->b = malloc(sizeof(*ot->b));
	ot->line = malloc(sizeof(*ot->line));
	ot->emit = calloc(nt, 1);
	ot->seen = calloc(nt, 1);
	ot->roots = calloc(nt, 1);
	ot->own = calloc(nt, sizeof(*ot->own));
	ot->own_set = calloc(nt, 1);
	ot->spawn_ctx = malloc(nt * sizeof(int32_t));
	ot->spawner = calloc(nt, sizeof(*ot->spawner));
	ot->spawner_set = calloc(nt, 1);
	ot->chains_self = calloc(nt, sizeof(int64_t));
	ot->sum = malloc(nt * sizeof(int64_t));
	ot->th_trace = calloc(nt, 16);
	ot->th_trace_set = calloc(nt, 1);
	ot->spawns = malloc(nt * sizeof(*ot->spawns));
	if (!ot->b || !ot->line || !ot->seen || !ot->emit || !ot->roots ||
	    !ot->own || !ot->own_set || !ot->spawn_ctx || !ot->spawner ||
	    !ot->spawner_set || !ot->chains_self || !ot->sum || !ot->th_trace ||
	    !ot->th_trace_set || !ot->spawns ||
	    export_spill_init(&ot->spill, t->nprocs + 1))
		return -ENOMEM;
	if (!(ot->line_file = fopencookie(ot, "w", io)))
		return -ENOMEM;
	setvbuf(ot->line_file, NULL, _IONBF, 0); /* the xbuf is the buffer */
	xb_init(ot->b, f);
	xb_init(ot->line, ot->line_file);
	for (size_t j = 0; j < t->nthreads; j++) {
		ot->spawn_ctx[j] = -1;
		ot->sum[j] = -1;
	}
	/* the clocks and the threads (the graph folded, when the source's
	 * first pass folds it), then every call's spans spilled */
	if ((ret = export_align(x, src, first_part, ot)) ||
	    (ret = settle_threads(ot)))
		return ret;
	if (!(ot->fn = calloc(x->g->nnodes + 1, sizeof(char *))))
		return -ENOMEM;
	for (size_t n = 0; n < x->g->nnodes; n++) {
		char *p = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&p, &len);

		if (!m)
			return -ENOMEM;
		json_cstr(m, x->g->nodes[n].name ? x->g->nodes[n].name : "?");
		if (fclose(m))
			return -ENOMEM;
		/* without its quotes */
		memmove(p, p + 1, len - 1);
		p[len - 2] = '\0';
		ot->fn[n] = p;
	}
	return src->pass(src, second_part, ot);
}

int export_otlp(FILE *f, struct export_ctx *x, const struct export_source *src,
		const struct export_otlp_opts *o)
{
	struct otlp ot;
	int ret = setup(&ot, x, src, o, f);

	if (!ret)
		ret = write_all(&ot, 0);
	if (!ret) {
		xb_flush(ot.b);
		ret = ot.b->err ? -EIO : 0;
	}
	release(&ot);
	return ret;
}

int export_otlp_batches(struct export_ctx *x, const struct export_source *src,
			const struct export_otlp_opts *o, export_batch_fn fn,
			void *arg)
{
	struct otlp ot;
	int ret = setup(&ot, x, src, o, NULL);

	if (!ret) {
		ot.fn_batch = fn;
		ot.arg = arg;
		if (!(ot.mem = open_memstream(&ot.mem_buf, &ot.mem_len)))
			ret = -ENOMEM;
	}
	if (!ret) {
		ot.b->f = ot.mem;
		ret = write_all(&ot, o->batch ? o->batch : 512);
	}
	if (ot.mem)
		fclose(ot.mem);
	free(ot.mem_buf);
	release(&ot);
	return ret;
}
