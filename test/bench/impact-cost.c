/*
 * impact-cost.c - what `ccsg impact` costs on a large trace, in one
 * process (bench-impact.sh): the first change, which pays for loading the
 * trace and building the DSCG and the CCSG, then each further change on
 * the same CCSG (reset, resolve, apply), against a full CCSG rebuild
 * measured in the same run.  The claim of impact.h: a change costs in
 * proportion to the instances it re-evaluates, not to the trace.
 *
 *	impact-cost DB CHANGE [CHANGE...]
 *
 * Prints "load SECONDS" (trace, DSCG, CCSG), "init SECONDS" (the impact's
 * indexes), then one line per change: "first|further SECONDS CALLS
 * INSTANCES CCDG_NODES" (the calls it changed, the DSCG instances it
 * re-evaluated, the nodes in the CCDG), then "rebuild SECONDS CALLS
 * INSTANCES" (ccsg_graph_build() alone on the loaded trace, the faster
 * of two) and "peak_mb MB" (maximum resident set size).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ccsg.h"
#include "impact/impact.h"
#include "names.h"
#include "usage.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Parse, resolve and apply one change; 0 or -1 after a message. */
static int apply(struct ccsg_impact *im, struct ccsg_changes *cs,
		 const char *text, const struct idl_names *nm)
{
	size_t n0 = cs->n;

	if (ccsg_changes_parse(cs, text, "change", 1))
		return -1;
	for (size_t i = n0; i < cs->n; i++)
		if (ccsg_impact_resolve(im, &cs->v[i], nm) ||
		    ccsg_impact_apply(im, &cs->v[i]))
			return -1;
	return 0;
}

static int64_t calls_of(const struct ccsg_changes *cs, size_t from)
{
	int64_t n = 0;

	for (size_t i = from; i < cs->n; i++)
		n += cs->v[i].calls;
	return n;
}

int main(int argc, char **argv)
{
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g, g2;
	struct idl_names nm;
	struct ccsg_impact im;
	struct ccsg_changes cs = { 0 };
	struct rusage ru;
	double t0, t1, t2, t3;

	causal_progname = "impact-cost";
	if (argc < 3) {
		fprintf(stderr, "usage: impact-cost DB CHANGE [CHANGE...]\n");
		return 2;
	}
	idl_names_init(&nm);
	t0 = now();
	if (ccsg_trace_load(&t, argv[1]) || ccsg_dscg_build(&d, &t) ||
	    ccsg_dims_hosts(&dims, &t) || ccsg_graph_build(&g, &d, &dims, 0) ||
	    ccsg_graph_name(&g, &nm))
		return 1;
	t1 = now();
	if (ccsg_impact_init(&im, &g))
		return 1;
	t2 = now();
	if (apply(&im, &cs, argv[2], &nm))
		return 1;
	t3 = now();
	printf("load %.3f\ninit %.3f\n", t1 - t0, t2 - t1);
	printf("first %.3f %lld %lld %zu\n", t3 - t0,
	       (long long)calls_of(&cs, 0), (long long)im.instances,
	       im.nccdg_nodes);
	for (int a = 3; a < argc; a++) {
		size_t n0 = cs.n;
		double s = now();

		ccsg_impact_reset(&im);
		if (apply(&im, &cs, argv[a], &nm))
			return 1;
		printf("further %.6f %lld %lld %zu\n", now() - s,
		       (long long)calls_of(&cs, n0), (long long)im.instances,
		       im.nccdg_nodes);
	}
	/* the full CCSG build, for comparison (the trace stays loaded) */
	for (int i = 0; i < 2; i++) {
		t0 = now();
		if (ccsg_graph_build(&g2, &d, &dims, 0))
			return 1;
		t1 = now() - t0;
		t3 = i ? (t1 < t3 ? t1 : t3) : t1;
		ccsg_graph_release(&g2);
	}
	printf("rebuild %.6f %zu %zu\n", t3, t.ncalls, d.nnodes);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak_mb %.0f\n", ru.ru_maxrss / 1024.0);
	ccsg_changes_release(&cs);
	ccsg_impact_release(&im);
	ccsg_graph_release(&g);
	ccsg_dims_release(&dims);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	idl_names_release(&nm);
	return 0;
}
