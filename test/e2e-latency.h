/*
 * e2e-latency.h - what the latency end-to-end checks share
 * (check-e2e-latency.c, check-e2e-figure1.c): each call's figures as
 * ccsg computes them (latency.h) from a merged database, by call_id, and
 * the chrome export's clock alignment of a database.
 */
#ifndef CAUSAL_TEST_E2E_LATENCY_H
#define CAUSAL_TEST_E2E_LATENCY_H

#include "ccsg.h"
#include "e2e.h"
#include "latency.h"

struct lat_calls {
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_call_latency *by_id; /* [call_id], call_id <= max_id */
	const struct ccsg_call **call;	 /* [call_id], NULL for none */
	long long max_id;
};

/* Load the database at path and compute every call's figures. */
void lat_calls_load(struct lat_calls *lc, const char *path);
void lat_calls_release(struct lat_calls *lc);

/* Call id's figures (the test fails when there is no such call). */
const struct ccsg_call_latency *lat_call(const struct lat_calls *lc,
					 long long id);

/*
 * `ccsg export --format=chrome` of t's database: every host's offset
 * within its error bound of 0 (the hosts share one clock) and, limit_ns
 * >= 0, within limit_ns of it; no call clamped, no outlier.  The hosts'
 * metadata is printed (for the docs' figures).  Returns the largest
 * |offset| in ns.
 */
long long lat_assert_aligned(struct e2e *t, long long limit_ns);

#endif
