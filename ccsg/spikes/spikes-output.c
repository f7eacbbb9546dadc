/*
 * spikes-output.c - `ccsg spikes` as text or JSON (spikes.h; the names are
 * docs/spikes.md's): each breach with what its windows held and really
 * spanned, how each process sampled, the profiles.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "spikes.h"

static int is_share(const char *resource)
{
	return resource &&
	       (!strcmp(resource, "cpu") || !strcmp(resource, "blocked"));
}

static void text_value(FILE *out, const char *resource, uint64_t v)
{
	if (is_share(resource))
		fprintf(out, "%" PRIu64 ".%02" PRIu64 "%%", v / 100, v % 100);
	else
		fprintf(out, "%" PRIu64 " bytes", v);
}

static void text_list(FILE *out, const char *title, const struct spikes_list *l)
{
	fprintf(out, "  %s:\n", title);
	if (!l->n)
		fputs("    -\n", out);
	for (size_t i = 0; i < l->n; i++)
		fprintf(out, "    %6" PRIu64 "  %s\n", l->v[i].samples,
			l->v[i].name);
}

/* How each process sampled: the rate asked and the rate obtained. */
static void text_samplers(FILE *out, const struct spikes_report *r)
{
	for (size_t i = 0; i < r->nsamplers; i++) {
		const struct spikes_sampler *s = &r->samplers[i];

		if (!s->source)
			continue;
		fprintf(out,
			"sampler of pid %" PRId64
			" (%s) on %s: %s, signal %" PRIu64 ", %" PRIu64
			" Hz asked, %.0f Hz obtained (%" PRIu64
			" samples in %.3f s of CPU)",
			s->pid, s->exe ? s->exe : "?", s->host ? s->host : "?",
			s->source, s->signal, s->rate_hz,
			spikes_rate_obtained(s), s->samples,
			(double)s->cpu_ns / 1e9);
		if (s->fallback)
			fprintf(out, ", %" PRIu64 " threads on the timer",
				s->fallback);
		if (s->lost)
			fprintf(out, ", %" PRIu64 " threads not sampled",
				s->lost);
		fputc('\n', out);
		for (size_t k = 0; k < s->nchanges; k++)
			fprintf(out, "  %s\n", s->changes[k]);
	}
}

int spikes_print_text(FILE *out, const struct spikes_report *r)
{
	if (!r->nb)
		fputs("no breach of a resource policy in the trace\n", out);
	for (size_t i = 0; i < r->nb; i++) {
		const struct spikes_breach *b = &r->b[i];
		time_t sec = (time_t)(b->time_ns / 1000000000u);
		struct tm tm;
		char when[64] = "?";

		if (gmtime_r(&sec, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(out,
			"breach %zu: %s.%03u UTC, host %s, pid %" PRId64
			" (%s): %s at ",
			i + 1, when, (unsigned)(b->time_ns / 1000000 % 1000),
			b->host ? b->host : "?", b->pid, b->exe ? b->exe : "?",
			b->rule ? b->rule : "?");
		text_value(out, b->resource, b->value);
		fputs(", threshold ", out);
		text_value(out, b->resource, b->threshold);
		fprintf(out,
			"\n  samples: %" PRIu64 " before over %.3f s, %" PRIu64
			" after over %.3f s (of %" PRIu64 " each)",
			b->before, (double)b->span_before_ns / 1e9, b->after,
			(double)b->span_after_ns / 1e9, b->n);
		if (b->sampler)
			fprintf(out, "; sampler %s at %.0f Hz of CPU time",
				b->sampler->source,
				spikes_rate_obtained(b->sampler));
		fputc('\n', out);
		text_list(out, "top functions before", &b->top_before);
		text_list(out, "top functions after", &b->top_after);
		text_list(out, "top call stacks (innermost first)", &b->stacks);
		fputs("  RPC chains in progress:\n", out);
		if (!b->chains.n)
			fputs("    -\n", out);
		for (size_t k = 0; k < b->chains.n; k++) {
			const struct spikes_chain *c = b->chains.v[k].ref;

			fprintf(out, "    %6" PRIu64 "  %s root %s",
				b->chains.v[k].samples, c->hex,
				c->root_function ? c->root_function : "?");
			if (c->client_host)
				fprintf(out, " from %s pid %" PRId64,
					c->client_host, c->client_pid);
			fputc('\n', out);
		}
	}
	text_samplers(out, r);
	fprintf(out, "window profile (%" PRIu64 " samples):\n",
		r->window_samples);
	for (size_t i = 0; i < r->window.n; i++)
		fprintf(out, "  %6" PRIu64 "  %s\n", r->window.v[i].samples,
			r->window.v[i].name);
	fprintf(out, "whole-run profile (%" PRIu64 " sampling periods):\n",
		r->run_samples);
	for (size_t i = 0; i < r->run.n; i++)
		fprintf(out, "  %6" PRIu64 "  %s\n", r->run.v[i].samples,
			r->run.v[i].name);
	return ferror(out) ? -1 : 0;
}

static void json_value(FILE *out, const char *resource, uint64_t v)
{
	if (is_share(resource))
		fprintf(out, "%" PRIu64 ".%02" PRIu64, v / 100, v % 100);
	else
		fprintf(out, "%" PRIu64, v);
}

static void json_list(FILE *out, const struct spikes_list *l)
{
	fputc('[', out);
	for (size_t i = 0; i < l->n; i++) {
		fputs(i ? ", {\"function\": " : "{\"function\": ", out);
		json_cstr(out, l->v[i].name);
		fprintf(out, ", \"samples\": %" PRIu64 "}", l->v[i].samples);
	}
	fputc(']', out);
}

/* A stack's frames from its "a <- b <- c" name. */
static void json_frames(FILE *out, const char *s)
{
	const char *sep;

	fputc('[', out);
	for (int first = 1;; first = 0) {
		sep = strstr(s, " <- ");
		if (!first)
			fputs(", ", out);
		json_string(out, s, sep ? (size_t)(sep - s) : strlen(s));
		if (!sep)
			break;
		s = sep + 4;
	}
	fputc(']', out);
}

static void json_samplers(FILE *out, const struct spikes_report *r)
{
	int first = 1;

	for (size_t i = 0; i < r->nsamplers; i++) {
		const struct spikes_sampler *s = &r->samplers[i];

		if (!s->source)
			continue;
		fputs(first ? "\n  {\"host\": " : ",\n  {\"host\": ", out);
		first = 0;
		json_cstr(out, s->host);
		fprintf(out, ", \"pid\": %" PRId64 ", \"exe\": ", s->pid);
		json_cstr(out, s->exe);
		fputs(", \"source\": ", out);
		json_cstr(out, s->source);
		fprintf(out,
			", \"signal\": %" PRIu64 ", \"rate_hz\": %" PRIu64
			", \"rate_obtained_hz\": %.1f, \"samples\": %" PRIu64
			", \"cpu_ns\": %" PRIu64
			", \"fallback_threads\": %" PRIu64
			", \"lost_threads\": %" PRIu64 ", \"changes\": ",
			s->signal, s->rate_hz, spikes_rate_obtained(s),
			s->samples, s->cpu_ns, s->fallback, s->lost);
		fputc('[', out);
		json_cstrs(out, s->changes, s->nchanges);
		fputs("]}", out);
	}
}

int spikes_print_json(FILE *out, const struct spikes_report *r)
{
	fputs("{\"breaches\": [", out);
	for (size_t i = 0; i < r->nb; i++) {
		const struct spikes_breach *b = &r->b[i];

		fprintf(out, "%s\n  {\"time_ns\": %" PRIu64 ", \"host\": ",
			i ? "," : "", b->time_ns);
		json_cstr(out, b->host);
		fprintf(out, ", \"pid\": %" PRId64 ", \"exe\": ", b->pid);
		json_cstr(out, b->exe);
		fputs(", \"policy\": ", out);
		json_cstr(out, b->rule);
		fputs(", \"value\": ", out);
		json_value(out, b->resource, b->value);
		fputs(", \"threshold\": ", out);
		json_value(out, b->resource, b->threshold);
		fprintf(out,
			", \"samples_before\": %" PRIu64
			", \"samples_after\": %" PRIu64
			", \"span_before_ms\": %.3f, \"span_after_ms\": %.3f"
			", \"sampler\": ",
			b->before, b->after, (double)b->span_before_ns / 1e6,
			(double)b->span_after_ns / 1e6);
		if (b->sampler)
			json_cstr(out, b->sampler->source);
		else
			fputs("null", out);
		fprintf(out,
			", \"rate_obtained_hz\": %.1f,\n   \"top_before\": ",
			b->sampler ? spikes_rate_obtained(b->sampler) : 0.0);
		json_list(out, &b->top_before);
		fputs(",\n   \"top_after\": ", out);
		json_list(out, &b->top_after);
		fputs(",\n   \"stacks\": [", out);
		for (size_t k = 0; k < b->stacks.n; k++) {
			fputs(k ? ", {\"frames\": " : "{\"frames\": ", out);
			json_frames(out, b->stacks.v[k].name);
			fprintf(out, ", \"samples\": %" PRIu64 "}",
				b->stacks.v[k].samples);
		}
		fputs("],\n   \"chains\": [", out);
		for (size_t k = 0; k < b->chains.n; k++) {
			const struct spikes_chain *c = b->chains.v[k].ref;

			fputs(k ? ", {\"chain\": " : "{\"chain\": ", out);
			json_cstr(out, c->hex);
			fputs(", \"root_function\": ", out);
			if (c->root_function)
				json_cstr(out, c->root_function);
			else
				fputs("null", out);
			fputs(", \"client_host\": ", out);
			if (c->client_host)
				json_cstr(out, c->client_host);
			else
				fputs("null", out);
			if (c->client_pid)
				fprintf(out, ", \"client_pid\": %" PRId64 "}",
					c->client_pid);
			else
				fputs(", \"client_pid\": null}", out);
		}
		fputs("]}", out);
	}
	fputs("],\n \"samplers\": [", out);
	json_samplers(out, r);
	fputs("],\n \"window_profile\": ", out);
	json_list(out, &r->window);
	fputs(",\n \"run_profile\": ", out);
	json_list(out, &r->run);
	fputs("}\n", out);
	return ferror(out) ? -1 : 0;
}
