/*
 * sampler-state.c - the sampler's state (sampler.h), which the handler,
 * the sources, the signal's keeper and the monitor share: here, apart,
 * so that each of them uses it without calling the others.
 */
#include "internal.h"
#include "sampler.h"

struct causal_sampler causal_sampler;
struct causal_sampled_thread causal_sampled[CAUSAL_SAMPLED_THREADS];
struct causal_profile_slot *causal_profile;
CAUSAL_TLS struct causal_sampler_tls causal_sampler_tls;

struct causal_sampled_thread *causal_sampler_self(void)
{
	return causal_sampler_tls.slot;
}
