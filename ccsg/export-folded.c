/*
 * export-folded.c - folded stacks across hosts (export.h): the DSCG
 * walked from its root threads down, each call a frame on its server's
 * host, each thread a call spawned a <thread> frame, so that a flame
 * graph of the file shows the whole distributed system.
 *
 * Stacks are interned in a trie as the walk goes (a stack is its parent
 * stack and its last frame), so a million calls along a few hundred
 * distinct paths give a few hundred lines, each with the weights of all
 * its instances.  The CPU weight of an instance is the CCSG's (Equation 1
 * for a call, on its server's host; Equation 2 for a thread), so that the
 * lines of a host add up to its total in `ccsg report`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "export-buf.h"
#include "export.h"

struct stack {
	int32_t parent; /* stack, -1 at the top */
	int32_t frame;
	int32_t dim; /* the host its weight counts on, -1 */
	int64_t weight;
};

struct folded {
	const struct export_ctx *x;
	struct stack *st;
	size_t nst, cap_st;
	struct hashmap trie; /* (parent + 1, frame) -> stack */
	char **frames;
	size_t nframes, cap_frames;
	struct hashmap frame_ids; /* frame key -> frame */
};

/* A frame's text: ';' separates frames and a line ends the stack. */
static char *frame_text(const char *host, const char *mid, const char *name)
{
	size_t len = strlen(host) + strlen(mid) + strlen(name) + 3;
	char *s = malloc(len);

	if (!s)
		return NULL;
	snprintf(s, len, "%s:%s%s%s", host, mid, *mid ? ":" : "", name);
	for (char *p = s; *p; p++)
		if (*p == ';' || *p == '\n' || *p == '\r')
			*p = '?';
	return s;
}

/* The frame of key, made by text() when new: its id or -ENOMEM. */
static int32_t frame_of(struct folded *fo, uint64_t key, const char *host,
			const char *mid, const char *name)
{
	int32_t i = hashmap_get(&fo->frame_ids, key);
	char *s;

	if (i >= 0)
		return i;
	if (GROW(fo->frames, fo->cap_frames, fo->nframes + 1) ||
	    !(s = frame_text(host, mid, name)))
		return -ENOMEM;
	fo->frames[fo->nframes] = s;
	if (hashmap_put(&fo->frame_ids, key, (int32_t)fo->nframes) < 0) {
		free(s);
		return -ENOMEM;
	}
	return (int32_t)fo->nframes++;
}

enum { K_CALL, K_TOP, K_THREAD };

static uint64_t frame_key(int kind, uint32_t a, uint32_t b)
{
	return (uint64_t)kind << 62 | (uint64_t)(a & 0x3fffffff) << 32 | b;
}

static const char *host_name(const struct ccsg_trace *t, int32_t proc)
{
	int32_t h = ccsg_trace_host(t, proc);

	return h >= 0 ? t->hosts[h] : "?";
}

/* The frame of DSCG node u, whose parent is main when top. */
static int32_t node_frame(struct folded *fo, int32_t u, int top)
{
	const struct export_ctx *x = fo->x;
	const struct ccsg_trace *t = x->t;

	if (ccsg_dscg_is_call(x->d, u)) {
		const struct ccsg_call *c = &t->calls[u];
		int32_t n = x->g->call_node[u];
		int32_t h = ccsg_trace_host(t, c->server_proc);
		const char *name = n >= 0 && x->g->nodes[n].name
					   ? x->g->nodes[n].name
					   : CCSG_LOST_NAME;

		return frame_of(
			fo,
			frame_key(K_CALL, (uint32_t)(h + 1), (uint32_t)(n + 1)),
			c->server_proc ? host_name(t, c->server_proc)
				       : "<untraced>",
			"", name);
	} else {
		const struct ccsg_thread *th =
			&t->threads[u - (int32_t)t->ncalls];
		int main_thread = th->tid == 1;

		if (top)
			return frame_of(fo,
					frame_key(K_TOP, (uint32_t)th->proc,
						  (uint32_t)main_thread),
					host_name(t, th->proc),
					export_exe(x, th->proc),
					main_thread ? "main" : "<thread>");
		return frame_of(
			fo,
			frame_key(K_THREAD,
				  (uint32_t)(ccsg_trace_host(t, th->proc) + 1),
				  0),
			host_name(t, th->proc), "", "<thread>");
	}
}

/* The stack of frame under stack parent: its id or -ENOMEM. */
static int32_t stack_of(struct folded *fo, int32_t parent, int32_t frame)
{
	uint64_t key = hashmap_key2((uint32_t)(parent + 1), (uint32_t)frame);
	int32_t i = hashmap_get(&fo->trie, key);

	if (i >= 0)
		return i;
	if (GROW(fo->st, fo->cap_st, fo->nst + 1) ||
	    hashmap_put(&fo->trie, key, (int32_t)fo->nst) < 0)
		return -ENOMEM;
	fo->st[fo->nst] = (struct stack){ parent, frame, -1, 0 };
	return (int32_t)fo->nst++;
}

/* A call's latency: its stub's, else its skeleton's, 0 if neither. */
static int64_t call_latency(const struct export_ctx *x,
			    const struct ccsg_call *c)
{
	int64_t c0, c1, s0, s1;

	export_call_times(x, c, &c0, &c1, &s0, &s1);
	if (c0 != CCSG_NONE && c1 != CCSG_NONE && c1 > c0)
		return c1 - c0;
	if (s0 != CCSG_NONE && s1 != CCSG_NONE && s1 > s0)
		return s1 - s0;
	return 0;
}

static int64_t thread_latency(const struct export_ctx *x, size_t j)
{
	const struct ccsg_thread *th = &x->t->threads[j];
	int64_t end = th->end_mono_ns != CCSG_NONE ? th->end_mono_ns
						   : x->proc_end[th->proc];

	if (x->th_start[j] == CCSG_NONE || end == CCSG_NONE ||
	    end < x->th_start[j])
		return 0;
	return end - x->th_start[j];
}

/*
 * Each instance's own weight: CPU (the CCSG's self), latency (its own
 * less its calls', which it waited for; the threads a call spawns run
 * beside it and weigh on their own) or 1 per call.
 */
static int64_t *weights(const struct export_ctx *x, int weight)
{
	const struct ccsg_dscg *d = x->d;
	const struct ccsg_trace *t = x->t;
	int64_t *w = calloc(d->nnodes, sizeof(int64_t));

	if (!w)
		return NULL;
	for (size_t i = 0; i < t->ncalls; i++) {
		const struct ccsg_call *c = &t->calls[i];

		if (weight == EXPORT_CALLS) {
			w[i] = 1;
		} else if (weight == EXPORT_CPU) {
			if (c->server_proc &&
			    ccsg_proc_dim(x->g, c->server_proc) >= 0)
				w[i] = x->g->call_self[i];
		} else {
			int64_t l = call_latency(x, c);

			w[i] += l;
			if (d->parent[i] >= 0 && d->parent[i] != d->main)
				w[d->parent[i]] -= l;
		}
	}
	for (size_t j = 0; j < t->nthreads; j++) {
		int32_t u = (int32_t)(t->ncalls + j);

		if (weight == EXPORT_CPU)
			w[u] = ccsg_proc_dim(x->g, t->threads[j].proc) >= 0
				       ? x->g->thread_self[j]
				       : 0;
		else if (weight == EXPORT_LATENCY)
			w[u] += thread_latency(x, j);
	}
	for (size_t i = 0; i < d->nnodes; i++)
		if (w[i] < 0)
			w[i] = 0;
	return w;
}

/* The dimension (host) an instance weighs on. */
static int32_t node_dim(const struct export_ctx *x, int32_t u)
{
	if (ccsg_dscg_is_call(x->d, u))
		return x->t->calls[u].server_proc
			       ? ccsg_proc_dim(x->g, x->t->calls[u].server_proc)
			       : -1;
	return ccsg_proc_dim(x->g,
			     x->t->threads[u - (int32_t)x->t->ncalls].proc);
}

/* Walk the DSCG in pre-order, each instance into its stack. */
static int build(struct folded *fo, const int64_t *w)
{
	const struct export_ctx *x = fo->x;
	const struct ccsg_dscg *d = x->d;
	int32_t *sid = malloc(d->nnodes * sizeof(int32_t));
	int32_t u = d->first_child[d->main];
	int ret = -ENOMEM;

	if (!sid)
		return -ENOMEM;
	sid[d->main] = -1;
	while (u >= 0) {
		int32_t p = d->parent[u], f, s;
		int skip = ccsg_dscg_is_thread(d, u) &&
			   x->t->threads[u - (int32_t)x->t->ncalls].infra;

		if (!skip) {
			if ((f = node_frame(fo, u, p == d->main)) < 0 ||
			    (s = stack_of(fo, sid[p], f)) < 0)
				goto out;
			sid[u] = s;
			fo->st[s].weight += w[u];
			if (fo->st[s].dim < 0)
				fo->st[s].dim = node_dim(x, u);
		}
		if (!skip && d->first_child[u] >= 0) {
			u = d->first_child[u];
			continue;
		}
		while (u != d->main && d->next_sibling[u] < 0)
			u = d->parent[u];
		u = u == d->main ? -1 : d->next_sibling[u];
	}
	ret = 0;
out:
	free(sid);
	return ret;
}

static void put_stack(struct xbuf *b, const struct folded *fo, int32_t s,
		      int32_t **path, size_t *cap)
{
	size_t n = 0;

	for (int32_t i = s; i >= 0; i = fo->st[i].parent) {
		if (n == *cap) {
			size_t c = *cap ? 2 * *cap : 64;
			int32_t *p = realloc(*path, c * sizeof(int32_t));

			if (!p) {
				b->err = -ENOMEM;
				return;
			}
			*path = p;
			*cap = c;
		}
		(*path)[n++] = fo->st[i].frame;
	}
	while (n-- > 0) {
		xb_str(b, fo->frames[(*path)[n]]);
		if (n)
			xb_ch(b, ';');
	}
}

int export_folded(FILE *f, const struct export_ctx *x, int weight)
{
	struct folded fo = { .x = x };
	size_t k = x->g->dims->n + 1;
	int64_t *w = weights(x, weight);
	/* per host (the last entry: none), exact sums and what was printed */
	int64_t *sum = calloc(k, sizeof(int64_t)),
		*shown = calloc(k, sizeof(int64_t));
	struct xbuf *b = malloc(sizeof(*b));
	int32_t *path = NULL;
	size_t cap = 0;
	int ret = -ENOMEM;

	if (!w || !sum || !shown || !b || build(&fo, w))
		goto out;
	xb_init(b, f);
	for (size_t s = 0; s < fo.nst && !b->err; s++) {
		const struct stack *st = &fo.st[s];
		size_t h = st->dim >= 0 ? (size_t)st->dim : k - 1;
		int64_t count;

		if (!st->weight)
			continue;
		if (weight == EXPORT_CALLS) {
			count = st->weight;
		} else {
			/* rounded so that a host's counts add up to its
			 * total rounded */
			sum[h] += st->weight;
			count = (sum[h] + 500) / 1000 - shown[h];
			shown[h] += count;
		}
		if (!count)
			continue;
		put_stack(b, &fo, (int32_t)s, &path, &cap);
		xb_ch(b, ' ');
		xb_i64(b, count);
		xb_ch(b, '\n');
	}
	xb_flush(b);
	ret = b->err == -ENOMEM ? -ENOMEM : b->err ? -EIO : 0;
out:
	for (size_t i = 0; i < fo.nframes; i++)
		free(fo.frames[i]);
	free(fo.frames);
	free(fo.st);
	hashmap_release(&fo.trie);
	hashmap_release(&fo.frame_ids);
	free(w);
	free(sum);
	free(shown);
	free(b);
	free(path);
	return ret;
}
