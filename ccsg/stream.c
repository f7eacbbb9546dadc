/*
 * stream.c - the CCSG folded as the trace is read (stream.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "usage.h"

/*
 * The calls read so far of the chain being read, now that none is open
 * (or the chain ended): counted, folded into every graph, shown to
 * watch, then forgotten.
 */
static int fold_calls(struct ccsg_scan *scan, struct ccsg_trace *t,
		      struct ccsg_graph *const *graphs, size_t n, int64_t ord0,
		      const struct ccsg_stream_watch *watch)
{
	struct ccsg_chain *ch = &t->chains[0];

	if (ccsg_scan_count(scan, ch, t->part.ends))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (ccsg_graph_chain(graphs[i], ch, ord0))
			return -ENOMEM;
	return watch ? watch->chain(watch->arg, graphs[0], ch,
				    ccsg_graph_chain_nodes(graphs[0]), ord0)
		     : 0;
}

int ccsg_stream_fold(struct ccsg_dscg *d, struct ccsg_trace *t,
		     const struct ccsg_dims *dims, int by_object,
		     struct ccsg_graph *const *graphs, const int *resources,
		     size_t n, const struct ccsg_stream_watch *watch)
{
	struct ccsg_scan scan;
	int64_t ord = 0;
	size_t begun = 0;
	int got, keep = 0, ret = -1, r;

	memset(d, 0, sizeof(*d));
	d->trace = t;
	d->main = -1;
	d->stats.threads = t->nthreads;
	if (ccsg_scan_init(&scan, t, &d->stats) ||
	    ccsg_spawns_init(&d->spawns, t) ||
	    !(d->spawns.at = calloc(t->nthreads + 1, sizeof(*d->spawns.at))))
		goto nomem;
	for (; begun < n; begun++)
		if (ccsg_graph_begin(graphs[begun], d, dims, by_object,
				     resources[begun], 0))
			goto nomem;
	if (watch && watch->begun)
		watch->begun(watch->arg, graphs[0]);
	/* a part at a time; while a call is open, the next one joins it */
	while ((got = ccsg_trace_next_part(t, keep)) > 0) {
		struct ccsg_chain *ch = &t->chains[0];

		/* ordinals as the loaded trace's indices: int32_t */
		if (ord + (int64_t)t->ncalls > INT32_MAX) {
			fail("'%s' has too many calls", t->path);
			goto out;
		}
		if (ccsg_scan_part(&scan, ch, t->part.from, t->part.starts))
			goto nomem;
		for (int32_t j = t->part.from; j < (int32_t)t->ncalls; j++) {
			int32_t head =
				ccsg_spawns_note(&d->spawns, t, &t->calls[j],
						 (int32_t)(ord + j));

			if (head >= 0)
				d->spawns.at[head] = ccsg_call_key_of(ch, j);
		}
		keep = !t->part.ends && ccsg_scan_open(&scan);
		if (keep)
			continue;
		if ((r = fold_calls(&scan, t, graphs, n, ord, watch)) ==
		    -ENOMEM)
			goto nomem;
		if (r) /* the watch's: it said why */
			goto out;
		ord += (int64_t)t->ncalls;
		ch->base += ch->n;
	}
	if (got < 0)
		goto out;
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

int ccsg_stream_finish(struct ccsg_dscg *d, struct ccsg_trace *t,
		       struct ccsg_graph *const *graphs, size_t n)
{
	ccsg_dscg_stats_sort(&d->stats, t);
	if (!ccsg_spawns_finish(t, &d->stats)) {
		size_t i = 0;

		while (i < n && !ccsg_graph_end(graphs[i]))
			i++;
		if (i == n)
			return 0;
	}
	fail("out of memory building the CCSG of '%s'", t->path);
	for (size_t i = 0; i < n; i++)
		ccsg_graph_release(graphs[i]);
	ccsg_dscg_release(d);
	return -1;
}

int ccsg_stream_build(struct ccsg_dscg *d, struct ccsg_trace *t,
		      const struct ccsg_dims *dims, int by_object,
		      struct ccsg_graph *const *graphs, const int *resources,
		      size_t n, const struct ccsg_stream_watch *watch)
{
	if (ccsg_stream_fold(d, t, dims, by_object, graphs, resources, n,
			     watch))
		return -1;
	return ccsg_stream_finish(d, t, graphs, n);
}
