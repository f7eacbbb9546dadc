/*
 * diagnose-output.c - `ccsg diagnose` as text a user reads in 30 seconds
 * (a sentence per cause: the form) or as JSON (docs/ccsg.md,
 * "diagnose").
 */
#include <string.h>

#include "diagnose.h"
#include "json.h"
#include "output.h"

/* How many causes each text section shows. */
#define TOP 3

static const char *const part_text[DIAG_NKINDS] = {
	"its own CPU",
	"waiting for lock",
	"off CPU (sleeping, runnable)",
	"network and RPC runtime",
	"unsplit (no server probes)",
};
static const char *const less_text[DIAG_NKINDS] = {
	"less CPU",	     "shorter lock waits", "less CPU",
	"less network time", "less time",
};

static const char *short_name(const char *name)
{
	const char *s = name ? strstr(name, "::") : NULL;

	return s ? s + 2 : name ? name : "?";
}

static const char *dim_name(const struct ccsg_graph *g, int32_t h)
{
	return h >= 0 && (size_t)h < g->dims->n ? g->dims->names[h] : "?";
}

static void ms(FILE *f, int64_t ns)
{
	if (ns >= 0)
		fprintf(f, "%.1f ms", ns / 1e6);
	else
		fputs("?", f);
}

/* label, then ns in ms */
static void fig(FILE *f, const char *label, int64_t ns)
{
	fputs(label, f);
	ms(f, ns);
}

/* "FOO's p95 (240 ms) is 61% SAY_IT on hostD: 48% its own CPU, 13% ...;
 * 20% less CPU there: p95 -> 212 ms" for cause c. */
static void sentence(FILE *f, const struct diag *d, const struct diag_type *ty,
		     const struct diag_cause *c)
{
	const struct ccsg_graph *g = d->g;
	const struct diag_pred *p = &c->pred[0];
	const char *sep = "";

	fprintf(f, "%s's p95 (", short_name(g->nodes[ty->root].name));
	ms(f, ty->p95);
	fprintf(f, ") is %.0f%% %s on %s: ", 100 * c->share_p95,
		short_name(g->nodes[c->node].name), dim_name(g, c->host));
	for (size_t j = 0; j < ty->nparts; j++) {
		const struct diag_part *e = &ty->parts[j];

		if (e->node != c->node || e->host != c->host ||
		    e->share_p95 < 0.005)
			continue;
		fprintf(f, "%s%.0f%% %s", sep, 100 * e->share_p95,
			part_text[e->kind]);
		if (e->kind == DIAG_LOCK)
			fprintf(f, " 0x%llx", (unsigned long long)e->lock);
		sep = ", ";
	}
	fprintf(f, "; %.0f%% %s there: p95 -> ", 100 * DIAG_SMALLER,
		less_text[c->remedy]);
	ms(f, p->p95);
	fig(f, ", median ", ty->median);
	fig(f, " -> ", p->median);
	fig(f, ", CPU ", ty->cpu);
	fig(f, " -> ", p->cpu);
	fputc('\n', f);
}

static void cpu_text(FILE *f, const struct diag *d, const struct diag_type *ty)
{
	const struct ccsg_graph *g = d->g;

	fprintf(f, "%s's CPU (", short_name(g->nodes[ty->root].name));
	ms(f, ty->cpu);
	fputs(" a request), self per host:\n", f);
	for (size_t i = 0; i < ty->ncpus && i < TOP; i++) {
		const struct diag_cpu *e = &ty->cpus[i];

		fprintf(f, "  %.0f%% %s on %s (", 100 * e->share,
			short_name(g->nodes[e->node].name),
			dim_name(g, e->host));
		ms(f, e->self);
		fprintf(f, "); %.0f%% less there: CPU -> ", 100 * DIAG_SMALLER);
		ms(f, e->pred[0].cpu);
		if (e->pred[0].p95 >= 0)
			fig(f, ", p95 -> ", e->pred[0].p95);
		fputc('\n', f);
	}
}

static void type_text(FILE *f, const struct diag *d, const struct diag_type *ty,
		      int by_cpu)
{
	const struct ccsg_graph *g = d->g;

	fprintf(f, "%s: %zu requests", g->nodes[ty->root].name, ty->nreq);
	fig(f, ", median ", ty->median);
	fig(f, ", p95 ", ty->p95);
	fig(f, ", CPU ", ty->cpu);
	fputs(" a request\n", f);
	if (by_cpu)
		cpu_text(f, d, ty);
	for (size_t i = 0; i < ty->ncauses && i < TOP; i++)
		sentence(f, d, ty, &ty->causes[i]);
	if (!by_cpu)
		cpu_text(f, d, ty);
}

static void pred_json(FILE *f, const char *name, double factor,
		      const struct diag_pred *p)
{
	fprintf(f,
		"\"%s\": {\"factor\": %g, \"median_ns\": %lld, \"p95_ns\": "
		"%lld, \"cpu_ns\": %lld}",
		name, factor, (long long)p->median, (long long)p->p95,
		(long long)p->cpu);
}

static void preds_json(FILE *f, const struct diag_pred *p)
{
	fputs(", \"predictions\": {", f);
	pred_json(f, "smaller", diag_pred_factor[0], &p[0]);
	fputs(", ", f);
	pred_json(f, "gone", diag_pred_factor[1], &p[1]);
	fputs("}}", f);
}

static void place_json(FILE *f, const struct ccsg_graph *g, int32_t node,
		       int32_t host)
{
	fputs("{\"function\": ", f);
	json_cstr(f, g->nodes[node].name ? g->nodes[node].name : "?");
	fputs(", \"host\": ", f);
	json_cstr(f, dim_name(g, host));
}

static void type_json(FILE *f, const struct diag *d, const struct diag_type *ty)
{
	const struct ccsg_graph *g = d->g;

	fputs("{\"root\": ", f);
	json_cstr(f, g->nodes[ty->root].name ? g->nodes[ty->root].name : "?");
	fprintf(f,
		", \"requests\": %zu, \"median_ns\": %lld, \"p95_ns\": %lld, "
		"\"cpu_ns\": %lld,\n  \"causes\": [",
		ty->nreq, (long long)ty->median, (long long)ty->p95,
		(long long)ty->cpu);
	for (size_t i = 0; i < ty->ncauses; i++) {
		const struct diag_cause *c = &ty->causes[i];
		const char *sep = "";

		fputs(i ? ",\n   " : "\n   ", f);
		place_json(f, g, c->node, c->host);
		fprintf(f, ", \"remedy\": \"%s\"", diag_kind_names[c->remedy]);
		if (c->lock)
			fprintf(f, ", \"lock\": \"0x%llx\"",
				(unsigned long long)c->lock);
		fprintf(f,
			", \"share_median\": %.4f, \"share_p95\": %.4f, "
			"\"parts\": [",
			c->share_median, c->share_p95);
		for (size_t j = 0; j < ty->nparts; j++) {
			const struct diag_part *e = &ty->parts[j];

			if (e->node != c->node || e->host != c->host)
				continue;
			fprintf(f,
				"%s{\"kind\": \"%s\", \"share_median\": %.4f, "
				"\"share_p95\": %.4f}",
				sep, diag_kind_names[e->kind], e->share_median,
				e->share_p95);
			sep = ", ";
		}
		fputs("]", f);
		preds_json(f, c->pred);
	}
	fputs("],\n  \"cpu\": [", f);
	for (size_t i = 0; i < ty->ncpus; i++) {
		const struct diag_cpu *e = &ty->cpus[i];

		fputs(i ? ",\n   " : "\n   ", f);
		place_json(f, g, e->node, e->host);
		fprintf(f, ", \"self_ns\": %lld, \"share\": %.4f",
			(long long)e->self, e->share);
		preds_json(f, e->pred);
	}
	fputs("]}", f);
}

int diag_print(FILE *f, const struct diag *d, int by_cpu, int format)
{
	if (format == CCSG_JSON) {
		fprintf(f, "{\"by\": \"%s\", \"types\": [",
			by_cpu ? "cpu" : "latency");
		for (size_t k = 0; k < d->ntypes; k++) {
			fputs(k ? ",\n " : "\n ", f);
			type_json(f, d, &d->types[k]);
		}
		fputs("]}\n", f);
	} else {
		for (size_t k = 0; k < d->ntypes; k++) {
			if (k)
				fputc('\n', f);
			type_text(f, d, &d->types[k], by_cpu);
		}
	}
	return fflush(f) || ferror(f) ? -1 : 0;
}
