/*
 * export-folded.c - folded stacks across hosts (export.h): the DSCG
 * walked from its root threads down, each call a frame on its server's
 * host, each thread a call spawned a <thread> frame, so that a flame
 * graph of the file shows the whole distributed system.
 *
 * Stacks are interned in a trie (a stack is its parent stack and its
 * last frame), so a million calls along a few hundred distinct paths give
 * a few hundred lines, each with the weights of all its instances.  The
 * CPU weight of an instance is the CCSG's (Equation 1 for a call, on its
 * server's host; Equation 2 for a thread), so that the lines of a host
 * add up to its total in `ccsg report`.
 *
 * The lines come in the order of the DSCG's pre-order walk (a stack when
 * its first instance is met), but the calls are read chain by chain, in
 * one pass, never held: each chain's calls go into the stacks of their
 * context (the thread that started the chain, or main) relative to it,
 * and each remembers the pre-order key of its first instance (the
 * ordinals of its calls from the chain's root down).  Once read, the
 * threads are placed (under the call that spawned them, their parent
 * thread, or main), each context's stacks grafted under its thread's,
 * and the stacks sorted by their first key.  A pre-order key is a path
 * from main: a thread is (0, its index), a call (1, its ordinal), since
 * a node's threads come before its calls, each in their order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "export-buf.h"
#include "export.h"
#include "sampling.h"

/* A stack: its parent stack (-1 at the top) and last frame. */
struct stack {
	int32_t parent;
	int32_t frame;
	int32_t dim; /* the host its weight counts on, -1 */
	int64_t weight;
	size_t key, nkey; /* its first instance's pre-order key (keys) */
};

/* A stack relative to a context: under its context's root (parent -1)
 * or another relative stack. */
struct rel {
	int32_t ctx; /* the thread that started the chains, -1: main */
	int32_t parent, frame;
	int32_t dim; /* its frame's host */
	int64_t weight;
	size_t key, nkey; /* ordinals of the calls from the chain's root */
	int32_t abs;	  /* the stack it is, once grafted (-2: not yet) */
};

enum { SKIP = -3, OPEN = -4, TODO = -2 };

struct folded {
	const struct export_ctx *x;
	int weight;
	struct stack *st;
	size_t nst, cap_st;
	struct hashmap trie; /* (parent + 1, frame) -> stack */
	struct rel *rel;
	size_t nrel, cap_rel;
	struct hashmap rel_trie; /* (parent or context, frame) -> rel */
	struct frame *frames;
	char **text; /* per frame, once named */
	size_t nframes, cap_frames;
	struct hashmap frame_ids; /* frame key -> frame */
	int64_t *keys;		  /* the keys' components */
	size_t nkeys, cap_keys;
	int64_t *path; /* a call's key, made */
	size_t cap_path;
	/* per call of the part being read: its rel and latency */
	int32_t *part_rel;
	int64_t *part_w, *part_lat;
	size_t cap_part_rel, cap_part_w, cap_part_lat;
	/* the call whose spawns are being noted */
	int32_t at_rel, at_ctx;
	size_t at_n;
	int err;
	/* per thread */
	uint8_t *seen;	    /* export_spawned()'s */
	int32_t *spawn_rel; /* the rel of the call that spawned it */
	int32_t *spawn_ctx; /* that call's context */
	size_t *spawn_key, *spawn_nkey;
	int64_t *root_lat; /* latency of the calls of its chains' roots */
	int32_t *th_stack; /* its stack, SKIP, TODO or OPEN */
	size_t *th_key, *th_nkey;
};

enum { K_CALL, K_TOP, K_THREAD };

/* A frame: a call's function node on its server's host, the process of
 * a top thread (main or not), or a thread on its host.  Named at the
 * end: the graph's nodes are named once every chain is folded. */
struct frame {
	int kind;
	int32_t a;    /* the host (K_CALL, K_THREAD), the process (K_TOP) */
	int32_t b;    /* the function node (K_CALL), main or not (K_TOP) */
	int untraced; /* K_CALL: no server side */
};

static uint64_t frame_key(int kind, uint32_t a, uint32_t b)
{
	return (uint64_t)kind << 62 | (uint64_t)(a & 0x3fffffff) << 32 | b;
}

/* The frame f: its id or -ENOMEM. */
static int32_t frame_of(struct folded *fo, const struct frame *f)
{
	uint64_t key =
		frame_key(f->kind, (uint32_t)(f->a + 1), (uint32_t)(f->b + 1));
	int32_t i = hashmap_get(&fo->frame_ids, key);

	if (i >= 0)
		return i;
	if (GROW(fo->frames, fo->cap_frames, fo->nframes + 1) ||
	    hashmap_put(&fo->frame_ids, key, (int32_t)fo->nframes) < 0)
		return -ENOMEM;
	fo->frames[fo->nframes] = *f;
	return (int32_t)fo->nframes++;
}

static const char *host_name(const struct ccsg_trace *t, int32_t h)
{
	return h >= 0 ? t->hosts[h] : "?";
}

/* A frame's text: ';' separates frames and a line ends the stack. */
static char *frame_text(const struct export_ctx *x, const struct frame *f)
{
	const struct ccsg_trace *t = x->t;
	const char *host, *mid = "", *name;
	size_t len;
	char *s;

	if (f->kind == K_CALL) {
		host = f->untraced ? "<untraced>" : host_name(t, f->a);
		name = f->b >= 0 && x->g->nodes[f->b].name
			       ? x->g->nodes[f->b].name
			       : CCSG_LOST_NAME;
	} else if (f->kind == K_TOP) {
		host = host_name(t, ccsg_trace_host(t, f->a));
		mid = export_exe(x, f->a);
		name = f->b ? "main" : "<thread>";
	} else {
		host = host_name(t, f->a);
		name = "<thread>";
	}
	len = strlen(host) + strlen(mid) + strlen(name) + 3;
	if (!(s = malloc(len)))
		return NULL;
	snprintf(s, len, "%s:%s%s%s", host, mid, *mid ? ":" : "", name);
	for (char *p = s; *p; p++)
		if (*p == ';' || *p == '\n' || *p == '\r')
			*p = '?';
	return s;
}

/* The frame of a call (function node n), on its server's host. */
static int32_t call_frame(struct folded *fo, const struct ccsg_call *c,
			  int32_t n)
{
	/* the host of an untraced server is none: one frame with those of
	 * unknown hosts, as its key says */
	const struct frame f = { K_CALL,
				 ccsg_trace_host(fo->x->t, c->server_proc), n,
				 !c->server_proc };

	return frame_of(fo, &f);
}

/* The frame of thread j, whose parent is main when top. */
static int32_t thread_frame(struct folded *fo, int32_t j, int top)
{
	const struct ccsg_thread *th = &fo->x->t->threads[j];
	const struct frame f =
		top ? (struct frame){ K_TOP, th->proc, th->tid == 1, 0 }
		    : (struct frame){ K_THREAD,
				      ccsg_trace_host(fo->x->t, th->proc), 0,
				      0 };

	return frame_of(fo, &f);
}

/* The dimension (host) a call's instances weigh on. */
static int32_t call_dim(const struct export_ctx *x, const struct ccsg_call *c)
{
	return c->server_proc ? ccsg_proc_dim(x->g, c->server_proc) : -1;
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
	fo->st[fo->nst] = (struct stack){ parent, frame, -1, 0, 0, 0 };
	return (int32_t)fo->nst++;
}

/* ---- pre-order keys ---------------------------------------------------- */

#define KEY_THREAD(j) ((int64_t)(j))
#define KEY_CALL(ord) ((int64_t)1 << 40 | (int64_t)(ord))

/* Room for n more components: their offset, or -1. */
static ssize_t key_room(struct folded *fo, size_t n)
{
	if (GROW(fo->keys, fo->cap_keys, fo->nkeys + n))
		return -1;
	fo->nkeys += n;
	return (ssize_t)(fo->nkeys - n);
}

/* <0, 0, >0 as key a comes before, is, comes after key b. */
static int key_cmp(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
	for (size_t i = 0; i < na && i < nb; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return na < nb ? -1 : na > nb;
}

/* The ordinals of part call i and the calls above it, from its root,
 * into fo->path: their count, or 0 out of memory. */
static size_t call_path(struct folded *fo, const struct export_part *p,
			size_t i)
{
	size_t n = 0;

	for (int32_t k = (int32_t)i; k >= 0; k = p->calls[k].parent)
		n++;
	if (GROW(fo->path, fo->cap_path, n))
		return 0;
	for (int32_t k = (int32_t)i, a = (int32_t)n; k >= 0;
	     k = p->calls[k].parent)
		fo->path[--a] = KEY_CALL(p->ord0 + k);
	return n;
}

/* ---- the pass ---------------------------------------------------------- */

static int32_t rel_of(struct folded *fo, int32_t ctx, int32_t parent,
		      int32_t frame, int32_t dim)
{
	/* a root's key: its context (the top bit set); the others' their
	 * parent */
	uint32_t up = parent >= 0 ? (uint32_t)parent
				  : (uint32_t)1 << 31 | (uint32_t)(ctx + 1);
	uint64_t key = hashmap_key2(up, (uint32_t)frame);
	int32_t i = hashmap_get(&fo->rel_trie, key);

	if (i >= 0)
		return i;
	if (GROW(fo->rel, fo->cap_rel, fo->nrel + 1) ||
	    hashmap_put(&fo->rel_trie, key, (int32_t)fo->nrel) < 0)
		return -ENOMEM;
	fo->rel[fo->nrel] =
		(struct rel){ ctx, parent, frame, dim, 0, 0, 0, TODO };
	return (int32_t)fo->nrel++;
}

/* A call's latency: its stub's, else its skeleton's, 0 if neither (the
 * clocks' offsets cancel out: one side, one host). */
static int64_t call_latency(const struct ccsg_call *c)
{
	if (c->stub_start_ns != CCSG_NONE && c->stub_end_exit_ns != CCSG_NONE &&
	    c->stub_end_exit_ns > c->stub_start_ns)
		return c->stub_end_exit_ns - c->stub_start_ns;
	if (c->skel_start_exit_ns != CCSG_NONE && c->skel_end_ns != CCSG_NONE &&
	    c->skel_end_ns > c->skel_start_exit_ns)
		return c->skel_end_ns - c->skel_start_exit_ns;
	return 0;
}

/* Thread th was spawned by the call whose key is fo->path. */
static void spawned(void *arg, int32_t th)
{
	struct folded *fo = arg;
	ssize_t k = key_room(fo, fo->at_n);

	if (k < 0) {
		fo->err = -ENOMEM;
		return;
	}
	memcpy(fo->keys + k, fo->path, fo->at_n * sizeof(int64_t));
	fo->spawn_rel[th] = fo->at_rel;
	fo->spawn_ctx[th] = fo->at_ctx;
	fo->spawn_key[th] = (size_t)k;
	fo->spawn_nkey[th] = fo->at_n;
}

static int fold_part(void *arg, const struct export_part *p)
{
	struct folded *fo = arg;
	const struct export_ctx *x = fo->x;
	const struct ccsg_chain *ch;
	int64_t *path;
	int32_t ctx;

	if (!p->n)
		return 0;
	if (GROW(fo->part_rel, fo->cap_part_rel, p->n) ||
	    GROW(fo->part_w, fo->cap_part_w, p->n) ||
	    GROW(fo->part_lat, fo->cap_part_lat, p->n))
		return -ENOMEM;
	/* each instance's own weight: CPU (the CCSG's self), latency (its
	 * own less its calls', which it waited for; the threads a call
	 * spawns run beside it and weigh on their own) or 1 per call */
	for (size_t i = 0; i < p->n; i++) {
		const struct ccsg_call *c = &p->calls[i];

		fo->part_lat[i] = 0;
		if (fo->weight == EXPORT_CALLS)
			fo->part_w[i] = 1;
		else if (fo->weight == EXPORT_CPU)
			fo->part_w[i] = call_dim(x, c) >= 0 ? p->self[i] : 0;
		else
			fo->part_w[i] = fo->part_lat[i] = call_latency(c);
	}
	for (size_t i = 0; fo->weight == EXPORT_LATENCY && i < p->n; i++) {
		const struct ccsg_call *c = &p->calls[i];

		ch = &p->t->chains[c->chain];
		if (c->parent >= 0)
			fo->part_w[c->parent] -= fo->part_lat[i];
		else if (ch->owner >= 0)
			fo->root_lat[ch->owner] += fo->part_lat[i];
	}
	/* a sampled trace: the head-sampled chains' calls, scaled by 1 /
	 * rate (sampling.h); tail keep's others weigh nothing */
	for (size_t i = 0; x->sampling && i < p->n; i++)
		fo->part_w[i] =
			ccsg_chain_sampled_by(x->sampling, p->t,
					      &p->t->chains[p->calls[i].chain])
				? llround((double)fo->part_w[i] /
					  x->sample_rate)
				: 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct ccsg_call *c = &p->calls[i];
		int64_t ord = p->ord0 + (int64_t)i;
		int32_t f, r, parent;
		struct rel *rl;
		size_t n;

		ch = &p->t->chains[c->chain];
		ctx = ch->owner;
		parent = c->parent >= 0 ? fo->part_rel[c->parent] : -1;
		if ((f = call_frame(fo, c, p->node[i])) < 0 ||
		    (r = rel_of(fo, ctx, parent, f, call_dim(x, c))) < 0)
			return -ENOMEM;
		fo->part_rel[i] = r;
		rl = &fo->rel[r];
		rl->weight += fo->part_w[i] > 0 ? fo->part_w[i] : 0;
		if (!(n = call_path(fo, p, i)))
			return -ENOMEM;
		path = fo->path;
		if (!rl->nkey ||
		    key_cmp(path, n, fo->keys + rl->key, rl->nkey) < 0) {
			ssize_t k = key_room(fo, n);

			if (k < 0)
				return -ENOMEM;
			rl = &fo->rel[r];
			memcpy(fo->keys + k, path, n * sizeof(*path));
			rl->key = (size_t)k;
			rl->nkey = n;
		}
		/* the threads it spawned hang under it */
		fo->at_rel = r;
		fo->at_ctx = ctx;
		fo->at_n = n;
		export_spawned(x, fo->seen, c, ord, spawned, fo);
		if (fo->err)
			return fo->err;
	}
	return 0;
}

/* ---- placing the threads and grafting the contexts ---------------------- */

static int32_t thread_stack(struct folded *fo, int32_t j);

/* The key of a context: its thread's, or none for main.  0, or SKIP. */
static int ctx_key(struct folded *fo, int32_t ctx, size_t *key, size_t *nkey)
{
	*key = *nkey = 0;
	if (ctx < 0)
		return 0;
	if (thread_stack(fo, ctx) < 0)
		return SKIP;
	*key = fo->th_key[ctx];
	*nkey = fo->th_nkey[ctx];
	return 0;
}

/* The stack rel r is (SKIP under a thread left out), or -ENOMEM. */
static int32_t graft(struct folded *fo, int32_t r)
{
	struct rel *rl = &fo->rel[r];
	int32_t parent, s;

	if (rl->abs != TODO)
		return rl->abs;
	if (rl->parent >= 0)
		parent = graft(fo, rl->parent);
	else
		parent = rl->ctx >= 0 ? thread_stack(fo, rl->ctx) : -1;
	if (parent == SKIP || parent == OPEN || parent == -ENOMEM)
		return parent == -ENOMEM ? -ENOMEM : (fo->rel[r].abs = SKIP);
	if ((s = stack_of(fo, parent, fo->rel[r].frame)) < 0)
		return -ENOMEM;
	fo->rel[r].abs = s;
	return s;
}

/* A key into stack s's first when it comes before: 0 or -ENOMEM. */
static int first_key(struct folded *fo, int32_t s, size_t a, size_t na,
		     size_t b, size_t nb)
{
	struct stack *st = &fo->st[s];
	ssize_t k;

	if (st->nkey) {
		/* compare a ++ b with the stack's, without making it */
		const int64_t *sk = fo->keys + st->key;
		size_t n = na < st->nkey ? na : st->nkey;
		int c = key_cmp(fo->keys + a, n, sk, n);

		if (!c)
			c = na > st->nkey ? 1
					  : key_cmp(fo->keys + b, nb, sk + na,
						    st->nkey - na);
		if (c >= 0)
			return 0;
	}
	if ((k = key_room(fo, na + nb)) < 0)
		return -ENOMEM;
	memmove(fo->keys + k, fo->keys + a, na * sizeof(int64_t));
	memmove(fo->keys + k + na, fo->keys + b, nb * sizeof(int64_t));
	st = &fo->st[s];
	st->key = (size_t)k;
	st->nkey = na + nb;
	return 0;
}

/*
 * Thread j's stack, its key made: under the call that spawned it, its
 * parent thread or main; SKIP for an infrastructure thread and what hangs
 * under it, or a thread the DSCG's walk never meets (a cycle of spawns
 * in a corrupt trace); -ENOMEM.
 */
static int32_t thread_stack(struct folded *fo, int32_t j)
{
	const struct ccsg_thread *th = &fo->x->t->threads[j];
	int32_t parent = -1, f, s;
	size_t pk = 0, pn = 0, sk = 0, sn = 0;
	ssize_t k;

	if (fo->th_stack[j] != TODO)
		return fo->th_stack[j] == OPEN ? SKIP : fo->th_stack[j];
	if (th->infra)
		return fo->th_stack[j] = SKIP;
	fo->th_stack[j] = OPEN;
	if (th->spawn_call >= 0 && fo->spawn_rel[j] >= 0) {
		if (ctx_key(fo, fo->spawn_ctx[j], &pk, &pn))
			return fo->th_stack[j] = SKIP;
		parent = graft(fo, fo->spawn_rel[j]);
		sk = fo->spawn_key[j];
		sn = fo->spawn_nkey[j];
	} else if (th->spawn_call < 0 && th->parent_thread >= 0) {
		parent = thread_stack(fo, th->parent_thread);
		pk = parent >= 0 ? fo->th_key[th->parent_thread] : 0;
		pn = parent >= 0 ? fo->th_nkey[th->parent_thread] : 0;
	} else if (th->spawn_call >= 0) {
		parent = SKIP; /* its call was not read */
	}
	if (parent == -ENOMEM)
		return -ENOMEM;
	if (parent < -1)
		return fo->th_stack[j] = SKIP;
	if ((f = thread_frame(
		     fo, j, th->spawn_call < 0 && th->parent_thread < 0)) < 0 ||
	    (s = stack_of(fo, parent, f)) < 0 ||
	    (k = key_room(fo, pn + sn + 1)) < 0)
		return -ENOMEM;
	memmove(fo->keys + k, fo->keys + pk, pn * sizeof(int64_t));
	memmove(fo->keys + k + pn, fo->keys + sk, sn * sizeof(int64_t));
	fo->keys[k + (ssize_t)(pn + sn)] = KEY_THREAD(j);
	fo->th_key[j] = (size_t)k;
	fo->th_nkey[j] = pn + sn + 1;
	return fo->th_stack[j] = s;
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

/* Every instance into its stack, each stack's first key found. */
static int place(struct folded *fo)
{
	const struct export_ctx *x = fo->x;
	const struct ccsg_trace *t = x->t;

	for (size_t j = 0; j < t->nthreads; j++) {
		int32_t s = thread_stack(fo, (int32_t)j);
		int64_t w = 0;

		if (s == -ENOMEM)
			return -ENOMEM;
		if (s < 0)
			continue;
		if (fo->weight == EXPORT_CPU)
			w = ccsg_proc_dim(x->g, t->threads[j].proc) >= 0
				    ? x->g->thread_self[j]
				    : 0;
		else if (fo->weight == EXPORT_LATENCY)
			w = thread_latency(x, j) - fo->root_lat[j];
		fo->st[s].weight += w > 0 ? w : 0;
		if (fo->st[s].dim < 0)
			fo->st[s].dim = ccsg_proc_dim(x->g, t->threads[j].proc);
		if (first_key(fo, s, fo->th_key[j], fo->th_nkey[j], 0, 0))
			return -ENOMEM;
	}
	for (size_t r = 0; r < fo->nrel; r++) {
		int32_t s = graft(fo, (int32_t)r);
		size_t ck, cn;

		if (s == -ENOMEM)
			return -ENOMEM;
		if (s < 0 || ctx_key(fo, fo->rel[r].ctx, &ck, &cn))
			continue;
		fo->st[s].weight += fo->rel[r].weight;
		if (fo->st[s].dim < 0)
			fo->st[s].dim = fo->rel[r].dim;
		if (first_key(fo, s, ck, cn, fo->rel[r].key, fo->rel[r].nkey))
			return -ENOMEM;
	}
	return 0;
}

/* ---- writing ------------------------------------------------------------ */

static const struct folded *sorting;

static int by_first_key(const void *a, const void *b)
{
	const struct stack *x = &sorting->st[*(const int32_t *)a],
			   *y = &sorting->st[*(const int32_t *)b];

	return key_cmp(sorting->keys + x->key, x->nkey, sorting->keys + y->key,
		       y->nkey);
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
		xb_str(b, fo->text[(*path)[n]]);
		if (n)
			xb_ch(b, ';');
	}
}

static int setup(struct folded *fo, const struct export_ctx *x, int weight)
{
	const struct ccsg_trace *t = x->t;
	size_t nt = t->nthreads + 1;

	fo->x = x;
	fo->weight = weight;
	fo->spawn_rel = malloc(nt * sizeof(int32_t));
	fo->spawn_ctx = malloc(nt * sizeof(int32_t));
	fo->spawn_key = calloc(nt, sizeof(size_t));
	fo->spawn_nkey = calloc(nt, sizeof(size_t));
	fo->root_lat = calloc(nt, sizeof(int64_t));
	fo->th_stack = malloc(nt * sizeof(int32_t));
	fo->th_key = calloc(nt, sizeof(size_t));
	fo->th_nkey = calloc(nt, sizeof(size_t));
	fo->seen = calloc(nt, 1);
	if (!fo->spawn_rel || !fo->spawn_ctx || !fo->spawn_key ||
	    !fo->spawn_nkey || !fo->root_lat || !fo->th_stack || !fo->th_key ||
	    !fo->th_nkey || !fo->seen)
		return -ENOMEM;
	for (size_t j = 0; j < t->nthreads; j++) {
		fo->spawn_rel[j] = fo->spawn_ctx[j] = -1;
		fo->th_stack[j] = TODO;
	}
	return 0;
}

static void release(struct folded *fo)
{
	for (size_t i = 0; fo->text && i < fo->nframes; i++)
		free(fo->text[i]);
	free(fo->text);
	free(fo->frames);
	free(fo->st);
	free(fo->rel);
	hashmap_release(&fo->trie);
	hashmap_release(&fo->rel_trie);
	hashmap_release(&fo->frame_ids);
	free(fo->keys);
	free(fo->path);
	free(fo->part_rel);
	free(fo->part_w);
	free(fo->part_lat);
	free(fo->seen);
	free(fo->spawn_rel);
	free(fo->spawn_ctx);
	free(fo->spawn_key);
	free(fo->spawn_nkey);
	free(fo->root_lat);
	free(fo->th_stack);
	free(fo->th_key);
	free(fo->th_nkey);
}

/* The stacks in the order of their first instance, each host's counts
 * rounded so that they add up to its total rounded. */
static int write_stacks(FILE *f, struct folded *fo)
{
	size_t k = fo->x->g->dims->n + 1;
	/* per host (the last entry: none), exact sums and what was printed */
	int64_t *sum = calloc(k, sizeof(int64_t)),
		*shown = calloc(k, sizeof(int64_t));
	int32_t *order = malloc((fo->nst + 1) * sizeof(int32_t));
	struct xbuf *b = malloc(sizeof(*b));
	int32_t *path = NULL;
	size_t cap = 0;
	int ret = -ENOMEM;

	if (!sum || !shown || !order || !b ||
	    !(fo->text = calloc(fo->nframes + 1, sizeof(char *))))
		goto out;
	for (size_t i = 0; i < fo->nframes; i++)
		if (!(fo->text[i] = frame_text(fo->x, &fo->frames[i])))
			goto out;
	for (size_t s = 0; s < fo->nst; s++)
		order[s] = (int32_t)s;
	sorting = fo;
	qsort(order, fo->nst, sizeof(*order), by_first_key);
	sorting = NULL;
	xb_init(b, f);
	for (size_t o = 0; o < fo->nst && !b->err; o++) {
		const struct stack *st = &fo->st[order[o]];
		size_t h = st->dim >= 0 ? (size_t)st->dim : k - 1;
		int64_t count;

		if (!st->weight)
			continue;
		if (fo->weight == EXPORT_CALLS) {
			count = st->weight;
		} else {
			sum[h] += st->weight;
			count = (sum[h] + 500) / 1000 - shown[h];
			shown[h] += count;
		}
		if (!count)
			continue;
		put_stack(b, fo, order[o], &path, &cap);
		xb_ch(b, ' ');
		xb_i64(b, count);
		xb_ch(b, '\n');
	}
	xb_flush(b);
	ret = b->err == -ENOMEM ? -ENOMEM : b->err ? -EIO : 0;
out:
	free(sum);
	free(shown);
	free(order);
	free(b);
	free(path);
	return ret;
}

int export_folded(FILE *f, const struct export_ctx *x,
		  const struct export_source *src, int weight)
{
	struct folded fo;
	int ret;

	memset(&fo, 0, sizeof(fo));
	if (!(ret = setup(&fo, x, weight)) &&
	    !(ret = src->pass(src, fold_part, &fo)) && !(ret = place(&fo)))
		ret = write_stacks(f, &fo);
	release(&fo);
	return ret;
}
