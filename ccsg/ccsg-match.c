/*
 * ccsg-match.c - two traces' CCSGs matched by key (ccsg-match.h): each
 * side's items sorted by key, then merged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ccsg-match.h"

struct sort_arg {
	const void *set;
	ccsg_match_cmp cmp;
};

/* By key, then index: the k-th of a key is the k-th in index order. */
static int by_key(const void *p, const void *q, void *arg)
{
	const struct sort_arg *s = arg;
	int32_t i = *(const int32_t *)p, j = *(const int32_t *)q;
	int c = s->cmp(s->set, (size_t)i, s->set, (size_t)j);

	return c ? c : (i > j) - (i < j);
}

static int32_t *sorted(const void *set, size_t n, ccsg_match_cmp cmp)
{
	int32_t *v = malloc((n + 1) * sizeof(*v));
	struct sort_arg s = { set, cmp };

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = (int32_t)i;
	qsort_r(v, n, sizeof(*v), by_key, &s);
	return v;
}

/* The items of one key, a's sa[i .. i1) and b's sb[j .. j1): paired in
 * order, all of them known to the other side. */
static void pair_run(struct ccsg_match *m, const int32_t *sa, size_t i,
		     size_t i1, const int32_t *sb, size_t j, size_t j1)
{
	for (; i < i1 || j < j1; i++, j++) {
		if (i < i1)
			m->in_b[sa[i]] = 1;
		if (j < j1)
			m->in_a[sb[j]] = 1;
		if (i < i1 && j < j1) {
			m->of_a[sa[i]] = sb[j];
			m->of_b[sb[j]] = sa[i];
		}
	}
}

int ccsg_match_build(struct ccsg_match *m, const void *a, size_t na,
		     const void *b, size_t nb, ccsg_match_cmp cmp)
{
	int32_t *sa = sorted(a, na, cmp), *sb = sorted(b, nb, cmp);
	size_t i = 0, j = 0;

	m->of_a = malloc((na + 1) * sizeof(*m->of_a));
	m->of_b = malloc((nb + 1) * sizeof(*m->of_b));
	m->in_b = calloc(na + 1, 1);
	m->in_a = calloc(nb + 1, 1);
	if (!sa || !sb || !m->of_a || !m->of_b || !m->in_b || !m->in_a) {
		free(sa);
		free(sb);
		ccsg_match_release(m);
		return -ENOMEM;
	}
	memset(m->of_a, 0xff, (na + 1) * sizeof(*m->of_a)); /* -1 */
	memset(m->of_b, 0xff, (nb + 1) * sizeof(*m->of_b));
	while (i < na && j < nb) {
		int c = cmp(a, (size_t)sa[i], b, (size_t)sb[j]);
		size_t i1 = i, j1 = j;

		if (c) {
			i += c < 0;
			j += c > 0;
			continue;
		}
		while (i1 < na && !cmp(a, (size_t)sa[i1], b, (size_t)sb[j]))
			i1++;
		while (j1 < nb && !cmp(a, (size_t)sa[i], b, (size_t)sb[j1]))
			j1++;
		pair_run(m, sa, i, i1, sb, j, j1);
		i = i1;
		j = j1;
	}
	free(sa);
	free(sb);
	return 0;
}

void ccsg_match_release(struct ccsg_match *m)
{
	free(m->of_a);
	free(m->of_b);
	free(m->in_b);
	free(m->in_a);
	memset(m, 0, sizeof(*m));
}

static int node_name(const void *x, size_t i, const void *y, size_t j)
{
	const struct ccsg_graph *gx = x, *gy = y;

	return strcmp(gx->nodes[i].name, gy->nodes[j].name);
}

int ccsg_match_nodes(struct ccsg_match *m, const struct ccsg_graph *a,
		     const struct ccsg_graph *b)
{
	return ccsg_match_build(m, a, a->nnodes, b, b->nnodes, node_name);
}

static int dim_name(const void *x, size_t i, const void *y, size_t j)
{
	const struct ccsg_dims *dx = x, *dy = y;

	return strcmp(dx->names[i], dy->names[j]);
}

int ccsg_match_dims(struct ccsg_match *m, const struct ccsg_dims *a,
		    const struct ccsg_dims *b)
{
	return ccsg_match_build(m, a, a->n, b, b->n, dim_name);
}

static int cmp_u32(const void *p, const void *q)
{
	uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;

	return (a > b) - (a < b);
}

uint32_t *ccsg_programs(const struct ccsg_graph *g, size_t *n)
{
	uint32_t *v = malloc((g->nnodes + 1) * sizeof(*v));
	size_t m = 0;

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].kind == CCSG_FUNCTION)
			v[m++] = g->nodes[i].prog;
	qsort(v, m, sizeof(*v), cmp_u32);
	for (size_t i = 0; i < m; i++)
		if (!*n || v[*n - 1] != v[i])
			v[(*n)++] = v[i];
	return v;
}

int ccsg_programs_have(const uint32_t *progs, size_t n, uint32_t prog)
{
	return bsearch(&prog, progs, n, sizeof(*progs), cmp_u32) != NULL;
}
