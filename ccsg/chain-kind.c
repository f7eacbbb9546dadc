/*
 * chain-kind.c - sampled and kept chains (chain-kind.h).
 */
#include <errno.h>
#include <string.h>

#include "chain-kind.h"
#include "sample.h"

static uint64_t uuid_key(const uint8_t uuid[16])
{
	return hash_fnv(HASH_FNV_SEED, uuid, 16);
}

int ccsg_chain_kinds_index(struct ccsg_trace *t)
{
	static const uint8_t none[16];

	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].present &&
		    memcmp(t->procs[i].uuid, none, sizeof(none)) &&
		    hashmap_put(&t->uuid_map, uuid_key(t->procs[i].uuid),
				(int32_t)i) < 0)
			return -ENOMEM;
	return 0;
}

int ccsg_chain_is_sampled(const struct ccsg_trace *t,
			  const struct ccsg_chain *ch)
{
	int32_t p = hashmap_get(&t->uuid_map, uuid_key(ch->id));
	uint64_t q;

	if (p < 0 || memcmp(t->procs[p].uuid, ch->id, 16))
		return 1; /* its root is not in the trace: as sampled */
	q = t->procs[p].sample_q32;
	/* the rate as the merge stores it, the threshold's top 32 bits: a
	 * chain whose hash lies in the 2^32 below the true threshold reads
	 * as unsampled, one chance in 2^32 */
	return q >= (uint64_t)1 << 32 || causal_sample_keep(ch->id, q << 32);
}

static int tag_ok(const struct ccsg_trace *t, int32_t str)
{
	return str >= 0 && !strcmp(t->strings[str], "ok");
}

int ccsg_call_side_lost(const struct ccsg_trace *t, const struct ccsg_call *c)
{
	return (c->missing == CCSG_NO_SERVER && tag_ok(t, c->reply_tag)) ||
	       (c->missing == CCSG_NO_CLIENT && tag_ok(t, c->tag));
}
