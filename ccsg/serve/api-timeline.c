/*
 * api-timeline.c - GET /api/timeline and GET /api/chains (api.h): a
 * chain's calls in time, for the page's timeline (web/timeline.js), and
 * the chains to pick one from.
 *
 * A timeline is a chain's calls (chain=HEX), or the calls under the
 * slowest root call of a function (root=NAME&pick=slowest: its request),
 * with the threads its calls spawned and the chains those threads made,
 * on the clock the exports align the hosts on (export.h: export_align(),
 * export_call_times(); done once, when the viewer starts).  Each call
 * side is a slice on its thread's lane (host > process > thread), as long
 * as its wall time, with the CPU its thread used in it; each spawned
 * thread a slice over its life.  Arrows: a call's (stub start to
 * skeleton start), its reply's (skeleton end to stub end) and each
 * spawn's (thread create to thread start).  Times are nanoseconds from
 * the timeline's start ("start_ns", on the aligned clock).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "export/export.h"
#include "internal.h"
#include "json.h"

#define TIMELINE_MAX 10000 /* slices at most in one answer */
#define CHAINS_DEFAULT 200 /* chains listed */
#define CHAINS_MAX 10000
#define TIMELINE_SCHEMA 3 /* the oldest database it reads */

int api_timeline_index(struct viewer *v)
{
	struct export_source src;
	struct export_ctx *x;
	int ret;

	/* the threads' and processes' times came with schema 3 */
	if (v->trace->schema_version < TIMELINE_SCHEMA)
		return 0;
	if (!(x = calloc(1, sizeof(*x))))
		return fail("out of memory");
	if (export_ctx_init(x, v->trace, v->graph, v->names)) {
		free(x);
		return -1;
	}
	export_source_loaded(&src, v->graph);
	if ((ret = export_align(x, &src, NULL, NULL)) ||
	    (ret = export_bounds(x, &src))) {
		export_ctx_release(x);
		free(x);
		return ret == -ENOMEM ? fail("out of memory") : -1;
	}
	v->clock = x;
	return 0;
}

void api_timeline_release(struct viewer *v)
{
	if (v->clock)
		export_ctx_release(v->clock);
	free(v->clock);
	v->clock = NULL;
}

/* A call's latency: its stub's, else its skeleton's, else 0. */
static int64_t latency(const struct ccsg_call *c)
{
	if (c->stub_start_ns != CCSG_NONE && c->stub_end_exit_ns != CCSG_NONE)
		return c->stub_end_exit_ns - c->stub_start_ns;
	if (c->skel_start_exit_ns != CCSG_NONE && c->skel_end_ns != CCSG_NONE)
		return c->skel_end_ns - c->skel_start_exit_ns;
	return 0;
}

static const char *fn_name(const struct viewer *v, int32_t call)
{
	int32_t n = v->graph->call_node[call];

	return n >= 0 && v->graph->nodes[n].name ? v->graph->nodes[n].name
						 : CCSG_LOST_NAME;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 40 hex digits into id: 0, or -1. */
static int parse_chain(const char *s, uint8_t id[DB_CHAIN_LEN])
{
	if (strlen(s) != 2 * DB_CHAIN_LEN)
		return -1;
	for (size_t i = 0; i < DB_CHAIN_LEN; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		id[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* What a timeline shows: calls and threads, marked. */
struct pick {
	uint8_t *call, *thread;
	int32_t *threads; /* spawned, in order */
	size_t nthreads, cap;
	int64_t root_call; /* call_id of root=, else -1 */
};

/* The threads the marked calls spawned, and the chains they made, until
 * none is new: a pass over the threads and one over the chains a
 * round.  0 or -ENOMEM. */
static int add_spawned(const struct viewer *v, struct pick *p)
{
	const struct ccsg_trace *t = v->trace;

	for (;;) {
		size_t before = p->nthreads;

		for (size_t i = 0; i < t->nthreads; i++) {
			int32_t sc = t->threads[i].spawn_call;

			if (p->thread[i] || sc < 0 || (size_t)sc >= t->ncalls ||
			    !p->call[sc])
				continue;
			if (GROW(p->threads, p->cap, p->nthreads + 1))
				return -ENOMEM;
			p->thread[i] = 1;
			p->threads[p->nthreads++] = (int32_t)i;
		}
		if (before == p->nthreads || p->nthreads > TIMELINE_MAX)
			return 0;
		for (size_t k = 0; k < t->nchains; k++) {
			const struct ccsg_chain *ch = &t->chains[k];

			if (ch->owner < 0 || !p->thread[ch->owner])
				continue;
			for (int32_t j = ch->first; j < ch->first + ch->n; j++)
				p->call[j] = 1;
		}
	}
}

/* chain= or root= into p: 0, or -1 after the answer. */
static int pick_calls(struct ctx *x, struct pick *p, int32_t *chain)
{
	const struct viewer *v = x->v;
	const struct ccsg_trace *t = v->trace;
	const char *hex = api_query(x, "chain"), *root = api_query(x, "root"),
		   *how = api_query(x, "pick");
	const struct ccsg_chain *ch;
	int32_t best = -1;

	p->root_call = -1;
	if (!hex && !root)
		return api_reply_error(x, 400, "chain= or root= is missing");
	if (hex) {
		uint8_t id[DB_CHAIN_LEN];

		if (parse_chain(hex, id))
			return api_reply_error(
				x, 400, "chain '%.100s' is not %d hex digits",
				hex, 2 * DB_CHAIN_LEN);
		for (size_t k = 0; k < t->nchains && best < 0; k++)
			if (!memcmp(t->chains[k].id, id, DB_CHAIN_LEN))
				best = (int32_t)k;
		if (best < 0)
			return api_reply_error(x, 404, "no chain '%s'", hex);
		ch = &t->chains[best];
		for (int32_t j = ch->first; j < ch->first + ch->n; j++)
			p->call[j] = 1;
		*chain = best;
		return 0;
	}
	if (how && strcmp(how, "slowest"))
		return api_reply_error(x, 400, "pick '%.100s': only slowest",
				       how);
	for (size_t i = 0; i < t->ncalls; i++)
		if (t->calls[i].parent < 0 &&
		    !strcmp(fn_name(v, (int32_t)i), root) &&
		    (best < 0 ||
		     latency(&t->calls[i]) > latency(&t->calls[best])))
			best = (int32_t)i;
	if (best < 0)
		return api_reply_error(x, 404, "no root call of '%.200s'",
				       root);
	/* its request: the calls under it, after it in its chain */
	ch = &t->chains[t->calls[best].chain];
	p->call[best] = 1;
	for (int32_t j = best + 1; j < ch->first + ch->n; j++)
		p->call[j] =
			t->calls[j].parent >= 0 && p->call[t->calls[j].parent];
	p->root_call = t->calls[best].call_id;
	*chain = t->calls[best].chain;
	return 0;
}

/* The lanes: a thread each, host > process > thread, each ranked by
 * when it first shows. */
struct lane {
	int32_t proc, tid, th;
	int32_t host_rank, proc_rank, rank;
};

struct lanes {
	struct lane *l;
	size_t n, cap;
};

static int32_t lane_of(struct lanes *ls, int32_t proc, int32_t tid)
{
	for (size_t i = 0; i < ls->n; i++)
		if (ls->l[i].proc == proc && ls->l[i].tid == tid)
			return (int32_t)i;
	return -1;
}

static int lane_add(const struct ccsg_trace *t, struct lanes *ls, int32_t proc,
		    int32_t tid)
{
	int32_t h = ccsg_trace_host(t, proc), hr = -1, pr = -1;

	if (lane_of(ls, proc, tid) >= 0)
		return 0;
	if (GROW(ls->l, ls->cap, ls->n + 1))
		return -ENOMEM;
	for (size_t i = 0; i < ls->n; i++) {
		if (hr < 0 && ccsg_trace_host(t, ls->l[i].proc) == h)
			hr = ls->l[i].host_rank;
		if (pr < 0 && ls->l[i].proc == proc)
			pr = ls->l[i].proc_rank;
	}
	ls->l[ls->n] = (struct lane){ proc,
				      tid,
				      ccsg_trace_thread(t, proc, tid),
				      hr >= 0 ? hr : (int32_t)ls->n,
				      pr >= 0 ? pr : (int32_t)ls->n,
				      (int32_t)ls->n };
	ls->n++;
	return 0;
}

static int cmp_lane(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;

	if (x->host_rank != y->host_rank)
		return x->host_rank - y->host_rank;
	if (x->proc_rank != y->proc_rank)
		return x->proc_rank - y->proc_rank;
	return x->rank - y->rank;
}

/* A side of a call on the aligned clock, a missing end where the other
 * is; 0 when the side was not seen. */
static int side(int64_t *s, int64_t *e)
{
	if (*s == CCSG_NONE)
		*s = *e;
	if (*e == CCSG_NONE || *e < *s)
		*e = *s;
	return *s != CCSG_NONE;
}

static int64_t cpu_of(const struct ccsg_call *c, int server)
{
	int64_t a = c->cpu[server ? CCSG_SKEL_START : CCSG_STUB_START],
		b = c->cpu[server ? CCSG_SKEL_END : CCSG_STUB_END];

	return a == CCSG_NONE || b == CCSG_NONE || b < a ? 0 : b - a;
}

struct emit {
	struct ctx *x;
	struct lanes ls;
	int64_t base;
	size_t nslices;
	int truncated;
};

static void put_slice(struct emit *e, int32_t lane, const char *kind,
		      const char *id, const char *name, int64_t s, int64_t end,
		      int64_t cpu, int failed)
{
	FILE *f = e->x->f;

	fprintf(f,
		"%s{\"lane\": %d, \"kind\": \"%s\", \"id\": \"%s\", \"name\": ",
		e->nslices ? ",\n" : "\n", lane, kind, id);
	json_cstr(f, name);
	fprintf(f,
		", \"start_ns\": %lld, \"end_ns\": %lld, \"cpu_ns\": %lld, "
		"\"failed\": %s",
		(long long)(s - e->base), (long long)(end - e->base),
		(long long)cpu, failed ? "true" : "false");
	e->nslices++;
}

/* Side server of call i over [s, end]: its slice's index. */
static int32_t put_side(struct emit *e, int32_t i, int server, int64_t s,
			int64_t end)
{
	const struct viewer *v = e->x->v;
	const struct ccsg_call *c = &v->trace->calls[i];
	int32_t index = (int32_t)e->nslices;
	char id[32];

	snprintf(id, sizeof(id), "c%lld", (long long)c->call_id);
	put_slice(e,
		  server ? lane_of(&e->ls, c->server_proc, c->server_tid)
			 : lane_of(&e->ls, c->client_proc, c->client_tid),
		  server ? "server" : "client", id, fn_name(v, i), s, end,
		  cpu_of(c, server), ccsg_call_side_failed(c, server));
	fprintf(e->x->f, ", \"node\": \"n%d\"", v->graph->call_node[i]);
	if (server)
		fprintf(e->x->f, ", \"self_ns\": %lld",
			(long long)v->graph->call_self[i]);
	fputc('}', e->x->f);
	return index;
}

/* The slices of the marked calls and threads; the arrows collected into
 * arrows (a memstream) as they go.  Each slice's index is its place. */
static void put_slices(struct emit *e, const struct pick *p, FILE *arrows,
		       size_t *narrows)
{
	struct ctx *x = e->x;
	const struct viewer *v = x->v;
	const struct ccsg_trace *t = v->trace;
	const struct export_ctx *clk = v->clock;
	int32_t *server_slice = NULL;

	server_slice = malloc((t->ncalls + 1) * sizeof(*server_slice));
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];
		int64_t c0, c1, s0, s1;
		int32_t cs = -1, ss = -1;

		if (server_slice)
			server_slice[i] = -1;
		if (!p->call[i])
			continue;
		if (e->nslices + 2 > TIMELINE_MAX) {
			e->truncated = 1;
			continue;
		}
		export_call_times(clk, c, &c0, &c1, &s0, &s1);
		if (c->client_proc && side(&c0, &c1))
			cs = put_side(e, (int32_t)i, 0, c0, c1);
		if (c->server_proc && side(&s0, &s1))
			ss = put_side(e, (int32_t)i, 1, s0, s1);
		if (server_slice)
			server_slice[i] = ss;
		if (cs < 0 || ss < 0)
			continue;
		fprintf(arrows,
			"%s{\"kind\": \"call\", \"from\": %d, \"to\": %d, "
			"\"from_ns\": %lld, \"to_ns\": %lld},\n"
			"{\"kind\": \"reply\", \"from\": %d, \"to\": %d, "
			"\"from_ns\": %lld, \"to_ns\": %lld}",
			*narrows ? ",\n" : "\n", cs, ss,
			(long long)(c0 - e->base), (long long)(s0 - e->base),
			ss, cs, (long long)(s1 - e->base),
			(long long)(c1 - e->base));
		*narrows += 2;
	}
	for (size_t k = 0; k < p->nthreads; k++) {
		int32_t th = p->threads[k];
		const struct ccsg_thread *d = &t->threads[th];
		int64_t s = clk->th_start[th], end = d->end_mono_ns, at;
		int32_t from;
		char id[32];

		if (s == CCSG_NONE || e->nslices + 1 > TIMELINE_MAX) {
			e->truncated |= s != CCSG_NONE;
			continue;
		}
		s = export_time(clk, d->proc, s);
		end = end == CCSG_NONE ? s : export_time(clk, d->proc, end);
		at = clk->th_spawn[th] == CCSG_NONE
			     ? s
			     : export_time(clk, d->proc, clk->th_spawn[th]);
		snprintf(id, sizeof(id), "t%d.%d", d->proc, d->tid);
		from = server_slice ? server_slice[d->spawn_call] : -1;
		fprintf(arrows,
			"%s{\"kind\": \"spawn\", \"from\": %d, \"to\": %zu, "
			"\"from_ns\": %lld, \"to_ns\": %lld}",
			*narrows ? ",\n" : "\n", from, e->nslices,
			(long long)((at > s ? s : at) - e->base),
			(long long)(s - e->base));
		++*narrows;
		put_slice(e, lane_of(&e->ls, d->proc, d->tid), "thread", id,
			  "<thread>", s, end < s ? s : end,
			  d->cpu_ns == CCSG_NONE ? 0 : d->cpu_ns, 0);
		fputc('}', x->f);
	}
	free(server_slice);
}

/* The lanes of the marked calls and threads, sorted; the earliest time
 * into *base.  0 or -ENOMEM. */
static int make_lanes(struct emit *e, const struct pick *p)
{
	const struct viewer *v = e->x->v;
	const struct ccsg_trace *t = v->trace;

	e->base = INT64_MAX;
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];
		int64_t c0, c1, s0, s1;

		if (!p->call[i])
			continue;
		export_call_times(v->clock, c, &c0, &c1, &s0, &s1);
		if (c->client_proc && side(&c0, &c1)) {
			if (lane_add(t, &e->ls, c->client_proc, c->client_tid))
				return -ENOMEM;
			e->base = c0 < e->base ? c0 : e->base;
		}
		if (c->server_proc && side(&s0, &s1)) {
			if (lane_add(t, &e->ls, c->server_proc, c->server_tid))
				return -ENOMEM;
			e->base = s0 < e->base ? s0 : e->base;
		}
	}
	for (size_t k = 0; k < p->nthreads; k++) {
		const struct ccsg_thread *d = &t->threads[p->threads[k]];
		int64_t s = v->clock->th_start[p->threads[k]];

		if (s == CCSG_NONE)
			continue;
		if (lane_add(t, &e->ls, d->proc, d->tid))
			return -ENOMEM;
		s = export_time(v->clock, d->proc, s);
		e->base = s < e->base ? s : e->base;
	}
	if (e->ls.n)
		qsort(e->ls.l, e->ls.n, sizeof(*e->ls.l), cmp_lane);
	if (e->base == INT64_MAX)
		e->base = 0;
	return 0;
}

static void put_lanes(struct emit *e)
{
	const struct viewer *v = e->x->v;
	FILE *f = e->x->f;

	fputs(", \"lanes\": [", f);
	for (size_t i = 0; i < e->ls.n; i++) {
		const struct lane *l = &e->ls.l[i];
		const struct ccsg_thread *d =
			l->th >= 0 ? &v->trace->threads[l->th] : NULL;

		fputs(i ? ",\n{" : "\n{", f);
		api_put_location(f, v->trace, l->proc, l->tid);
		fprintf(f, ", \"thread\": \"%d %s\"}", l->tid,
			!d	      ? "thread"
			: d->tid == 1 ? "main"
			: d->spawn_call >= 0 || d->parent_thread >= 0
				? "spawned"
				: "thread");
	}
	fputs("]", f);
}

static void put_hosts(FILE *f, const struct viewer *v)
{
	fputs(", \"hosts\": [", f);
	for (size_t h = 0; h < v->trace->nhosts; h++) {
		const struct export_host *e = &v->clock->hosts[h];

		fprintf(f, "%s{\"host\": ", h ? ", " : "");
		json_cstr(f, v->trace->hosts[h]);
		fprintf(f,
			", \"offset_ns\": %lld, \"error_ns\": %lld, \"via\": ",
			(long long)e->offset_ns, (long long)e->error_ns);
		json_cstr(f, e->via >= 0 ? v->trace->hosts[e->via] : NULL);
		fputc('}', f);
	}
	fputc(']', f);
}

int api_get_timeline(struct ctx *x)
{
	const struct viewer *v = x->v;
	const struct ccsg_trace *t = v->trace;
	struct pick p = { 0 };
	struct emit e = { .x = x };
	char *arrows = NULL;
	size_t alen = 0, narrows = 0;
	FILE *af = NULL;
	int32_t chain = -1;
	int ret = -1;

	if (!v->clock)
		return api_reply_error(x, 404,
				       "no timeline: the database is of schema "
				       "%d, the timeline needs %d or later",
				       t->schema_version, TIMELINE_SCHEMA);

	p.call = calloc(t->ncalls + 1, 1);
	p.thread = calloc(t->nthreads + 1, 1);
	if (!p.call || !p.thread) {
		api_reply_error(x, 500, "out of memory");
		goto out;
	}
	if (pick_calls(x, &p, &chain))
		goto out;
	if (add_spawned(v, &p) || make_lanes(&e, &p) ||
	    !(af = open_memstream(&arrows, &alen))) {
		api_reply_error(x, 500, "out of memory");
		goto out;
	}
	fputs("{\"chain\": ", x->f);
	json_hex(x->f, t->chains[chain].id, DB_CHAIN_LEN);
	fprintf(x->f, ", \"call\": %lld, \"start_ns\": %lld",
		(long long)p.root_call, (long long)e.base);
	put_hosts(x->f, v);
	put_lanes(&e);
	fputs(", \"slices\": [", x->f);
	put_slices(&e, &p, af, &narrows);
	if (fclose(af)) {
		af = NULL;
		api_reply_error(x, 500, "out of memory");
		goto out;
	}
	af = NULL;
	fprintf(x->f, "], \"arrows\": [%s], \"truncated\": %s}\n",
		arrows ? arrows : "", e.truncated ? "true" : "false");
	ret = 0;
out:
	if (af)
		fclose(af);
	free(arrows);
	free(e.ls.l);
	free(p.call);
	free(p.thread);
	free(p.threads);
	return ret;
}

/* A chain's span on the aligned clock and its first root call. */
static void chain_span(const struct viewer *v, const struct ccsg_chain *ch,
		       int64_t *span, int32_t *first_root)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	*first_root = -1;
	for (int32_t j = ch->first; j < ch->first + ch->n; j++) {
		const struct ccsg_call *c = &v->trace->calls[j];
		int64_t c0, c1, s0, s1;

		if (c->parent < 0 && *first_root < 0)
			*first_root = j;
		export_call_times(v->clock, c, &c0, &c1, &s0, &s1);
		for (int k = 0; k < 4; k++) {
			int64_t w = k == 0   ? c0
				    : k == 1 ? c1
				    : k == 2 ? s0
					     : s1;

			if (w == CCSG_NONE)
				continue;
			lo = w < lo ? w : lo;
			hi = w > hi ? w : hi;
		}
	}
	*span = hi >= lo ? hi - lo : 0;
}

struct chain_row {
	int32_t k;
	int64_t span;
};

static int cmp_row(const void *a, const void *b)
{
	const struct chain_row *x = a, *y = b;

	if (x->span != y->span)
		return x->span < y->span ? 1 : -1;
	return x->k - y->k;
}

/* GET /api/chains[?root=NAME][&limit=N]: the chains, slowest first. */
int api_get_chains(struct ctx *x)
{
	const struct viewer *v = x->v;
	const struct ccsg_trace *t = v->trace;
	const char *root = api_query(x, "root");
	struct chain_row *rows = NULL;
	size_t n = 0;
	int64_t limit;

	if (!v->clock)
		return api_reply_error(x, 404,
				       "no timeline: the database is of schema "
				       "%d, the timeline needs %d or later",
				       t->schema_version, TIMELINE_SCHEMA);

	if (api_num_param(x, "limit", 1, CHAINS_MAX, CHAINS_DEFAULT, &limit))
		return -1;
	if (t->nchains && !(rows = malloc(t->nchains * sizeof(*rows))))
		return api_reply_error(x, 500, "out of memory");
	for (size_t k = 0; k < t->nchains; k++) {
		int32_t first;

		chain_span(v, &t->chains[k], &rows[n].span, &first);
		if (root && (first < 0 || strcmp(fn_name(v, first), root)))
			continue;
		rows[n++].k = (int32_t)k;
	}
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_row);
	fprintf(x->f, "{\"total\": %zu, \"chains\": [", n);
	for (size_t i = 0; i < n && i < (size_t)limit; i++) {
		const struct ccsg_chain *ch = &t->chains[rows[i].k];
		int32_t first;
		int64_t span;

		chain_span(v, ch, &span, &first);
		fputs(i ? ",\n{\"chain\": " : "\n{\"chain\": ", x->f);
		json_hex(x->f, ch->id, DB_CHAIN_LEN);
		fputs(", \"root\": ", x->f);
		json_cstr(x->f, first >= 0 ? fn_name(v, first) : "");
		fprintf(x->f, ", \"calls\": %d, \"span_ns\": %lld}", ch->n,
			(long long)span);
	}
	fputs("]}\n", x->f);
	free(rows);
	return 0;
}
