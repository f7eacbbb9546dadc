/*
 * workers.c - the CCSG folded by workers over shares of the chains
 * (workers.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "usage.h"
#include "workers.h"

#define MAX_GRAPHS 2 /* a resource's graph, and freed heap's */

struct worker {
	struct ccsg_trace own; /* shares 1..: the worker's; share 0: t */
	struct ccsg_dscg own_d;
	struct ccsg_graph own_g[MAX_GRAPHS];
	struct ccsg_trace *t;
	struct ccsg_dscg *d;
	struct ccsg_graph *g[MAX_GRAPHS];
	const struct ccsg_dims *dims;
	int by_object;
	const int *resources;
	size_t n;
	int folded; /* its fold is done: d and g hold it */
	pthread_t thread;
	int started;
};

static void *fold_share(void *arg)
{
	struct worker *w = arg;

	w->folded = !ccsg_stream_fold(w->d, w->t, w->dims, w->by_object, w->g,
				      w->resources, w->n, NULL);
	return NULL;
}

/* Share i's fold added to share 0's: 0, or -1 after fail(). */
static int merge_share(struct worker *into, struct worker *from)
{
	for (size_t r = 0; r < into->n; r++)
		if (ccsg_graph_merge(into->g[r], from->g[r]))
			return fail("out of memory merging the workers' CCSGs");
	if (ccsg_dscg_stats_merge(&into->d->stats, into->t, &from->d->stats,
				  from->t))
		return fail("out of memory merging the workers' CCSGs");
	ccsg_spawns_merge(&into->d->spawns, into->t, &from->d->spawns, from->t);
	return ccsg_trace_merge_mon(into->t, from->t);
}

static void release_share(struct worker *w)
{
	if (w->folded) {
		for (size_t r = 0; r < w->n; r++)
			ccsg_graph_release(w->g[r]);
		ccsg_dscg_release(w->d);
		w->folded = 0;
	}
	if (w->t == &w->own)
		ccsg_trace_release(&w->own);
}

int ccsg_workers_build(struct ccsg_dscg *d, struct ccsg_trace *t,
		       unsigned workers, const struct ccsg_dims *dims,
		       int by_object, struct ccsg_graph *const *graphs,
		       const int *resources, size_t n)
{
	struct worker *w = calloc(workers, sizeof(*w));
	unsigned opened = 1;
	int ret = -1;

	if (!w || n > MAX_GRAPHS) {
		free(w);
		return fail("out of memory");
	}
	for (unsigned i = 0; i < workers; i++) {
		w[i].t = i ? &w[i].own : t;
		w[i].d = i ? &w[i].own_d : d;
		for (size_t r = 0; r < n; r++)
			w[i].g[r] = i ? &w[i].own_g[r] : graphs[r];
		w[i].dims = dims;
		w[i].by_object = by_object;
		w[i].resources = resources;
		w[i].n = n;
	}
	for (; opened < workers; opened++) {
		if (ccsg_trace_open_share(&w[opened].own, t->path, opened,
					  workers))
			goto out;
		/* a sampled trace's: its chains sampled as the trace's */
		w[opened].own.totals = t->totals;
	}
	for (unsigned i = 0; i < workers; i++) {
		if (pthread_create(&w[i].thread, NULL, fold_share, &w[i])) {
			fail("cannot start worker %u of %u", i + 1, workers);
			goto out;
		}
		w[i].started = 1;
	}
	for (unsigned i = 0; i < workers; i++) {
		pthread_join(w[i].thread, NULL);
		w[i].started = 0;
	}
	for (unsigned i = 0; i < workers; i++)
		if (!w[i].folded)
			goto out; /* it said why */
	for (unsigned i = 1; i < workers; i++) {
		if (merge_share(&w[0], &w[i]))
			goto out;
		release_share(&w[i]);
	}
	if (ccsg_trace_shares_end(t))
		goto out;
	for (size_t r = 0; r < n; r++)
		if (ccsg_graph_merge_order(graphs[r])) {
			fail("out of memory merging the workers' CCSGs");
			goto out;
		}
	w[0].folded = 0; /* finish ends or releases them */
	ret = ccsg_stream_finish(d, t, graphs, n);
out:
	for (unsigned i = 0; i < workers; i++)
		if (w[i].started)
			pthread_join(w[i].thread, NULL);
	for (unsigned i = 1; i < opened; i++)
		release_share(&w[i]);
	if (ret)
		release_share(&w[0]);
	free(w);
	return ret;
}
