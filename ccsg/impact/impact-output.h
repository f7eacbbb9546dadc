/*
 * impact-output.h - `ccsg impact`'s output: the CCSG with the CCDG of an
 * estimate superimposed, in report's formats (output.h's enum
 * ccsg_format).
 */
#ifndef CCSG_IMPACT_OUTPUT_H
#define CCSG_IMPACT_OUTPUT_H

#include <stdio.h>

#include "impact.h"
#include "latency.h"

/*
 * The CCSG with the CCDG of im superimposed (every node's before, after
 * and delta), the changes cs as parsed, and the mean latency of lat
 * (ccsg_latency_build() of im's graph) predicted, said to be an
 * estimate.  JSON and XML extend report's; 0, -ENOMEM, -EIO.
 */
int ccsg_impact_print(FILE *f, const struct ccsg_impact *im,
		      const struct ccsg_changes *cs,
		      const struct ccsg_latency *lat, size_t nlat, int format);

/* The mean latency of l (ns; one of im's graph's) predicted after the
 * changes, and its change: the CPU change on its calls' synchronous
 * paths, averaged (impact.h). */
double ccsg_impact_latency_after(const struct ccsg_impact *im,
				 const struct ccsg_latency *l);
double ccsg_impact_latency_delta(const struct ccsg_impact *im,
				 const struct ccsg_latency *l);

#endif
