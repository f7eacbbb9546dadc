/*
 * e2e-latency.c - see e2e-latency.h.
 */
#include <stdlib.h>

#include "e2e-latency.h"
#include "json-read.h"
#include "tool-run.h"

void lat_calls_load(struct lat_calls *lc, const char *path)
{
	memset(lc, 0, sizeof(*lc));
	ck_assert_int_eq(ccsg_trace_load(&lc->t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&lc->d, &lc->t), 0);
	for (size_t i = 0; i < lc->t.ncalls; i++)
		if (lc->t.calls[i].call_id > lc->max_id)
			lc->max_id = lc->t.calls[i].call_id;
	lc->by_id = calloc((size_t)lc->max_id + 1, sizeof(*lc->by_id));
	lc->call = calloc((size_t)lc->max_id + 1, sizeof(*lc->call));
	ck_assert(lc->by_id && lc->call);
	for (size_t c = 0; c < lc->t.nchains; c++) {
		const struct ccsg_chain *ch = &lc->t.chains[c];
		struct ccsg_call_latency *out =
			calloc((size_t)ch->n + 1, sizeof(*out));

		ck_assert_ptr_nonnull(out);
		ccsg_latency_calls(&lc->t, ch, out);
		for (int32_t j = 0; j < ch->n; j++) {
			const struct ccsg_call *k = &lc->t.calls[ch->first + j];

			lc->by_id[k->call_id] = out[j];
			lc->call[k->call_id] = k;
		}
		free(out);
	}
}

void lat_calls_release(struct lat_calls *lc)
{
	free(lc->by_id);
	free(lc->call);
	ccsg_dscg_release(&lc->d);
	ccsg_trace_release(&lc->t);
}

const struct ccsg_call_latency *lat_call(const struct lat_calls *lc,
					 long long id)
{
	ck_assert_msg(id > 0 && id <= lc->max_id && lc->call[id],
		      "no call %lld in the trace", id);
	return &lc->by_id[id];
}

long long lat_assert_aligned(struct e2e *t, long long limit_ns)
{
	char out[PATH_MAX + 16];
	const char *argv[] = { tool_path("ccsg"),
			       "export",
			       "--format=chrome",
			       "--db",
			       t->db,
			       "-o",
			       out,
			       NULL };
	struct tool_out r;
	struct jval *doc;
	const struct jval *meta, *hosts;
	char *text;
	long long worst = 0;

	e2e_fmt(out, sizeof(out), "%s/trace.json", t->dir);
	r = tool_run(argv);
	e2e_assert_exit(r.status, 0, "ccsg export");
	tool_out_release(&r);
	text = e2e_slurp(out, NULL);
	doc = json_parse(text, "ccsg export --format=chrome");
	meta = json_need(doc, "metadata", J_OBJ, "chrome");
	hosts = json_need(meta, "hosts", J_ARR, "metadata");
	for (int i = 0; i < hosts->n; i++) {
		const struct jval *h = &hosts->item[i];
		const char *name = json_need(h, "host", J_STR, "host")->str;
		double off = json_need(h, "offset_ns", J_NUM, "host")->num,
		       err = json_need(h, "error_ns", J_NUM, "host")->num;

		printf("align: %s offset %.0f ns error %.0f ns used %.0f set "
		       "aside %.0f outliers %.0f\n",
		       name, off, err,
		       json_need(h, "calls_used", J_NUM, "host")->num,
		       json_need(h, "calls_set_aside", J_NUM, "host")->num,
		       json_need(h, "outliers", J_NUM, "host")->num);
		ck_assert_msg(
			(off < 0 ? -off : off) <= err &&
				(limit_ns < 0 ||
				 (off < 0 ? -off : off) <= (double)limit_ns),
			"host %s: offset %.0f ns, error bound %.0f ns "
			"(one clock: 0, within %lld ns)",
			name, off, err, limit_ns);
		ck_assert_msg(json_need(h, "outliers", J_NUM, "host")->num == 0,
			      "host %s: outliers on one clock", name);
		if ((long long)(off < 0 ? -off : off) > worst)
			worst = (long long)(off < 0 ? -off : off);
	}
	ck_assert_msg(
		json_need(meta, "clamped_calls", J_NUM, "metadata")->num == 0,
		"%.0f calls clamped",
		json_need(meta, "clamped_calls", J_NUM, "metadata")->num);
	json_free(doc);
	free(text);
	return worst;
}
