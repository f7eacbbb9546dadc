/*
 * api-dscg.c - the DSCG as the viewer shows it (internal.h): the graph's
 * instances plus the global thread (chain) and segment nodes of the
 * monitoring paper's Section 4.1; their ids, children, parents, CPU and
 * details, and the index of the calls by call_id that reads the ids.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"
#include "values/values.h"

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

int api_dscg_parse(const struct viewer *v, const char *s, struct vid *out)
{
	const struct ccsg_trace *t = v->trace;
	int64_t a, b = 0;
	char k = *s++;

	if (k == 'm' && !*s) {
		*out = (struct vid){ 'm', 0, 0 };
		return 0;
	}
	if ((k != 't' && k != 'g' && k != 's' && k != 'c') ||
	    api_parse_num(&s, &a))
		return -1;
	if (k == 't' || k == 's') {
		if (*s++ != '.' || api_parse_num(&s, &b))
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
int api_dscg_children(const struct viewer *v, struct vid u, struct vids *l)
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
int api_dscg_parent(const struct viewer *v, struct vid u, struct vid *p)
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

void api_dscg_cpu(const struct viewer *v, struct vid u, int64_t *self,
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
void api_dscg_put_node(FILE *f, const struct viewer *v, struct vid u, int full)
{
	const struct ccsg_trace *t = v->trace;
	int64_t self, total;
	char name[1024];
	const char *kind;

	api_dscg_cpu(v, u, &self, &total);
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
		api_put_location(f, t, th->proc, th->tid);
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
		api_put_location(f, t, server ? c->server_proc : c->client_proc,
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
			api_put_location(f, t, c->client_proc, c->client_tid);
			fputs("}, \"server\": {", f);
			api_put_location(f, t, c->server_proc, c->server_tid);
			fputs("}", f);
			ccsg_values_json_call(f, v->dscg->values, c);
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
void api_dscg_where(const struct viewer *v, struct vid u, int32_t *proc,
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

/* ---- the index ---------------------------------------------------------- */

static const struct viewer *sort_viewer;

static int by_call_id(const void *a, const void *b)
{
	int64_t x = sort_viewer->trace->calls[*(const int32_t *)a].call_id;
	int64_t y = sort_viewer->trace->calls[*(const int32_t *)b].call_id;

	return (x > y) - (x < y);
}

/* Self and total CPU of every DSCG instance: totals leaves first. */
int api_dscg_index(struct viewer *v)
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
