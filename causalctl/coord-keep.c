/*
 * coord-keep.c - the coordinator's part of tail keep's broadcast
 * (coordinator.h, docs/causalctl.md "The coordinator protocol"): which
 * KEEPs a peer may still send this second, and which chains were
 * broadcast lately (a chain several processes kept goes out once).
 * Bounded: a table of peers, the oldest forgotten when it is full, and a
 * ring of the last chains.
 */
#include <string.h>

#include "coordinator.h"

int coord_keeps_admit(struct coord_keeps *k, int uid, const uint8_t addr[16],
		      uint64_t now_ns)
{
	struct coord_keep_peer *p = NULL;
	size_t i, oldest = 0;

	for (i = 0; i < k->npeers; i++) {
		p = &k->peers[i];
		if (p->uid == uid && !memcmp(p->addr, addr, 16))
			break;
		if (p->at < k->peers[oldest].at)
			oldest = i;
	}
	if (i == k->npeers) {
		/* a new peer; when the table is full, the one that sent
		 * least lately gives up its place (and its bucket) */
		i = k->npeers < COORD_KEEP_PEERS ? k->npeers++ : oldest;
		p = &k->peers[i];
		memset(p, 0, sizeof(*p));
		p->uid = uid;
		memcpy(p->addr, addr, 16);
	}
	p->at = now_ns;
	return causal_mon_bucket_take(&p->bucket, now_ns,
				      CAUSAL_MON_KEEP_PEER_RATE,
				      CAUSAL_MON_KEEP_PEER_RATE);
}

int coord_keeps_new(struct coord_keeps *k,
		    const uint8_t chain[CAUSAL_CHAIN_ID_LEN])
{
	size_t n =
		k->nrecent < COORD_KEEP_RECENT ? k->nrecent : COORD_KEEP_RECENT;

	for (size_t i = 0; i < n; i++)
		if (!memcmp(k->recent[i], chain, CAUSAL_CHAIN_ID_LEN))
			return 0;
	memcpy(k->recent[k->nrecent++ % COORD_KEEP_RECENT], chain,
	       CAUSAL_CHAIN_ID_LEN);
	return 1;
}
