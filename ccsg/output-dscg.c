/*
 * output-dscg.c - the DSCG as text (one line a node, indented by depth)
 * and as JSON (a node is {"kind": ..., "children": [...]}): `ccsg dscg`
 * (output.h).
 */
#include <inttypes.h>
#include <string.h>

#include "hex.h"
#include "json.h"
#include "values/values.h"
#include "output.h"

struct dprint {
	FILE *f;
	const struct ccsg_dscg *d;
	const struct idl_names *nm;
};

/*
 * A node's children are listed in DSCG order; the roots of chains (calls
 * under a thread or main) are grouped by chain and, in a broken chain,
 * by segment.  struct group is the chain and segment open in the list.
 */
struct group {
	int32_t chain, seg; /* -1: none */
};

enum { NEW_CHAIN = 1, NEW_SEGMENT = 2 };

/* Is child c of u the root of a chain? */
static int is_root(const struct ccsg_dscg *d, int32_t u, int32_t c)
{
	return ccsg_dscg_is_call(d, c) && !ccsg_dscg_is_call(d, u);
}

/* The groups root c opens after those of g: NEW_CHAIN, NEW_SEGMENT (the
 * first of a new broken chain too), both or none. */
static int opens(const struct ccsg_trace *t, int32_t c, const struct group *g)
{
	const struct ccsg_call *call = &t->calls[c];
	int r = call->chain != g->chain ? NEW_CHAIN : 0;

	if (t->chains[call->chain].segments && (r || call->seg != g->seg))
		r |= NEW_SEGMENT;
	return r;
}

/* Where a thread ran: its host's name and its executable's base name,
 * "?" when unknown. */
static void thread_where(const struct ccsg_trace *t,
			 const struct ccsg_thread *th, const char **host,
			 const char **exe)
{
	int32_t h = ccsg_trace_host(t, th->proc);
	const char *path = th->proc > 0 && (size_t)th->proc < t->nprocs
				   ? t->procs[th->proc].exe
				   : NULL;
	const char *base =
		path && strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	*host = h >= 0 ? t->hosts[h] : "?";
	*exe = base ? base : "?";
}

/* --- dscg as text: one line a node, indented by depth --- */

static void dnode_text(struct dprint *p, int32_t u, int depth);

static void indent(FILE *f, int depth)
{
	fprintf(f, "%*s", 2 * depth, "");
}

static void chain_text(FILE *f, const struct ccsg_chain *ch, int depth)
{
	char hex[2 * sizeof(ch->id) + 1];

	hex_encode(hex, ch->id, sizeof(ch->id));
	indent(f, depth);
	fprintf(f, "chain %s (%d calls", hex, ch->n);
	if (ch->segments)
		fprintf(f, "; BROKEN: %d abnormal transitions, %d segments%s",
			ch->breaks, ch->segments,
			ch->truncated ? ", truncated" : "");
	if (ch->kept)
		fputs(ch->gap ? "; kept, INCOMPLETE" : "; kept", f);
	fputs(")\n", f);
}

static void dchildren_text(struct dprint *p, int32_t u, int depth)
{
	const struct ccsg_dscg *d = p->d;
	const struct ccsg_trace *t = d->trace;
	struct group g = { -1, -1 };

	for (int32_t c = d->first_child[u]; c >= 0; c = d->next_sibling[c]) {
		int level = depth;

		if (is_root(d, u, c)) {
			const struct ccsg_call *call = &t->calls[c];
			const struct ccsg_chain *ch = &t->chains[call->chain];
			int r = opens(t, c, &g);

			if (r & NEW_CHAIN) {
				g = (struct group){ call->chain, -1 };
				chain_text(p->f, ch, depth);
			}
			if (r & NEW_SEGMENT) {
				g.seg = call->seg;
				indent(p->f, depth + 1);
				fprintf(p->f, "segment %d\n", g.seg);
			}
			level = depth + 1 + (ch->segments != 0);
		}
		/* threads are linked before chains: no thread after a chain */
		dnode_text(p, c, level);
	}
}

/* The outcome of a call, the papers' 'exception': the client's status,
 * the server's reply, the sizes on both sides, the tag statuses; what a
 * missing probe did not record is left out (text) or null (JSON). */
static void call_outcome_text(FILE *f, const struct ccsg_trace *t,
			      const struct ccsg_call *c)
{
	const int64_t size[4] = { c->args_bytes, c->results_bytes,
				  c->server_args_bytes,
				  c->server_results_bytes };
	static const char *const size_name[4] = { "args", "results",
						  "server_args",
						  "server_results" };

	if (c->status >= 0)
		fprintf(f, " status %s", t->strings[c->status_name]);
	if (c->reply >= 0)
		fprintf(f, " reply %s", ccsg_reply_names[c->reply]);
	for (int i = 0; i < 4; i++)
		if (size[i] != CCSG_NONE)
			fprintf(f, " %s %" PRId64, size_name[i], size[i]);
	if (c->tag >= 0)
		fprintf(f, " tag %s", t->strings[c->tag]);
	if (c->reply_tag >= 0)
		fprintf(f, " reply_tag %s", t->strings[c->reply_tag]);
}

static void call_text(struct dprint *p, const struct ccsg_call *c, int depth)
{
	const struct ccsg_trace *t = p->d->trace;
	FILE *f = p->f;
	char name[1024];

	ccsg_call_name(p->nm, t, c, name, sizeof(name));
	indent(f, depth);
	fprintf(f, "%s [call %" PRId64 "]", name, c->call_id);
	if (c->client_proc)
		fprintf(f, " client %d/%d", c->client_proc, c->client_tid);
	if (c->server_proc)
		fprintf(f, " server %d/%d", c->server_proc, c->server_tid);
	fputs(" events", f);
	for (int k = 0; k < 4; k++)
		if (c->ev[k] != CCSG_NONE)
			fprintf(f, " %" PRId64, c->ev[k]);
	call_outcome_text(f, t, c);
	if (c->missing == CCSG_NO_SERVER)
		fputs(" (no server)", f);
	if (c->missing == CCSG_NO_CLIENT)
		fputs(" (no client)", f);
	if (c->one_way)
		fputs(" (one-way)", f);
	if (c->failed)
		fputs(" (failed)", f);
	if (c->abnormal)
		fputs(" (abnormal)", f);
	fputc('\n', f);
}

static void thread_text(struct dprint *p, const struct ccsg_thread *th,
			int depth)
{
	const char *host, *exe;

	thread_where(p->d->trace, th, &host, &exe);
	indent(p->f, depth);
	fprintf(p->f, "thread %d/%d %s:%s%s", th->proc, th->tid, host, exe,
		th->infra ? " (infra)" : "");
	if (th->cpu_ns != CCSG_NONE)
		fprintf(p->f, " cpu %.3f ms", ccsg_ms(th->cpu_ns));
	fputc('\n', p->f);
}

static void dnode_text(struct dprint *p, int32_t u, int depth)
{
	const struct ccsg_dscg *d = p->d;

	if (u == d->main)
		fputs("<main>\n", p->f);
	else if (ccsg_dscg_is_call(d, u))
		call_text(p, &d->trace->calls[u], depth);
	else
		thread_text(p,
			    &d->trace->threads[u - (int32_t)d->trace->ncalls],
			    depth);
	dchildren_text(p, u, depth + 1);
}

/* --- dscg as JSON: a node is {"kind": ..., "children": [...]} --- */

static void dnode_json(struct dprint *p, int32_t u);

static void chain_json(FILE *f, const struct ccsg_chain *ch, int first)
{
	char hex[2 * sizeof(ch->id) + 1];

	hex_encode(hex, ch->id, sizeof(ch->id));
	fprintf(f,
		"%s{\"kind\": \"chain\", \"chain\": \"%s\", \"calls\": %d, "
		"\"broken\": %s, "
		"\"abnormal_transitions\": %d, \"segments\": %d, "
		"\"truncated\": %s, \"kept\": %s, \"complete\": %s, "
		"\"children\": [",
		first ? "" : ", ", hex, ch->n, ch->segments ? "true" : "false",
		ch->breaks, ch->segments, ch->truncated ? "true" : "false",
		ch->kept ? "true" : "false", ch->gap ? "false" : "true");
}

static void dchildren_json(struct dprint *p, int32_t u)
{
	const struct ccsg_dscg *d = p->d;
	const struct ccsg_trace *t = d->trace;
	struct group g = { -1, -1 };
	/* is the next item the first of its list: u's children, the open
	 * chain's, the open segment's? */
	int first = 1, cfirst = 1, sfirst = 1;

	for (int32_t c = d->first_child[u]; c >= 0; c = d->next_sibling[c]) {
		int *fl = &first;

		if (is_root(d, u, c)) {
			const struct ccsg_call *call = &t->calls[c];
			const struct ccsg_chain *ch = &t->chains[call->chain];
			int r = opens(t, c, &g);

			/* close the open segment, and the chain if it ends */
			if (r && g.chain >= 0 && g.seg >= 0 &&
			    t->chains[g.chain].segments)
				fputs("]}", p->f);
			if ((r & NEW_CHAIN) && g.chain >= 0)
				fputs("]}", p->f);
			if (r & NEW_CHAIN) {
				g = (struct group){ call->chain, -1 };
				chain_json(p->f, ch, first);
				first = 0;
				cfirst = 1;
			}
			if (r & NEW_SEGMENT) {
				g.seg = call->seg;
				fprintf(p->f,
					"%s{\"kind\": \"segment\", \"index\": "
					"%d, \"children\": [",
					cfirst ? "" : ", ", g.seg);
				cfirst = 0;
				sfirst = 1;
			}
			fl = ch->segments ? &sfirst : &cfirst;
		}
		fputs(*fl ? "" : ", ", p->f);
		*fl = 0;
		dnode_json(p, c);
	}
	if (g.chain >= 0) {
		if (t->chains[g.chain].segments)
			fputs("]}", p->f);
		fputs("]}", p->f);
	}
}

static void json_opt_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, ", \"%s\": ", key);
	if (s)
		json_cstr(f, s);
	else
		fputs("null", f);
}

static void json_opt_int(FILE *f, const char *key, int64_t v)
{
	if (v == CCSG_NONE)
		fprintf(f, ", \"%s\": null", key);
	else
		fprintf(f, ", \"%s\": %" PRId64, key, v);
}

static void call_outcome_json(FILE *f, const struct ccsg_trace *t,
			      const struct ccsg_call *c)
{
	json_opt_str(f, "status",
		     c->status >= 0 ? t->strings[c->status_name] : NULL);
	json_opt_str(f, "reply",
		     c->reply >= 0 ? ccsg_reply_names[c->reply] : NULL);
	fprintf(f, ", \"failed\": %s", c->failed ? "true" : "false");
	json_opt_int(f, "args_bytes", c->args_bytes);
	json_opt_int(f, "results_bytes", c->results_bytes);
	json_opt_int(f, "server_args_bytes", c->server_args_bytes);
	json_opt_int(f, "server_results_bytes", c->server_results_bytes);
	json_opt_str(f, "tag", c->tag >= 0 ? t->strings[c->tag] : NULL);
	json_opt_str(f, "reply_tag",
		     c->reply_tag >= 0 ? t->strings[c->reply_tag] : NULL);
	fprintf(f, ", \"one_way\": %s", c->one_way ? "true" : "false");
}

static void call_json(struct dprint *p, const struct ccsg_call *c)
{
	const struct ccsg_trace *t = p->d->trace;
	FILE *f = p->f;
	char name[1024];

	ccsg_call_name(p->nm, t, c, name, sizeof(name));
	fprintf(f, "{\"kind\": \"call\", \"call_id\": %" PRId64 ", \"name\": ",
		c->call_id);
	json_cstr(f, name);
	fputs(", \"events\": [", f);
	for (int k = 0; k < 4; k++) {
		if (c->ev[k] == CCSG_NONE)
			fprintf(f, "%snull", k ? ", " : "");
		else
			fprintf(f, "%s%" PRId64, k ? ", " : "", c->ev[k]);
	}
	fprintf(f,
		"], \"client\": [%d, %d], \"server\": [%d, %d], \"missing\": "
		"%s, "
		"\"abnormal\": %s, \"start_lost\": %s",
		c->client_proc, c->client_tid, c->server_proc, c->server_tid,
		c->missing == CCSG_NO_SERVER   ? "\"server\""
		: c->missing == CCSG_NO_CLIENT ? "\"client\""
					       : "null",
		c->abnormal ? "true" : "false", c->lost ? "true" : "false");
	call_outcome_json(f, t, c);
	ccsg_values_json_call(f, p->d->values, c);
}

static void thread_json(struct dprint *p, const struct ccsg_thread *th)
{
	FILE *f = p->f;
	const char *host, *exe;

	thread_where(p->d->trace, th, &host, &exe);
	fprintf(f,
		"{\"kind\": \"thread\", \"proc\": %d, \"tid\": %d, \"host\": ",
		th->proc, th->tid);
	json_cstr(f, host);
	fputs(", \"exe\": ", f);
	json_cstr(f, exe);
	fprintf(f, ", \"marker\": \"%s\", \"cpu_ns\": ",
		th->infra ? "infra" : "user");
	if (th->cpu_ns == CCSG_NONE)
		fputs("null", f);
	else
		fprintf(f, "%" PRId64, th->cpu_ns);
}

static void dnode_json(struct dprint *p, int32_t u)
{
	const struct ccsg_dscg *d = p->d;

	if (u == d->main)
		fputs("{\"kind\": \"main\"", p->f);
	else if (ccsg_dscg_is_call(d, u))
		call_json(p, &d->trace->calls[u]);
	else
		thread_json(p,
			    &d->trace->threads[u - (int32_t)d->trace->ncalls]);
	fputs(", \"children\": [", p->f);
	dchildren_json(p, u);
	fputs("]}", p->f);
}

int ccsg_dscg_print(FILE *f, const struct ccsg_dscg *d,
		    const struct idl_names *nm, int format)
{
	struct dprint p = { f, d, nm };

	if (format == CCSG_JSON) {
		fputs("{\"trace\": ", f);
		json_cstr(f, d->trace->path);
		fputs(", \"summary\": ", f);
		ccsg_summary_json(f, d->trace, &d->stats);
		fputs(",\n \"root\": ", f);
		dnode_json(&p, d->main);
		fputs("}\n", f);
	} else {
		fprintf(f, "dscg of %s\n", d->trace->path);
		ccsg_summary_text(f, d->trace, &d->stats);
		fputc('\n', f);
		dnode_text(&p, d->main, 0);
	}
	return ccsg_print_done(f);
}
