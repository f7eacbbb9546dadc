/*
 * impact-against.c - an estimate beside a second run (impact-against.h):
 * the nodes and hosts of A and B matched by name, a row per matched node
 * and host, the summary.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccsg-match.h"
#include "impact-against.h"
#include "impact-output.h"

int ccsg_against_runtime(const struct ccsg_graph *g, int32_t n)
{
	const struct ccsg_node *x = &g->nodes[n];

	return x->kind == CCSG_THREAD &&
	       (x->serving || x->unmonitored || x->parent == 0);
}

/* The items i of k whose of[i] is -1, into *only (n of them). */
static int unmatched(int32_t **only, size_t *n, const int32_t *of, size_t k)
{
	if (!(*only = malloc((k + 1) * sizeof(**only))))
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		if (of[i] < 0)
			(*only)[(*n)++] = (int32_t)i;
	return 0;
}

/*
 * The nodes and dimensions of A and B matched by name (ccsg-match.h);
 * the unmatched into only_a and only_b, dims_only_a and dims_only_b, by
 * id.  0 or -ENOMEM.
 */
static int match(struct ccsg_against *x, const struct ccsg_graph *a,
		 struct ccsg_match *nodes, struct ccsg_match *dims)
{
	const struct ccsg_graph *b = x->b;

	if (ccsg_match_nodes(nodes, a, b) ||
	    ccsg_match_dims(dims, a->dims, b->dims) ||
	    unmatched(&x->only_a, &x->nonly_a, nodes->of_a, a->nnodes) ||
	    unmatched(&x->only_b, &x->nonly_b, nodes->of_b, b->nnodes) ||
	    unmatched(&x->dims_only_a, &x->ndims_only_a, dims->of_a,
		      a->dims->n) ||
	    unmatched(&x->dims_only_b, &x->ndims_only_b, dims->of_b,
		      b->dims->n))
		return -ENOMEM;
	return 0;
}

/* The runtime nodes' self + desc per dimension of g, before (im NULL)
 * or after im's changes, into sum (k entries); self and desc scratch. */
static void runtime_sum(const struct ccsg_graph *g,
			const struct ccsg_impact *im, int64_t *sum,
			int64_t *self, int64_t *desc)
{
	size_t k = g->dims->n;

	memset(sum, 0, k * sizeof(*sum));
	for (size_t n = 0; n < g->nnodes; n++) {
		if (!ccsg_against_runtime(g, (int32_t)n))
			continue;
		if (im) {
			ccsg_impact_after(im, (int32_t)n, self, desc);
		} else {
			memcpy(self, g->nodes[n].self, k * sizeof(*self));
			memcpy(desc, g->nodes[n].desc, k * sizeof(*desc));
		}
		for (size_t d = 0; d < k; d++)
			sum[d] += self[d] + desc[d];
	}
}

static int near(const struct ccsg_against_fig *f)
{
	double err = fabs((double)(f->pred - f->b));

	return err <= CCSG_AGAINST_TOL_REL * fabs((double)f->b) +
			      CCSG_AGAINST_TOL_ABS_NS;
}

/* The summary's worst errors, with row r's figure f. */
static void note_worst(struct ccsg_against *x, const struct ccsg_against_fig *f,
		       size_t r, int desc)
{
	double err = (double)(f->pred - f->b);

	if (x->worst_abs.row < 0 || fabs(err) > fabs(x->worst_abs.value))
		x->worst_abs =
			(struct ccsg_against_worst){ err, (int64_t)r, desc };
	if (llabs(f->b) < CCSG_AGAINST_TOL_ABS_NS)
		return; /* a relative error of almost nothing means nothing */
	err /= fabs((double)f->b);
	if (x->worst_rel.row < 0 || fabs(err) > fabs(x->worst_rel.value))
		x->worst_rel =
			(struct ccsg_against_worst){ err, (int64_t)r, desc };
}

/* The runtime nodes' sums, which <main>'s descendants are compared
 * less: A's, predicted (A's dimensions), B's (B's). */
struct runtime_sums {
	int64_t *a, *pred, *b;
};

/* The rows of A's node n (B's m): every matched host with a figure;
 * self and desc scratch. */
static void node_rows(struct ccsg_against *x, int32_t n, int32_t m,
		      const int32_t *dim_b, const struct runtime_sums *rt,
		      int64_t *self, int64_t *desc)
{
	const struct ccsg_graph *a = x->im->g, *b = x->b;
	size_t k = a->dims->n;
	int is_main = a->nodes[n].kind == CCSG_MAIN;

	ccsg_impact_after(x->im, n, self, desc);
	for (size_t d = 0; d < k; d++) {
		struct ccsg_against_row *r = &x->rows[x->nrows];
		int32_t db = dim_b[d];

		if (db < 0)
			continue;
		*r = (struct ccsg_against_row){
			.node_a = n,
			.node_b = m,
			.dim_a = (int32_t)d,
			.dim_b = db,
			.runtime = (uint8_t)ccsg_against_runtime(a, n),
			.less_runtime = (uint8_t)is_main,
			.self = { a->nodes[n].self[d], self[d],
				  b->nodes[m].self[db] },
			.desc = { a->nodes[n].desc[d], desc[d],
				  b->nodes[m].desc[db] },
		};
		if (is_main) {
			r->desc.a -= rt->a[d];
			r->desc.pred -= rt->pred[d];
			r->desc.b -= rt->b[db];
		}
		if (!r->self.a && !r->self.pred && !r->self.b && !r->desc.a &&
		    !r->desc.pred && !r->desc.b)
			continue;
		r->agrees = (uint8_t)(near(&r->self) && near(&r->desc));
		if (!r->runtime) {
			x->compared++;
			x->agree += r->agrees;
			note_worst(x, &r->self, x->nrows, 0);
			note_worst(x, &r->desc, x->nrows, 1);
		}
		x->nrows++;
	}
}

/* The mean latencies of the functions both have. */
static int latencies(struct ccsg_against *x, const int32_t *match,
		     const struct ccsg_latency *la, size_t na,
		     const struct ccsg_latency *lb, size_t nb)
{
	int32_t *of_b = malloc((x->b->nnodes + 1) * sizeof(*of_b));

	x->latency = malloc((na + 1) * sizeof(*x->latency));
	if (!of_b || !x->latency) {
		free(of_b);
		return -ENOMEM;
	}
	for (size_t i = 0; i < x->b->nnodes; i++)
		of_b[i] = -1;
	for (size_t i = 0; i < nb; i++)
		of_b[lb[i].node] = (int32_t)i;
	for (size_t i = 0; i < na; i++) {
		int32_t m = match[la[i].node], j = m < 0 ? -1 : of_b[m];

		if (j < 0 || !la[i].calls || !lb[j].calls)
			continue;
		x->latency[x->nlatency++] = (struct ccsg_against_latency){
			la[i].node, la[i].mean,
			ccsg_impact_latency_after(x->im, &la[i]), lb[j].mean
		};
	}
	free(of_b);
	return 0;
}

int ccsg_against_build(struct ccsg_against *x, const struct ccsg_impact *im,
		       const struct ccsg_graph *b,
		       const struct ccsg_latency *lat_a, size_t nlat_a,
		       const struct ccsg_latency *lat_b, size_t nlat_b)
{
	const struct ccsg_graph *a = im->g;
	size_t k = a->dims->n, kb = b->dims->n, kk = k > kb ? k : kb;
	struct ccsg_match nodes = { 0 }, dims = { 0 };
	/* the runtime sums (2k + kb), then two vectors of scratch */
	int64_t *v = malloc((2 * k + kb + 2 * kk + 1) * sizeof(*v));
	struct runtime_sums rt;
	int64_t *self, *desc;
	int ret = -ENOMEM;

	memset(x, 0, sizeof(*x));
	x->im = im;
	x->b = b;
	x->worst_rel.row = x->worst_abs.row = -1;
	x->rows = malloc((a->nnodes * k + 1) * sizeof(*x->rows));
	x->progs_a = ccsg_programs(a, &x->nprogs_a);
	x->progs_b = ccsg_programs(b, &x->nprogs_b);
	if (!v || !x->rows || !x->progs_a || !x->progs_b ||
	    match(x, a, &nodes, &dims))
		goto out;
	x->same_programs =
		x->nprogs_a == x->nprogs_b &&
		!memcmp(x->progs_a, x->progs_b, x->nprogs_a * sizeof(uint32_t));
	rt = (struct runtime_sums){ v, v + k, v + 2 * k };
	self = v + 2 * k + kb;
	desc = self + kk;
	runtime_sum(a, NULL, rt.a, self, desc);
	runtime_sum(a, im, rt.pred, self, desc);
	runtime_sum(b, NULL, rt.b, self, desc);
	for (size_t n = 0; n < a->nnodes; n++)
		if (nodes.of_a[n] >= 0)
			node_rows(x, (int32_t)n, nodes.of_a[n], dims.of_a, &rt,
				  self, desc);
	ret = latencies(x, nodes.of_a, lat_a, nlat_a, lat_b, nlat_b);
out:
	ccsg_match_release(&nodes);
	ccsg_match_release(&dims);
	free(v);
	if (ret)
		ccsg_against_release(x);
	return ret;
}

void ccsg_against_release(struct ccsg_against *x)
{
	free(x->rows);
	free(x->only_a);
	free(x->only_b);
	free(x->dims_only_a);
	free(x->dims_only_b);
	free(x->progs_a);
	free(x->progs_b);
	free(x->latency);
	memset(x, 0, sizeof(*x));
}
