/*
 * diagnose-cpu.c - the CPU of a request type: self CPU per function node
 * and host under its root node, ranked, and the CPU each cause would
 * leave, through the CCDG of `ccsg impact` (impact.h): a reduction of the
 * cause's function on its host by 20% (or 100%: gone), applied, read at
 * the root node, undone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../impact/impact.h"
#include "array.h"
#include "diagnose.h"
#include "usage.h"

/* The root node's CPU, self and descendants on every host, per call. */
static int64_t root_cpu(const struct ccsg_impact *im, int32_t root,
			int64_t *self, int64_t *desc)
{
	const struct ccsg_graph *g = im->g;
	int64_t calls = g->nodes[root].calls;

	ccsg_impact_after(im, root, self, desc);
	return calls > 0 ? (ccsg_vec_sum(self, im->k) +
			    ccsg_vec_sum(desc, im->k)) /
				   calls
			 : 0;
}

/*
 * The root's CPU per call with function node's name reduced by percent
 * on dimension dim; -1 when the estimate cannot say (the name matches
 * nothing there: a message said why).
 */
static int64_t predict(struct ccsg_impact *im, const struct idl_names *nm,
		       int32_t root, int32_t node, int32_t dim, int percent,
		       int64_t *vec)
{
	const struct ccsg_graph *g = im->g;
	struct ccsg_changes cs = { 0 };
	int64_t cpu = -1;
	char text[1024];

	if (dim < 0 || !g->nodes[node].name)
		return -1;
	snprintf(text, sizeof(text),
		 "reduction on processor group { %s } by %d%% to function "
		 "{ %s };",
		 g->dims->names[dim], percent, g->nodes[node].name);
	if (!ccsg_changes_parse(&cs, text, "diagnose", 1) &&
	    !ccsg_impact_resolve(im, &cs.v[0], nm) &&
	    !ccsg_impact_apply(im, &cs.v[0]))
		cpu = root_cpu(im, root, vec, vec + im->k);
	ccsg_impact_reset(im);
	ccsg_changes_release(&cs);
	return cpu;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct diag_cpu *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return x->node != y->node ? x->node - y->node : x->host - y->host;
}

/* Self CPU per node and dimension under ty's root (the CCSG's arcs). */
static int rank_cpu(struct diag_type *ty, const struct ccsg_graph *g)
{
	uint8_t *seen = calloc(g->nnodes, 1);
	int32_t *queue = malloc(g->nnodes * sizeof(*queue));
	int64_t calls = g->nodes[ty->root].calls;
	size_t head = 0, tail = 0, cap = 0;

	if (!seen || !queue || calls <= 0)
		goto out;
	queue[tail++] = ty->root;
	seen[ty->root] = 1;
	while (head < tail) {
		int32_t n = queue[head++];

		for (size_t e = 0; e < g->nedges; e++) {
			int32_t to = g->edges[e].to;

			if (g->edges[e].from == n && !seen[to]) {
				seen[to] = 1;
				queue[tail++] = to;
			}
		}
		if (g->nodes[n].kind != CCSG_FUNCTION)
			continue;
		for (size_t h = 0; h < g->dims->n; h++) {
			int64_t self = g->nodes[n].self[h] / calls;

			if (self <= 0)
				continue;
			if (GROW(ty->cpus, cap, ty->ncpus + 1))
				goto out;
			ty->cpus[ty->ncpus++] = (struct diag_cpu){
				.node = n,
				.host = (int32_t)h,
				.self = self,
				.share = ty->cpu > 0 ? (double)self / ty->cpu
						     : 0,
			};
		}
	}
	if (ty->ncpus)
		qsort(ty->cpus, ty->ncpus, sizeof(*ty->cpus), cmp_cpu);
	free(seen);
	free(queue);
	return 0;
out:
	free(seen);
	free(queue);
	return calls <= 0 ? 0 : -ENOMEM;
}

/* The predictions of one type: its causes' CPU, its CPU entries'. */
static int predict_type(struct diag_type *ty, struct ccsg_impact *im,
			const struct idl_names *nm, int64_t *vec)
{
	static const int percent[DIAG_NPRED] = { 20, 100 };

	for (size_t i = 0; i < ty->ncauses; i++) {
		struct diag_cause *c = &ty->causes[i];

		for (int k = 0; k < DIAG_NPRED; k++)
			c->pred[k].cpu =
				c->remedy != DIAG_CPU
					? ty->cpu
					: predict(im, nm, ty->root, c->node,
						  c->host, percent[k], vec);
	}
	for (size_t i = 0; i < ty->ncpus; i++) {
		struct diag_cpu *e = &ty->cpus[i];

		/* the latency: its place's CPU and off CPU scaled */
		if (diag_predict_latency(ty, e->node, e->host,
					 diag_remedy_kinds(DIAG_CPU), e->pred))
			return -ENOMEM;
		for (int k = 0; k < DIAG_NPRED; k++)
			e->pred[k].cpu = predict(im, nm, ty->root, e->node,
						 e->host, percent[k], vec);
	}
	return 0;
}

int diag_cpu(struct diag *d, const struct idl_names *nm)
{
	struct ccsg_impact im = { 0 };
	int64_t *vec;
	int ret = ccsg_impact_init(&im, d->g);

	if (ret)
		return ret == -ENOMEM ? fail("out of memory") : -1;
	if (!(vec = calloc(2 * (im.k ? im.k : 1), sizeof(*vec)))) {
		ccsg_impact_release(&im);
		return fail("out of memory");
	}
	for (size_t t = 0; t < d->ntypes && !ret; t++) {
		struct diag_type *ty = &d->types[t];

		ty->cpu = root_cpu(&im, ty->root, vec, vec + im.k);
		if (rank_cpu(ty, d->g) || predict_type(ty, &im, nm, vec))
			ret = fail("out of memory");
	}
	free(vec);
	ccsg_impact_release(&im);
	return ret;
}
