/*
 * align.c - the hosts' clocks aligned on one another from the calls
 * between them (export.h, docs/export.md "Clocks"), and each call's sides
 * on the aligned clock.
 *
 * Only a call whose reply reached its client (ccsg_call_replied()) says
 * where its server's clock stands: its skeleton ran inside its stub.  A
 * timed-out call, a failed send, a server killed mid-call say nothing
 * and are set aside.  Each remaining call from host a to host b bounds
 * d = offset_b - offset_a to [c0 - s0, c1 - s1], c0 the stub start
 * probe's exit, c1 the stub end's entry, s0 the skeleton start's entry,
 * s1 the skeleton end's exit (the tightest edges that still hold the
 * skeleton inside the stub).  Per pair of hosts the largest subset of
 * calls whose intervals share a point (Marzullo's algorithm, NTP's
 * selection of truechimers) gives [L, U], their intersection; the calls
 * outside it are outliers.  The offsets are then one solution of all the
 * pairs' constraints L <= x_b - x_a <= U at once (difference constraints:
 * Bellman-Ford from and to each component's reference host), the middle
 * of the range each offset may take, whose half-width is its error bound.
 * Constraints that contradict each other around a cycle of hosts (clocks
 * that drift) fall back on a spanning tree of the pairs, the pair of
 * least error first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "export.h"
#include "hashmap.h"
#include "latency.h"

/* The calls between hosts a < b. */
struct pair {
	int32_t a, b;
	int64_t *lo, *hi; /* per call: d = offset_b - offset_a in [lo, hi] */
	size_t n, cap_lo, cap_hi;
	int64_t set_aside; /* calls that constrain nothing */
	int64_t L, U;	   /* the largest consistent subset's intersection */
	int64_t used;	   /* its calls */
	int64_t outliers;  /* calls outside it */
	uint8_t in_tree;
};

struct aligning {
	const struct export_ctx *x;
	struct pair *v;
	size_t n, cap;
	struct hashmap m;
	int64_t *weight; /* per host: calls used with another host */
	/* per host + 1 (0: unknown), the earliest stub start, and skeleton
	 * start of a call the alignment does not move */
	int64_t *min_c0, *min_s0;
	int64_t same_clamped; /* calls within a host, outside their stub */
	int unknown;	      /* a call between a host and an unknown one */
	export_part_fn also;
	void *arg;
};

static void min_time(int64_t *base, int64_t v)
{
	if (v != CCSG_NONE && (*base == CCSG_NONE || v < *base))
		*base = v;
}

/* An edge of a probe: the one asked for, else the other. */
static int64_t edge(int64_t want, int64_t other)
{
	return want != CCSG_NONE ? want : other;
}

static struct pair *pair_of(struct aligning *al, int32_t a, int32_t b)
{
	uint64_t key = hashmap_key2((uint32_t)a, (uint32_t)b);
	int32_t i = hashmap_get(&al->m, key);

	if (i >= 0)
		return &al->v[i];
	if (GROW(al->v, al->cap, al->n + 1) ||
	    hashmap_put(&al->m, key, (int32_t)al->n) < 0)
		return NULL;
	al->v[al->n] = (struct pair){ .a = a, .b = b };
	return &al->v[al->n++];
}

/* Call c between hosts a and b (a != b, both known) into their pair. */
static int add_call(struct aligning *al, const struct ccsg_call *c, int32_t a,
		    int32_t b)
{
	struct pair *q = pair_of(al, a < b ? a : b, a < b ? b : a);
	int64_t lo, hi;

	if (!q)
		return -ENOMEM;
	if (!ccsg_call_replied(c)) {
		q->set_aside++;
		return 0;
	}
	lo = edge(c->stub_start_exit_ns, c->stub_start_ns) -
	     edge(c->skel_start_ns, c->skel_start_exit_ns);
	hi = edge(c->stub_end_ns, c->stub_end_exit_ns) -
	     edge(c->skel_end_exit_ns, c->skel_end_ns);
	if (a > b) { /* offset_a - offset_b in [lo, hi] */
		int64_t l = lo;

		lo = -hi;
		hi = -l;
	}
	if (lo > hi) { /* its skeleton outlasted its stub: no offset holds */
		q->outliers++;
		return 0;
	}
	if (GROW(q->lo, q->cap_lo, q->n + 1) ||
	    GROW(q->hi, q->cap_hi, q->n + 1))
		return -ENOMEM;
	q->lo[q->n] = lo;
	q->hi[q->n++] = hi;
	al->weight[a]++;
	al->weight[b]++;
	return 0;
}

/* The skeleton of a replied call c within one host lies in its stub. */
static int same_host_outside(const struct ccsg_call *c)
{
	return ccsg_call_replied(c) &&
	       (c->skel_start_exit_ns < c->stub_start_ns ||
		c->skel_end_ns > c->stub_end_exit_ns);
}

static int align_part(void *arg, const struct export_part *p)
{
	struct aligning *al = arg;
	const struct ccsg_trace *t = al->x->t;

	for (size_t i = 0; i < p->n; i++) {
		const struct ccsg_call *c = &p->calls[i];
		int32_t a = ccsg_trace_host(t, c->client_proc),
			b = ccsg_trace_host(t, c->server_proc);
		int replied = ccsg_call_replied(c);

		/* the earliest times: a replied call's skeleton ends inside
		 * its stub (export_call_times()), its stub start is its
		 * earliest */
		min_time(&al->min_c0[a + 1], c->stub_start_ns);
		if (!replied)
			min_time(&al->min_s0[b + 1], c->skel_start_exit_ns);
		if (a == b) { /* one clock: as they are */
			al->same_clamped += same_host_outside(c);
			continue;
		}
		if (a < 0 || b < 0) {
			al->unknown |= replied;
			continue;
		}
		if (add_call(al, c, a, b))
			return -ENOMEM;
	}
	return al->also ? al->also(al->arg, p) : 0;
}

static int cmp_i64(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/*
 * Marzullo's algorithm on q's intervals: the point held by the most of
 * them, and the segment [L, U] around it they all hold (their
 * intersection).  The bounds are sorted apart: at the k-th lower bound
 * (the last of equal ones), k + 1 intervals have begun and those whose
 * upper bound is below it have ended.
 */
static void largest_subset(struct pair *q)
{
	size_t j = 0;

	q->used = 0;
	if (!q->n)
		return;
	qsort(q->lo, q->n, sizeof(*q->lo), cmp_i64);
	qsort(q->hi, q->n, sizeof(*q->hi), cmp_i64);
	for (size_t k = 0; k < q->n; k++) {
		if (k + 1 < q->n && q->lo[k + 1] == q->lo[k])
			continue;
		while (q->hi[j] < q->lo[k]) /* interval k holds lo[k]: j < n */
			j++;
		if ((int64_t)(k + 1 - j) > q->used) {
			q->used = (int64_t)(k + 1 - j);
			q->L = q->lo[k];
			q->U = q->hi[j];
		}
	}
	q->outliers += (int64_t)q->n - q->used;
	/* the bounds are no longer needed */
	free(q->lo);
	free(q->hi);
	q->lo = q->hi = NULL;
}

static int64_t pair_err(const struct pair *q)
{
	return (q->U - q->L) / 2 + ((q->U - q->L) & 1);
}

/* Prim's spanning tree of the pairs with calls used, from the busiest
 * host, the pair of least error first; another component starts from
 * its busiest host.  Each host's offset the middle of its pair's
 * segment, the errors added along the path. */
static int span_hosts(struct export_ctx *x, struct aligning *al)
{
	const struct ccsg_trace *t = x->t;
	uint8_t *done = calloc(t->nhosts + 1, 1);

	if (!done)
		return -ENOMEM;
	for (;;) {
		int32_t ref = -1, best = -1, from, to;

		for (size_t p = 0; p < al->n; p++) {
			const struct pair *q = &al->v[p];

			if (!q->used || q->in_tree || done[q->a] == done[q->b])
				continue;
			if (best < 0 || pair_err(q) < pair_err(&al->v[best]) ||
			    (pair_err(q) == pair_err(&al->v[best]) &&
			     q->used > al->v[best].used))
				best = (int32_t)p;
		}
		if (best >= 0) {
			struct pair *q = &al->v[best];
			int64_t d = q->L + (q->U - q->L) / 2;
			struct export_host *hf, *ht;

			from = done[q->a] ? q->a : q->b;
			to = done[q->a] ? q->b : q->a;
			hf = &x->hosts[from];
			ht = &x->hosts[to];
			q->in_tree = 1;
			ht->offset_ns = hf->offset_ns + (to == q->b ? d : -d);
			ht->error_ns = hf->error_ns + pair_err(q);
			ht->pairs = q->used + q->outliers + q->set_aside;
			ht->via = from;
			ht->ref = hf->ref;
			done[to] = 1;
			continue;
		}
		for (size_t h = 0; h < t->nhosts; h++)
			if (!done[h] &&
			    (ref < 0 || al->weight[h] > al->weight[ref]))
				ref = (int32_t)h;
		if (ref < 0)
			break;
		done[ref] = 1;
		x->hosts[ref].ref = ref;
	}
	free(done);
	return 0;
}

#define FAR INT64_MAX

/*
 * Bellman-Ford over the difference constraints of the pairs, the
 * offsets of ref's component: dist[h] the least upper bound of x_h -
 * x_ref (back: of x_ref - x_h).  0, or 1 when the constraints contradict
 * each other (a cycle of negative weight).
 */
static int bounds_from(const struct aligning *al, const struct export_ctx *x,
		       int32_t ref, int back, int64_t *dist)
{
	size_t nh = x->t->nhosts;

	for (size_t h = 0; h < nh; h++)
		dist[h] = FAR;
	dist[ref] = 0;
	for (size_t round = 0; round <= nh; round++) {
		int changed = 0;

		for (size_t p = 0; p < al->n; p++) {
			const struct pair *q = &al->v[p];
			/* x_b - x_a <= U: a -> b weighs U; x_a - x_b <= -L */
			int32_t from[2] = { q->a, q->b },
				to[2] = { q->b, q->a };
			int64_t w[2] = { q->U, -q->L };

			if (!q->used || x->hosts[q->a].ref != ref)
				continue;
			for (int k = 0; k < 2; k++) {
				int32_t f = back ? to[k] : from[k],
					d = back ? from[k] : to[k];

				if (dist[f] != FAR &&
				    dist[f] + w[k] < dist[d]) {
					dist[d] = dist[f] + w[k];
					changed = 1;
				}
			}
		}
		if (!changed)
			return 0;
	}
	return 1;
}

/* Every component's offsets: the middle of the range the constraints
 * leave each (a feasible solution: the middle of two), or the tree's. */
static int solve(struct export_ctx *x, struct aligning *al)
{
	size_t nh = x->t->nhosts;
	int64_t *up = malloc((nh + 1) * sizeof(int64_t)),
		*down = malloc((nh + 1) * sizeof(int64_t));

	if (!up || !down) {
		free(up);
		free(down);
		return -ENOMEM;
	}
	for (size_t r = 0; r < nh; r++) {
		if (x->hosts[r].ref != (int32_t)r)
			continue;
		if (bounds_from(al, x, (int32_t)r, 0, up) ||
		    bounds_from(al, x, (int32_t)r, 1, down)) {
			for (size_t h = 0; h < nh; h++) /* the tree's */
				if (x->hosts[h].ref == (int32_t)r)
					x->hosts[h].inconsistent = 1;
			continue;
		}
		for (size_t h = 0; h < nh; h++) {
			struct export_host *e = &x->hosts[h];
			int64_t sum;

			if (e->ref != (int32_t)r || h == r)
				continue;
			/* -down[h] <= x_h <= up[h] */
			sum = up[h] - down[h];
			e->offset_ns = sum / 2 - (sum < 0 && (sum & 1));
			e->error_ns = (up[h] + down[h] + 1) / 2;
		}
	}
	free(up);
	free(down);
	return 0;
}

int export_align(struct export_ctx *x, const struct export_source *src,
		 export_part_fn also, void *arg)
{
	const struct ccsg_trace *t = x->t;
	struct aligning al = { .x = x, .also = also, .arg = arg };
	int ret = -ENOMEM;

	for (size_t h = 0; h < t->nhosts; h++)
		x->hosts[h] = (struct export_host){
			.via = -1, .ref = -1, .unix_ns = x->hosts[h].unix_ns
		};
	al.weight = calloc(t->nhosts + 1, sizeof(int64_t));
	al.min_c0 = malloc((t->nhosts + 1) * sizeof(int64_t));
	al.min_s0 = malloc((t->nhosts + 1) * sizeof(int64_t));
	if (!al.weight || !al.min_c0 || !al.min_s0)
		goto out;
	for (size_t h = 0; h <= t->nhosts; h++)
		al.min_c0[h] = al.min_s0[h] = CCSG_NONE;
	if ((ret = src->pass(src, align_part, &al)))
		goto out;
	for (size_t p = 0; p < al.n; p++)
		largest_subset(&al.v[p]);
	if ((ret = span_hosts(x, &al)) || (ret = solve(x, &al)))
		goto out;
	/* a call outside the offsets found is moved inside its stub and
	 * counted: when some may be, the bounds take a pass of their own */
	x->bounds_pass = al.unknown;
	for (size_t p = 0; p < al.n; p++) {
		const struct pair *q = &al.v[p];
		struct export_host *ea = &x->hosts[q->a], *eb = &x->hosts[q->b];
		int64_t d = eb->offset_ns - ea->offset_ns;

		x->bounds_pass |=
			q->outliers > 0 || (q->used && (d < q->L || d > q->U));
		ea->calls_used += q->used;
		eb->calls_used += q->used;
		ea->calls_set_aside += q->set_aside + q->outliers;
		eb->calls_set_aside += q->set_aside + q->outliers;
		ea->outliers += q->outliers;
		eb->outliers += q->outliers;
	}
	for (size_t h = 0; h < t->nhosts; h++)
		x->hosts[h].inconsistent |= x->hosts[h].outliers > 0;
	x->align_clamped = al.same_clamped;
	x->align_base = CCSG_NONE;
	for (size_t h = 0; h <= t->nhosts; h++) {
		int64_t off = h ? x->hosts[h - 1].offset_ns : 0;

		if (al.min_c0[h] != CCSG_NONE)
			min_time(&x->align_base, al.min_c0[h] + off);
		if (al.min_s0[h] != CCSG_NONE)
			min_time(&x->align_base, al.min_s0[h] + off);
	}
	/* unix time: the reference's anchor, through the offsets */
	for (size_t h = 0; h < t->nhosts; h++) {
		struct export_host *e = &x->hosts[h];

		if (e->ref >= 0 && (size_t)e->ref != h)
			e->unix_ns = x->hosts[e->ref].unix_ns;
	}
out:
	for (size_t p = 0; p < al.n; p++) {
		free(al.v[p].lo);
		free(al.v[p].hi);
	}
	free(al.v);
	free(al.weight);
	free(al.min_c0);
	free(al.min_s0);
	hashmap_release(&al.m);
	return ret;
}

int export_call_times(const struct export_ctx *x, const struct ccsg_call *c,
		      int64_t *c0, int64_t *c1, int64_t *s0, int64_t *s1)
{
	int64_t shift = 0;

	*c0 = c->stub_start_ns == CCSG_NONE
		      ? CCSG_NONE
		      : export_time(x, c->client_proc, c->stub_start_ns);
	*c1 = c->stub_end_exit_ns == CCSG_NONE
		      ? CCSG_NONE
		      : export_time(x, c->client_proc, c->stub_end_exit_ns);
	*s0 = c->skel_start_exit_ns == CCSG_NONE
		      ? CCSG_NONE
		      : export_time(x, c->server_proc, c->skel_start_exit_ns);
	*s1 = c->skel_end_ns == CCSG_NONE
		      ? CCSG_NONE
		      : export_time(x, c->server_proc, c->skel_end_ns);
	/* a call not replied to is shown as it ran: its server may have
	 * gone on after the client gave up */
	if (!ccsg_call_replied(c) || (*s0 >= *c0 && *s1 <= *c1))
		return 0;
	if (*s0 < *c0)
		shift = *c0 - *s0;
	else if (*s1 > *c1)
		shift = *c1 - *s1;
	*s0 += shift;
	*s1 += shift;
	if (*s0 < *c0)
		*s0 = *c0;
	if (*s1 > *c1)
		*s1 = *c1;
	if (*s1 < *s0)
		*s1 = *s0;
	return 1;
}

static int bounds_part(void *arg, const struct export_part *p)
{
	struct export_ctx *x = arg;

	for (size_t i = 0; i < p->n; i++) {
		int64_t c0, c1, s0, s1;

		x->clamped +=
			export_call_times(x, &p->calls[i], &c0, &c1, &s0, &s1);
		min_time(&x->base_ns, c0);
		min_time(&x->base_ns, s0);
	}
	return 0;
}

int export_bounds(struct export_ctx *x, const struct export_source *src)
{
	const struct ccsg_trace *t = x->t;
	int ret;

	x->base_ns = x->align_base;
	x->clamped = x->align_clamped;
	if (x->bounds_pass) {
		x->base_ns = CCSG_NONE;
		x->clamped = 0;
		if ((ret = src->pass(src, bounds_part, x)))
			return ret;
	}
	for (size_t i = 0; i < t->nthreads; i++)
		if (x->th_start[i] != CCSG_NONE)
			min_time(&x->base_ns, export_time(x, t->threads[i].proc,
							  x->th_start[i]));
	if (x->base_ns == CCSG_NONE)
		x->base_ns = 0;
	x->base_ns -= x->base_ns % 1000; /* a whole microsecond */
	return 0;
}
