/*
 * check-e2e-export.c - end to end: `ccsg export` (issue 14) on real
 * traces.
 *
 *   figure1  Figure 1 of the CPU paper on four simulated hosts
 *            (e2e-figure1.h)
 *   multi    three demo-servers on three hosts (A calls B, B calls C)
 *            and four clients at once: one with 4 threads of calls, one
 *            whose call spawns a thread on A that calls B, one nested
 *            chain A -> B -> C, one call that fails (unknown procedure)
 *
 * On each: folded stacks add up per host to `ccsg report`'s totals to
 * the microsecond and `ccsg compact --folded --strict` takes them; the
 * chrome JSON parses, every call has its client and server slices and
 * both flows bound to them, each server slice lies inside its client
 * slice, every spawned thread has its spawn flow; the OTLP JSON (check
 * below) has one span per side of every call, parents as the DSCG's,
 * trace ids one per chain.  Where the npm tools of scripts/setup.sh are
 * installed (.npm-tools/, or $CAUSAL_NPM_TOOLS), the OTLP JSON is also
 * checked against the opentelemetry-proto definitions with protobufjs
 * (test/otlp/check-otlp.js), and the folded stacks rendered as a flame
 * graph (stackvis) whose SVG must name say_it; without them, one line
 * says what was skipped.
 */
#include <math.h>

#include "e2e-figure1.h"
#include "tool-run.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ---- running ccsg ------------------------------------------------------- */

/* `ccsg export --db DB ARGS... -o DIR/NAME`: exit 0, nothing on stderr;
 * the file's contents (the caller frees them). */
static char *export_run(struct e2e *t, const char *name,
			const char *const *args)
{
	char path[PATH_MAX];
	const char *argv[32] = {
		tool_path("ccsg"), "export", "--db", t->db, "-o", path
	};
	struct tool_out r;
	int n = 6;

	e2e_fmt(path, sizeof(path), "%s/%s", t->dir, name);
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	r = tool_run(argv);
	e2e_assert_exit(r.status, 0, "ccsg export");
	ck_assert_msg(!r.err[0], "ccsg export: %s", r.err);
	ck_assert_msg(!r.out[0], "ccsg export -o: stdout '%s'", r.out);
	tool_out_release(&r);
	return e2e_slurp(path, NULL);
}

/* ---- folded ------------------------------------------------------------- */

/*
 * The folded stacks by CPU add up, per host (the host of each stack's last
 * frame), to `ccsg report`'s total_cpu_us of that host, to the
 * microsecond; `ccsg compact --folded --strict` reads them.
 */
static char *check_folded(struct e2e *t, const char *idl)
{
	const char *args[] = { "--format=folded", idl ? "--idl" : NULL, idl,
			       NULL };
	const char *rep[] = { tool_path("ccsg"),
			      "report",
			      "--format=json",
			      "--db",
			      t->db,
			      NULL };
	char *text = export_run(t, "cpu.folded", args), *copy = strdup(text);
	char *line, *save = NULL, path[PATH_MAX];
	const struct jval *hosts, *total;
	double sum[FIG1_MAX_HOSTS] = { 0 };
	struct tool_out r = tool_run(rep);
	struct jval *doc;
	int lines = 0;

	e2e_assert_exit(r.status, 0, "ccsg report");
	doc = json_parse(r.out, "ccsg report");
	hosts = json_need(doc, "hosts", J_ARR, "report");
	total = json_need(doc, "total_cpu_us", J_ARR, "report");
	ck_assert_int_le(hosts->n, FIG1_MAX_HOSTS);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' '), *last, *end;
		long long count;
		int h;

		ck_assert_msg(sp, "folded line without a count: '%s'", line);
		count = strtoll(sp + 1, &end, 10);
		ck_assert_msg(!*end && count > 0, "bad count: '%s'", line);
		*sp = '\0';
		last = strrchr(line, ';') ? strrchr(line, ';') + 1 : line;
		ck_assert_msg(strchr(last, ':'), "frame without a host: '%s'",
			      last);
		*strchr(last, ':') = '\0';
		for (h = 0; h < hosts->n; h++)
			if (!strcmp(hosts->item[h].str, last))
				break;
		ck_assert_msg(h < hosts->n, "host '%s' not in the report",
			      last);
		sum[h] += (double)count;
		lines++;
	}
	ck_assert_int_gt(lines, 0);
	for (int h = 0; h < hosts->n; h++)
		ck_assert_msg(fabs(sum[h] - total->item[h].num) <= 0.5005,
			      "host %s: the folded stacks add up to %.0f us, "
			      "ccsg report says %.3f us",
			      hosts->item[h].str, sum[h], total->item[h].num);
	json_free(doc);
	tool_out_release(&r);
	free(copy);
	{
		const char *c[] = {
			tool_path("ccsg"), "compact", "--folded", path,
			"--strict",	   "--sep",   ":",	  NULL
		};

		e2e_fmt(path, sizeof(path), "%s/cpu.folded", t->dir);
		r = tool_run(c);
		e2e_assert_exit(r.status, 0, "ccsg compact --folded");
		ck_assert_msg(!r.err[0], "ccsg compact --folded: %s", r.err);
		tool_out_release(&r);
	}
	return text;
}

/* The weight of the line whose stack is exactly `stack`, or -1. */
static long long folded_count(const char *text, const char *stack)
{
	size_t n = strlen(stack);

	for (const char *p = text; p && *p;
	     p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, stack, n) && p[n] == ' ')
			return atoll(p + n + 1);
	return -1;
}

/* Where the npm tools are (scripts/setup.sh), or NULL. */
static const char *npm_tools(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("CAUSAL_NPM_TOOLS"),
		   *src = getenv("CAUSAL_SRC");
	char probe[PATH_MAX + 64];

	if (env && *env)
		e2e_fmt(dir, sizeof(dir), "%s", env);
	else
		e2e_fmt(dir, sizeof(dir), "%s/.npm-tools", src ? src : ".");
	e2e_fmt(probe, sizeof(probe), "%s/node_modules/protobufjs", dir);
	if (access(probe, F_OK) || system("command -v node >/dev/null"))
		return NULL;
	return dir;
}

static int skipped_once;

static void skip_line(const char *what)
{
	if (!skipped_once++)
		printf("e2e-export: %s skipped: no npm tools (bash "
		       "scripts/setup.sh installs them in .npm-tools/)\n",
		       what);
	fflush(stdout);
}

/* The flame graph of the folded stacks (stackvis): its SVG names say_it. */
static void check_flamegraph(struct e2e *t, const char *name, const char *must)
{
	const char *tools = npm_tools();
	char cmd[4 * PATH_MAX], svg[PATH_MAX];
	char *text;
	int status;

	if (!tools) {
		skip_line("the flame graph and the OTLP proto checks are");
		return;
	}
	e2e_fmt(svg, sizeof(svg), "%s/%s.svg", t->dir, name);
	/* stackvis reads the stackcollapse format of its time, frames
	 * separated by ',': the frames hold none (checked) */
	e2e_fmt(cmd, sizeof(cmd),
		"! grep -q , '%s/%s' && sed 's/;/,/g' '%s/%s' | "
		"'%s/node_modules/.bin/stackvis' collapsed flamegraph-svg > "
		"'%s'",
		t->dir, name, t->dir, name, tools, svg);
	status = system(cmd);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "stackvis: status 0x%x (%s)", status, cmd);
	text = e2e_slurp(svg, NULL);
	ck_assert_msg(strstr(text, "<svg") && strcasestr(text, must),
		      "the flame graph does not name %s", must);
	free(text);
}

/* ---- chrome ------------------------------------------------------------- */

struct ev {
	const struct jval *v;
	double ts, dur, pid, tid, id, call;
	const char *ph, *cat, *name;
};

struct events {
	struct ev *e;
	int n;
};

static double num_or(const struct jval *o, const char *key, double dflt)
{
	const struct jval *v = json_get(o, key);

	return v && v->type == J_NUM ? v->num : dflt;
}

static struct events chrome_events(const struct jval *doc)
{
	const struct jval *a = json_need(doc, "traceEvents", J_ARR, "chrome");
	struct events ev = { calloc((size_t)a->n + 1, sizeof(struct ev)), 0 };

	for (int i = 0; i < a->n; i++) {
		const struct jval *o = &a->item[i];
		const struct jval *args = json_get(o, "args");
		struct ev *e = &ev.e[ev.n++];

		e->v = o;
		e->ph = json_need(o, "ph", J_STR, "event")->str;
		e->name = json_get(o, "name") ? json_get(o, "name")->str : "";
		e->cat = json_get(o, "cat") ? json_get(o, "cat")->str : "";
		e->ts = num_or(o, "ts", NAN);
		e->dur = num_or(o, "dur", 0);
		e->pid = num_or(o, "pid", -1);
		e->tid = num_or(o, "tid", -1);
		e->id = num_or(o, "id", -1);
		e->call = args ? num_or(args, "call_id", -1) : -1;
		if (strcmp(e->ph, "M"))
			ck_assert_msg(!isnan(e->ts), "event %d without ts", i);
	}
	return ev;
}

/* Is event p (a flow end) on slice s's thread and inside it?  Times
 * carry three decimals of a microsecond. */
static int on_slice(const struct ev *p, const struct ev *s)
{
	return p->pid == s->pid && p->tid == s->tid && p->ts >= s->ts - 5e-4 &&
	       p->ts <= s->ts + s->dur + 5e-4;
}

/* A flow named name from slice a into slice b. */
static int has_flow(const struct events *ev, const char *name,
		    const struct ev *a, const struct ev *b)
{
	for (int i = 0; i < ev->n; i++) {
		const struct ev *s = &ev->e[i];

		if (strcmp(s->ph, "s") || strcmp(s->name, name) ||
		    !on_slice(s, a))
			continue;
		for (int j = 0; j < ev->n; j++) {
			const struct ev *f = &ev->e[j];

			if (!strcmp(f->ph, "f") && f->id == s->id &&
			    json_get(f->v, "bp") && on_slice(f, b))
				return 1;
		}
	}
	return 0;
}

static const struct ev *slice_of(const struct events *ev, double call,
				 const char *cat)
{
	const struct ev *found = NULL;

	for (int i = 0; i < ev->n; i++)
		if (!strcmp(ev->e[i].ph, "X") && ev->e[i].call == call &&
		    !strcmp(ev->e[i].cat, cat)) {
			ck_assert_msg(!found, "call %.0f: two %s slices", call,
				      cat);
			found = &ev->e[i];
		}
	return found;
}

/*
 * The chrome export of t: every call with both sides has both slices,
 * on the threads that made and served it, the server's inside the
 * client's, and the two flows between them; every thread its parent
 * made has a spawn flow from the parent (inside the spawning call's
 * server slice when a call spawned it); hosts aligned in the metadata.
 * Returns how many calls were checked.
 */
static int check_chrome(struct e2e *t)
{
	static const char *const args[] = { "--format=chrome", NULL };
	char *text = export_run(t, "trace.json", args);
	struct jval *doc = json_parse(text, "ccsg export --format=chrome");
	struct events ev = chrome_events(doc);
	const struct jval *meta = json_need(doc, "metadata", J_OBJ, "chrome");
	const struct jval *hosts = json_need(meta, "hosts", J_ARR, "metadata");
	sqlite3_stmt *st;
	int ncalls = 0, nspawn = 0, refs = 0;

	ck_assert_int_eq(hosts->n,
			 e2e_query_int(t->sql, "SELECT count(*) FROM hosts"));
	for (int h = 0; h < hosts->n; h++) {
		const struct jval *x = &hosts->item[h];

		ck_assert_msg(json_need(x, "error_ns", J_NUM, "host")->num >= 0,
			      "negative error");
		json_need(x, "offset_ns", J_NUM, "host");
		refs += json_need(x, "reference", J_BOOL, "host")->num != 0;
	}
	ck_assert_int_ge(refs, 1);
	ck_assert_int_eq(json_need(meta, "clamped_calls", J_NUM, "m")->num, 0);

	ck_assert_int_eq(
		sqlite3_prepare_v2(t->sql,
				   "SELECT c.call_id, ct.os_tid, "
				   "st.os_tid, c.client_proc_id, "
				   "c.server_proc_id, c.status_name "
				   "FROM rpc_calls c JOIN threads ct ON "
				   "ct.proc_id = c.client_proc_id AND "
				   "ct.tid = c.client_tid JOIN threads "
				   "st ON st.proc_id = c.server_proc_id "
				   "AND st.tid = c.server_tid WHERE "
				   "c.missing IS NULL",
				   -1, &st, NULL),
		SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		double id = (double)sqlite3_column_int64(st, 0);
		const struct ev *c = slice_of(&ev, id, "rpc.client"),
				*s = slice_of(&ev, id, "rpc.server");
		const char *status = (const char *)sqlite3_column_text(st, 5);

		ck_assert_msg(c && s, "call %.0f: client slice %p, server %p",
			      id, (void *)c, (void *)s);
		ck_assert_msg(c->tid == sqlite3_column_int64(st, 1) &&
				      s->tid == sqlite3_column_int64(st, 2) &&
				      c->pid == sqlite3_column_int64(st, 3) &&
				      s->pid == sqlite3_column_int64(st, 4),
			      "call %.0f: slices on the wrong threads", id);
		ck_assert_msg(s->ts >= c->ts - 5e-4 &&
				      s->ts + s->dur <= c->ts + c->dur + 5e-4,
			      "call %.0f: server slice [%.3f, +%.3f] outside "
			      "the client's [%.3f, +%.3f]",
			      id, s->ts, s->dur, c->ts, c->dur);
		ck_assert_msg(has_flow(&ev, "call", c, s),
			      "call %.0f: no flow from client to server", id);
		ck_assert_msg(has_flow(&ev, "reply", s, c),
			      "call %.0f: no flow from server back", id);
		/* a failed call says so in its name */
		if (status && strcmp(status, "RPC_SUCCESS")) {
			ck_assert_msg(strstr(c->name, status),
				      "failed call %.0f: name '%s'", id,
				      c->name);
			ck_assert_int_eq(json_need(json_get(c->v, "args"),
						   "failed", J_BOOL, "args")
						 ->num,
					 1);
		}
		ncalls++;
	}
	sqlite3_finalize(st);

	/* spawned threads: a flow from their parent thread into them */
	ck_assert_int_eq(sqlite3_prepare_v2(t->sql,
					    "SELECT th.proc_id, th.os_tid, "
					    "p.os_tid, th.ctx_function IS NOT "
					    "NULL FROM threads th JOIN threads "
					    "p ON p.proc_id = th.proc_id AND "
					    "p.tid = th.parent_tid WHERE "
					    "th.parent_tid > 0",
					    -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		double pid = (double)sqlite3_column_int64(st, 0),
		       tid = (double)sqlite3_column_int64(st, 1),
		       ptid = (double)sqlite3_column_int64(st, 2);
		const struct ev *from = NULL;
		int inside = 0;

		for (int i = 0; i < ev.n && !from; i++) {
			const struct ev *s = &ev.e[i];

			if (strcmp(s->ph, "s") || strcmp(s->cat, "spawn") ||
			    s->pid != pid || s->tid != ptid)
				continue;
			for (int j = 0; j < ev.n && !from; j++) {
				const struct ev *f = &ev.e[j];

				if (!strcmp(f->ph, "f") && f->id == s->id &&
				    f->pid == pid && f->tid == tid)
					from = s;
			}
		}
		ck_assert_msg(from,
			      "thread %.0f of process %.0f: no spawn flow "
			      "from thread %.0f",
			      tid, pid, ptid);
		/* spawned in a call: from inside that call's skeleton */
		for (int j = 0; j < ev.n; j++)
			inside |= !strcmp(ev.e[j].cat, "rpc.server") &&
				  on_slice(from, &ev.e[j]);
		ck_assert_msg(inside || !sqlite3_column_int(st, 3),
			      "thread %.0f: spawned by a call, its spawn flow "
			      "starts in no server slice",
			      tid);
		nspawn++;
	}
	sqlite3_finalize(st);
	ck_assert_int_gt(nspawn, 0);
	free(ev.e);
	json_free(doc);
	free(text);
	return ncalls;
}

/* ---- otlp --------------------------------------------------------------- */

struct span {
	const char *trace, *id, *parent;
	int kind;
	double call, proc, tid;
	int seen;
};

struct spans {
	struct span *s;
	int n;
	int resources;
};

/* The value of attribute key in attrs, as a number (intValue strings
 * too), or -1. */
static double attr_num(const struct jval *attrs, const char *key)
{
	for (int i = 0; attrs && i < attrs->n; i++) {
		const struct jval *a = &attrs->item[i];
		const struct jval *v;

		if (strcmp(json_need(a, "key", J_STR, "attribute")->str, key))
			continue;
		v = json_need(a, "value", J_OBJ, key);
		if (json_get(v, "intValue"))
			return atof(json_get(v, "intValue")->str);
		if (json_get(v, "doubleValue"))
			return json_get(v, "doubleValue")->num;
	}
	return -1;
}

static const char *attr_text(const struct jval *attrs, const char *key)
{
	for (int i = 0; attrs && i < attrs->n; i++) {
		const struct jval *a = &attrs->item[i];

		if (!strcmp(json_need(a, "key", J_STR, "attribute")->str,
			    key) &&
		    json_get(json_get(a, "value"), "stringValue"))
			return json_get(json_get(a, "value"), "stringValue")
				->str;
	}
	return NULL;
}

/* Every span of an ExportTraceServiceRequest, appended to sp. */
static void otlp_spans(const struct jval *doc, struct spans *sp)
{
	const struct jval *rs = json_need(doc, "resourceSpans", J_ARR, "otlp");

	for (int r = 0; r < rs->n; r++) {
		const struct jval *res = json_need(&rs->item[r], "resource",
						   J_OBJ, "resourceSpans");
		const struct jval *ra =
			json_need(res, "attributes", J_ARR, "resource");
		const struct jval *ss = json_need(&rs->item[r], "scopeSpans",
						  J_ARR, "resourceSpans");

		ck_assert_ptr_nonnull(attr_text(ra, "host.name"));
		ck_assert_ptr_nonnull(attr_text(ra, "service.name"));
		ck_assert_ptr_nonnull(attr_text(ra, "process.executable.name"));
		ck_assert_msg(attr_num(ra, "process.pid") > 0, "process.pid");
		sp->resources++;
		for (int k = 0; k < ss->n; k++) {
			const struct jval *a = json_need(&ss->item[k], "spans",
							 J_ARR, "scopeSpans");

			sp->s = realloc(sp->s, (size_t)(sp->n + a->n + 1) *
						       sizeof(*sp->s));
			for (int i = 0; i < a->n; i++) {
				const struct jval *o = &a->item[i];
				const struct jval *at =
					json_get(o, "attributes");
				struct span *x = &sp->s[sp->n++];

				x->trace =
					json_need(o, "traceId", J_STR, "span")
						->str;
				x->id = json_need(o, "spanId", J_STR, "span")
						->str;
				x->parent =
					json_get(o, "parentSpanId")
						? json_get(o, "parentSpanId")
							  ->str
						: "";
				x->kind =
					(int)json_need(o, "kind", J_NUM, "span")
						->num;
				x->call = attr_num(at, "causal.call_id");
				x->proc = attr_num(at, "causal.proc_id");
				x->tid = attr_num(at, "causal.tid");
				x->seen = 0;
				if (x->kind != 1) {
					ck_assert_str_eq(
						attr_text(at, "rpc.system"),
						"onc_rpc");
					ck_assert_ptr_nonnull(
						attr_text(at, "rpc.method"));
					ck_assert_ptr_nonnull(
						attr_text(at, "rpc.service"));
				}
			}
		}
	}
}

static struct span *find_span(struct spans *sp, int kind, double call,
			      double proc, double tid)
{
	struct span *found = NULL;

	for (int i = 0; i < sp->n; i++) {
		struct span *x = &sp->s[i];

		if (x->kind == kind &&
		    (kind == 1 ? x->proc == proc && x->tid == tid
			       : x->call == call)) {
			ck_assert_msg(!found,
				      "two spans of kind %d for call %.0f"
				      " / thread %.0f.%.0f",
				      kind, call, proc, tid);
			found = x;
		}
	}
	return found;
}

struct chains {
	char *chain[512], *trace[512];
	int n;
};

/* Chain chain's calls are in trace trace, and no other chain's are. */
static void same_trace(struct chains *c, const char *chain, const char *trace)
{
	for (int i = 0; i < c->n; i++) {
		if (!strcmp(c->chain[i], chain)) {
			ck_assert_msg(!strcmp(c->trace[i], trace),
				      "chain %s: spans in traces %s and %s",
				      chain, c->trace[i], trace);
			return;
		}
		ck_assert_msg(strcmp(c->trace[i], trace),
			      "chains %s and %s share trace %s", c->chain[i],
			      chain, trace);
	}
	ck_assert_int_lt(c->n, 512);
	c->chain[c->n] = (char *)chain;
	c->trace[c->n++] = (char *)trace;
}

/*
 * Node nd of the DSCG (ccsg dscg --format=json), whose parent's span is
 * parent ("" for none) and whose chain is chain: its spans have that
 * parent (a server span, its client span); returns how many spans it and
 * its subtree have.
 */
static int dscg_walk(const struct jval *nd, struct spans *sp,
		     const char *parent, const char *chain, struct chains *ch)
{
	const char *kind = json_need(nd, "kind", J_STR, "dscg node")->str;
	const struct jval *kids = json_get(nd, "children");
	const char *below = parent;
	int n = 0;

	if (!strcmp(kind, "thread")) {
		struct span *x = find_span(
			sp, 1, -1, json_need(nd, "proc", J_NUM, "t")->num,
			json_need(nd, "tid", J_NUM, "t")->num);

		if (x) {
			ck_assert_msg(!strcmp(x->parent, parent),
				      "thread span %s: parent '%s', the DSCG "
				      "says '%s'",
				      x->id, x->parent, parent);
			x->seen++;
			below = x->id;
			n++;
		}
	} else if (!strcmp(kind, "chain")) {
		chain = json_need(nd, "chain", J_STR, "chain")->str;
	} else if (!strcmp(kind, "call")) {
		double id = json_need(nd, "call_id", J_NUM, "call")->num;
		struct span *c = find_span(sp, 3, id, 0, 0),
			    *s = find_span(sp, 2, id, 0, 0);

		ck_assert_msg(c || s, "call %.0f: no span", id);
		ck_assert_msg(json_get(nd, "missing")->type != J_NULL ||
				      (c && s),
			      "call %.0f: client span %p, server %p", id,
			      (void *)c, (void *)s);
		ck_assert_msg(!strcmp((c ? c : s)->parent, parent),
			      "call %.0f: parent span '%s', the DSCG says '%s'",
			      id, (c ? c : s)->parent, parent);
		if (c && s)
			ck_assert_msg(!strcmp(s->parent, c->id),
				      "call %.0f: server span's parent %s, not "
				      "its client span %s",
				      id, s->parent, c->id);
		if (c && s)
			ck_assert_str_eq(c->trace, s->trace);
		ck_assert_ptr_nonnull(chain);
		same_trace(ch, chain, (c ? c : s)->trace);
		if (c)
			c->seen++;
		if (s)
			s->seen++;
		n += (c != NULL) + (s != NULL);
		below = s ? s->id : c->id;
	}
	for (int i = 0; kids && i < kids->n; i++)
		n += dscg_walk(&kids->item[i], sp, below, chain, ch);
	return n;
}

/* Run the proto check of a file when the npm tools are there. */
static void proto_check(const char *path)
{
	const char *tools = npm_tools(), *src = getenv("CAUSAL_SRC");
	char cmd[4 * PATH_MAX];
	int status;

	if (!tools) {
		skip_line("the flame graph and the OTLP proto checks are");
		return;
	}
	e2e_fmt(cmd, sizeof(cmd),
		"node '%s/test/otlp/check-otlp.js' '%s' '%s' > '%s.check' 2>&1",
		src ? src : ".", tools, path, path);
	status = system(cmd);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char out[PATH_MAX + 8];

		e2e_fmt(out, sizeof(out), "%s.check", path);
		ck_abort_msg("%s: not a valid ExportTraceServiceRequest: %s",
			     path, e2e_slurp(out, NULL));
	}
}

/*
 * The OTLP export of t: valid against the protos; a span per side of
 * every call, their parents the DSCG's, trace ids one per chain.
 * Returns the number of spans.
 */
static int check_otlp(struct e2e *t)
{
	static const char *const args[] = { "--format=otlp", NULL };
	const char *dargs[] = {
		tool_path("ccsg"), "dscg", "--format=json", "--db", t->db, NULL
	};
	char *text = export_run(t, "trace.otlp.json", args), path[PATH_MAX];
	struct jval *doc = json_parse(text, "ccsg export --format=otlp"), *dscg;
	struct spans sp = { 0 };
	struct chains ch = { .n = 0 };
	struct tool_out r;
	int n;

	e2e_fmt(path, sizeof(path), "%s/trace.otlp.json", t->dir);
	proto_check(path);
	otlp_spans(doc, &sp);
	ck_assert_int_eq(
		sp.resources,
		e2e_query_int(t->sql, "SELECT count(*) FROM processes"));
	r = tool_run(dargs);
	e2e_assert_exit(r.status, 0, "ccsg dscg");
	dscg = json_parse(r.out, "ccsg dscg");
	n = dscg_walk(json_need(dscg, "root", J_OBJ, "dscg"), &sp, "", NULL,
		      &ch);
	ck_assert_int_eq(n, sp.n); /* no span the DSCG has no node for */
	for (int i = 0; i < sp.n; i++)
		ck_assert_int_eq(sp.s[i].seen, 1);
	ck_assert_int_eq(ch.n, e2e_query_int(t->sql, "SELECT count(DISTINCT "
						     "chain) FROM rpc_calls"));
	/* one span per side of every call */
	{
		int sides = 0;

		for (int i = 0; i < sp.n; i++)
			sides += sp.s[i].kind != 1;
		ck_assert_int_eq(sides,
				 e2e_query_int(t->sql,
					       "SELECT count(client_proc_id) "
					       "+ count(server_proc_id) FROM "
					       "rpc_calls"));
	}
	free(sp.s);
	json_free(dscg);
	tool_out_release(&r);
	json_free(doc);
	free(text);
	return n;
}

/* ---- otlp --endpoint ------------------------------------------------------
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* test/otlp/receiver.py MODE in DIR/NAME; its port in *port. */
static pid_t receiver_start(struct e2e *t, const char *mode, const char *name,
			    char *dir, size_t len, int *port)
{
	const char *src = getenv("CAUSAL_SRC");
	char script[PATH_MAX], portf[PATH_MAX + 8], o[PATH_MAX + 8],
		e[PATH_MAX + 8];
	const char *argv[] = { "/usr/bin/env", "python3", script,
			       mode,	       dir,	  NULL };
	pid_t pid;
	char *text;

	e2e_fmt(dir, len, "%s/%s", t->dir, name);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	e2e_fmt(script, sizeof(script), "%s/test/otlp/receiver.py",
		src ? src : ".");
	e2e_fmt(portf, sizeof(portf), "%s/port", dir);
	e2e_fmt(o, sizeof(o), "%s/out", dir);
	e2e_fmt(e, sizeof(e), "%s/err", dir);
	pid = e2e_spawn(argv, NULL, o, e);
	rpc_wait_file(portf, pid);
	text = e2e_slurp(portf, NULL);
	*port = atoi(text);
	free(text);
	ck_assert_int_gt(*port, 0);
	return pid;
}

static void receiver_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	e2e_wait(pid);
}

/* Lines of DIR/requests (0 when none came). */
static int requests(const char *dir)
{
	char path[PATH_MAX + 16], *text;
	int n = 0;

	e2e_fmt(path, sizeof(path), "%s/requests", dir);
	if (access(path, F_OK))
		return 0;
	text = e2e_slurp(path, NULL);
	for (char *p = text; *p; p++)
		n += *p == '\n';
	ck_assert_msg(strstr(text, "/v1/traces application/json "),
		      "requests: %s", text);
	free(text);
	return n;
}

/* `ccsg export --format=otlp --endpoint URL ARGS...`; its output. */
static struct tool_out endpoint_run(struct e2e *t, int port,
				    const char *const *args)
{
	char url[128];
	const char *argv[24] = { tool_path("ccsg"), "export",	  "--db", t->db,
				 "--format=otlp",   "--endpoint", url };
	int n = 7;

	e2e_fmt(url, sizeof(url), "http://127.0.0.1:%d/v1/traces", port);
	for (int i = 0; args[i] && n < 23; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return tool_run(argv);
}

/* Exit 1 with one line on stderr holding each of want; the file out
 * complete, with nspans spans. */
static void assert_failed(struct tool_out *r, const char *const *want,
			  const char *out, int nspans)
{
	char *text;
	struct jval *doc;
	struct spans sp = { 0 };

	e2e_assert_exit(r->status, 1, "ccsg export --endpoint");
	ck_assert_msg(strchr(r->err, '\n') == r->err + strlen(r->err) - 1,
		      "not one line: '%s'", r->err);
	for (int i = 0; want[i]; i++)
		ck_assert_msg(strstr(r->err, want[i]), "'%s' does not say '%s'",
			      r->err, want[i]);
	text = e2e_slurp(out, NULL);
	doc = json_parse(text, out);
	otlp_spans(doc, &sp);
	ck_assert_int_eq(sp.n, nspans);
	free(sp.s);
	json_free(doc);
	free(text);
}

/*
 * --endpoint: a receiver that accepts gets every span once, in requests
 * of at most --batch spans, each valid; one that refuses (400) is one
 * clear error, without retries; one that is busy (503) is tried
 * 1 + --retries times; one nobody listens on likewise; and the file of
 * -o is complete whatever the receiver did.
 */
static void check_endpoint(struct e2e *t, int nspans)
{
	char dir[PATH_MAX], out[PATH_MAX];
	struct spans sp = { 0 };
	struct tool_out r;
	int port, n;
	pid_t pid;

	pid = receiver_start(t, "accept", "accept", dir, sizeof(dir), &port);
	{
		static const char *const args[] = { "--batch", "50", NULL };

		r = endpoint_run(t, port, args);
	}
	e2e_assert_exit(r.status, 0, "ccsg export --endpoint");
	ck_assert_msg(!r.err[0] && !r.out[0], "stdout '%s', stderr '%s'", r.out,
		      r.err);
	tool_out_release(&r);
	receiver_stop(pid);
	n = requests(dir);
	ck_assert_int_eq(n, (nspans + 49) / 50);
	{
		struct jval **docs = calloc((size_t)n + 1, sizeof(*docs));

		for (int i = 1; i <= n; i++) {
			char path[PATH_MAX + 32], *text;
			int before = sp.n;

			e2e_fmt(path, sizeof(path), "%s/request-%d.json", dir,
				i);
			proto_check(path);
			text = e2e_slurp(path, NULL);
			docs[i] = json_parse(text, path);
			otlp_spans(docs[i], &sp);
			ck_assert_int_le(sp.n - before, 50);
			free(text);
		}
		ck_assert_int_eq(sp.n, nspans);
		for (int i = 0; i < sp.n; i++)
			for (int j = i + 1; j < sp.n; j++)
				ck_assert_msg(strcmp(sp.s[i].id, sp.s[j].id) ||
						      strcmp(sp.s[i].trace,
							     sp.s[j].trace),
					      "span %s sent twice", sp.s[i].id);
		for (int i = 1; i <= n; i++)
			json_free(docs[i]);
		free(docs);
	}
	free(sp.s);

	/* refused: one request, one line, the file complete all the same */
	pid = receiver_start(t, "refuse", "refuse", dir, sizeof(dir), &port);
	e2e_fmt(out, sizeof(out), "%s/refused.json", t->dir);
	{
		const char *args[] = { "-o", out, "--retries", "3", NULL };
		static const char *const want[] = { "refused", "HTTP 400",
						    "cannot parse", NULL };

		r = endpoint_run(t, port, args);
		assert_failed(&r, want, out, nspans);
	}
	tool_out_release(&r);
	receiver_stop(pid);
	ck_assert_int_eq(requests(dir), 1);

	/* busy: tried 1 + 2 times */
	pid = receiver_start(t, "busy", "busy", dir, sizeof(dir), &port);
	e2e_fmt(out, sizeof(out), "%s/busy.json", t->dir);
	{
		const char *args[] = { "-o", out, "--retries", "2", NULL };
		static const char *const want[] = { "cannot send", "HTTP 503",
						    "3 tries", NULL };

		r = endpoint_run(t, port, args);
		assert_failed(&r, want, out, nspans);
	}
	tool_out_release(&r);
	receiver_stop(pid);
	ck_assert_int_eq(requests(dir), 3);

	/* nobody listens: a port just closed */
	{
		struct sockaddr_in a = { .sin_family = AF_INET };
		socklen_t len = sizeof(a);
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		const char *args[] = { "-o", out, "--retries", "1", NULL };
		static const char *const want[] = { "cannot send", "2 tries",
						    NULL };

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
		ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len),
				 0);
		close(fd);
		e2e_fmt(out, sizeof(out), "%s/unreachable.json", t->dir);
		r = endpoint_run(t, ntohs(a.sin_port), args);
		assert_failed(&r, want, out, nspans);
		tool_out_release(&r);
	}
}

/* ---- the tests ---------------------------------------------------------- */

START_TEST(test_figure1)
{
	struct fig1_deploy d = fig1_four_hosts;
	char idl[PATH_MAX], stack[256], *folded;
	struct e2e t;

	rpc_isolate();
	e2e_init(&t);
	fig1_run(&t, &d);
	e2e_fmt(idl, sizeof(idl), "%s/examples/figure1/gen/figure1.x",
		e2e_build());

	/* the stack that crosses hosts: main on A, foo on A, say_it on D */
	folded = check_folded(&t, idl);
	e2e_fmt(stack, sizeof(stack),
		"hostA:figure1-client:main;hostA:FIG1_PROG::FOO;"
		"hostD:FIG1_PROG::SAY_IT");
	fig1_near((double)folded_count(folded, stack),
		  fig1_serving(&d, 'D')->burned_us, stack);
	e2e_fmt(stack, sizeof(stack),
		"hostA:figure1-client:main;hostA:FIG1_PROG::FOO;"
		"hostC:FIG1_PROG::WHAT_TO_SAY;hostC:<thread>");
	fig1_near((double)folded_count(folded, stack),
		  FIG1_THREADS * FIG1_THREAD_US, stack);
	free(folded);
	{
		static const char *const calls[] = { "--format=folded",
						     "--weight=calls", NULL };
		static const char *const lat[] = { "--format=folded",
						   "--weight=latency", NULL };

		folded = export_run(&t, "calls.folded", calls);
		ck_assert_int_eq(folded_count(folded,
					      "hostA:figure1-client:main;"
					      "hostA:0x20000f01::foo;"
					      "hostD:0x20000f01::say_it"),
				 FIG1_SAY_TIMES);
		free(folded);
		/* latency: say_it's three calls took at least what they
		 * burned */
		folded = export_run(&t, "latency.folded", lat);
		ck_assert_int_ge(folded_count(folded,
					      "hostA:figure1-client:main;"
					      "hostA:0x20000f01::foo;"
					      "hostD:0x20000f01::say_it"),
				 fig1_serving(&d, 'D')->burned_us * 0.9);
		free(folded);
	}
	check_flamegraph(&t, "cpu.folded", "SAY_IT");

	ck_assert_int_eq(check_chrome(&t), 1 + 1 + 1 + FIG1_SAY_TIMES);
	/* 6 calls x 2 sides, main's thread, what_to_say's threads */
	ck_assert_int_eq(check_otlp(&t), 12 + 1 + FIG1_THREADS);
	e2e_release(&t);
}
END_TEST

START_TEST(test_multi)
{
	static const char *const host[] = { "hostC", "hostB", "hostA" };
	struct rpc_server s[3];
	char *out;
	struct e2e t;
	pid_t c[3];
	int n;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &s[0], "c", 1, host[0], NULL);
	rpc_server_start(&t, &s[1], "b", 1, host[1],
			 ARGS("-n", rpc_port(s[0].tcp)));
	rpc_server_start(&t, &s[2], "a", 1, host[2],
			 ARGS("-n", rpc_port(s[1].tcp)));
	/* three clients at once, then one whose call fails */
	{
		const char *a = rpc_port(s[2].tcp);
		const char *const threads[] = { rpc_prog("demo-client"),
						"-P",
						a,
						"threads",
						"4",
						"25",
						NULL };
		const char *const spawn[] = {
			rpc_prog("demo-client"), "-P", a, "spawn", "3", NULL
		};
		const char *const burn[] = {
			rpc_prog("demo-client"), "-P", a, "burn", "1000", NULL
		};
		const char *const *argv[] = { threads, spawn, burn };
		char o[PATH_MAX], e[PATH_MAX];

		for (int i = 0; i < 3; i++) {
			e2e_fmt(o, sizeof(o), "%s/client%d.out", t.dir, i);
			e2e_fmt(e, sizeof(e), "%s/client%d.err", t.dir, i);
			c[i] = e2e_spawn_traced(&t, argv[i], NULL, o, e);
		}
		for (int i = 0; i < 3; i++)
			e2e_assert_exit(e2e_wait(c[i]), 0, "client");
		rpc_client(&t, "noproc", 1, ARGS("-P", a, "noproc"), 0, &out);
		ck_assert_str_eq(rpc_head(out, "noproc"),
				 "noproc status RPC_PROCUNAVAIL");
		free(out);
	}
	for (int i = 0; i < 3; i++)
		rpc_server_stop(&s[i]);
	e2e_merge(&t);
	/* 100 + (1 + 3) + 3 + 1 calls, the spawned thread's on B */
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls "
					      "WHERE missing IS NULL"),
			 100 + 4 + 3 + 1);
	free(check_folded(&t, NULL));
	check_flamegraph(&t, "cpu.folded", "say_it");
	ck_assert_int_eq(check_chrome(&t), 108);
	n = check_otlp(&t);
	ck_assert_int_ge(n, 2 * 108);
	check_endpoint(&t, n);
	e2e_release(&t);
}
END_TEST

Suite *e2e_export_suite(void)
{
	Suite *s = suite_create("e2e-export");
	TCase *tc = tcase_create("export");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_figure1);
	tcase_add_test(tc, test_multi);
	suite_add_tcase(s, tc);
	return s;
}
