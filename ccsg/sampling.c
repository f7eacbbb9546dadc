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
	if (!x || !x->threshold)
		return 1;
	/* the chain id is its root process's UUID, then a counter */
	for (size_t i = 0; i < t->nprocs && i < x->nprocs; i++)
		if (t->procs[i].present &&
		    !memcmp(t->procs[i].uuid, ch->id, 16))
			return causal_sample_keep(ch->id, x->threshold[i]);
	return 1;
}

uint64_t ccsg_chain_mark(const struct ccsg_chain *ch)
{
	return causal_sample_hash(ch->id) | 1;
}
