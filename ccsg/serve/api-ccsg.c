/*
 * api-ccsg.c - the CCSG and the CCDG as the viewer shows them
 * (internal.h): the CCSG's primary tree, children by total, each node
 * with its vectors, and with the impact estimate applied (an impact
 * specification, impact.h) its before, after and delta: the CCDG.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"
#include "usage.h"

static int64_t node_total(const struct viewer *v, int32_t n)
{
	const struct ccsg_node *x = &v->graph->nodes[n];
	size_t k = v->graph->dims->n;

	return ccsg_vec_sum(x->self, k) + ccsg_vec_sum(x->desc, k);
}

int api_ccsg_parse(const struct viewer *v, const char *s, int32_t *n)
{
	int64_t a;

	if (*s++ != 'n' || api_parse_num(&s, &a) || *s ||
	    (size_t)a >= v->graph->nnodes)
		return -1;
	*n = (int32_t)a;
	return 0;
}

void api_ccsg_put_node(FILE *f, const struct viewer *v, int32_t n, int ccdg,
		       int full)
{
	const struct ccsg_graph *g = v->graph;
	const struct ccsg_node *x = &g->nodes[n];
	size_t k = g->dims->n;
	int64_t self = ccsg_vec_sum(x->self, k),
		desc = ccsg_vec_sum(x->desc, k);
	static const char *const kinds[] = { "main", "function", "thread" };

	fprintf(f, "{\"id\": \"n%d\", \"name\": ", n);
	json_cstr(f, x->name ? x->name : "?");
	fprintf(f,
		", \"kind\": \"%s\", \"self\": %lld, \"desc\": %lld, "
		"\"total\": %lld, \"calls\": %lld, \"threads\": %lld, "
		"\"failed\": %lld, \"has_children\": %s",
		kinds[x->kind], (long long)self, (long long)desc,
		(long long)(self + desc), (long long)x->calls,
		(long long)x->threads, (long long)x->failed,
		v->pfirst[n] >= 0 ? "true" : "false");
	api_put_vec(f, "self_v", x->self, k);
	api_put_vec(f, "desc_v", x->desc, k);
	if (x->kind == CCSG_FUNCTION)
		fprintf(f, ", \"prog\": %u, \"vers\": %u, \"proc\": %u",
			x->prog, x->vers, x->proc);
	if (ccdg && v->im_spec) {
		int64_t *aself = calloc(3 * k + 1, sizeof(int64_t));
		int64_t *adesc, *tot, after = 0;

		if (!aself) {
			fputs(", \"affected\": false}", f);
			return;
		}
		adesc = aself + k;
		tot = adesc + k;
		ccsg_impact_after(&v->im, n, aself, adesc);
		for (size_t i = 0; i < k; i++) {
			tot[i] = aself[i] + adesc[i];
			after += tot[i];
		}
		fprintf(f,
			", \"affected\": %s, \"before\": %lld, \"after\": "
			"%lld, \"delta\": %lld",
			v->im.affected[n] ? "true" : "false",
			(long long)(self + desc), (long long)after,
			(long long)(after - self - desc));
		api_put_vec(f, "after_v", tot, k);
		for (size_t i = 0; i < k; i++)
			tot[i] -= x->self[i] + x->desc[i];
		api_put_vec(f, "delta_v", tot, k);
		free(aself);
	}
	if (!ccdg)
		api_diff_put_node(f, v, n);
	if (full) {
		int first = 1;

		fputs(", \"callers\": [", f);
		for (size_t e = 0; e < g->nedges; e++)
			if (g->edges[e].to == n) {
				const struct ccsg_node *from =
					&g->nodes[g->edges[e].from];

				fprintf(f,
					"%s{\"id\": \"n%d\", \"count\": %lld, "
					"\"primary\": %s, \"name\": ",
					first ? "" : ", ", g->edges[e].from,
					(long long)g->edges[e].count,
					g->edges[e].primary ? "true" : "false");
				json_cstr(f, from->name ? from->name : "?");
				fputc('}', f);
				first = 0;
			}
		fputc(']', f);
	}
	fputc('}', f);
}

int api_ccsg_children(struct viewer *v, int32_t n)
{
	v->nlist = 0;
	for (int32_t c = v->pfirst[n]; c >= 0; c = v->pnext[c])
		if (api_list_add(v, c))
			return -ENOMEM;
	return 0;
}

/* ---- impact (CCDG) ------------------------------------------------------ */

/*
 * Apply spec to the impact estimate (after a reset).  The parser and the
 * resolver report with fail() on stderr: their message is caught in err
 * for the answer (stderr is swapped for a memory stream meanwhile; one
 * thread runs requests).  0, or -1 with err set.
 */
int api_apply_spec(struct viewer *v, const char *spec, char *err, size_t len)
{
	struct ccsg_changes cs = { 0 };
	FILE *saved = stderr, *m;
	char *mbuf = NULL;
	size_t mlen = 0;
	int ret = 0;

	ccsg_impact_reset(&v->im);
	free(v->im_spec);
	v->im_spec = NULL;
	m = open_memstream(&mbuf, &mlen);
	if (!m) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	stderr = m;
	ret = ccsg_changes_parse(&cs, spec, "spec", 1);
	for (size_t i = 0; !ret && i < cs.n; i++) {
		if (!(ret = ccsg_impact_resolve(&v->im, &cs.v[i], v->names)) &&
		    (ret = ccsg_impact_apply(&v->im, &cs.v[i])))
			fail("'%s': %s", spec,
			     ret == -ERANGE ? "the factors applied to one call "
					      "no longer fit in 64 bits"
					    : "out of memory");
	}
	if (!ret && !cs.n)
		ret = fail("no change in the specification");
	stderr = saved;
	fclose(m);
	if (ret) {
		const char *s = mbuf ? strstr(mbuf, ": error: ") : NULL;
		char *nl;

		snprintf(err, len, "%s",
			 s		  ? s + 9
			 : ret == -ENOMEM ? "out of memory"
					  : "bad specification");
		if ((nl = strchr(err, '\n')))
			*nl = '\0';
		ccsg_impact_reset(&v->im);
	} else if (!(v->im_spec = strdup(spec))) {
		snprintf(err, len, "out of memory");
		ccsg_impact_reset(&v->im);
		ret = -1;
	}
	free(mbuf);
	ccsg_changes_release(&cs);
	return ret ? -1 : 0;
}

int api_ccdg_prepare(struct ctx *x)
{
	struct viewer *v = x->v;
	const char *spec = api_query(x, "spec");
	char err[1024];

	if (!spec || !*spec)
		spec = v->start_spec;
	if (!spec)
		return api_reply_error(
			x, 400,
			"no impact specification: give spec, e.g. "
			"'reduction by 20%% to function { "
			"*::SAY_IT }'");
	if (strlen(spec) > 65536)
		return api_reply_error(x, 400, "the specification is too long");
	if (v->im_spec && !strcmp(v->im_spec, spec))
		return 0;
	if (api_apply_spec(v, spec, err, sizeof(err)))
		return api_reply_error(x, 400, "%s", err);
	return 0;
}

/* ---- the index ---------------------------------------------------------- */

static const struct viewer *sort_viewer;

static int by_total(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	int64_t tx = node_total(sort_viewer, x),
		ty = node_total(sort_viewer, y);

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return (x > y) - (x < y);
}

/* The primary tree of the CCSG, children by total. */
int api_ccsg_index(struct viewer *v)
{
	const struct ccsg_graph *g = v->graph;
	size_t n = g->nnodes;
	int32_t *kids = malloc((n + 1) * sizeof(int32_t));
	size_t nk = 0;

	v->pfirst = malloc((n + 1) * sizeof(int32_t));
	v->pnext = malloc((n + 1) * sizeof(int32_t));
	v->pparent = malloc((n + 1) * sizeof(int32_t));
	if (!kids || !v->pfirst || !v->pnext || !v->pparent) {
		free(kids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		v->pfirst[i] = v->pnext[i] = v->pparent[i] = -1;
	for (size_t e = 0; e < g->nedges; e++)
		if (g->edges[e].primary && g->edges[e].to != 0 &&
		    v->pparent[g->edges[e].to] < 0)
			v->pparent[g->edges[e].to] = g->edges[e].from;
	for (size_t i = 1; i < n; i++)
		if (v->pparent[i] >= 0)
			kids[nk++] = (int32_t)i;
	sort_viewer = v;
	qsort(kids, nk, sizeof(int32_t), by_total);
	/* pushed in reverse: each list ends up largest first */
	for (size_t i = nk; i-- > 0;) {
		int32_t c = kids[i], p = v->pparent[c];

		v->pnext[c] = v->pfirst[p];
		v->pfirst[p] = c;
	}
	free(kids);
	return 0;
}
