/*
 * chain-kind.h - a chain kept by tail keep (CAUSAL_KEEP_SLOWER_THAN)
 * though head sampling left it out (docs/ccsg.md, "Sampled and kept
 * chains"; which chains head sampling chose is sampling.h's), complete or
 * not: complete when every traced host it crossed wrote its part.
 */
#ifndef CCSG_CHAIN_KIND_H
#define CCSG_CHAIN_KIND_H

#include "trace.h"

/*
 * Does call c lack a side that a traced host should have written: its
 * server's, though the reply came back with a tag (a traced server), or
 * its client's, though the call came with one (a traced client)?  A
 * kept chain with such a call is incomplete (ccsg_chain.gap).
 */
int ccsg_call_side_lost(const struct ccsg_trace *t, const struct ccsg_call *c);

#endif
