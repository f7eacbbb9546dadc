/*
 * stream.c - the CCSG folded as the trace is read (stream.h).
 */
#include <errno.h>
#include <string.h>

#include "stream.h"
#include "usage.h"

/* One chain: the DSCG's scan, its spawns, then every graph's fold. */
static int fold_chain(struct ccsg_scan *scan, struct ccsg_dscg *d,
		      struct ccsg_trace *t, struct ccsg_graph *const *graphs,
		      size_t n, int64_t ord0,
		      const struct ccsg_stream_watch *watch)
{
	struct ccsg_chain *ch = &t->chains[0];

	if (ccsg_scan_chain(scan, ch))
		return -ENOMEM;
	for (int32_t j = 0; j < ch->n; j++)
		ccsg_spawns_note(&d->spawns, t, &t->calls[j],
				 (int32_t)(ord0 + j));
	for (size_t i = 0; i < n; i++)
		if (ccsg_graph_chain(graphs[i], ch, ord0))
			return -ENOMEM;
	if (watch && watch->chain(watch->arg, graphs[0], ch,
				  ccsg_graph_chain_nodes(graphs[0])))
		return -ENOMEM;
	return 0;
}

int ccsg_stream_build(struct ccsg_dscg *d, struct ccsg_trace *t,
		      const struct ccsg_dims *dims, int by_object,
		      struct ccsg_graph *const *graphs, const int *resources,
		      size_t n, const struct ccsg_stream_watch *watch)
{
	struct ccsg_scan scan;
	int64_t ord = 0;
	size_t begun = 0;
	int got, ret = -1;

	memset(d, 0, sizeof(*d));
	d->trace = t;
	d->main = -1;
	d->stats.threads = t->nthreads;
	if (ccsg_scan_init(&scan, t, &d->stats) ||
	    ccsg_spawns_init(&d->spawns, t))
		goto nomem;
	for (; begun < n; begun++)
		if (ccsg_graph_begin(graphs[begun], d, dims, by_object,
				     resources[begun], 0))
			goto nomem;
	while ((got = ccsg_trace_next_chain(t)) > 0) {
		/* ordinals as the loaded trace's indices: int32_t */
		if (ord + (int64_t)t->ncalls > INT32_MAX) {
			fail("'%s' has too many calls", t->path);
			goto out;
		}
		if (fold_chain(&scan, d, t, graphs, n, ord, watch))
			goto nomem;
		ord += (int64_t)t->ncalls;
	}
	if (got < 0)
		goto out;
	ccsg_scan_finish(&scan);
	if (ccsg_spawns_finish(&d->spawns, t, &d->stats))
		goto nomem;
	for (size_t i = 0; i < n; i++)
		if (ccsg_graph_end(graphs[i]))
			goto nomem;
	ret = 0;
	goto out;
nomem:
	fail("out of memory building the CCSG of '%s'", t->path);
out:
	ccsg_scan_release(&scan);
	if (ret) {
		for (size_t i = 0; i < begun; i++)
			ccsg_graph_release(graphs[i]);
		ccsg_dscg_release(d);
	}
	return ret;
}
