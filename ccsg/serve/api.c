/*
 * api.c - the viewer's JSON API over a trace in memory (api.h): the IDT,
 * DSCG, CCSG and CCDG trees of the CPU paper's Section 5, node by node
 * and a page of children at a time, the navigation linking forms of its
 * Figure 4, and the compacted trees of compact.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "json.h"
#include "usage.h"

enum tree { T_IDT, T_DSCG, T_CCSG, T_CCDG, NTREES };
static const char *const tree_names[NTREES] = { "idt", "dscg", "ccsg", "ccdg" };

#define LIMIT_DEFAULT 200
#define LIMIT_MAX 10000
#define LINK_LIMIT 500

/* One request being answered: the body is written to f. */
struct ctx {
	struct viewer *v;
	const struct api_request *rq;
	FILE *f;
	char *buf;
	size_t len;
	int status;
	int tree;		 /* enum tree */
	struct compact_tree *ct; /* the compacted tree asked for, or NULL */
};

/* A node of the DSCG view: the graph's instances plus the global thread
 * (chain) and segment nodes of the monitoring paper's Section 4.1. */
struct vid {
	char k;	      /* 'm', 't', 'g', 's', 'c' */
	int32_t a, b; /* thread, chain or call index; segment */
};

/* ---- the answer --------------------------------------------------------- */

static int reply_error(struct ctx *x, int status, const char *fmt, ...)
	CAUSAL_PRINTF(3, 4);

/* Replace whatever was written by {"error": MESSAGE}; -1 to unwind. */
static int reply_error(struct ctx *x, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fclose(x->f);
	free(x->buf);
	x->buf = NULL;
	x->len = 0;
	x->f = open_memstream(&x->buf, &x->len);
	x->status = status;
	if (!x->f)
		return -1;
	fputs("{\"error\": ", x->f);
	json_cstr(x->f, msg);
	fputs("}\n", x->f);
	return -1;
}

static const char *param(const struct ctx *x, const char *key)
{
	for (size_t i = 0; i < x->rq->nparams; i++)
		if (!strcmp(x->rq->params[i].key, key))
			return x->rq->params[i].value ? x->rq->params[i].value
						      : "";
	return NULL;
}

/* Digits only, at most 18 of them (no overflow): 0 and *out, or -1. */
static int parse_num(const char **s, int64_t *out)
{
	const char *p = *s;
	int64_t n = 0;
	int d = 0;

	while (*p >= '0' && *p <= '9') {
		if (++d > 18)
			return -1;
		n = n * 10 + (*p++ - '0');
	}
	if (!d)
		return -1;
	*s = p;
	*out = n;
	return 0;
}

/* A whole string that is a number in [lo, hi]. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	if (!s || parse_num(&s, out) || *s || *out < lo || *out > hi)
		return -1;
	return 0;
}

/* An optional numeric parameter; a bad one is a 400. */
static int num_param(struct ctx *x, const char *key, int64_t lo, int64_t hi,
		     int64_t dflt, int64_t *out)
{
	const char *s = param(x, key);

	*out = dflt;
	if (!s)
		return 0;
	if (parse_int(s, lo, hi, out))
		return reply_error(x, 400,
				   "'%s' must be a number from %lld to %lld, "
				   "not '%.64s'",
				   key, (long long)lo, (long long)hi, s);
	return 0;
}

static const char *need_param(struct ctx *x, const char *key)
{
	const char *s = param(x, key);

	if (!s || !*s)
		reply_error(x, 400, "missing parameter '%s'", key);
	return s && *s ? s : NULL;
}

/* ---- locations ---------------------------------------------------------- */

static const char *host_name(const struct ccsg_trace *t, int32_t proc)
{
	int32_t h = proc > 0 ? ccsg_trace_host(t, proc) : -1;

	return h >= 0 ? t->hosts[h] : "";
}

static void process_name(const struct ccsg_trace *t, int32_t proc, char *buf,
			 size_t len)
{
	const char *exe, *base;

	if (proc <= 0 || (size_t)proc >= t->nprocs) {
		snprintf(buf, len, "%s", proc > 0 ? "?" : "");
		return;
	}
	exe = t->procs[proc].exe;
	base = exe && strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	snprintf(buf, len, "%s[%d]", base ? base : "", t->procs[proc].pid);
}

/* "host": ..., "process": ..., "tid": ... of (proc, tid). */
static void put_location(FILE *f, const struct ccsg_trace *t, int32_t proc,
			 int32_t tid)
{
	char p[600];

	process_name(t, proc, p, sizeof(p));
	fputs("\"host\": ", f);
	json_cstr(f, host_name(t, proc));
	fputs(", \"process\": ", f);
	json_cstr(f, p);
	fprintf(f, ", \"proc_id\": %d, \"tid\": %d", proc, tid);
}

static void put_vec(FILE *f, const char *key, const int64_t *v, size_t n)
{
	fprintf(f, ", \"%s\": [", key);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
	fputc(']', f);
}

/* ---- DSCG view ---------------------------------------------------------- */

static int32_t call_index(const struct viewer *v, int64_t call_id)
{
	size_t lo = 0, hi = v->trace->ncalls;

	if (v->id_index)
		return call_id >= v->id_base &&
				       (uint64_t)(call_id - v->id_base) <
					       v->id_span
			       ? v->id_index[call_id - v->id_base]
			       : -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->call_ids[mid] < call_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->trace->ncalls && v->call_ids[lo] == call_id
		       ? v->call_by_id[lo]
		       : -1;
}

static int dscg_parse(const struct viewer *v, const char *s, struct vid *out)
{
	const struct ccsg_trace *t = v->trace;
	int64_t a, b = 0;
	char k = *s++;

	if (k == 'm' && !*s) {
		*out = (struct vid){ 'm', 0, 0 };
		return 0;
	}
	if ((k != 't' && k != 'g' && k != 's' && k != 'c') || parse_num(&s, &a))
		return -1;
	if (k == 't' || k == 's') {
		if (*s++ != '.' || parse_num(&s, &b))
			return -1;
	}
	if (*s)
		return -1;
	switch (k) {
	case 't':
		if (a > INT32_MAX || b > INT32_MAX ||
		    (a = ccsg_trace_thread(t, (int32_t)a, (int32_t)b)) < 0)
			return -1;
		*out = (struct vid){ 't', (int32_t)a, 0 };
		return 0;
	case 'g':
	case 's':
		if ((size_t)a >= t->nchains)
			return -1;
		if (k == 's' &&
		    b >= (t->chains[a].segments > 0 ? t->chains[a].segments
						    : 0))
			return -1;
		*out = (struct vid){ k, (int32_t)a, (int32_t)b };
		return 0;
	default:
		if ((a = call_index(v, a)) < 0)
			return -1;
		*out = (struct vid){ 'c', (int32_t)a, 0 };
		return 0;
	}
}

static void dscg_put_id(FILE *f, const struct viewer *v, struct vid u)
{
	const struct ccsg_trace *t = v->trace;

	switch (u.k) {
	case 'm':
		fputs("\"m\"", f);
		break;
	case 't':
		fprintf(f, "\"t%d.%d\"", t->threads[u.a].proc,
			t->threads[u.a].tid);
		break;
	case 'g':
		fprintf(f, "\"g%d\"", u.a);
		break;
	case 's':
		fprintf(f, "\"s%d.%d\"", u.a, u.b);
		break;
	default:
		fprintf(f, "\"c%lld\"", (long long)t->calls[u.a].call_id);
	}
}

struct vids {
	struct vid *v;
	size_t n, cap;
};

static int push(struct vids *l, struct vid u)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct vid *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = u;
	return 0;
}

/* The children of u in the view: threads, chains (global thread nodes)
 * in place of their root calls, segments of broken chains, calls. */
static int dscg_children(const struct viewer *v, struct vid u, struct vids *l)
{
	const struct ccsg_trace *t = v->trace;
	const struct ccsg_dscg *d = v->dscg;
	int32_t node;

	l->n = 0;
	if (u.k == 'g' || u.k == 's') {
		const struct ccsg_chain *ch = &t->chains[u.a];

		for (int32_t j = ch->first; j < ch->first + ch->n; j++) {
			const struct ccsg_call *c = &t->calls[j];

			if (c->parent >= 0)
				continue;
			if (u.k == 'g' && ch->segments > 0) {
				/* one node per segment, in order */
				if (l->n && l->v[l->n - 1].b == c->seg)
					continue;
				if (push(l, (struct vid){ 's', u.a, c->seg }))
					return -ENOMEM;
			} else if (u.k == 'g' || c->seg == u.b) {
				if (push(l, (struct vid){ 'c', j, 0 }))
					return -ENOMEM;
			}
		}
		return 0;
	}
	node = u.k == 'm'   ? d->main
	       : u.k == 't' ? (int32_t)t->ncalls + u.a
			    : u.a;
	for (int32_t c = d->first_child[node]; c >= 0; c = d->next_sibling[c]) {
		struct vid w;

		if (!ccsg_dscg_is_call(d, c))
			w = (struct vid){ 't', c - (int32_t)t->ncalls, 0 };
		else if (u.k == 'c')
			w = (struct vid){ 'c', c, 0 };
		else if (l->n && l->v[l->n - 1].k == 'g' &&
			 l->v[l->n - 1].a == t->calls[c].chain)
			continue; /* a chain's root calls are consecutive */
		else
			w = (struct vid){ 'g', t->calls[c].chain, 0 };
		if (push(l, w))
			return -ENOMEM;
	}
	return 0;
}

static int dscg_has_children(const struct viewer *v, struct vid u)
{
	const struct ccsg_dscg *d = v->dscg;

	switch (u.k) {
	case 'm':
		return d->first_child[d->main] >= 0;
	case 't':
		return d->first_child[v->trace->ncalls + u.a] >= 0;
	case 'c':
		return d->first_child[u.a] >= 0;
	default:
		return 1;
	}
}

/* The parent of u in the view; 0, or -1 for main. */
static int dscg_parent(const struct viewer *v, struct vid u, struct vid *p)
{
	const struct ccsg_trace *t = v->trace;
	const struct ccsg_dscg *d = v->dscg;
	int32_t up;

	switch (u.k) {
	case 'm':
		return -1;
	case 's':
		*p = (struct vid){ 'g', u.a, 0 };
		return 0;
	case 'g': {
		int32_t owner = t->chains[u.a].owner;

		*p = owner >= 0 ? (struct vid){ 't', owner, 0 }
				: (struct vid){ 'm', 0, 0 };
		return 0;
	}
	case 'c':
		if (t->calls[u.a].parent < 0) {
			const struct ccsg_call *c = &t->calls[u.a];

			*p = t->chains[c->chain].segments > 0
				     ? (struct vid){ 's', c->chain, c->seg }
				     : (struct vid){ 'g', c->chain, 0 };
			return 0;
		}
		up = d->parent[u.a];
		break;
	default:
		up = d->parent[t->ncalls + u.a];
	}
	if (up == d->main)
		*p = (struct vid){ 'm', 0, 0 };
	else if (ccsg_dscg_is_call(d, up))
		*p = (struct vid){ 'c', up, 0 };
	else
		*p = (struct vid){ 't', up - (int32_t)t->ncalls, 0 };
	return 0;
}

/* Self and total CPU of a view node, ns. */
static void dscg_cpu(const struct viewer *v, struct vid u, int64_t *self,
		     int64_t *total)
{
	const struct ccsg_trace *t = v->trace;
	int32_t node;

	if (u.k == 'g' || u.k == 's') {
		const struct ccsg_chain *ch = &t->chains[u.a];

		*self = *total = 0;
		for (int32_t j = ch->first; j < ch->first + ch->n; j++)
			if (t->calls[j].parent < 0 &&
			    (u.k == 'g' || t->calls[j].seg == u.b))
				*total += v->inst_total[j];
		return;
	}
	node = u.k == 'm'   ? v->dscg->main
	       : u.k == 't' ? (int32_t)t->ncalls + u.a
			    : u.a;
	*self = v->inst_self[node];
	*total = v->inst_total[node];
}

/* A view node's name, kind and location, with details when full. */
static void dscg_put_node(FILE *f, const struct viewer *v, struct vid u,
			  int full)
{
	const struct ccsg_trace *t = v->trace;
	int64_t self, total;
	char name[1024];
	const char *kind;

	dscg_cpu(v, u, &self, &total);
	switch (u.k) {
	case 'm':
		kind = "main";
		snprintf(name, sizeof(name), "<main>");
		break;
	case 't':
		kind = "thread";
		snprintf(name, sizeof(name), "<thread %d>",
			 t->threads[u.a].tid);
		break;
	case 'g':
		kind = "chain";
		snprintf(name, sizeof(name), "<chain %d%s>", u.a,
			 t->chains[u.a].segments > 0 ? ", broken" : "");
		break;
	case 's':
		kind = "segment";
		snprintf(name, sizeof(name), "<segment %d>", u.b);
		break;
	default:
		kind = "call";
		ccsg_call_name(v->names, t, &t->calls[u.a], name, sizeof(name));
	}
	fputs("{\"id\": ", f);
	dscg_put_id(f, v, u);
	fputs(", \"name\": ", f);
	json_cstr(f, name);
	fprintf(f,
		", \"kind\": \"%s\", \"self\": %lld, \"total\": %lld, "
		"\"has_children\": %s",
		kind, (long long)self, (long long)total,
		dscg_has_children(v, u) ? "true" : "false");
	if (u.k == 't') {
		const struct ccsg_thread *th = &t->threads[u.a];

		fputs(", ", f);
		put_location(f, t, th->proc, th->tid);
		if (full)
			fprintf(f, ", \"thread_cpu\": %lld, \"infra\": %s",
				(long long)(th->cpu_ns == CCSG_NONE
						    ? -1
						    : th->cpu_ns),
				th->infra ? "true" : "false");
	} else if (u.k == 'c') {
		const struct ccsg_call *c = &t->calls[u.a];
		int server = c->server_proc > 0;
		int64_t lat = c->stub_start_ns != CCSG_NONE &&
					      c->stub_end_exit_ns != CCSG_NONE
				      ? c->stub_end_exit_ns - c->stub_start_ns
				      : -1;

		fputs(", ", f);
		put_location(f, t, server ? c->server_proc : c->client_proc,
			     server ? c->server_tid : c->client_tid);
		fprintf(f, ", \"latency\": %lld, \"failed\": %s",
			(long long)lat, c->failed ? "true" : "false");
		if (full) {
			fprintf(f,
				", \"call_id\": %lld, \"chain\": %d, "
				"\"depth\": %d, \"prog\": %u, \"vers\": %u, "
				"\"proc\": %u, \"status\": ",
				(long long)c->call_id, c->chain, c->depth,
				c->prog, c->vers, c->proc);
			json_cstr(f, c->status_name >= 0
					     ? t->strings[c->status_name]
					     : "");
			fputs(", \"client\": {", f);
			put_location(f, t, c->client_proc, c->client_tid);
			fputs("}, \"server\": {", f);
			put_location(f, t, c->server_proc, c->server_tid);
			fputs("}", f);
		}
	} else if (u.k == 'g' && full) {
		fprintf(f,
			", \"calls\": %d, \"segments\": %d, "
			"\"breaks\": %d, \"truncated\": %s",
			t->chains[u.a].n, t->chains[u.a].segments,
			t->chains[u.a].breaks,
			t->chains[u.a].truncated ? "true" : "false");
	}
	fputc('}', f);
}

/* Location of a DSCG view node for the linking forms: the serving side
 * of a call. */
static void dscg_where(const struct viewer *v, struct vid u, int32_t *proc,
		       int32_t *tid)
{
	const struct ccsg_trace *t = v->trace;

	*proc = *tid = 0;
	if (u.k == 't') {
		*proc = t->threads[u.a].proc;
		*tid = t->threads[u.a].tid;
	} else if (u.k == 'c') {
		const struct ccsg_call *c = &t->calls[u.a];

		*proc = c->server_proc > 0 ? c->server_proc : c->client_proc;
		*tid = c->server_proc > 0 ? c->server_tid : c->client_tid;
	}
}

/* ---- CCSG and CCDG ------------------------------------------------------ */

static int64_t node_total(const struct viewer *v, int32_t n)
{
	const struct ccsg_node *x = &v->graph->nodes[n];
	size_t k = v->graph->dims->n;

	return ccsg_vec_sum(x->self, k) + ccsg_vec_sum(x->desc, k);
}

static int ccsg_parse(const struct viewer *v, const char *s, int32_t *n)
{
	int64_t a;

	if (*s++ != 'n' || parse_num(&s, &a) || *s ||
	    (size_t)a >= v->graph->nnodes)
		return -1;
	*n = (int32_t)a;
	return 0;
}

static void ccsg_put_node(FILE *f, const struct viewer *v, int32_t n, int ccdg,
			  int full)
{
	const struct ccsg_graph *g = v->graph;
	const struct ccsg_node *x = &g->nodes[n];
	size_t k = g->dims->n;
	int64_t self = ccsg_vec_sum(x->self, k),
		desc = ccsg_vec_sum(x->desc, k);
	static const char *const kinds[] = { "main", "function", "thread" };

	fprintf(f, "{\"id\": \"n%d\", \"name\": ", n);
	json_cstr(f, x->name ? x->name : "?");
	fprintf(f,
		", \"kind\": \"%s\", \"self\": %lld, \"desc\": %lld, "
		"\"total\": %lld, \"calls\": %lld, \"threads\": %lld, "
		"\"failed\": %lld, \"has_children\": %s",
		kinds[x->kind], (long long)self, (long long)desc,
		(long long)(self + desc), (long long)x->calls,
		(long long)x->threads, (long long)x->failed,
		v->pfirst[n] >= 0 ? "true" : "false");
	put_vec(f, "self_v", x->self, k);
	put_vec(f, "desc_v", x->desc, k);
	if (x->kind == CCSG_FUNCTION)
		fprintf(f, ", \"prog\": %u, \"vers\": %u, \"proc\": %u",
			x->prog, x->vers, x->proc);
	if (ccdg && v->im_spec) {
		int64_t *aself = calloc(3 * k + 1, sizeof(int64_t));
		int64_t *adesc, *tot, after = 0;

		if (!aself) {
			fputs(", \"affected\": false}", f);
			return;
		}
		adesc = aself + k;
		tot = adesc + k;
		ccsg_impact_after(&v->im, n, aself, adesc);
		for (size_t i = 0; i < k; i++) {
			tot[i] = aself[i] + adesc[i];
			after += tot[i];
		}
		fprintf(f,
			", \"affected\": %s, \"before\": %lld, \"after\": "
			"%lld, \"delta\": %lld",
			v->im.affected[n] ? "true" : "false",
			(long long)(self + desc), (long long)after,
			(long long)(after - self - desc));
		put_vec(f, "after_v", tot, k);
		for (size_t i = 0; i < k; i++)
			tot[i] -= x->self[i] + x->desc[i];
		put_vec(f, "delta_v", tot, k);
		free(aself);
	}
	if (full) {
		int first = 1;

		fputs(", \"callers\": [", f);
		for (size_t e = 0; e < g->nedges; e++)
			if (g->edges[e].to == n) {
				const struct ccsg_node *from =
					&g->nodes[g->edges[e].from];

				fprintf(f,
					"%s{\"id\": \"n%d\", \"count\": %lld, "
					"\"primary\": %s, \"name\": ",
					first ? "" : ", ", g->edges[e].from,
					(long long)g->edges[e].count,
					g->edges[e].primary ? "true" : "false");
				json_cstr(f, from->name ? from->name : "?");
				fputc('}', f);
				first = 0;
			}
		fputc(']', f);
	}
	fputc('}', f);
}

/* ---- IDT ------------------------------------------------------------------
 */

struct idt_id {
	char k; /* 'r' (the root), 'p', 'v', 'f' */
	uint32_t prog, vers, proc;
};

static int idt_parse(const char *s, struct idt_id *out)
{
	int64_t a[3] = { 0, 0, 0 };
	int n;
	char k;

	if (!strcmp(s, "idt")) {
		*out = (struct idt_id){ 'r', 0, 0, 0 };
		return 0;
	}
	k = *s++;
	n = k == 'p' ? 1 : k == 'v' ? 2 : k == 'f' ? 3 : 0;
	if (!n)
		return -1;
	for (int i = 0; i < n; i++)
		if ((i && *s++ != '.') || parse_num(&s, &a[i]) ||
		    a[i] > UINT32_MAX)
			return -1;
	if (*s)
		return -1;
	*out = (struct idt_id){ k, (uint32_t)a[0], (uint32_t)a[1],
				(uint32_t)a[2] };
	return 0;
}

static int idt_in(const struct viewer_idt_fn *fn, struct idt_id u)
{
	return u.k == 'r' ||
	       (fn->prog == u.prog &&
		(u.k == 'p' ||
		 (fn->vers == u.vers && (u.k == 'v' || fn->proc == u.proc))));
}

/* The range of fns under u: [*lo, *hi); empty when u names nothing. */
static void idt_range(const struct viewer *v, struct idt_id u, size_t *lo,
		      size_t *hi)
{
	size_t i = 0;

	while (i < v->nfns && !idt_in(&v->fns[i], u))
		i++;
	*lo = i;
	while (i < v->nfns && idt_in(&v->fns[i], u))
		i++;
	*hi = i;
}

static void idt_put_id(FILE *f, struct idt_id u)
{
	switch (u.k) {
	case 'r':
		fputs("\"idt\"", f);
		break;
	case 'p':
		fprintf(f, "\"p%u\"", u.prog);
		break;
	case 'v':
		fprintf(f, "\"v%u.%u\"", u.prog, u.vers);
		break;
	default:
		fprintf(f, "\"f%u.%u.%u\"", u.prog, u.vers, u.proc);
	}
}

static void stat_put(FILE *f, const struct viewer_idt_stat *s)
{
	double lm = s->lat_n ? s->lat / s->lat_n : 0;
	double cm = s->n ? s->cpu / s->n : 0;
	double lv = s->lat_n ? s->lat2 / s->lat_n - lm * lm : 0;
	double cv = s->n ? s->cpu2 / s->n - cm * cm : 0;

	fprintf(f,
		"\"calls\": %.0f, \"latency_mean\": %.0f, \"latency_sd\": "
		"%.0f, \"cpu_mean\": %.0f, \"cpu_sd\": %.0f",
		s->n, lm, lv > 0 ? sqrt(lv) : 0.0, cm, cv > 0 ? sqrt(cv) : 0.0);
}

static void idt_put_node(FILE *f, const struct viewer *v, struct idt_id u,
			 int full)
{
	size_t lo, hi;
	double calls = 0, cpu = 0;
	const struct viewer_idt_fn *fn;

	idt_range(v, u, &lo, &hi);
	fn = lo < hi ? &v->fns[lo] : NULL;
	fputs("{\"id\": ", f);
	idt_put_id(f, u);
	fputs(", \"name\": ", f);
	json_cstr(f, u.k == 'r'	  ? "<interfaces>"
		     : u.k == 'p' ? fn->prog_name
		     : u.k == 'v' ? fn->vers_name
				  : fn->proc_name);
	fprintf(f, ", \"kind\": \"%s\"",
		u.k == 'r'   ? "root"
		: u.k == 'p' ? "program"
		: u.k == 'v' ? "version"
			     : "procedure");
	for (size_t i = lo; i < hi; i++) {
		calls += v->fns[i].all.n;
		cpu += v->fns[i].all.cpu;
	}
	fprintf(f, ", \"has_children\": %s, \"total\": %.0f, \"self\": 0",
		u.k != 'f' && lo < hi ? "true" : "false", cpu);
	if (u.k != 'r')
		fprintf(f, ", \"prog\": %u", u.prog);
	if (u.k == 'v' || u.k == 'f')
		fprintf(f, ", \"vers\": %u", u.vers);
	if (u.k == 'f') {
		fprintf(f, ", \"proc\": %u, \"full_name\": ", u.proc);
		{
			char b[1024];

			snprintf(b, sizeof(b), "%s::%s", fn->prog_name,
				 fn->proc_name);
			json_cstr(f, b);
		}
		fputs(", ", f);
		stat_put(f, &fn->all);
		if (full) {
			int first = 1;

			fputs(", \"hosts\": [", f);
			for (size_t h = 0; h <= v->trace->nhosts; h++) {
				if (!fn->host[h].n)
					continue;
				fputs(first ? "{\"host\": " : ", {\"host\": ",
				      f);
				json_cstr(f, h < v->trace->nhosts
						     ? v->trace->hosts[h]
						     : "?");
				fputs(", ", f);
				stat_put(f, &fn->host[h]);
				fputc('}', f);
				first = 0;
			}
			fputc(']', f);
		}
	} else {
		fprintf(f, ", \"calls\": %.0f", calls);
	}
	fputc('}', f);
}

/* The children of u: the distinct programs, versions or procedures. */
static size_t idt_children(const struct viewer *v, struct idt_id u,
			   struct idt_id *out, size_t max)
{
	size_t lo, hi, n = 0;

	idt_range(v, u, &lo, &hi);
	if (u.k == 'f')
		return 0;
	for (size_t i = lo; i < hi; i++) {
		const struct viewer_idt_fn *fn = &v->fns[i];
		struct idt_id c = { u.k == 'r'	 ? 'p'
				    : u.k == 'p' ? 'v'
						 : 'f',
				    fn->prog, fn->vers, fn->proc };

		const struct viewer_idt_fn *pf = i > lo ? &v->fns[i - 1] : NULL;

		if (pf && pf->prog == c.prog &&
		    (c.k == 'p' || (pf->vers == c.vers &&
				    (c.k == 'v' || pf->proc == c.proc))))
			continue;
		if (n < max)
			out[n] = c;
		n++;
	}
	return n;
}

/* ---- compacted trees ---------------------------------------------------- */

static char *node_path(const struct compact_tree *t, int32_t c)
{
	size_t n = compact_tree_path(t, c, NULL, 0);
	char *p = malloc(n + 1);

	if (p)
		compact_tree_path(t, c, p, n + 1);
	return p;
}

static void compact_put_id(FILE *f, const struct compact_tree *t, int32_t c)
{
	char *p = node_path(t, c);
	size_t n = p ? strlen(p) : 0;
	char *id = malloc(n + 3);

	if (id) {
		memcpy(id, "k:", 2);
		memcpy(id + 2, p ? p : "", n + 1);
		json_cstr(f, id);
	} else {
		json_cstr(f, "k:");
	}
	free(id);
	free(p);
}

static void compact_put_node(FILE *f, const struct compact_tree *t, int32_t c)
{
	const struct compact_node *x = &t->nodes[c];
	size_t n = compact_tree_node_name(t, c, NULL, 0);
	char *name = malloc(n + 1);
	int el = c == COMPACT_ROOT ? 0 : compact_tree_node_elements(t, c);

	double total = x->total, self = x->self;

	if (name)
		compact_tree_node_name(t, c, name, n + 1);
	if (c == COMPACT_ROOT) { /* the root stands for nothing: its tops */
		total = self = 0;
		for (int32_t k = x->first_child; k >= 0;
		     k = t->nodes[k].next_sibling)
			total += t->nodes[k].total;
	}
	fputs("{\"id\": ", f);
	compact_put_id(f, t, c);
	fputs(", \"name\": ", f);
	json_cstr(f, c == COMPACT_ROOT ? "<root>" : name ? name : "?");
	/* the engine's weights are microseconds: ns like the others */
	fprintf(f,
		", \"kind\": \"compacted\", \"elements\": %d, \"self\": "
		"%.0f, \"total\": %.0f, \"calls\": %.0f, \"members\": %d, "
		"\"has_children\": %s}",
		el, self * 1000, total * 1000, x->calls, x->members,
		x->first_child >= 0 ? "true" : "false");
	free(name);
}

static int compact_parse(struct compact_tree *t, const char *s, int32_t *c)
{
	if (strncmp(s, "k:", 2))
		return -1;
	if (!s[2]) {
		*c = COMPACT_ROOT;
		return 0;
	}
	*c = compact_tree_find(t, s + 2);
	return *c >= 0 ? 0 : -1;
}

static const struct compact_tree *sort_tree;

static int by_compact_total(const void *a, const void *b)
{
	const struct compact_node *x = &sort_tree->nodes[*(const int32_t *)a];
	const struct compact_node *y = &sort_tree->nodes[*(const int32_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* The children of c by total, largest first, into v->list. */
static int compact_children(struct viewer *v, struct compact_tree *t, int32_t c)
{
	v->nlist = 0;
	for (int32_t k = t->nodes[c].first_child; k >= 0;
	     k = t->nodes[k].next_sibling) {
		if (v->nlist == v->cap_list) {
			size_t cap = v->cap_list ? v->cap_list * 2 : 64;
			int32_t *nl = realloc(v->list, cap * sizeof(*nl));

			if (!nl)
				return -ENOMEM;
			v->list = nl;
			v->cap_list = cap;
		}
		v->list[v->nlist++] = k;
	}
	sort_tree = t;
	qsort(v->list, v->nlist, sizeof(*v->list), by_compact_total);
	return 0;
}

/* The compacted tree of (tree, hierarchy), built the first time. */
static struct compact_tree *compacted(struct ctx *x, int tree, int hier)
{
	struct viewer *v = x->v;
	int i = tree == T_DSCG ? 0 : 1;
	struct compact_tree *t = &v->ct[i][hier];
	const struct ccsg_graph *g = v->graph;
	int ret;

	if (v->ct_built[i][hier])
		return t;
	if (tree == T_CCSG && hier == COMPACT_BY_LOCATION) {
		/* one server per function node: the CCSG by object */
		if (!v->by_object_built) {
			if (ccsg_graph_build(&v->by_object, v->dscg,
					     v->graph->dims, 1) ||
			    ccsg_graph_name(&v->by_object, v->names)) {
				ccsg_graph_release(&v->by_object);
				reply_error(x, 500, "out of memory");
				return NULL;
			}
			v->by_object_built = 1;
		}
		g = &v->by_object;
	}
	if (compact_tree_init(t, "::")) {
		reply_error(x, 500, "out of memory");
		return NULL;
	}
	ret = tree == T_DSCG ? compact_from_dscg(t, g, v->names, hier)
			     : compact_from_ccsg(t, g, v->names, hier);
	if (!ret)
		ret = compact_tree_build(t);
	if (ret) {
		compact_tree_release(t);
		reply_error(x, ret == -ENOENT ? 404 : 500,
			    ret == -ENOENT ? "the tree is empty"
					   : "out of memory");
		return NULL;
	}
	v->ct_built[i][hier] = 1;
	return t;
}

/* ---- impact (CCDG) ------------------------------------------------------ */

/*
 * Apply spec to the impact estimate (after a reset).  The parser and the
 * resolver report with fail() on stderr: their message is caught in err
 * for the answer (stderr is swapped for a memory stream meanwhile; one
 * thread runs requests).  0, or -1 with err set.
 */
static int apply_spec(struct viewer *v, const char *spec, char *err, size_t len)
{
	struct ccsg_changes cs = { 0 };
	FILE *saved = stderr, *m;
	char *mbuf = NULL;
	size_t mlen = 0;
	int ret = 0;

	ccsg_impact_reset(&v->im);
	free(v->im_spec);
	v->im_spec = NULL;
	m = open_memstream(&mbuf, &mlen);
	if (!m) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	stderr = m;
	ret = ccsg_changes_parse(&cs, spec, "spec", 1);
	for (size_t i = 0; !ret && i < cs.n; i++) {
		if (!(ret = ccsg_impact_resolve(&v->im, &cs.v[i], v->names)) &&
		    (ret = ccsg_impact_apply(&v->im, &cs.v[i])))
			fail("'%s': %s", spec,
			     ret == -ERANGE ? "the factors applied to one call "
					      "no longer fit in 64 bits"
					    : "out of memory");
	}
	if (!ret && !cs.n)
		ret = fail("no change in the specification");
	stderr = saved;
	fclose(m);
	if (ret) {
		const char *s = mbuf ? strstr(mbuf, ": error: ") : NULL;
		char *nl;

		snprintf(err, len, "%s",
			 s		  ? s + 9
			 : ret == -ENOMEM ? "out of memory"
					  : "bad specification");
		if ((nl = strchr(err, '\n')))
			*nl = '\0';
		ccsg_impact_reset(&v->im);
	} else if (!(v->im_spec = strdup(spec))) {
		snprintf(err, len, "out of memory");
		ccsg_impact_reset(&v->im);
		ret = -1;
	}
	free(mbuf);
	ccsg_changes_release(&cs);
	return ret ? -1 : 0;
}

static int ccdg_prepare(struct ctx *x)
{
	struct viewer *v = x->v;
	const char *spec = param(x, "spec");
	char err[1024];

	if (!spec || !*spec)
		spec = v->start_spec;
	if (!spec)
		return reply_error(x, 400,
				   "no impact specification: give spec, e.g. "
				   "'reduction by 20%% to function { "
				   "*::SAY_IT }'");
	if (strlen(spec) > 65536)
		return reply_error(x, 400, "the specification is too long");
	if (v->im_spec && !strcmp(v->im_spec, spec))
		return 0;
	if (apply_spec(v, spec, err, sizeof(err)))
		return reply_error(x, 400, "%s", err);
	return 0;
}

/* ---- the requests ---------------------------------------------------------
 */

/* tree= (and compact=, spec=): 0, or -1 after the answer. */
static int pick_tree(struct ctx *x, const char *key)
{
	const char *s = need_param(x, key), *c;

	if (!s)
		return -1;
	for (x->tree = 0; x->tree < NTREES; x->tree++)
		if (!strcmp(s, tree_names[x->tree]))
			break;
	if (x->tree == NTREES)
		return reply_error(x, 404, "unknown tree '%.64s'", s);
	x->ct = NULL;
	if (!strcmp(key, "tree") && (c = param(x, "compact"))) {
		int hier = !strcmp(c, "name")	    ? COMPACT_BY_NAME
			   : !strcmp(c, "location") ? COMPACT_BY_LOCATION
						    : -1;

		if (hier < 0)
			return reply_error(x, 400,
					   "compact takes 'name' or "
					   "'location', not '%.64s'",
					   c);
		if (x->tree != T_DSCG && x->tree != T_CCSG)
			return reply_error(x, 400,
					   "only the dscg and the ccsg are "
					   "compacted");
		if (!(x->ct = compacted(x, x->tree, hier)))
			return -1;
	}
	if (x->tree == T_CCDG && ccdg_prepare(x))
		return -1;
	return 0;
}

static int unknown_node(struct ctx *x, const char *id)
{
	return reply_error(x, 404, "unknown node '%.200s' in tree '%s'", id,
			   x->ct ? "compacted" : tree_names[x->tree]);
}

static int get_info(struct ctx *x)
{
	const struct viewer *v = x->v;
	const struct ccsg_trace *t = v->trace;
	const struct ccsg_dims *dims = v->graph->dims;
	FILE *f = x->f;

	fputs("{\"db\": ", f);
	json_cstr(f, t->path);
	fputs(", \"hosts\": [", f);
	for (size_t i = 0; i < t->nhosts; i++) {
		fputs(i ? ", " : "", f);
		json_cstr(f, t->hosts[i]);
	}
	fputs("], \"dims\": [", f);
	for (size_t i = 0; i < dims->n; i++) {
		fputs(i ? ", " : "", f);
		json_cstr(f, dims->names[i]);
	}
	fprintf(f,
		"], \"calls\": %zu, \"threads\": %zu, \"chains\": %zu, "
		"\"processes\": %zu, \"dscg_nodes\": %zu, \"ccsg_nodes\": %zu, "
		"\"trees\": [\"idt\", \"dscg\", \"ccsg\", \"ccdg\"], "
		"\"roots\": {\"idt\": \"idt\", \"dscg\": \"m\", \"ccsg\": "
		"\"n0\", \"ccdg\": \"n0\", \"compacted\": \"k:\"}, "
		"\"change\": ",
		t->ncalls, t->nthreads, t->nchains, t->nproc_rows,
		v->dscg->nnodes, v->graph->nnodes);
	if (v->start_spec)
		json_cstr(f, v->start_spec);
	else
		fputs("null", f);
	put_vec(f, "total", v->graph->total, dims->n);
	fputs("}\n", f);
	return 0;
}

/* Resolved node of the current tree. */
struct any {
	struct vid d;
	int32_t n; /* ccsg / ccdg / compacted */
	struct idt_id i;
};

static int resolve(struct ctx *x, const char *id, struct any *u)
{
	int bad;

	if (x->ct)
		bad = compact_parse(x->ct, id, &u->n);
	else if (x->tree == T_DSCG)
		bad = dscg_parse(x->v, id, &u->d);
	else if (x->tree == T_IDT) {
		size_t lo, hi;

		bad = idt_parse(id, &u->i);
		if (!bad) {
			idt_range(x->v, u->i, &lo, &hi);
			bad = u->i.k != 'r' && lo == hi;
		}
	} else
		bad = ccsg_parse(x->v, id, &u->n);
	return bad ? unknown_node(x, id) : 0;
}

static void put_any(struct ctx *x, const struct any *u, int full)
{
	if (x->ct)
		compact_put_node(x->f, x->ct, u->n);
	else if (x->tree == T_DSCG)
		dscg_put_node(x->f, x->v, u->d, full);
	else if (x->tree == T_IDT)
		idt_put_node(x->f, x->v, u->i, full);
	else
		ccsg_put_node(x->f, x->v, u->n, x->tree == T_CCDG, full);
}

/* Children of u: as view ids in l (DSCG), ids in v->list (CCSG, compacted)
 * or IDT ids in *ids (allocated).  Their count. */
static int children_of(struct ctx *x, const struct any *u, struct vids *l,
		       struct idt_id **ids, size_t *n)
{
	struct viewer *v = x->v;

	*n = 0;
	if (x->ct) {
		if (compact_children(v, x->ct, u->n))
			return reply_error(x, 500, "out of memory");
		*n = v->nlist;
	} else if (x->tree == T_DSCG) {
		if (dscg_children(v, u->d, l))
			return reply_error(x, 500, "out of memory");
		*n = l->n;
	} else if (x->tree == T_IDT) {
		size_t k = idt_children(v, u->i, NULL, 0);

		if (!(*ids = calloc(k + 1, sizeof(**ids))))
			return reply_error(x, 500, "out of memory");
		*n = idt_children(v, u->i, *ids, k);
	} else {
		v->nlist = 0;
		for (int32_t c = v->pfirst[u->n]; c >= 0; c = v->pnext[c]) {
			if (v->nlist == v->cap_list) {
				size_t cap = v->cap_list ? v->cap_list * 2 : 64;
				int32_t *nl =
					realloc(v->list, cap * sizeof(*nl));

				if (!nl)
					return reply_error(x, 500,
							   "out of memory");
				v->list = nl;
				v->cap_list = cap;
			}
			v->list[v->nlist++] = c;
		}
		*n = v->nlist;
	}
	return 0;
}

static void child_any(struct ctx *x, size_t i, const struct vids *l,
		      const struct idt_id *ids, struct any *c)
{
	if (x->tree == T_DSCG && !x->ct)
		c->d = l->v[i];
	else if (x->tree == T_IDT)
		c->i = ids[i];
	else
		c->n = x->v->list[i];
}

static int get_node(struct ctx *x)
{
	const char *id;
	struct any u;

	if (pick_tree(x, "tree") || !(id = need_param(x, "id")) ||
	    resolve(x, id, &u))
		return -1;
	put_any(x, &u, 1);
	fputc('\n', x->f);
	return 0;
}

static int get_children(struct ctx *x)
{
	struct vids l = { 0 };
	struct idt_id *ids = NULL;
	int64_t offset, limit;
	const char *id;
	size_t n;
	struct any u;
	int ret = -1;

	if (pick_tree(x, "tree") || !(id = need_param(x, "id")) ||
	    num_param(x, "offset", 0, INT32_MAX, 0, &offset) ||
	    num_param(x, "limit", 1, LIMIT_MAX, LIMIT_DEFAULT, &limit) ||
	    resolve(x, id, &u) || children_of(x, &u, &l, &ids, &n))
		goto out;
	fputs("{\"id\": ", x->f);
	json_cstr(x->f, id);
	fprintf(x->f, ", \"total\": %zu, \"offset\": %lld, \"children\": [", n,
		(long long)offset);
	for (size_t i = (size_t)offset; i < n && i < (size_t)(offset + limit);
	     i++) {
		struct any c;

		child_any(x, i, &l, ids, &c);
		fputs(i > (size_t)offset ? ",\n" : "\n", x->f);
		put_any(x, &c, 0);
	}
	fputs("]", x->f);
	if ((x->tree == T_CCSG || x->tree == T_CCDG) && !x->ct &&
	    param(x, "secondary")) {
		const struct ccsg_graph *g = x->v->graph;
		int first = 1;

		/* the cross links out of this node: calls the primary
		 * tree shows under another caller */
		fputs(", \"secondary\": [", x->f);
		for (size_t e = 0; e < g->nedges; e++) {
			const struct ccsg_edge *ed = &g->edges[e];

			if (ed->from != u.n || ed->primary || ed->to == 0)
				continue;
			fprintf(x->f,
				"%s{\"id\": \"n%d\", \"count\": %lld, "
				"\"name\": ",
				first ? "" : ", ", ed->to,
				(long long)ed->count);
			json_cstr(x->f, g->nodes[ed->to].name);
			fputc('}', x->f);
			first = 0;
		}
		fputc(']', x->f);
	}
	fputs("}\n", x->f);
	ret = 0;
out:
	free(l.v);
	free(ids);
	return ret;
}

/* Is a the same node as b (of the current tree)? */
static int same(const struct ctx *x, const struct any *a, const struct any *b)
{
	if (x->tree == T_DSCG && !x->ct)
		return a->d.k == b->d.k && a->d.a == b->d.a && a->d.b == b->d.b;
	if (x->tree == T_IDT)
		return a->i.k == b->i.k && a->i.prog == b->i.prog &&
		       a->i.vers == b->i.vers && a->i.proc == b->i.proc;
	return a->n == b->n;
}

static int parent_of(struct ctx *x, const struct any *u, struct any *p)
{
	if (x->ct) {
		p->n = x->ct->nodes[u->n].parent;
		return p->n >= 0 ? 0 : -1;
	}
	if (x->tree == T_DSCG)
		return dscg_parent(x->v, u->d, &p->d);
	if (x->tree == T_IDT) {
		if (u->i.k == 'r')
			return -1;
		p->i = u->i;
		p->i.k = u->i.k == 'p' ? 'r' : u->i.k == 'v' ? 'p' : 'v';
		return 0;
	}
	p->n = u->n ? x->v->pparent[u->n] : -1;
	return p->n >= 0 ? 0 : -1;
}

static int get_path(struct ctx *x)
{
	struct any chain[4096], u;
	struct vids l = { 0 };
	struct idt_id *ids = NULL;
	const char *id;
	size_t depth = 0;
	int ret = -1;

	if (pick_tree(x, "tree") || !(id = need_param(x, "id")) ||
	    resolve(x, id, &u))
		return -1;
	chain[depth++] = u;
	while (depth < sizeof(chain) / sizeof(chain[0]) &&
	       !parent_of(x, &chain[depth - 1], &chain[depth]))
		depth++;
	fputs("{\"id\": ", x->f);
	json_cstr(x->f, id);
	fputs(", \"path\": [", x->f);
	for (size_t i = depth; i-- > 0;) {
		long long index = -1;

		if (i + 1 < depth) {
			size_t n;

			free(ids);
			ids = NULL;
			if (children_of(x, &chain[i + 1], &l, &ids, &n))
				goto out;
			for (size_t j = 0; j < n && index < 0; j++) {
				struct any c;

				child_any(x, j, &l, ids, &c);
				if (same(x, &c, &chain[i]))
					index = (long long)j;
			}
		}
		fprintf(x->f, "%s{\"index\": %lld, \"node\": ",
			i + 1 < depth ? ",\n" : "\n", index);
		put_any(x, &chain[i], 0);
		fputc('}', x->f);
	}
	fprintf(x->f, "], \"truncated\": %s}\n",
		depth == sizeof(chain) / sizeof(chain[0]) ? "true" : "false");
	ret = 0;
out:
	free(l.v);
	free(ids);
	return ret;
}

static int get_search(struct ctx *x)
{
	struct viewer *v = x->v;
	const char *q;
	int64_t limit;
	size_t total = 0, shown = 0;
	FILE *f = x->f;

	if (pick_tree(x, "tree") || !(q = need_param(x, "q")) ||
	    num_param(x, "limit", 1, LIMIT_MAX, 50, &limit))
		return -1;
	fputs("{\"q\": ", f);
	json_cstr(f, q);
	fputs(", \"results\": [", f);
#define EMIT(put)                                                              \
	do {                                                                   \
		if (shown < (size_t)limit) {                                   \
			fputs(shown ? ",\n" : "\n", f);                        \
			put;                                                   \
			shown++;                                               \
		}                                                              \
		total++;                                                       \
	} while (0)
	if (x->ct) {
		for (size_t c = 1; c < x->ct->nnodes; c++) {
			size_t n;
			char name[1024];

			if (!x->ct->nodes[c].members)
				continue;
			n = compact_tree_node_name(x->ct, (int32_t)c, name,
						   sizeof(name));
			if (n < sizeof(name) && strcasestr(name, q))
				EMIT(compact_put_node(f, x->ct, (int32_t)c));
		}
	} else if (x->tree == T_DSCG) {
		const struct ccsg_graph *g = v->graph;
		uint8_t *hit = calloc(g->nnodes + 1, 1);

		if (!hit)
			return reply_error(x, 500, "out of memory");
		for (size_t n = 0; n < g->nnodes; n++)
			hit[n] = g->nodes[n].name &&
				 strcasestr(g->nodes[n].name, q);
		for (size_t c = 0; c < v->trace->ncalls; c++) {
			int32_t n = g->call_node[c];

			if (n >= 0 ? hit[n] : !!strcasestr(CCSG_LOST_NAME, q))
				EMIT(dscg_put_node(
					f, v,
					(struct vid){ 'c', (int32_t)c, 0 }, 0));
		}
		free(hit);
	} else if (x->tree == T_IDT) {
		for (size_t i = 0; i < v->nfns; i++) {
			const struct viewer_idt_fn *fn = &v->fns[i];
			struct idt_id u = { 'f', fn->prog, fn->vers, fn->proc };
			char b[1024];

			snprintf(b, sizeof(b), "%s::%s", fn->prog_name,
				 fn->proc_name);
			if (strcasestr(b, q))
				EMIT(idt_put_node(f, v, u, 0));
		}
	} else {
		for (size_t n = 0; n < v->graph->nnodes; n++)
			if (v->graph->nodes[n].name &&
			    strcasestr(v->graph->nodes[n].name, q))
				EMIT(ccsg_put_node(f, v, (int32_t)n,
						   x->tree == T_CCDG, 0));
	}
#undef EMIT
	fprintf(f, "], \"total\": %zu}\n", total);
	return 0;
}

/* ---- linked navigation ----------------------------------------------------
 */

struct cand {
	int32_t host, proc, tid;
	struct any u;
	int64_t order;
};

static int by_place(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

struct cands {
	struct cand *v;
	size_t n, cap, count; /* count: all of them, n: those kept */
};

static int add_cand(struct cands *cs, struct cand c)
{
	cs->count++;
	if (cs->n >= LINK_LIMIT)
		return 0;
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 16;
		struct cand *nv = realloc(cs->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		cs->v = nv;
		cs->cap = cap;
	}
	cs->v[cs->n++] = c;
	return 0;
}

/* The CCSG nodes (by function) that node u of tree `from` stands for,
 * as a mark per node; 0, or -1 (unanswerable) after the answer. */
static int link_nodes(struct ctx *x, int from, const struct any *u,
		      uint8_t *mark)
{
	struct viewer *v = x->v;
	const struct ccsg_graph *g = v->graph;

	if (from == T_CCSG || from == T_CCDG) {
		mark[u->n] = 1;
	} else if (from == T_DSCG) {
		struct vid d = u->d;

		if (d.k == 'g' || d.k == 's') {
			const struct ccsg_chain *ch = &v->trace->chains[d.a];

			/* a chain stands for its root calls' functions */
			for (int32_t j = ch->first; j < ch->first + ch->n; j++)
				if (v->trace->calls[j].parent < 0 &&
				    (d.k == 'g' ||
				     v->trace->calls[j].seg == d.b) &&
				    g->call_node[j] >= 0)
					mark[g->call_node[j]] = 1;
		} else if (d.k == 'm') {
			mark[0] = 1;
		} else {
			int32_t n = ccsg_instance_node(
				g, d.k == 'c'
					   ? d.a
					   : (int32_t)v->trace->ncalls + d.a);

			if (n >= 0)
				mark[n] = 1;
		}
	} else {
		for (size_t n = 0; n < g->nnodes; n++) {
			const struct ccsg_node *nd = &g->nodes[n];
			struct viewer_idt_fn fn = { .prog = nd->prog,
						    .vers = nd->vers,
						    .proc = nd->proc };

			if (nd->kind == CCSG_FUNCTION && idt_in(&fn, u->i))
				mark[n] = 1;
		}
	}
	return 0;
}

static void put_cand_list(struct ctx *x, int to, struct cands *cs)
{
	const struct ccsg_trace *t = x->v->trace;
	FILE *f = x->f;
	int saved = x->tree;
	size_t i = 0;

	x->tree = to;
	qsort(cs->v, cs->n, sizeof(*cs->v), by_place);
	/* host > process > thread, each level a list */
	fputs("[", f);
	while (i < cs->n) {
		int32_t h = cs->v[i].host;
		char p[600];

		fputs(i ? ",\n{\"host\": " : "\n{\"host\": ", f);
		json_cstr(f, h >= 0 ? t->hosts[h] : "");
		fputs(", \"processes\": [", f);
		for (int fp = 1; i < cs->n && cs->v[i].host == h; fp = 0) {
			int32_t proc = cs->v[i].proc;

			process_name(t, proc, p, sizeof(p));
			fputs(fp ? "{\"process\": " : ", {\"process\": ", f);
			json_cstr(f, p);
			fprintf(f, ", \"proc_id\": %d, \"threads\": [", proc);
			for (int ft = 1; i < cs->n && cs->v[i].host == h &&
					 cs->v[i].proc == proc;
			     ft = 0) {
				int32_t tid = cs->v[i].tid;

				fprintf(f, "%s{\"tid\": %d, \"nodes\": [",
					ft ? "" : ", ", tid);
				for (int fn = 1;
				     i < cs->n && cs->v[i].host == h &&
				     cs->v[i].proc == proc &&
				     cs->v[i].tid == tid;
				     fn = 0, i++) {
					fputs(fn ? "" : ", ", f);
					put_any(x, &cs->v[i].u, 0);
				}
				fputs("]}", f);
			}
			fputs("]}", f);
		}
		fputs("]}", f);
	}
	fputs("]", f);
	x->tree = saved;
}

static int get_link(struct ctx *x)
{
	struct viewer *v = x->v;
	const struct ccsg_graph *g = v->graph;
	const struct ccsg_trace *t = v->trace;
	struct cands cs = { 0 };
	const char *id, *tos;
	uint8_t *mark = NULL;
	struct any u;
	int from, to, ret = -1;

	if (pick_tree(x, "from") || !(id = need_param(x, "id")) ||
	    resolve(x, id, &u))
		return -1;
	from = x->tree;
	if (x->ct)
		return reply_error(x, 400,
				   "a compacted node links to no other tree: "
				   "link from the tree itself");
	if (!(tos = need_param(x, "to")))
		return -1;
	for (to = 0; to < NTREES; to++)
		if (!strcmp(tos, tree_names[to]))
			break;
	if (to == NTREES)
		return reply_error(x, 404, "unknown tree '%.64s'", tos);
	if (to == T_CCDG && from != T_CCDG && ccdg_prepare(x))
		return -1;
	if (!(mark = calloc(g->nnodes + 1, 1)))
		return reply_error(x, 500, "out of memory");
	if (link_nodes(x, from, &u, mark))
		goto out;
	if (to == T_CCSG || to == T_CCDG) {
		for (size_t n = 0; n < g->nnodes; n++)
			if (mark[n] &&
			    add_cand(&cs, (struct cand){ -1,
							 0,
							 0,
							 { .n = (int32_t)n },
							 (int64_t)n }))
				goto oom;
	} else if (to == T_IDT) {
		for (size_t i = 0; i < v->nfns; i++) {
			const struct viewer_idt_fn *fn = &v->fns[i];
			int hit = 0;

			for (size_t n = 0; n < g->nnodes && !hit; n++)
				hit = mark[n] &&
				      g->nodes[n].kind == CCSG_FUNCTION &&
				      g->nodes[n].prog == fn->prog &&
				      g->nodes[n].vers == fn->vers &&
				      g->nodes[n].proc == fn->proc;
			if (hit &&
			    add_cand(&cs, (struct cand){ -1,
							 0,
							 0,
							 { .i = { 'f', fn->prog,
								  fn->vers,
								  fn->proc } },
							 (int64_t)i }))
				goto oom;
		}
	} else {
		/* the instances: calls and threads, where they ran */
		for (size_t c = 0; c < t->ncalls + t->nthreads; c++) {
			int32_t n = ccsg_instance_node(g, (int32_t)c);
			struct vid d;
			struct cand k;

			if (n < 0 || !mark[n] ||
			    (c >= t->ncalls && t->threads[c - t->ncalls].infra))
				continue;
			d = c < t->ncalls
				    ? (struct vid){ 'c', (int32_t)c, 0 }
				    : (struct vid){ 't',
						    (int32_t)(c - t->ncalls),
						    0 };
			dscg_where(v, d, &k.proc, &k.tid);
			k.host = k.proc > 0 ? ccsg_trace_host(t, k.proc) : -1;
			k.u.d = d;
			k.order = (int64_t)c;
			if (add_cand(&cs, k))
				goto oom;
		}
		if (mark[0] &&
		    add_cand(&cs,
			     (struct cand){
				     -1, 0, 0, { .d = { 'm', 0, 0 } }, -1 }))
			goto oom;
	}
	fprintf(x->f,
		"{\"from\": \"%s\", \"to\": \"%s\", \"id\": ", tree_names[from],
		tree_names[to]);
	json_cstr(x->f, id);
	fprintf(x->f,
		", \"count\": %zu, \"shown\": %zu, \"groups\": ", cs.count,
		cs.n);
	put_cand_list(x, to, &cs);
	fputs("}\n", x->f);
	ret = 0;
	goto out;
oom:
	reply_error(x, 500, "out of memory");
out:
	free(mark);
	free(cs.v);
	return ret;
}

/* ---- compaction actions ----------------------------------------------------
 */

static int post_compact(struct ctx *x)
{
	const char *tree = need_param(x, "tree"), *h, *op, *id;
	struct compact_tree *t;
	int32_t c = -1, member = -1;
	int hier, ret;
	int64_t level;

	if (!tree)
		return -1;
	if (strcmp(tree, "dscg") && strcmp(tree, "ccsg"))
		return reply_error(
			x,
			strcmp(tree, "idt") && strcmp(tree, "ccdg") ? 404 : 400,
			"only the dscg and the ccsg are compacted, "
			"not '%.64s'",
			tree);
	if (!(h = need_param(x, "hierarchy")) || !(op = need_param(x, "op")))
		return -1;
	hier = !strcmp(h, "name")	? COMPACT_BY_NAME
	       : !strcmp(h, "location") ? COMPACT_BY_LOCATION
					: -1;
	if (hier < 0)
		return reply_error(x, 400,
				   "hierarchy takes 'name' or 'location', not "
				   "'%.64s'",
				   h);
	if (strcmp(op, "compact") && strcmp(op, "expand") &&
	    strcmp(op, "level") && strcmp(op, "reset"))
		return reply_error(x, 400,
				   "op takes compact, expand, level or reset, "
				   "not '%.64s'",
				   op);
	x->tree = !strcmp(tree, "dscg") ? T_DSCG : T_CCSG;
	if (!(t = compacted(x, x->tree, hier)))
		return -1;
	x->ct = t;
	if (!strcmp(op, "level")) {
		if (!param(x, "level"))
			return reply_error(x, 400, "missing parameter 'level'");
		if (num_param(x, "level", 1, 1000000, 1, &level))
			return -1;
		ret = compact_tree_level_max(t, (int)level);
	} else if (!strcmp(op, "reset")) {
		ret = compact_tree_level_min(t, 1000000);
	} else {
		if (!(id = need_param(x, "id")))
			return -1;
		if (compact_parse(t, id, &c))
			return unknown_node(x, id);
		if (c == COMPACT_ROOT)
			return reply_error(x, 400, "the root cannot be %sed",
					   op);
		member = t->nodes[c].first_member;
		ret = !strcmp(op, "compact") ? compact_tree_compact(t, c)
					     : compact_tree_expand(t, c);
	}
	if (ret == -EPERM)
		return reply_error(x, 409, "%s", compact_tree_why(t));
	if (ret)
		return reply_error(x, ret == -ENOMEM ? 500 : 400, "%s",
				   ret == -ENOMEM ? "out of memory"
						  : compact_tree_why(t));
	fputs("{\"ok\": true, \"node\": ", x->f);
	if (member >= 0)
		compact_put_node(x->f, t, t->orig[member].comp);
	else
		compact_put_node(x->f, t, COMPACT_ROOT);
	fputs("}\n", x->f);
	return 0;
}

int viewer_handle(struct viewer *v, const struct api_request *rq,
		  struct api_response *rs)
{
	static const struct {
		const char *path;
		int (*fn)(struct ctx *x);
		int post;
	} routes[] = {
		{ "/api/info", get_info, 0 },
		{ "/api/node", get_node, 0 },
		{ "/api/children", get_children, 0 },
		{ "/api/path", get_path, 0 },
		{ "/api/search", get_search, 0 },
		{ "/api/link", get_link, 0 },
		{ "/api/compact", post_compact, 1 },
	};
	struct ctx x = { .v = v, .rq = rq, .status = 200 };
	size_t i;

	x.f = open_memstream(&x.buf, &x.len);
	if (!x.f)
		goto oom;
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (!strcmp(rq->path, routes[i].path))
			break;
	if (i == sizeof(routes) / sizeof(routes[0]))
		reply_error(&x, 404, "no such endpoint '%.200s'", rq->path);
	else if (routes[i].post ? strcmp(rq->method, "POST")
				: strcmp(rq->method, "GET") &&
					  strcmp(rq->method, "HEAD"))
		reply_error(&x, 405, "'%s' takes %s, not '%.16s'", rq->path,
			    routes[i].post ? "POST" : "GET", rq->method);
	else
		routes[i].fn(&x);
	if (!x.f || fclose(x.f))
		goto oom;
	rs->status = x.status;
	rs->body = x.buf;
	rs->len = x.len;
	return 0;
oom:
	free(x.buf);
	rs->status = 500;
	rs->body = strdup("{\"error\": \"out of memory\"}\n");
	rs->len = rs->body ? strlen(rs->body) : 0;
	return -ENOMEM;
}

/* ---- set-up ------------------------------------------------------------- */

static const struct viewer *sort_viewer;

static int by_call_id(const void *a, const void *b)
{
	int64_t x = sort_viewer->trace->calls[*(const int32_t *)a].call_id;
	int64_t y = sort_viewer->trace->calls[*(const int32_t *)b].call_id;

	return (x > y) - (x < y);
}

static int by_total(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	int64_t tx = node_total(sort_viewer, x),
		ty = node_total(sort_viewer, y);

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return (x > y) - (x < y);
}

static int by_fn(const void *a, const void *b)
{
	const struct viewer_idt_fn *x = a, *y = b;

	if (x->prog != y->prog)
		return x->prog < y->prog ? -1 : 1;
	if (x->vers != y->vers)
		return x->vers < y->vers ? -1 : 1;
	return (x->proc > y->proc) - (x->proc < y->proc);
}

/* Self and total CPU of every DSCG instance: totals leaves first. */
static int index_dscg(struct viewer *v)
{
	const struct ccsg_dscg *d = v->dscg;
	const struct ccsg_trace *t = v->trace;
	const struct ccsg_graph *g = v->graph;
	int32_t *q = malloc(d->nnodes * sizeof(*q));
	size_t head = 0, tail = 0;

	v->inst_self = calloc(d->nnodes, sizeof(int64_t));
	v->inst_total = calloc(d->nnodes, sizeof(int64_t));
	if (!q || !v->inst_self || !v->inst_total) {
		free(q);
		return -ENOMEM;
	}
	for (size_t u = 0; u < d->nnodes; u++) {
		int32_t proc = 0;

		if (ccsg_dscg_is_call(d, (int32_t)u)) {
			proc = t->calls[u].server_proc;
			/* as the CCSG counts it: on the server's host */
			if (proc > 0 && ccsg_trace_host(t, proc) >= 0)
				v->inst_self[u] = g->call_self[u];
		} else if ((int32_t)u != d->main) {
			v->inst_self[u] = g->thread_self[u - t->ncalls];
		}
	}
	q[tail++] = d->main;
	while (head < tail)
		for (int32_t c = d->first_child[q[head++]]; c >= 0;
		     c = d->next_sibling[c])
			q[tail++] = c;
	for (size_t i = tail; i-- > 0;) {
		int32_t u = q[i];

		v->inst_total[u] += v->inst_self[u];
		if (d->parent[u] >= 0)
			v->inst_total[d->parent[u]] += v->inst_total[u];
	}
	free(q);
	if (t->ncalls) {
		int64_t lo = t->calls[0].call_id, hi = lo;

		for (size_t i = 1; i < t->ncalls; i++) {
			lo = t->calls[i].call_id < lo ? t->calls[i].call_id
						      : lo;
			hi = t->calls[i].call_id > hi ? t->calls[i].call_id
						      : hi;
		}
		/* dense ids (the merge numbers them 1..N): a table, O(N) */
		if ((uint64_t)(hi - lo) < 4 * (uint64_t)t->ncalls + 1024) {
			v->id_base = lo;
			v->id_span = (size_t)(hi - lo) + 1;
			v->id_index = malloc(v->id_span * sizeof(int32_t));
			if (!v->id_index)
				return -ENOMEM;
			memset(v->id_index, 0xff, v->id_span * sizeof(int32_t));
			for (size_t i = 0; i < t->ncalls; i++)
				v->id_index[t->calls[i].call_id - lo] =
					(int32_t)i;
			return 0;
		}
	}
	v->call_ids = malloc((t->ncalls + 1) * sizeof(int64_t));
	v->call_by_id = malloc((t->ncalls + 1) * sizeof(int32_t));
	if (!v->call_ids || !v->call_by_id)
		return -ENOMEM;
	for (size_t i = 0; i < t->ncalls; i++)
		v->call_by_id[i] = (int32_t)i;
	sort_viewer = v;
	qsort(v->call_by_id, t->ncalls, sizeof(int32_t), by_call_id);
	for (size_t i = 0; i < t->ncalls; i++)
		v->call_ids[i] = t->calls[v->call_by_id[i]].call_id;
	return 0;
}

/* The primary tree of the CCSG, children by total. */
static int index_ccsg(struct viewer *v)
{
	const struct ccsg_graph *g = v->graph;
	size_t n = g->nnodes;
	int32_t *kids = malloc((n + 1) * sizeof(int32_t));
	size_t nk = 0;

	v->pfirst = malloc((n + 1) * sizeof(int32_t));
	v->pnext = malloc((n + 1) * sizeof(int32_t));
	v->pparent = malloc((n + 1) * sizeof(int32_t));
	if (!kids || !v->pfirst || !v->pnext || !v->pparent) {
		free(kids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		v->pfirst[i] = v->pnext[i] = v->pparent[i] = -1;
	for (size_t e = 0; e < g->nedges; e++)
		if (g->edges[e].primary && g->edges[e].to != 0 &&
		    v->pparent[g->edges[e].to] < 0)
			v->pparent[g->edges[e].to] = g->edges[e].from;
	for (size_t i = 1; i < n; i++)
		if (v->pparent[i] >= 0)
			kids[nk++] = (int32_t)i;
	sort_viewer = v;
	qsort(kids, nk, sizeof(int32_t), by_total);
	/* pushed in reverse: each list ends up largest first */
	for (size_t i = nk; i-- > 0;) {
		int32_t c = kids[i], p = v->pparent[c];

		v->pnext[c] = v->pfirst[p];
		v->pfirst[p] = c;
	}
	free(kids);
	return 0;
}

static int add_fn(struct viewer *v, size_t *cap, uint32_t prog, uint32_t vers,
		  uint32_t proc, const char *pn, const char *vn, const char *fn)
{
	struct viewer_idt_fn *x;

	for (size_t i = 0; i < v->nfns; i++)
		if (v->fns[i].prog == prog && v->fns[i].vers == vers &&
		    v->fns[i].proc == proc)
			return 0;
	if (v->nfns == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct viewer_idt_fn *nf = realloc(v->fns, nc * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		v->fns = nf;
		*cap = nc;
	}
	x = &v->fns[v->nfns];
	memset(x, 0, sizeof(*x));
	x->prog = prog;
	x->vers = vers;
	x->proc = proc;
	x->prog_name = strdup(pn);
	x->vers_name = strdup(vn);
	x->proc_name = strdup(fn);
	x->host = calloc(v->trace->nhosts + 1, sizeof(*x->host));
	v->nfns++;
	if (!x->prog_name || !x->vers_name || !x->proc_name || !x->host)
		return -ENOMEM;
	return 0;
}

static void stat_add(struct viewer_idt_stat *s, int64_t lat, int64_t cpu)
{
	s->n++;
	s->cpu += (double)cpu;
	s->cpu2 += (double)cpu * (double)cpu;
	if (lat >= 0) {
		s->lat_n++;
		s->lat += (double)lat;
		s->lat2 += (double)lat * (double)lat;
	}
}

/* The IDT: the .x procedures and every function the trace called, with
 * the statistics of their calls per serving host (Section 5). */
static int index_idt(struct viewer *v)
{
	const struct idl_names *nm = v->names;
	const struct ccsg_trace *t = v->trace;
	const struct ccsg_graph *g = v->graph;
	struct hashmap map = { 0 };
	size_t cap = 0;
	int ret = -ENOMEM;

	for (size_t i = 0; i < nm->n; i++)
		if (add_fn(v, &cap, nm->procs[i].prog, nm->procs[i].vers,
			   nm->procs[i].proc, nm->procs[i].prog_name,
			   nm->procs[i].vers_name, nm->procs[i].proc_name))
			return -ENOMEM;
	/* the function nodes name what the trace called */
	for (size_t n = 0; n < g->nnodes; n++) {
		const struct ccsg_node *x = &g->nodes[n];
		char full[1024], vers[16], *sep;

		if (x->kind != CCSG_FUNCTION)
			continue;
		snprintf(full, sizeof(full), "%s", x->name ? x->name : "?");
		snprintf(vers, sizeof(vers), "%u", x->vers);
		sep = strstr(full, "::");
		if (sep)
			*sep = '\0';
		if (add_fn(v, &cap, x->prog, x->vers, x->proc, full, vers,
			   sep ? sep + 2 : full))
			return -ENOMEM;
	}
	qsort(v->fns, v->nfns, sizeof(*v->fns), by_fn);
	for (size_t i = 0; i < v->nfns; i++)
		if (hashmap_put(&map,
				hash64(((uint64_t)v->fns[i].prog << 32) ^
				       ((uint64_t)v->fns[i].vers << 16) ^
				       v->fns[i].proc),
				(int32_t)i) < 0)
			goto out;
	for (size_t c = 0; c < t->ncalls; c++) {
		const struct ccsg_call *k = &t->calls[c];
		int32_t i, h;
		int64_t lat;

		if (k->lost)
			continue;
		i = hashmap_get(&map,
				hash64(((uint64_t)k->prog << 32) ^
				       ((uint64_t)k->vers << 16) ^ k->proc));
		if (i < 0 || v->fns[i].prog != k->prog ||
		    v->fns[i].vers != k->vers || v->fns[i].proc != k->proc) {
			/* a collision of the mixed keys: look it up */
			for (i = 0; (size_t)i < v->nfns; i++)
				if (v->fns[i].prog == k->prog &&
				    v->fns[i].vers == k->vers &&
				    v->fns[i].proc == k->proc)
					break;
			if ((size_t)i == v->nfns)
				continue;
		}
		h = k->server_proc > 0 ? ccsg_trace_host(t, k->server_proc)
				       : -1;
		lat = k->stub_start_ns != CCSG_NONE &&
				      k->stub_end_exit_ns != CCSG_NONE
			      ? k->stub_end_exit_ns - k->stub_start_ns
			      : -1;
		stat_add(&v->fns[i].all, lat, g->call_self[c]);
		stat_add(&v->fns[i].host[h >= 0 ? (size_t)h : t->nhosts], lat,
			 g->call_self[c]);
	}
	ret = 0;
out:
	hashmap_release(&map);
	return ret;
}

int viewer_init(struct viewer *v, struct ccsg_graph *g,
		const struct idl_names *nm, const char *spec)
{
	char err[1024];
	int ret;

	memset(v, 0, sizeof(*v));
	v->graph = g;
	v->dscg = g->dscg;
	v->trace = g->dscg->trace;
	v->names = nm;
	if (index_dscg(v) || index_ccsg(v) || index_idt(v))
		return fail("out of memory indexing the trace '%s'",
			    v->trace->path);
	if ((ret = ccsg_impact_init(&v->im, g)))
		return ret == -ENOMEM ? fail("out of memory") : -1;
	v->im_ready = 1;
	if (spec) {
		if (!(v->start_spec = strdup(spec)))
			return fail("out of memory");
		if (apply_spec(v, spec, err, sizeof(err)))
			return fail("%s", err);
	}
	return 0;
}

void viewer_release(struct viewer *v)
{
	for (int i = 0; i < 2; i++)
		for (int h = 0; h < 2; h++)
			if (v->ct_built[i][h])
				compact_tree_release(&v->ct[i][h]);
	if (v->by_object_built)
		ccsg_graph_release(&v->by_object);
	if (v->im_ready)
		ccsg_impact_release(&v->im);
	for (size_t i = 0; i < v->nfns; i++) {
		free(v->fns[i].prog_name);
		free(v->fns[i].vers_name);
		free(v->fns[i].proc_name);
		free(v->fns[i].host);
	}
	free(v->fns);
	free(v->inst_self);
	free(v->inst_total);
	free(v->id_index);
	free(v->call_ids);
	free(v->call_by_id);
	free(v->pfirst);
	free(v->pnext);
	free(v->pparent);
	free(v->im_spec);
	free(v->start_spec);
	free(v->list);
	memset(v, 0, sizeof(*v));
}
