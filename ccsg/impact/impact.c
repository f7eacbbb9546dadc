/*
 * impact.c - impact estimation and the CCDG (CPU paper, Section 4): the
 * change statements (impact-spec.c) resolved against a CCSG, and their
 * incremental application (impact.h).
 *
 * Applying a change does not rebuild anything.  The calls it matches come
 * from an index of the calls by function node; each gets its new
 * Equation 1 value, and a slot of scratch is made for it and for each of
 * its DSCG ancestors that has none yet (walking up stops at the first
 * ancestor already marked, which counts one more pending child).  The
 * slots are then finished leaves first, Kahn's way: a slot whose children
 * are all done adds its deltas to its CCSG node and passes them to its
 * parent.  So a change costs O(affected instances x dimensions), the
 * paper's steps (2) and (3) restricted to what changed, and the rules of
 * what goes where are those of the CCSG build (ccsg.c, walk_leave()):
 * a call's node gets its self and all its descendants, a thread's node
 * its self and its function children's (a thread no one made gets
 * nothing below it: its chains hang under main), main everything.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "impact.h"
#include "usage.h"

/* --- set-up --------------------------------------------------------------- */

/* Does a call have an end-to-end latency (latency.c)? */
static int has_latency(const struct ccsg_call *c)
{
	return c->stub_start_ns != CCSG_NONE &&
	       c->stub_end_exit_ns != CCSG_NONE &&
	       c->stub_end_exit_ns >= c->stub_start_ns;
}

unsigned ccsg_impact_call_flags(const struct ccsg_call *c)
{
	return (has_latency(c) ? CCSG_IMPACT_LATENCY : 0) |
	       (c->one_way ? CCSG_IMPACT_ONE_WAY : 0);
}

int ccsg_impact_joined(const struct ccsg_thread *th, int64_t upto)
{
	return th->end_mono_ns != CCSG_NONE && upto != CCSG_NONE &&
	       th->end_mono_ns <= upto;
}

/*
 * Which threads were joined, for the latency's synchronous path: a
 * thread that ended before the call that spawned it ended its skeleton
 * (same process, same clock), or before its parent thread ended.
 */
static void load_joined(struct ccsg_impact *im, const struct ccsg_trace *t)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct ccsg_thread *th = &t->threads[i];
		int64_t upto = CCSG_NONE;

		if (th->spawn_call >= 0)
			upto = t->calls[th->spawn_call].skel_end_ns;
		else if (th->parent_thread >= 0)
			upto = t->threads[th->parent_thread].end_mono_ns;
		im->joined[i] = (uint8_t)ccsg_impact_joined(th, upto);
	}
}

int ccsg_impact_alloc(struct ccsg_impact *im, const struct ccsg_graph *g)
{
	size_t k = g->dims->n ? g->dims->n : 1, n = g->nnodes;

	memset(im, 0, sizeof(*im));
	im->g = g;
	im->k = k;
	im->self_delta = calloc(n * k, sizeof(int64_t));
	im->desc_delta = calloc(n * k, sizeof(int64_t));
	im->sync_delta = calloc(n, sizeof(int64_t));
	im->affected = calloc(n, 1);
	im->ccdg_nodes = malloc(n * sizeof(int32_t));
	im->edge_affected = calloc(g->nedges + 1, 1);
	im->ccdg_edges = malloc((g->nedges + 1) * sizeof(int32_t));
	im->total_delta = calloc(k, sizeof(int64_t));
	if (!im->self_delta || !im->desc_delta || !im->sync_delta ||
	    !im->affected || !im->ccdg_nodes || !im->edge_affected ||
	    !im->ccdg_edges || !im->total_delta) {
		ccsg_impact_release(im);
		return -ENOMEM;
	}
	return 0;
}

int ccsg_impact_init(struct ccsg_impact *im, const struct ccsg_graph *g)
{
	const struct ccsg_dscg *d = g->dscg;
	const struct ccsg_trace *t = d->trace;
	size_t n = g->nnodes;

	if (ccsg_impact_alloc(im, g))
		return -ENOMEM;
	im->node_start = calloc(n + 1, sizeof(int32_t));
	im->node_calls = malloc((t->ncalls + 1) * sizeof(int32_t));
	im->call_host = malloc((t->ncalls + 1) * sizeof(int32_t));
	im->call_flags = malloc(t->ncalls + 1);
	im->joined = calloc(t->nthreads + 1, 1);
	im->call_scale = calloc(t->ncalls + 1, sizeof(int32_t));
	im->in_changed = calloc(t->ncalls + 1, 1);
	im->slot_of = malloc(d->nnodes * sizeof(int32_t));
	if (!im->node_start || !im->node_calls || !im->call_host ||
	    !im->call_flags || !im->joined || !im->call_scale ||
	    !im->in_changed || !im->slot_of ||
	    GROW(im->scales, im->cap_scales, 1)) {
		ccsg_impact_release(im);
		return -ENOMEM;
	}
	im->scales[im->nscales++] = (struct ccsg_ratio){ 1, 1 };
	memset(im->slot_of, 0xff, d->nnodes * sizeof(int32_t));
	/* the calls of each node, in call order: a counting sort */
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];

		if (g->call_node[i] >= 0)
			im->node_start[g->call_node[i] + 1]++;
		im->call_host[i] = c->server_proc
					   ? ccsg_trace_host(t, c->server_proc)
					   : -1;
		im->call_flags[i] = (uint8_t)ccsg_impact_call_flags(c);
	}
	for (size_t i = 0; i < n; i++)
		im->node_start[i + 1] += im->node_start[i];
	{
		int32_t *fill = calloc(n + 1, sizeof(int32_t));

		if (!fill) {
			ccsg_impact_release(im);
			return -ENOMEM;
		}
		for (size_t i = 0; i < t->ncalls; i++) {
			int32_t f = g->call_node[i];

			if (f >= 0)
				im->node_calls[im->node_start[f] + fill[f]++] =
					(int32_t)i;
		}
		free(fill);
	}
	if (!(im->node_host_calls =
		      calloc(n * t->nhosts + 1, sizeof(int64_t)))) {
		ccsg_impact_release(im);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->ncalls; i++)
		if (g->call_node[i] >= 0 && im->call_host[i] >= 0)
			im->node_host_calls[(size_t)g->call_node[i] *
						    t->nhosts +
					    (size_t)im->call_host[i]]++;
	load_joined(im, t);
	return 0;
}

void ccsg_impact_release(struct ccsg_impact *im)
{
	free(im->node_start);
	free(im->node_calls);
	free(im->node_host_calls);
	free(im->call_host);
	free(im->call_flags);
	free(im->joined);
	free(im->call_scale);
	free(im->scales);
	free(im->changed);
	free(im->in_changed);
	free(im->self_delta);
	free(im->desc_delta);
	free(im->sync_delta);
	free(im->affected);
	free(im->ccdg_nodes);
	free(im->edge_affected);
	free(im->ccdg_edges);
	free(im->total_delta);
	free(im->slot_of);
	free(im->slots);
	free(im->pool);
	free(im->queue);
	free(im->factor);
	free(im->in_scope);
	memset(im, 0, sizeof(*im));
}

/* --- resolution ----------------------------------------------------------- */

/* A pattern part that is a number (decimal or 0x hex, 32 bits), or -1. */
static int64_t number(const char *s)
{
	char *end;
	unsigned long long v;

	if (!*s || !((*s >= '0' && *s <= '9')))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	return errno || *end || v > 0xffffffffULL ? -1 : (int64_t)v;
}

/* Does part (of length n) match pattern, by number or by name? */
static int part_match(const char *pattern, const char *part, size_t n,
		      uint32_t value)
{
	int64_t v = number(pattern);
	char buf[512];

	if (v >= 0)
		return (uint32_t)v == value;
	snprintf(buf, sizeof(buf), "%.*s", (int)n, part);
	return !fnmatch(pattern, buf, FNM_CASEFOLD);
}

/* Split "IFACE::FUNC" (FUNC alone: any interface) into iface / func. */
static void split_pattern(const char *pat, char *iface, char *func, size_t len)
{
	const char *sep = strstr(pat, "::");

	if (!sep) {
		snprintf(iface, len, "*");
		snprintf(func, len, "%s", pat);
		return;
	}
	snprintf(iface, len, "%.*s", (int)(sep - pat), pat);
	snprintf(func, len, "%s", sep + 2);
}

static int node_match(const struct ccsg_graph *g, const struct ccsg_node *x,
		      const char *iface, const char *func)
{
	const char *name = x->name ? x->name : "";
	const char *sep = strstr(name, "::"), *f, *at;

	if (!sep)
		return 0;
	f = sep + 2;
	at = g->by_object ? strchr(f, '@') : NULL;
	return part_match(iface, name, (size_t)(sep - name), x->prog) &&
	       part_match(func, f, at ? (size_t)(at - f) : strlen(f), x->proc);
}

/* Does the .x define a procedure the pattern names? */
static int idl_defines(const struct idl_names *nm, const char *iface,
		       const char *func)
{
	for (size_t i = 0; nm && i < nm->n; i++) {
		const struct idl_proc *p = &nm->procs[i];

		if (part_match(iface, p->prog_name, strlen(p->prog_name),
			       p->prog) &&
		    part_match(func, p->proc_name, strlen(p->proc_name),
			       p->proc))
			return 1;
	}
	return 0;
}

/* "a, b, c" of up to 8 names into buf. */
static void name_list(char *buf, size_t len, char *const *v, size_t n)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && i < 8 && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? ", " : "", v[i]);
	if (n > 8 && off < len)
		snprintf(buf + off, len - off, ", ...");
}

static int resolve_fail(const struct ccsg_change *c, struct ccsg_spec_pos pos,
			const char *msg)
{
	ccsg_spec_fail(c->source, c->one_line, pos, msg);
	return -EINVAL;
}

static int resolve_where(struct ccsg_impact *im, struct ccsg_change *c)
{
	const struct ccsg_trace *t = im->g->dscg->trace;
	const struct ccsg_dims *dims = im->g->dims;
	char msg[1024], list[512];

	for (size_t h = 0; h < t->nhosts; h++)
		c->host_in[h] = c->scope == CCSG_ON_ALL;
	for (size_t i = 0; i < c->nwhere; i++) {
		const char *w = c->where[i];
		size_t j;

		if (c->scope == CCSG_ON_HOSTS) {
			for (j = 0; j < t->nhosts && strcmp(t->hosts[j], w);
			     j++)
				;
			if (j == t->nhosts) {
				name_list(list, sizeof(list), t->hosts,
					  t->nhosts);
				snprintf(msg, sizeof(msg),
					 "no host '%s' in the trace (its "
					 "hosts: %s)",
					 w, list);
				return resolve_fail(c, c->where_pos[i], msg);
			}
			c->host_in[j] = 1;
			continue;
		}
		for (j = 0; j < dims->n && strcmp(dims->names[j], w); j++)
			;
		if (j == dims->n) {
			name_list(list, sizeof(list), dims->names, dims->n);
			snprintf(msg, sizeof(msg),
				 "no processor group '%s' (the groups: %s; "
				 "without --groups, each host is one)",
				 w, list);
			return resolve_fail(c, c->where_pos[i], msg);
		}
		for (size_t h = 0; h < t->nhosts; h++)
			if (dims->of_host[h] == (int32_t)j)
				c->host_in[h] = 1;
	}
	return 0;
}

/* The host a call's self CPU is charged to, when in c's scope; else -1. */
static int32_t call_host_in(const struct ccsg_impact *im,
			    const struct ccsg_change *c, int32_t i)
{
	int32_t h = im->call_host[i];

	return h >= 0 && c->host_in[h] ? h : -1;
}

/* Function pattern f of c: its nodes into c->nodes (mark: already in). */
static int resolve_function(struct ccsg_impact *im, struct ccsg_change *c,
			    size_t f, const struct idl_names *nm, uint8_t *mark,
			    size_t *cap)
{
	const struct ccsg_graph *g = im->g;
	const struct ccsg_trace *t = g->dscg->trace;
	char iface[256], func[256], msg[1024], hosts[512];
	size_t matched = 0, where = 0;
	int64_t in_scope = 0;
	uint8_t *runs_on = calloc(t->nhosts + 1, 1);

	if (!runs_on)
		return -ENOMEM;
	split_pattern(c->functions[f], iface, func, sizeof(iface));
	for (size_t n = 0; n < g->nnodes; n++) {
		const struct ccsg_node *x = &g->nodes[n];
		int64_t mine = 0;

		if (x->kind != CCSG_FUNCTION || !node_match(g, x, iface, func))
			continue;
		matched++;
		for (size_t h = 0; h < t->nhosts; h++) {
			int64_t calls = im->node_host_calls[n * t->nhosts + h];

			runs_on[h] |= calls > 0;
			mine += c->host_in[h] ? calls : 0;
		}
		in_scope += mine;
		if (mark[n]) /* another pattern matched it already */
			continue;
		mark[n] = 1;
		c->calls += mine;
		if (GROW(c->nodes, *cap, c->nnodes + 1)) {
			free(runs_on);
			return -ENOMEM;
		}
		c->nodes[c->nnodes++] = (int32_t)n;
	}
	if (matched && in_scope) {
		free(runs_on);
		return 0;
	}
	hosts[0] = 0;
	for (size_t h = 0; h < t->nhosts; h++)
		if (runs_on[h] && where + 1 < sizeof(hosts))
			where += (size_t)snprintf(
				hosts + where, sizeof(hosts) - where, "%s%s",
				where ? ", " : "", t->hosts[h]);
	free(runs_on);
	if (!matched)
		snprintf(msg, sizeof(msg),
			 idl_defines(nm, iface, func)
				 ? "function '%s' is never called in the trace"
				 : "no function '%s' in the trace",
			 c->functions[f]);
	else if (!where)
		snprintf(msg, sizeof(msg),
			 "function '%s' has no traced server: no CPU to "
			 "change",
			 c->functions[f]);
	else
		snprintf(msg, sizeof(msg),
			 "function '%s' never runs on the processors named "
			 "(it runs on %s)",
			 c->functions[f], hosts);
	return resolve_fail(c, c->function_pos[f], msg);
}

int ccsg_impact_resolve(struct ccsg_impact *im, struct ccsg_change *c,
			const struct idl_names *nm)
{
	const struct ccsg_graph *g = im->g;
	const struct ccsg_trace *t = g->dscg->trace;
	uint8_t *mark;
	size_t cap = 0;
	int ret;

	free(c->host_in);
	free(c->nodes);
	c->nodes = NULL;
	c->nnodes = 0;
	c->calls = 0;
	c->host_in = calloc(t->nhosts + 1, 1);
	mark = calloc(g->nnodes + 1, 1);
	if (!c->host_in || !mark) {
		free(mark);
		return -ENOMEM;
	}
	ret = resolve_where(im, c);
	for (size_t f = 0; !ret && f < c->nfunctions; f++)
		ret = resolve_function(im, c, f, nm, mark, &cap);
	free(mark);
	return ret;
}

/* --- application ---------------------------------------------------------- */

struct ccsg_impact_slot {
	int32_t inst;	    /* the DSCG instance */
	int32_t pending;    /* its children with a slot, not done yet */
	int32_t dim;	    /* a changed call: its self's dimension */
	uint8_t fn_touched; /* a call child passed its change up */
	int64_t self_d;	    /* change of its self CPU */
	int64_t sync_d;	    /* on its synchronous path (latency) */
	/* all_d (all descendants) and fn_d (function children's only):
	 * pool[2k * slot ...], k each */
};

int64_t ccsg_ratio_scaled(int64_t orig, struct ccsg_ratio r)
{
	unsigned __int128 v;

	if (r.num == r.den || orig <= 0)
		return orig;
	v = (unsigned __int128)orig * r.num * 2 + r.den;
	return (int64_t)(v / ((unsigned __int128)r.den * 2));
}

int64_t ccsg_impact_call_self(const struct ccsg_impact *im, int32_t call)
{
	return ccsg_ratio_scaled(im->g->call_self[call],
				 im->scales[im->call_scale[call]]);
}

int ccsg_ratio_mul(struct ccsg_ratio a, struct ccsg_ratio b,
		   struct ccsg_ratio *out)
{
	uint64_t g1, g2, num, den;

	if (!a.num || !b.num) {
		*out = (struct ccsg_ratio){ 0, 1 };
		return 0;
	}
	g1 = ccsg_gcd(a.num, b.den);
	g2 = ccsg_gcd(b.num, a.den);
	if (__builtin_mul_overflow(a.num / g1, b.num / g2, &num) ||
	    __builtin_mul_overflow(a.den / g2, b.den / g1, &den) ||
	    num > INT64_MAX || den > INT64_MAX)
		return -ERANGE;
	*out = (struct ccsg_ratio){ num, den };
	return 0;
}

/* The index of r in im->scales, added when new; -ENOMEM. */
static int32_t scale_index(struct ccsg_impact *im, struct ccsg_ratio r)
{
	for (size_t i = 0; i < im->nscales; i++)
		if (im->scales[i].num == r.num && im->scales[i].den == r.den)
			return (int32_t)i;
	if (GROW(im->scales, im->cap_scales, im->nscales + 1))
		return -ENOMEM;
	im->scales[im->nscales] = r;
	return (int32_t)im->nscales++;
}

static int64_t *slot_all(struct ccsg_impact *im, int32_t s)
{
	return im->pool + 2 * im->k * (size_t)s;
}

static int32_t new_slot(struct ccsg_impact *im, int32_t u)
{
	size_t k = im->k;
	int32_t s = (int32_t)im->nslots;

	if (GROW(im->slots, im->cap_slots, im->nslots + 1) ||
	    GROW(im->pool, im->cap_pool, 2 * k * (im->nslots + 1)))
		return -ENOMEM;
	im->slots[s] = (struct ccsg_impact_slot){ .inst = u, .dim = -1 };
	memset(slot_all(im, s), 0, 2 * k * sizeof(int64_t));
	im->slot_of[u] = s;
	im->nslots++;
	return s;
}

/* The slot of instance u, made with those of its ancestors when new. */
static int32_t mark_path(struct ccsg_impact *im, int32_t u)
{
	const int32_t *parent = im->g->dscg->parent;
	int32_t s = im->slot_of[u], v, p;

	if (s >= 0)
		return s;
	if ((s = new_slot(im, u)) < 0)
		return s;
	for (v = u; (p = parent[v]) >= 0; v = p) {
		int32_t ps = im->slot_of[p];

		if (ps >= 0) {
			im->slots[ps].pending++;
			break;
		}
		if ((ps = new_slot(im, p)) < 0)
			return ps;
		im->slots[ps].pending = 1;
	}
	return s;
}

void ccsg_impact_affect_node(struct ccsg_impact *im, int32_t n)
{
	if (n < 0 || im->affected[n])
		return;
	im->affected[n] = 1;
	im->ccdg_nodes[im->nccdg_nodes++] = n;
}

void ccsg_impact_affect_edge(struct ccsg_impact *im, int32_t e)
{
	if (e < 0 || im->edge_affected[e])
		return;
	im->edge_affected[e] = 1;
	im->ccdg_edges[im->nccdg_edges++] = e;
}

static void vec_add(int64_t *d, const int64_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] += s[i];
}

/*
 * Slot s, whose children are done: its deltas to its CCSG node (the
 * aggregation, UPDATE_CCSG of Appendix A) and up to its parent's slot.
 * Returns the parent's slot when that is now ready, else -1.
 */
static int32_t finish_slot(struct ccsg_impact *im, int32_t s)
{
	const struct ccsg_graph *g = im->g;
	const struct ccsg_dscg *d = g->dscg;
	const struct ccsg_trace *t = d->trace;
	struct ccsg_impact_slot *x = &im->slots[s];
	size_t k = im->k;
	int32_t u = x->inst, p = d->parent[u], n, ps;
	int64_t *all = slot_all(im, s), *fn = all + k, *up;
	int is_call = ccsg_dscg_is_call(d, u), sync;

	x->sync_d += x->self_d;
	if (u == d->main) {
		vec_add(im->desc_delta, all, k);
		vec_add(im->total_delta, all, k);
		ccsg_impact_affect_node(im, 0);
		return -1;
	}
	if (is_call) {
		n = g->call_node[u];
		if (n >= 0) {
			if (x->dim >= 0)
				im->self_delta[n * k + (size_t)x->dim] +=
					x->self_d;
			vec_add(im->desc_delta + n * k, all, k);
			if (im->call_flags[u] & CCSG_IMPACT_LATENCY)
				im->sync_delta[n] += x->sync_d;
			ccsg_impact_affect_node(im, n);
			ccsg_impact_affect_edge(im, g->call_edge[u]);
		}
		sync = !(im->call_flags[u] & CCSG_IMPACT_ONE_WAY);
	} else {
		int32_t th = u - (int32_t)t->ncalls;

		n = g->thread_node[th];
		if (!g->root_thread[th] && x->fn_touched) {
			vec_add(im->desc_delta + n * k, fn, k);
			ccsg_impact_affect_node(im, n);
			/* a thread node has one arc in: from its function
			 * node, or main */
			ccsg_impact_affect_edge(
				im, ccsg_edge_find(g, g->nodes[n].parent, n));
		}
		sync = im->joined[th];
	}
	ps = im->slot_of[p];
	up = slot_all(im, ps);
	if (x->dim >= 0)
		up[x->dim] += x->self_d;
	vec_add(up, all, k);
	if (is_call) {
		if (x->dim >= 0)
			up[k + (size_t)x->dim] += x->self_d;
		vec_add(up + k, all, k);
		im->slots[ps].fn_touched = 1;
	}
	if (sync)
		im->slots[ps].sync_d += x->sync_d;
	return --im->slots[ps].pending == 0 ? ps : -1;
}

/* The scratch of a change, done with. */
static void drop_slots(struct ccsg_impact *im)
{
	for (size_t s = 0; s < im->nslots; s++)
		im->slot_of[im->slots[s].inst] = -1;
	im->nslots = 0;
}

/* Steps (2) and (3): the slots, leaves first. */
static int propagate(struct ccsg_impact *im)
{
	size_t head = 0, tail = 0;

	if (GROW(im->queue, im->cap_queue, im->nslots + 1))
		return -ENOMEM;
	for (size_t s = 0; s < im->nslots; s++)
		if (!im->slots[s].pending)
			im->queue[tail++] = (int32_t)s;
	/* every slot is queued once: when its last child is done */
	while (head < tail) {
		int32_t ready = finish_slot(im, im->queue[head++]);

		if (ready >= 0)
			im->queue[tail++] = ready;
	}
	im->instances += (int64_t)im->nslots;
	drop_slots(im);
	return 0;
}

int ccsg_impact_apply(struct ccsg_impact *im, const struct ccsg_change *c)
{
	const struct ccsg_graph *g = im->g;
	struct ccsg_ratio f = { c->num, c->den };
	size_t nscales = im->nscales;
	int32_t *memo = malloc((nscales + 1) * sizeof(int32_t));
	int ret = 0;

	if (!memo)
		return -ENOMEM;
	for (size_t i = 0; i < nscales; i++)
		memo[i] = -1;
	/* step (1), first the new factors, so that nothing is applied when
	 * one does not fit */
	for (size_t j = 0; !ret && j < c->nnodes; j++) {
		int32_t x = c->nodes[j];

		for (int32_t q = im->node_start[x];
		     !ret && q < im->node_start[x + 1]; q++) {
			int32_t i = im->node_calls[q], o = im->call_scale[i];
			struct ccsg_ratio r;

			if (memo[o] >= 0 || call_host_in(im, c, i) < 0)
				continue;
			if ((ret = ccsg_ratio_mul(im->scales[o], f, &r)))
				break;
			if ((memo[o] = scale_index(im, r)) < 0)
				ret = memo[o];
		}
	}
	/* then each call's new Equation 1 value, and its path marked */
	for (size_t j = 0; !ret && j < c->nnodes; j++) {
		int32_t x = c->nodes[j];

		for (int32_t q = im->node_start[x];
		     !ret && q < im->node_start[x + 1]; q++) {
			int32_t i = im->node_calls[q], o = im->call_scale[i];
			int32_t h = call_host_in(im, c, i), s;
			int64_t before, after;

			if (h < 0)
				continue;
			before = ccsg_ratio_scaled(g->call_self[i],
						   im->scales[o]);
			after = ccsg_ratio_scaled(g->call_self[i],
						  im->scales[memo[o]]);
			im->call_scale[i] = memo[o];
			if (!im->in_changed[i]) {
				if (GROW(im->changed, im->cap_changed,
					 im->nchanged + 1)) {
					ret = -ENOMEM;
					break;
				}
				im->in_changed[i] = 1;
				im->changed[im->nchanged++] = i;
			}
			if ((s = mark_path(im, i)) < 0) {
				ret = s;
				break;
			}
			im->slots[s].self_d = after - before;
			im->slots[s].dim = g->dims->of_host[h];
		}
	}
	free(memo);
	if (!ret)
		ret = propagate(im);
	if (ret)
		drop_slots(im);
	else
		im->applied++;
	return ret;
}

void ccsg_impact_reset(struct ccsg_impact *im)
{
	size_t k = im->k;

	for (size_t i = 0; i < im->nchanged; i++) {
		im->call_scale[im->changed[i]] = 0;
		im->in_changed[im->changed[i]] = 0;
	}
	for (size_t i = 0; i < im->nccdg_nodes; i++) {
		int32_t n = im->ccdg_nodes[i];

		memset(im->self_delta + n * k, 0, k * sizeof(int64_t));
		memset(im->desc_delta + n * k, 0, k * sizeof(int64_t));
		im->sync_delta[n] = 0;
		im->affected[n] = 0;
	}
	for (size_t i = 0; i < im->nccdg_edges; i++)
		im->edge_affected[im->ccdg_edges[i]] = 0;
	memset(im->total_delta, 0, k * sizeof(int64_t));
	im->nchanged = im->nccdg_nodes = im->nccdg_edges = 0;
	im->nscales = 1;
	im->applied = 0;
	im->instances = 0;
}

void ccsg_impact_after(const struct ccsg_impact *im, int32_t node,
		       int64_t *self, int64_t *desc)
{
	const struct ccsg_node *x = &im->g->nodes[node];
	size_t k = im->k;

	for (size_t i = 0; i < k; i++) {
		self[i] = x->self[i] + im->self_delta[(size_t)node * k + i];
		desc[i] = x->desc[i] + im->desc_delta[(size_t)node * k + i];
	}
}
