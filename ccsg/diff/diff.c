/*
 * diff.c - the rows of `ccsg diff` (diff.h): each trace's calls grouped
 * per function node and host, its graphs' vectors beside them, and the
 * two traces' rows matched by name.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "ccsg-match.h"
#include "diff.h"
#include "latency.h"

int diff_chain(void *arg, const struct ccsg_graph *g,
	       const struct ccsg_chain *ch, const int32_t *node, int64_t ord0)
{
	struct diff_acc *acc = arg;
	const struct ccsg_trace *t = g->dscg->trace;
	const int64_t *self = ccsg_graph_chain_self(g);

	(void)ord0;
	if (GROW(acc->lat, acc->cap_lat, (size_t)ch->n + 1) ||
	    GROW(acc->calls, acc->cap, acc->n + (size_t)ch->n))
		return -ENOMEM;
	ccsg_latency_calls(t, ch, acc->lat);
	for (int32_t j = 0; j < ch->n; j++) {
		const struct ccsg_call *c = &t->calls[ch->first + j];

		if (node[j] < 0) /* start lost: no function */
			continue;
		acc->calls[acc->n++] = (struct diff_call){
			node[j],
			c->server_proc ? ccsg_proc_dim(g, c->server_proc) : -1,
			self[j], acc->lat[j].latency
		};
	}
	return 0;
}

void diff_acc_release(struct diff_acc *acc)
{
	free(acc->calls);
	free(acc->lat);
	memset(acc, 0, sizeof(*acc));
}

static int cmp_call(const void *x, const void *y)
{
	const struct diff_call *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return (a->dim > b->dim) - (a->dim < b->dim);
}

static int cmp_i64(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;

	return (*a > *b) - (*a < *b);
}

/* One side's row before the match: its name and host point into the
 * graph. */
struct side_row {
	const char *name, *host;
	struct diff_fig f;
};

struct side {
	struct side_row *v;
	size_t n, cap;
};

static const char untraced[] = "(untraced)";

/* The calls c[0 .. n) of one node on one host into f: 0 or -ENOMEM. */
static int fig_calls(struct diff_fig *f, const struct diff_call *c, size_t n)
{
	double sum = 0;

	f->calls = (int64_t)n;
	if (!n)
		return 0;
	if (!(f->self = malloc(n * sizeof(*f->self))) ||
	    !(f->lat = malloc(n * sizeof(*f->lat))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		f->self[f->nself++] = c[i].self;
		if (c[i].latency != CCSG_NONE) {
			f->lat[f->nlat++] = c[i].latency;
			sum += (double)c[i].latency;
		}
	}
	qsort(f->self, f->nself, sizeof(*f->self), cmp_i64);
	qsort(f->lat, f->nlat, sizeof(*f->lat), cmp_i64);
	if (f->nlat) {
		f->lat_mean = sum / (double)f->nlat;
		f->lat_median = diff_quantile(f->lat, f->nlat, 0.5);
		f->lat_p95 = diff_quantile(f->lat, f->nlat, 0.95);
	}
	return 0;
}

/* The heap graph's node of the CPU graph's node i: the same index when
 * it has the same name (both folds made the same nodes), else by name. */
static const struct ccsg_node *heap_node(const struct ccsg_graph *heap,
					 const struct ccsg_node *nd, size_t i)
{
	if (!heap)
		return NULL;
	if (i < heap->nnodes && heap->nodes[i].name && nd->name &&
	    !strcmp(heap->nodes[i].name, nd->name))
		return &heap->nodes[i];
	for (size_t k = 0; k < heap->nnodes; k++)
		if (heap->nodes[k].kind == CCSG_FUNCTION &&
		    heap->nodes[k].name && nd->name &&
		    !strcmp(heap->nodes[k].name, nd->name))
			return &heap->nodes[k];
	return NULL;
}

/*
 * One trace's rows: every function node on every host where it had
 * calls, CPU (its own or its descendants') or heap bytes.
 */
static int side_rows(struct side *s, const struct diff_input *in)
{
	const struct ccsg_graph *g = in->cpu;
	struct diff_acc *acc = in->acc;
	size_t k = g->dims->n, at = 0;

	qsort(acc->calls, acc->n, sizeof(*acc->calls), cmp_call);
	for (size_t i = 0; i < g->nnodes; i++) {
		const struct ccsg_node *nd = &g->nodes[i];
		const struct ccsg_node *hn = heap_node(in->heap, nd, i);

		for (int32_t d = -1; d < (int32_t)k; d++) {
			size_t from = at;
			struct side_row *r;

			while (at < acc->n &&
			       acc->calls[at].node == (int32_t)i &&
			       acc->calls[at].dim == d)
				at++;
			if (nd->kind != CCSG_FUNCTION)
				continue;
			if (at == from &&
			    (d < 0 || (!nd->self[d] && !nd->desc[d] &&
				       (!hn || !hn->self[d]))))
				continue;
			if (GROW(s->v, s->cap, s->n + 1))
				return -ENOMEM;
			r = &s->v[s->n++];
			memset(r, 0, sizeof(*r));
			r->name = nd->name ? nd->name : "?";
			r->host = d < 0 ? untraced : g->dims->names[d];
			r->f.present = 1;
			if (d >= 0) {
				r->f.self_ns = nd->self[d];
				r->f.desc_ns = nd->desc[d];
				r->f.heap_bytes = hn ? hn->self[d] : 0;
			}
			if (fig_calls(&r->f, acc->calls + from, at - from))
				return -ENOMEM;
		}
	}
	return 0;
}

static int cmp_side_row(const void *x, const void *y)
{
	const struct side_row *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->host, b->host);
}

static int names_add(struct diff_names *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 0;
	if (GROW(l->v, l->cap, l->n + 1) || !(l->v[l->n] = strdup(s)))
		return -ENOMEM;
	l->n++;
	return 0;
}

static void names_release(struct diff_names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * What x has that y lacks, into r's lists of index side: programs,
 * functions (x's node i is y's when in_y[i]: ccsg_match_nodes()) and
 * hosts (x's dimension d is y's when dim_y[d] >= 0).
 */
static int what_differs(struct diff_report *r, int side,
			const struct ccsg_graph *x, const struct ccsg_graph *y,
			const uint8_t *in_y, const int32_t *dim_y)
{
	size_t nprogs;
	uint32_t *progs = ccsg_programs(y, &nprogs);
	char hex[16];
	int ret = progs ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < x->nnodes; i++) {
		const struct ccsg_node *nd = &x->nodes[i];

		if (nd->kind != CCSG_FUNCTION || !nd->name)
			continue;
		snprintf(hex, sizeof(hex), "0x%" PRIx32, nd->prog);
		if ((!ccsg_programs_have(progs, nprogs, nd->prog) &&
		     names_add(&r->progs[side], hex)) ||
		    (!in_y[i] && names_add(&r->functions[side], nd->name)))
			ret = -ENOMEM;
	}
	for (size_t i = 0; !ret && i < x->dims->n; i++)
		if (dim_y[i] < 0 &&
		    names_add(&r->hosts[side], x->dims->names[i]))
			ret = -ENOMEM;
	free(progs);
	return ret;
}

/* What A has that B lacks, and B that A lacks (ccsg-match.h). */
static int differences(struct diff_report *r, const struct ccsg_graph *a,
		       const struct ccsg_graph *b)
{
	struct ccsg_match nodes = { 0 }, dims = { 0 };
	int ret = 0;

	if (ccsg_match_nodes(&nodes, a, b) ||
	    ccsg_match_dims(&dims, a->dims, b->dims) ||
	    what_differs(r, 0, a, b, nodes.in_b, dims.of_a) ||
	    what_differs(r, 1, b, a, nodes.in_a, dims.of_b))
		ret = -ENOMEM;

	ccsg_match_release(&nodes);
	ccsg_match_release(&dims);
	return ret;
}

static void fig_release(struct diff_fig *f)
{
	free(f->self);
	free(f->lat);
}

/* The row of a (or NULL) and b (or NULL), its figures moved in. */
static int add_row(struct diff_report *r, size_t *cap, struct side_row *a,
		   struct side_row *b)
{
	struct diff_row *row;
	const struct side_row *any = a ? a : b;

	if (GROW(r->rows, *cap, r->nrows + 1))
		return -ENOMEM;
	row = &r->rows[r->nrows];
	memset(row, 0, sizeof(*row));
	if (!(row->name = strdup(any->name)) ||
	    !(row->host = strdup(any->host))) {
		free(row->name);
		return -ENOMEM;
	}
	r->nrows++;
	if (a) {
		row->a = a->f;
		memset(&a->f, 0, sizeof(a->f));
	}
	if (b) {
		row->b = b->f;
		memset(&b->f, 0, sizeof(b->f));
	}
	row->self = diff_test_samples(row->a.self, row->a.nself, row->b.self,
				      row->b.nself, r->alpha, r->min_change);
	row->lat = diff_test_samples(row->a.lat, row->a.nlat, row->b.lat,
				     row->b.nlat, r->alpha, r->min_change);
	return 0;
}

static int side_key(const void *x, size_t i, const void *y, size_t j)
{
	const struct side *sx = x, *sy = y;

	return cmp_side_row(&sx->v[i], &sy->v[j]);
}

/*
 * The rows of a and b, by name then host: each of a's with its match in
 * b (ccsg-match.h: the k-th row of a function and host in a with the
 * k-th in b), b's own where they sort.
 */
static int match(struct diff_report *r, struct side *a, struct side *b)
{
	struct ccsg_match m;
	size_t i = 0, j = 0, cap = 0;
	int ret = 0;

	qsort(a->v, a->n, sizeof(*a->v), cmp_side_row);
	qsort(b->v, b->n, sizeof(*b->v), cmp_side_row);
	if (ccsg_match_build(&m, a, a->n, b, b->n, side_key))
		return -ENOMEM;
	while (!ret && (i < a->n || j < b->n)) {
		if (j < b->n && m.of_b[j] >= 0) {
			j++; /* with its match in a */
			continue;
		}
		if (i < a->n &&
		    (j == b->n || cmp_side_row(&a->v[i], &b->v[j]) <= 0)) {
			ret = add_row(r, &cap, &a->v[i],
				      m.of_a[i] >= 0 ? &b->v[m.of_a[i]] : NULL);
			i++;
		} else {
			ret = add_row(r, &cap, NULL, &b->v[j++]);
		}
	}
	ccsg_match_release(&m);
	return ret;
}

static void side_release(struct side *s)
{
	for (size_t i = 0; i < s->n; i++)
		fig_release(&s->v[i].f);
	free(s->v);
}

int diff_build(struct diff_report *r, const struct diff_input *a,
	       const struct diff_input *b, double alpha, double min_change)
{
	struct side sa = { 0 }, sb = { 0 };
	int ret;

	memset(r, 0, sizeof(*r));
	r->path_a = a->path;
	r->path_b = b->path;
	r->alpha = alpha;
	r->min_change = min_change;
	ret = side_rows(&sa, a);
	if (!ret)
		ret = side_rows(&sb, b);
	if (!ret)
		ret = match(r, &sa, &sb);
	if (!ret)
		ret = differences(r, a->cpu, b->cpu);
	side_release(&sa);
	side_release(&sb);
	if (ret)
		diff_release(r);
	return ret;
}

int diff_differs(const struct diff_report *r)
{
	for (int s = 0; s < 2; s++)
		if (r->progs[s].n || r->hosts[s].n || r->functions[s].n)
			return 1;
	return 0;
}

void diff_release(struct diff_report *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		free(r->rows[i].name);
		free(r->rows[i].host);
		fig_release(&r->rows[i].a);
		fig_release(&r->rows[i].b);
	}
	free(r->rows);
	for (int s = 0; s < 2; s++) {
		names_release(&r->progs[s]);
		names_release(&r->hosts[s]);
		names_release(&r->functions[s]);
	}
	memset(r, 0, sizeof(*r));
}
