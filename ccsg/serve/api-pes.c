/*
 * api-pes.c - GET /api/pes?thread=PROC:TID[&clip=SPEC][&sample=DT]
 * (api.h): the program execution sequence of one thread of the trace, as
 * `ccsg pes --db --thread` makes it (ccsg/pes/pes-trace.h), in the three
 * views of the Chitra paper's Section 2.2 for the page (web/pes.js).
 * The engine and its JSON are ccsg/pes's own: the sequence from
 * pes_from_thread(), clipped by pes_clip_spec() (the syntax of --clip),
 * the time and event views by pes_print_view() and the frequency view by
 * pes_periodogram() and pes_print_freq().  The server does not read the
 * database again, so the lock states (table lock_events) are left out.
 *
 * The answer: {"thread", "skipped" (calls left out, a probe missing),
 * "sample" (ns between two samples of the frequency view), "time": the
 * time view's JSON, "event": the event view's, "frequency": the
 * periodogram's, in the time domain (Hz)}.  Without sample=, the time
 * view is sampled at most PES_SAMPLES times.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "json.h"
#include "pes/pes-output.h"
#include "pes/pes-spec.h"
#include "pes/pes-trace.h"

#define PES_SAMPLES 8192
#define PES_SAMPLE_MAX 3600000000000LL /* ns: an hour */

/* The three views of p into the answer. */
static int put_views(struct ctx *x, struct pes *p, int64_t dt)
{
	double *power = NULL, bin;
	size_t nf;
	int ret;

	if (pes_periodogram(p, 1, dt, -1, &power, &nf, &bin))
		return api_reply_error(x, 500, "out of memory");
	fprintf(x->f, ", \"sample\": %lld, \"time\": ", (long long)dt);
	ret = pes_print_view(x->f, NULL, p, PES_VIEW_TIME, PES_OUT_JSON);
	fputs(", \"event\": ", x->f);
	ret = ret ? ret
		  : pes_print_view(x->f, NULL, p, PES_VIEW_EVENT, PES_OUT_JSON);
	fputs(", \"frequency\": ", x->f);
	ret = ret ? ret
		  : pes_print_freq(x->f, NULL, p, power, nf, bin, 1, NULL, 0,
				   PES_OUT_JSON);
	fputs("}\n", x->f);
	free(power);
	return ret ? api_reply_error(x, 500, "cannot write the views") : 0;
}

int api_get_pes(struct ctx *x)
{
	const char *th = api_need_param(x, "thread"), *clip;
	int64_t proc, tid, dt, span;
	struct pes p;
	size_t skipped;
	int ret;

	if (!th)
		return -1;
	if (pes_parse_range(th, &proc, &tid) || proc < 0 || tid < 0 ||
	    proc > INT32_MAX || tid > INT32_MAX)
		return api_reply_error(
			x, 400, "bad thread '%.100s': expected PROC:TID", th);
	if (api_num_param(x, "sample", 1, PES_SAMPLE_MAX, 0, &dt))
		return -1;
	ret = pes_from_thread(&p, x->v->trace, NULL, x->v->names, (int32_t)proc,
			      (int32_t)tid, &skipped);
	if (ret == -ENOENT || (!ret && !p.n)) {
		pes_release(&p);
		return api_reply_error(x, 404, "no sequence for thread %.100s",
				       th);
	}
	if (ret) {
		pes_release(&p);
		return api_reply_error(x, 500, "out of memory");
	}
	clip = api_query(x, "clip");
	if (clip && *clip && pes_clip_spec(&p, clip)) {
		pes_release(&p);
		return api_reply_error(
			x, 400,
			"bad clip '%.100s': expected time:T0:T1 or event:E0:E1 "
			"inside the sequence",
			clip);
	}
	span = (p.end_known ? p.end : p.t[p.n - 1]) - p.t[0];
	if (!dt)
		dt = span / PES_SAMPLES + 1;
	fputs("{\"thread\": ", x->f);
	json_cstr(x->f, th);
	fprintf(x->f, ", \"skipped\": %zu", skipped);
	ret = put_views(x, &p, dt);
	pes_release(&p);
	return ret;
}
