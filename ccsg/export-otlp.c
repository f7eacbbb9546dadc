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

#include "array.h"
#include "export-buf.h"
#include "export.h"
#include "json.h"

enum { S_CLIENT, S_SERVER, S_THREAD };

struct span_ref {
	int32_t kind; /* S_* */
	int32_t i;    /* call or thread index */
};

struct otlp {
	const struct export_ctx *x;
	const struct export_otlp_opts *o;
	struct xbuf *b;
	/* spans grouped by process: refs[first[p] .. first[p + 1]) */
	struct span_ref *refs;
	size_t *first;
	uint8_t *emit;	      /* per thread: it has a span */
	int32_t *own;	      /* per thread: the first chain it started, -1 */
	int64_t *self, *desc; /* per DSCG node: CPU (ns) */
	uint8_t (*th_trace)[16];
	uint8_t *th_trace_set;
	char **fn; /* per CCSG node: its name, JSON-escaped, no quotes */
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

static void chain_trace(const struct ccsg_chain *ch, uint8_t id[16])
{
	memcpy(id, ch->id, 16);
	for (int i = 0; i < 4; i++)
		id[12 + i] ^= ch->id[16 + i];
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

static uint64_t call_span(const struct export_ctx *x, size_t i, int server)
{
	const struct ccsg_call *c = &x->t->calls[i];

	return span_id(x->t->chains[c->chain].id, DB_CHAIN_LEN,
		       side_event(c, server), server ? 2 : 1);
}

static uint64_t thread_span(const struct export_ctx *x, size_t j)
{
	const struct ccsg_thread *th = &x->t->threads[j];

	return span_id((const uint8_t *)x->uuid[th->proc],
		       strlen(x->uuid[th->proc]), th->tid, 3);
}

/* The span standing for DSCG node u as a parent; 0 for none. */
static uint64_t node_span(const struct otlp *ot, int32_t u, uint8_t trace[16])
{
	const struct export_ctx *x = ot->x;

	if (u < 0 || u == x->d->main)
		return 0;
	if (ccsg_dscg_is_call(x->d, u)) {
		const struct ccsg_call *c = &x->t->calls[u];

		chain_trace(&x->t->chains[c->chain], trace);
		return call_span(x, (size_t)u, has_server(c));
	}
	u -= (int32_t)x->t->ncalls;
	if (!ot->emit[u])
		return 0;
	memcpy(trace, ot->th_trace[u], 16);
	return thread_span(x, (size_t)u);
}

/* A thread's trace: its first chain's, else its parent's, else one of
 * its own (process UUID and thread id). */
static void thread_trace(struct otlp *ot, size_t j)
{
	const struct export_ctx *x = ot->x;
	size_t k = j, steps = 0;
	uint8_t t[16];

	if (ot->th_trace_set[j])
		return;
	{
		/* its own, unless the walk below finds better */
		uint64_t a = thread_span(x, j), b = hash64(a ^ 0x5bd1e995);

		memcpy(t, &a, 8);
		memcpy(t + 8, &b, 8);
	}
	/* up through parent threads without a chain, to the first that
	 * settles it (cycles were cut by the DSCG: the walk is bounded) */
	while (steps++ <= x->t->nthreads) {
		int32_t p = x->d->parent[x->t->ncalls + k];

		if (ot->th_trace_set[k]) {
			memcpy(t, ot->th_trace[k], 16);
			break;
		}
		if (ot->own[k] >= 0) {
			chain_trace(&x->t->chains[ot->own[k]], t);
			break;
		}
		if (ccsg_dscg_is_call(x->d, p)) {
			chain_trace(&x->t->chains[x->t->calls[p].chain], t);
			break;
		}
		if (!ccsg_dscg_is_thread(x->d, p)) {
			uint64_t a = thread_span(x, k),
				 b = hash64(a ^ 0x5bd1e995);

			memcpy(t, &a, 8);
			memcpy(t + 8, &b, 8);
			break;
		}
		k = (size_t)p - x->t->ncalls;
	}
	memcpy(ot->th_trace[j], t, 16);
	ot->th_trace_set[j] = 1;
}

/* ---- preparation ------------------------------------------------------ */

static int prepare(struct otlp *ot)
{
	const struct export_ctx *x = ot->x;
	const struct ccsg_trace *t = x->t;
	const struct ccsg_dscg *d = x->d;
	size_t np = t->nprocs + 1, n = 0;
	size_t *fill;
	int32_t *order, u;
	size_t norder = 0;

	ot->emit = calloc(t->nthreads + 1, 1);
	ot->own = malloc((t->nthreads + 1) * sizeof(int32_t));
	ot->self = calloc(d->nnodes, sizeof(int64_t));
	ot->desc = calloc(d->nnodes, sizeof(int64_t));
	ot->th_trace = malloc((t->nthreads + 1) * 16);
	ot->th_trace_set = calloc(t->nthreads + 1, 1);
	ot->first = calloc(np + 1, sizeof(size_t));
	ot->fn = calloc(x->g->nnodes + 1, sizeof(char *));
	order = malloc(d->nnodes * sizeof(int32_t));
	fill = calloc(np + 1, sizeof(size_t));
	if (!ot->emit || !ot->own || !ot->self || !ot->desc || !ot->th_trace ||
	    !ot->th_trace_set || !ot->first || !ot->fn || !order || !fill)
		goto nomem;
	for (size_t j = 0; j < t->nthreads; j++)
		ot->own[j] = -1;
	for (size_t c = 0; c < t->nchains; c++) {
		int32_t o = t->chains[c].owner;

		if (o >= 0 && ot->own[o] < 0)
			ot->own[o] = (int32_t)c;
	}
	/* threads with a span: those above a call, and those a call made */
	for (size_t i = 0; i < t->ncalls; i++)
		for (u = d->parent[i]; ccsg_dscg_is_thread(d, u) &&
				       !ot->emit[u - (int32_t)t->ncalls];
		     u = d->parent[u])
			ot->emit[u - (int32_t)t->ncalls] = 1;
	for (size_t j = 0; j < t->nthreads; j++) {
		if (t->threads[j].spawn_call >= 0)
			ot->emit[j] = 1;
		if (t->threads[j].infra)
			ot->emit[j] = 0;
	}
	/* self and descendant CPU: pre-order, then back up it */
	for (u = d->first_child[d->main]; u >= 0;) {
		order[norder++] = u;
		if (d->first_child[u] >= 0) {
			u = d->first_child[u];
			continue;
		}
		while (u != d->main && d->next_sibling[u] < 0)
			u = d->parent[u];
		u = u == d->main ? -1 : d->next_sibling[u];
	}
	for (size_t i = 0; i < t->ncalls; i++)
		if (t->calls[i].server_proc &&
		    ccsg_proc_dim(x->g, t->calls[i].server_proc) >= 0)
			ot->self[i] = x->g->call_self[i];
	for (size_t j = 0; j < t->nthreads; j++)
		if (ccsg_proc_dim(x->g, t->threads[j].proc) >= 0)
			ot->self[t->ncalls + j] = x->g->thread_self[j];
	for (size_t k = norder; k-- > 0;) {
		int32_t p = d->parent[order[k]];

		if (p >= 0 && p != d->main)
			ot->desc[p] += ot->self[order[k]] + ot->desc[order[k]];
	}
	for (size_t j = 0; j < t->nthreads; j++)
		if (ot->emit[j])
			thread_trace(ot, j);
	/* the spans of each process */
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];

		if (has_client(c))
			ot->first[c->client_proc]++, n++;
		if (has_server(c))
			ot->first[c->server_proc]++, n++;
	}
	for (size_t j = 0; j < t->nthreads; j++)
		if (ot->emit[j])
			ot->first[t->threads[j].proc]++, n++;
	for (size_t p = np; p-- > 0;)
		ot->first[p + 1] = ot->first[p];
	ot->first[0] = 0;
	for (size_t p = 0; p < np; p++)
		ot->first[p + 1] += ot->first[p];
	if (!(ot->refs = malloc((n + 1) * sizeof(*ot->refs))))
		goto nomem;
#define PUT(p, k, idx)                                                         \
	ot->refs[ot->first[p] + fill[p]++] = (struct span_ref)                 \
	{                                                                      \
		k, (int32_t)(idx)                                              \
	}
	for (size_t j = 0; j < t->nthreads; j++)
		if (ot->emit[j])
			PUT(t->threads[j].proc, S_THREAD, j);
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];

		if (has_client(c))
			PUT(c->client_proc, S_CLIENT, i);
		if (has_server(c))
			PUT(c->server_proc, S_SERVER, i);
	}
#undef PUT
	free(order);
	free(fill);
	return 0;
nomem:
	free(order);
	free(fill);
	return -ENOMEM;
}

static void release(struct otlp *ot)
{
	if (ot->fn)
		for (size_t n = 0; n < ot->x->g->nnodes; n++)
			free(ot->fn[n]);
	free(ot->fn);
	free(ot->emit);
	free(ot->own);
	free(ot->self);
	free(ot->desc);
	free(ot->th_trace);
	free(ot->th_trace_set);
	free(ot->first);
	free(ot->refs);
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

/* A span's parent: its id in *id (0: none) and its trace. */
static void parent_of(const struct otlp *ot, const struct span_ref *r,
		      uint64_t *id, uint8_t trace[16])
{
	const struct export_ctx *x = ot->x;

	if (r->kind == S_THREAD) {
		*id = node_span(ot, x->d->parent[x->t->ncalls + (size_t)r->i],
				trace);
		return;
	}
	if (r->kind == S_SERVER && has_client(&x->t->calls[r->i])) {
		chain_trace(&x->t->chains[x->t->calls[r->i].chain], trace);
		*id = call_span(x, (size_t)r->i, 0);
		return;
	}
	*id = node_span(ot, x->d->parent[r->i], trace);
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

static void call_attrs(struct otlp *ot, const struct span_ref *r)
{
	const struct export_ctx *x = ot->x;
	const struct ccsg_trace *t = x->t;
	const struct ccsg_call *c = &t->calls[r->i];
	struct xbuf *b = ot->b;
	int32_t n = x->g->call_node[r->i];
	const char *q = n >= 0 ? ot->fn[n] : NULL,
		   *sep = q ? strstr(q, "::") : NULL;
	const char *tr = x->transport && x->transport[r->i] >= 0
				 ? t->strings[x->transport[r->i]]
				 : NULL;

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
	if (r->kind == S_CLIENT && c->peer >= 0)
		peer_attrs(b, t->strings[c->peer]);
	else if (r->kind == S_SERVER && c->object_id >= 0 &&
		 object_address(t, c))
		peer_attrs(b, object_address(t, c));
	attr_int(b, "causal.call_id", c->call_id, 0);
	key(b, "causal.chain_id", 0);
	XB_LIT(b, "{\"stringValue\":\"");
	xb_hex(b, t->chains[c->chain].id, DB_CHAIN_LEN);
	XB_LIT(b, "\"}}");
	attr_str(b, "causal.side", r->kind == S_SERVER ? "server" : "client",
		 0);
	if (r->kind == S_CLIENT) {
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
		attr_us(b, "causal.cpu.self_us", ot->self[r->i]);
		attr_us(b, "causal.cpu.descendant_us", ot->desc[r->i]);
	}
}

static void thread_attrs(struct otlp *ot, size_t j)
{
	const struct export_ctx *x = ot->x;
	const struct ccsg_thread *th = &x->t->threads[j];
	struct xbuf *b = ot->b;

	attr_int(b, "thread.id", x->os_tid[j] ? x->os_tid[j] : th->tid, 1);
	attr_int(b, "causal.proc_id", th->proc, 0);
	attr_int(b, "causal.tid", th->tid, 0);
	attr_us(b, "causal.cpu.self_us", ot->self[x->t->ncalls + j]);
	attr_us(b, "causal.cpu.descendant_us", ot->desc[x->t->ncalls + j]);
}

static void span(struct otlp *ot, const struct span_ref *r, int first)
{
	const struct export_ctx *x = ot->x;
	const struct ccsg_trace *t = x->t;
	struct xbuf *b = ot->b;
	uint8_t trace[16], ptrace[16];
	uint64_t id, parent;
	int64_t s, e;
	int32_t proc;
	const char *name;

	if (r->kind == S_THREAD) {
		const struct ccsg_thread *th = &t->threads[r->i];
		int64_t end = th->end_mono_ns != CCSG_NONE
				      ? th->end_mono_ns
				      : x->proc_end[th->proc];

		proc = th->proc;
		memcpy(trace, ot->th_trace[r->i], 16);
		id = thread_span(x, (size_t)r->i);
		s = x->th_start[r->i];
		e = end != CCSG_NONE && s != CCSG_NONE && end > s ? end : s;
		s = s == CCSG_NONE ? 0 : export_time(x, proc, s);
		e = e == CCSG_NONE ? s : export_time(x, proc, e);
		name = th->tid == 1 ? "\"main\"" : "\"thread\"";
	} else {
		const struct ccsg_call *c = &t->calls[r->i];
		int64_t c0, c1, s0, s1;
		int32_t n = x->g->call_node[r->i];

		export_call_times(x, c, &c0, &c1, &s0, &s1);
		proc = r->kind == S_SERVER ? c->server_proc : c->client_proc;
		chain_trace(&t->chains[c->chain], trace);
		id = call_span(x, (size_t)r->i, r->kind == S_SERVER);
		s = r->kind == S_SERVER ? s0 : c0;
		e = r->kind == S_SERVER ? s1 : c1;
		if (s == CCSG_NONE)
			s = e;
		if (e == CCSG_NONE || e < s)
			e = s;
		name = NULL;
		xb_str(b, first ? "{\"name\":\"" : ",\n{\"name\":\"");
		xb_str(b, n >= 0 ? ot->fn[n] : CCSG_LOST_NAME);
		xb_ch(b, '"');
	}
	if (name) {
		xb_str(b, first ? "{\"name\":" : ",\n{\"name\":");
		xb_str(b, name);
	}
	XB_LIT(b, ",\"kind\":");
	xb_ch(b, r->kind == S_CLIENT ? '3' : r->kind == S_SERVER ? '2' : '1');
	hex_id(b, "traceId", trace, 16);
	span_hex(b, "spanId", id);
	parent_of(ot, r, &parent, ptrace);
	if (parent)
		span_hex(b, "parentSpanId", parent);
	unix_time(b, "startTimeUnixNano", x, proc, s);
	unix_time(b, "endTimeUnixNano", x, proc, e);
	XB_LIT(b, ",\"attributes\":[");
	if (r->kind == S_THREAD)
		thread_attrs(ot, (size_t)r->i);
	else
		call_attrs(ot, r);
	xb_ch(b, ']');
	if (parent && memcmp(trace, ptrace, 16)) {
		/* the parent is in another trace (a thread spawned in a call
		 * starts a chain of its own) */
		XB_LIT(b, ",\"links\":[{\"traceId\":\"");
		xb_hex(b, ptrace, 16);
		xb_ch(b, '"');
		span_hex(b, "spanId", parent);
		XB_LIT(b, ",\"attributes\":[");
		attr_str(b, "causal.relation", "parent", 1);
		XB_LIT(b, "]}]");
	}
	if (r->kind != S_THREAD && t->calls[r->i].failed) {
		const struct ccsg_call *c = &t->calls[r->i];
		const char *why = c->status_name >= 0 && r->kind == S_CLIENT
					  ? t->strings[c->status_name]
				  : c->reply >= 0 && c->reply < CCSG_NREPLY
					  ? ccsg_reply_names[c->reply]
				  : c->status_name >= 0
					  ? t->strings[c->status_name]
					  : "failed";

		XB_LIT(b, ",\"status\":{\"code\":2,\"message\":");
		xb_json(b, why);
		xb_ch(b, '}');
	}
	xb_ch(b, '}');
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

static int write_all(struct otlp *ot, size_t batch)
{
	const struct ccsg_trace *t = ot->x->t;
	int ret, first_res = 1;

	xb_str(ot->b, doc_head);
	for (size_t p = 1; p < t->nprocs; p++) {
		size_t a = ot->first[p], z = ot->first[p + 1];
		int first = 1;

		if (a == z)
			continue;
		open_resource(ot, (int32_t)p, first_res);
		first_res = 0;
		for (size_t k = a; k < z; k++) {
			if (batch && ot->in_batch == batch) {
				close_resource(ot);
				if ((ret = cut(ot)))
					return ret;
				open_resource(ot, (int32_t)p, 1);
				first = 1;
			}
			span(ot, &ot->refs[k], first);
			first = 0;
			ot->in_batch++;
		}
		close_resource(ot);
	}
	if (batch)
		return ot->in_batch ? cut(ot) : 0;
	xb_str(ot->b, doc_tail);
	return 0;
}

static int setup(struct otlp *ot, const struct export_ctx *x,
		 const struct export_otlp_opts *o, FILE *f)
{
	memset(ot, 0, sizeof(*ot));
	ot->x = x;
	ot->o = o;
	if (!(ot->b = malloc(sizeof(*ot->b))))
		return -ENOMEM;
	xb_init(ot->b, f);
	if (prepare(ot))
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
	return 0;
}

int export_otlp(FILE *f, const struct export_ctx *x,
		const struct export_otlp_opts *o)
{
	struct otlp ot;
	int ret = setup(&ot, x, o, f);

	if (!ret)
		ret = write_all(&ot, 0);
	if (!ret) {
		xb_flush(ot.b);
		ret = ot.b->err ? -EIO : 0;
	}
	release(&ot);
	free(ot.b);
	return ret;
}

int export_otlp_batches(const struct export_ctx *x,
			const struct export_otlp_opts *o, export_batch_fn fn,
			void *arg)
{
	struct otlp ot;
	int ret = setup(&ot, x, o, NULL);

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
	free(ot.b);
	return ret;
}
