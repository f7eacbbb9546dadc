/*
 * diagnose.c - each request's latency split along its critical path into
 * causes (diagnose.h), the causes ranked by their share of the median
 * and the p95, and the latency each would leave were it smaller.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "diagnose.h"
#include "latency.h"

const char *const diag_kind_names[DIAG_NKINDS] = {
	"cpu", "lock", "off", "network", "unsplit",
};
static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The type of root node n, made when new (named root or any).  The
 * index, -1 for a node not asked for, -ENOMEM. */
static int32_t type_of(struct diag *d, struct hashmap *types, size_t *cap,
		       int32_t n, const char *root)
{
	const char *name = d->g->nodes[n].name, *fn;
	int32_t i = hashmap_get(types, (uint64_t)n);

	if (i >= 0)
		return i;
	fn = name ? strstr(name, "::") : NULL;
	if (root && (!name || (strcasecmp(name, root) &&
			       (!fn || strcasecmp(fn + 2, root)))))
		return -1;
	if (GROW(d->types, *cap, d->ntypes + 1) ||
	    hashmap_put(types, (uint64_t)n, (int32_t)d->ntypes) < 0)
		return -ENOMEM;
	d->types[d->ntypes] = (struct diag_type){ .root = n };
	return (int32_t)d->ntypes++;
}

/* Where the splits of one pass go: per call of the trace. */
struct pass {
	struct diag *d;
	const struct diag_locks *locks;
	int32_t *type, *req; /* -1: in no request asked for */
	double *scale;	     /* of its part in its request's latency */
	double *cscale;	     /* of its children's parts */
	struct ccsg_call_latency *lat;
	size_t cap_lat;
};

static int add(struct diag_type *ty, int32_t node, int32_t host, int kind,
	       int32_t req, double ns, uint64_t lock, int64_t lock_ns)
{
	uint64_t key = hashmap_key2((uint32_t)node,
				    (uint32_t)(host + 1) * DIAG_NKINDS + kind);
	int32_t i = hashmap_get(&ty->index, key);
	struct diag_part *c;

	if (ns <= 0)
		return 0;
	if (i < 0) {
		if (GROW(ty->parts, ty->cap_parts, ty->nparts + 1) ||
		    hashmap_put(&ty->index, key, (int32_t)ty->nparts) < 0)
			return -ENOMEM;
		i = (int32_t)ty->nparts++;
		c = &ty->parts[i];
		*c = (struct diag_part){ .node = node,
					 .host = host,
					 .kind = kind };
		if (!(c->ns = calloc(ty->nreq, sizeof(*c->ns))))
			return -ENOMEM;
	}
	c = &ty->parts[i];
	c->ns[req] += ns;
	if (lock_ns > c->lock_ns) {
		c->lock = lock;
		c->lock_ns = lock_ns;
	}
	return 0;
}

/* The vector dimension (host, or --groups' group) of a process, -1. */
static int32_t host_of(const struct ccsg_graph *g, int32_t proc)
{
	return proc >= 0 && (size_t)proc < g->dscg->trace->nprocs
		       ? ccsg_proc_dim(g, proc)
		       : -1;
}

/* Split call u (of latency figures o) into its request's causes. */
static int split(struct pass *ps, int32_t u, const struct ccsg_call_latency *o)
{
	const struct ccsg_graph *g = ps->d->g;
	const struct ccsg_trace *t = g->dscg->trace;
	const struct ccsg_call *c = &t->calls[u];
	struct diag_type *ty = &ps->d->types[ps->type[u]];
	int32_t node = g->call_node[u], host = host_of(g, c->server_proc);
	int64_t L = o->latency, S, K, rest, B, C;
	double f = ps->scale[u];
	int32_t r = ps->req[u];
	uint64_t lock = 0;
	int ret;

	ps->cscale[u] = 0;
	if (L == CCSG_NONE || node < 0)
		return 0;
	if (!ccsg_call_replied(c) || o->server == CCSG_NONE)
		return add(ty, node,
			   host >= 0 ? host : host_of(g, c->client_proc),
			   DIAG_UNSPLIT, r, f * L, 0, 0);
	S = clamp(o->server - o->nested, 0, L);
	K = clamp(o->children, 0, S);
	ps->cscale[u] = o->children > 0 ? f * K / o->children : 0;
	rest = S - K;
	B = ps->locks->n
		    ? diag_locks_blocked(ps->locks, c->server_proc,
					 c->server_tid, c->skel_start_exit_ns,
					 c->skel_end_ns, &lock)
		    : 0;
	B = clamp(B, 0, rest);
	C = clamp(g->call_self[u], 0, rest - B);
	if ((ret = add(ty, node, host, DIAG_NETWORK, r, f * (L - S), 0, 0)) ||
	    (ret = add(ty, node, host, DIAG_LOCK, r, f * B, lock, B)) ||
	    (ret = add(ty, node, host, DIAG_CPU, r, f * C, 0, 0)))
		return ret;
	return add(ty, node, host, DIAG_OFF, r, f * (rest - B - C), 0, 0);
}

/* The calls of chain ch: their requests (first), or their splits. */
static int chain_pass(struct pass *ps, const struct ccsg_chain *ch, int first,
		      struct hashmap *types, size_t *cap, const char *root)
{
	const struct ccsg_graph *g = ps->d->g;
	const struct ccsg_trace *t = g->dscg->trace;

	if (GROW(ps->lat, ps->cap_lat, (size_t)ch->n))
		return -ENOMEM;
	ccsg_latency_calls(t, ch, ps->lat);
	for (int32_t j = 0; j < ch->n; j++) {
		int32_t u = ch->first + j, p = t->calls[u].parent;
		const struct ccsg_call_latency *o = &ps->lat[j];
		int32_t ty;
		int ret;

		if (first) {
			ps->type[u] = -1;
			if (p >= 0 || g->call_node[u] < 0 ||
			    o->latency == CCSG_NONE)
				continue;
			ty = type_of(ps->d, types, cap, g->call_node[u], root);
			if (ty < 0) {
				if (ty == -ENOMEM)
					return ty;
				continue;
			}
			ps->type[u] = ty;
			ps->req[u] = (int32_t)ps->d->types[ty].nreq++;
			continue;
		}
		if (p >= 0) { /* parents come first in a chain */
			ps->type[u] = ps->type[p];
			ps->req[u] = ps->req[p];
			ps->scale[u] = ps->cscale[p];
		} else {
			ps->scale[u] = 1;
		}
		if (ps->type[u] < 0)
			continue;
		if (p < 0)
			ps->d->types[ps->type[u]].latency[ps->req[u]] =
				o->latency;
		if ((ret = split(ps, u, o)))
			return ret;
	}
	return 0;
}

/* The requests ranked lo to hi (fractions) of a type: their parts of
 * kind c over their latencies.  order: the requests by latency. */
static double share(const struct diag_type *ty, const struct diag_part *c,
		    const int32_t *order, double lo, double hi)
{
	size_t a = (size_t)floor(lo * ty->nreq),
	       b = (size_t)ceil(hi * ty->nreq);
	double part = 0, sum = 0;

	if (b <= a)
		b = a + 1;
	for (size_t k = a; k < b && k < ty->nreq; k++) {
		part += c->ns[order[k]];
		sum += ty->latency[order[k]];
	}
	return sum > 0 ? part / sum : 0;
}

static const int64_t *order_lat;
static int cmp_order(const void *a, const void *b)
{
	int64_t x = order_lat[*(const int32_t *)a],
		y = order_lat[*(const int32_t *)b];

	return (x > y) - (x < y);
}

static int cmp_part(const void *a, const void *b)
{
	const struct diag_part *x = a, *y = b;
	int c = diag_cmp_shares(x->share_p95, x->share_median, y->share_p95,
				y->share_median);

	if (c)
		return c;
	return x->node != y->node ? x->node - y->node : x->kind - y->kind;
}

/* The median, p95 and the parts' shares of them, ranked; the causes. */
static int rank(struct diag_type *ty)
{
	int64_t *v = malloc((ty->nreq ? ty->nreq : 1) * sizeof(*v));
	int32_t *order = malloc((ty->nreq ? ty->nreq : 1) * sizeof(*order));

	if (!v || !order) {
		free(v);
		free(order);
		return -ENOMEM;
	}
	memcpy(v, ty->latency, ty->nreq * sizeof(*v));
	ty->median = diag_quantile(v, ty->nreq, 0.5);
	ty->p95 = diag_quantile(v, ty->nreq, 0.95);
	for (size_t r = 0; r < ty->nreq; r++)
		order[r] = (int32_t)r;
	order_lat = ty->latency;
	if (ty->nreq)
		qsort(order, ty->nreq, sizeof(*order), cmp_order);
	for (size_t i = 0; i < ty->nparts; i++) {
		struct diag_part *c = &ty->parts[i];

		c->share_median = share(ty, c, order, 0.25, 0.75);
		c->share_p95 = share(ty, c, order, 0.90, 1.0);
	}
	free(v);
	free(order);
	if (ty->nparts)
		qsort(ty->parts, ty->nparts, sizeof(*ty->parts), cmp_part);
	hashmap_release(&ty->index); /* its indices moved */
	return diag_causes(ty);
}

static int cmp_type(const void *a, const void *b)
{
	const struct diag_type *x = a, *y = b;

	if (x->nreq != y->nreq)
		return x->nreq < y->nreq ? 1 : -1;
	return x->root - y->root;
}

int diag_build(struct diag *d, const struct ccsg_graph *g,
	       const struct diag_locks *locks, const char *root)
{
	const struct ccsg_trace *t = g->dscg->trace;
	struct pass ps = { .d = d, .locks = locks };
	struct hashmap types = { 0 };
	size_t cap = 0, n = t->ncalls ? t->ncalls : 1;
	int ret = -ENOMEM;

	memset(d, 0, sizeof(*d));
	d->g = g;
	ps.type = malloc(n * sizeof(*ps.type));
	ps.req = malloc(n * sizeof(*ps.req));
	ps.scale = malloc(n * sizeof(*ps.scale));
	ps.cscale = malloc(n * sizeof(*ps.cscale));
	if (!ps.type || !ps.req || !ps.scale || !ps.cscale)
		goto out;
	for (int first = 1; first >= 0; first--) {
		for (size_t i = 0; i < t->nchains; i++)
			if ((ret = chain_pass(&ps, &t->chains[i], first, &types,
					      &cap, root)))
				goto out;
		if (!first)
			break;
		ret = -ENOENT;
		if (!d->ntypes)
			goto out;
		ret = -ENOMEM;
		for (size_t k = 0; k < d->ntypes; k++)
			if (!(d->types[k].latency =
				      calloc(d->types[k].nreq,
					     sizeof(*d->types[k].latency))))
				goto out;
	}
	for (size_t k = 0; k < d->ntypes; k++)
		if ((ret = rank(&d->types[k])))
			goto out;
	if (d->ntypes)
		qsort(d->types, d->ntypes, sizeof(*d->types), cmp_type);
out:
	hashmap_release(&types);
	free(ps.type);
	free(ps.req);
	free(ps.scale);
	free(ps.cscale);
	free(ps.lat);
	return ret;
}

void diag_release(struct diag *d)
{
	for (size_t k = 0; k < d->ntypes; k++) {
		struct diag_type *ty = &d->types[k];

		for (size_t i = 0; i < ty->nparts; i++)
			free(ty->parts[i].ns);
		free(ty->parts);
		free(ty->causes);
		free(ty->latency);
		free(ty->cpus);
		hashmap_release(&ty->index);
	}
	free(d->types);
	memset(d, 0, sizeof(*d));
}
