/*
 * sampling.c - which chains head sampling chose (sampling.h); scale.c
 * scales the CCSG of them.
 */
#include <string.h>

#include "causal/sample.h"
#include "sampling.h"

int ccsg_chain_sampled(const struct ccsg_trace *t, const struct ccsg_chain *ch)
{
	return ccsg_chain_sampled_by(t->totals, t, ch);
}

int ccsg_chain_sampled_by(const struct ccsg_totals *x,
			  const struct ccsg_trace *t,
			  const struct ccsg_chain *ch)
{
	size_t lo = 0, hi = x ? x->nby_uuid : 0;

	if (!x || !x->threshold)
		return 1;
	/* the chain id is its root process's UUID, then a counter */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t p = x->by_uuid[mid];
		int c = memcmp(ch->id, t->procs[p].uuid, 16);

		if (!c)
			return (size_t)p < x->nprocs
				       ? causal_sample_keep(ch->id,
							    x->threshold[p])
				       : 1;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 1;
}

uint64_t ccsg_chain_mark(const struct ccsg_chain *ch)
{
	return causal_sample_hash(ch->id) | 1;
}
