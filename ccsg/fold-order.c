/*
 * fold-order.c - the orders the fold ends in (ccsg.c): the threads,
 * deepest first, so that each passes its sum up once its children have;
 * and the breadth-first search of the CCSG from main that marks the
 * primary links of its tree view (CPU paper, Section 3.3).
 */
#include <errno.h>
#include <stdlib.h>

#include "fold.h"

int32_t *ccsg_threads_deepest_first(const struct ccsg_trace *t,
				    const int32_t *owner, int32_t *up)
{
	size_t n = t->nthreads, acc = 0;
	int32_t *depth = malloc((n + 1) * sizeof(*depth));
	int32_t *walk = malloc((n + 1) * sizeof(*walk));
	int32_t *order = malloc((n + 1) * sizeof(*order));
	size_t *at = calloc(n + 1, sizeof(*at));

	if (!depth || !walk || !order || !at) {
		free(order);
		order = NULL;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ccsg_thread *th = &t->threads[i];

		up[i] = th->spawn_call >= 0 ? owner[i] : th->parent_thread;
		depth[i] = -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t w = 0;

		/* climb to a thread of known depth; -2 = on this walk, so
		 * meeting it again is a cycle, cut there */
		for (int32_t j = (int32_t)i; depth[j] == -1;) {
			depth[j] = -2;
			walk[w++] = j;
			if (up[j] < 0)
				break;
			if (depth[up[j]] == -2) {
				up[j] = -1;
				break;
			}
			j = up[j];
		}
		while (w--) {
			int32_t j = walk[w];

			depth[j] = up[j] >= 0 ? depth[up[j]] + 1 : 0;
		}
	}
	for (size_t i = 0; i < n; i++)
		at[depth[i]]++;
	for (size_t d = n + 1; d-- > 0;) { /* deeper levels first */
		size_t c = at[d];

		at[d] = acc;
		acc += c;
	}
	for (size_t i = 0; i < n; i++)
		order[at[depth[i]]++] = (int32_t)i;
out:
	free(depth);
	free(walk);
	free(at);
	return order;
}

int ccsg_graph_mark_primary(struct ccsg_graph *g)
{
	size_t n = g->nnodes, head = 0, tail = 0;
	size_t *start = calloc(n + 1, sizeof(size_t));
	int32_t *order = malloc((g->nedges + 1) * sizeof(int32_t));
	int32_t *queue = malloc(n * sizeof(int32_t));
	uint8_t *seen = calloc(n, 1);
	int ret = -ENOMEM;

	if (!start || !order || !queue || !seen)
		goto out;
	/* edges grouped by source, in creation order */
	for (size_t e = 0; e < g->nedges; e++)
		start[g->edges[e].from + 1]++;
	for (size_t i = 0; i < n; i++)
		start[i + 1] += start[i];
	{
		size_t *fill = calloc(n, sizeof(size_t));

		if (!fill)
			goto out;
		for (size_t e = 0; e < g->nedges; e++) {
			int32_t f = g->edges[e].from;

			order[start[f] + fill[f]++] = (int32_t)e;
		}
		free(fill);
	}
	queue[tail++] = 0;
	seen[0] = 1;
	while (head < tail) {
		int32_t u = queue[head++];

		for (size_t i = start[u]; i < start[u + 1]; i++) {
			struct ccsg_edge *e = &g->edges[order[i]];

			if (seen[e->to])
				continue;
			seen[e->to] = 1;
			e->primary = 1;
			queue[tail++] = e->to;
		}
	}
	ret = 0;
out:
	free(start);
	free(order);
	free(queue);
	free(seen);
	return ret;
}
