/*
 * export-otlp-span.c - one span of the OTLP export and the resource it
 * is in (export-otlp.h): its trace and span ids (from the chain and the
 * side's first event, or the thread), its parent, times and attributes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export-otlp.h"
#include "values/values.h"

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

int otlp_has_client(const struct ccsg_call *c)
{
	return c->client_proc && (c->stub_start_ns != CCSG_NONE ||
				  c->stub_end_exit_ns != CCSG_NONE);
}

int otlp_has_server(const struct ccsg_call *c)
{
	return c->server_proc && (c->skel_start_exit_ns != CCSG_NONE ||
				  c->skel_end_ns != CCSG_NONE);
}

const uint8_t *otlp_chain_of(const struct export_part *p, size_t i)
{
	return p->t->chains[p->calls[i].chain].id;
}

uint64_t otlp_call_span(const struct export_part *p, size_t i, int server)
{
	return span_id(otlp_chain_of(p, i), DB_CHAIN_LEN,
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
void otlp_thread_trace(struct otlp *ot, size_t j)
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

/* Thread j's own CPU (Equation 2), on a host of the graph. */
int64_t otlp_thread_cpu(const struct export_ctx *x, size_t j)
{
	return ccsg_proc_dim(x->g, x->t->threads[j].proc) >= 0
		       ? x->g->thread_self[j]
		       : 0;
}

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

/* ,{"key":k,"value":{"arrayValue":{"values":[ */
static void array_open(struct xbuf *b, const char *k)
{
	key(b, k, 0);
	XB_LIT(b, "{\"arrayValue\":{\"values\":[");
}

/*
 * The monitoring of process p (docs/export.md, "otlp"): its intervals as
 * arrays, one item an interval, in order: when each began (on the spans'
 * clock; each runs to the next, the last to the process's end), the
 * types on, the component selections in force, and whether some calls
 * went unmonitored for the CPU.  Nothing for a trace without
 * monitor_switches.
 */
static void monitoring_attrs(struct xbuf *b, const struct export_ctx *x,
			     int32_t p)
{
	static const char *const keys[] = { "causal.monitoring.from_unix_nano",
					    "causal.monitoring.types",
					    "causal.monitoring.selections",
					    "causal.monitoring.deselects" };
	int32_t h = ccsg_trace_host(x->t, p);
	size_t n;
	const struct ccsg_mon_interval *iv =
		ccsg_monitoring_of(&x->t->mon, p, &n);
	char buf[64];

	if (!iv)
		return;
	for (size_t k = 0; k < 4; k++) {
		array_open(b, keys[k]);
		for (size_t i = 0; i < n; i++) {
			xb_str(b, i ? ",{" : "{");
			if (k == 0) {
				XB_LIT(b, "\"intValue\":\"");
				xb_i64(b, export_time(x, p, iv[i].from_ns) +
						  (h >= 0 ? x->hosts[h].unix_ns
							  : 0));
				XB_LIT(b, "\"}");
			} else if (k == 1) {
				XB_LIT(b, "\"stringValue\":\"");
				xb_str(b,
				       ccsg_monitoring_types(buf, sizeof(buf),
							     iv[i].types, "|"));
				XB_LIT(b, "\"}");
			} else if (k == 2) {
				XB_LIT(b, "\"stringValue\":");
				xb_json(b, iv[i].selections ? iv[i].selections
							    : "");
				xb_ch(b, '}');
			} else {
				XB_LIT(b, "\"boolValue\":");
				xb_str(b, iv[i].deselects ? "true}" : "false}");
			}
		}
		XB_LIT(b, "]}}}");
	}
}

void otlp_open_resource(struct otlp *ot, int32_t p, int first)
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
	monitoring_attrs(b, x, p);
	if (x->sampling) { /* head sampling: each span's chain's odds */
		char rate[32];

		snprintf(rate, sizeof(rate), "%.9g", x->sample_rate);
		key(b, "causal.sample_rate", 0);
		XB_LIT(b, "{\"doubleValue\":");
		xb_str(b, rate);
		XB_LIT(b, "}}");
	}
	XB_LIT(b, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"causal\","
		  "\"version\":\"1\"},\"spans\":[\n");
}

void otlp_close_resource(struct otlp *ot)
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

/* The call's values (values/values.h): causal.args, causal.result as
 * JSON text, or causal.args_hex, causal.result_hex; causal.*_cut. */
static void values_attrs(struct xbuf *b, struct ccsg_values *v,
			 const struct ccsg_call *c)
{
	static const char *const keys[2][3] = {
		{ "causal.args", "causal.args_hex", "causal.args_cut" },
		{ "causal.result", "causal.result_hex", "causal.result_cut" },
	};
	struct ccsg_call_values cv;

	if (!v)
		return;
	ccsg_values_of(v, c, &cv);
	for (int k = 0; k < 2; k++) {
		int hex;
		char *text = ccsg_value_text(&cv, k, &hex);

		if (!text)
			continue;
		attr_str(b, keys[k][hex], text, 0);
		if (cv.status[k] == XDR_CUT ||
		    (hex && cv.rec[k]->len < cv.rec[k]->length)) {
			key(b, keys[k][2], 0);
			XB_LIT(b, "{\"boolValue\":true}}");
		}
		free(text);
	}
	ccsg_call_values_release(&cv);
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
	xb_hex(b, otlp_chain_of(p, i), DB_CHAIN_LEN);
	XB_LIT(b, "\"}}");
	attr_str(b, "causal.side", server ? "server" : "client", 0);
	values_attrs(b, x->values, c);
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
void otlp_thread_span_write(struct otlp *ot, size_t j, int first)
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
	self = otlp_thread_cpu(x, j);
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
void otlp_call_span_write(struct otlp *ot, const struct export_part *p,
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
	chain_trace(otlp_chain_of(p, i), trace);
	s = server ? s0 : c0;
	e = server ? s1 : c1;
	if (s == CCSG_NONE)
		s = e;
	if (e == CCSG_NONE || e < s)
		e = s;
	/* its parent: its client side, the call it was made in, the thread
	 * that started its chain (when it has a span), or none */
	if (server && otlp_has_client(c)) {
		memcpy(ptrace, trace, 16);
		parent = otlp_call_span(p, i, 0);
	} else if (c->parent >= 0) {
		memcpy(ptrace, trace, 16);
		parent = otlp_call_span(p, (size_t)c->parent,
					otlp_has_server(&p->calls[c->parent]));
	} else if (owner >= 0 && ot->emit[owner]) {
		memcpy(ptrace, ot->th_trace[owner], 16);
		parent = thread_span(x, (size_t)owner);
	}
	XB_LIT(b, "{\"name\":\"");
	xb_str(b, n >= 0 ? ot->fn[n] : CCSG_LOST_NAME);
	XB_LIT(b, "\",\"kind\":");
	xb_ch(b, server ? '2' : '3');
	hex_id(b, "traceId", trace, 16);
	span_hex(b, "spanId", otlp_call_span(p, i, server));
	span_tail(ot, parent, proc, s, e);
	call_attrs(ot, p, i, server);
	xb_ch(b, ']');
	span_links(ot, trace, parent, ptrace);
	if (ccsg_call_side_failed(c, server)) {
		/* each side's status is its own: the client's, or the reply */
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
