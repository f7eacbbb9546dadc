/*
 * cmd-calls.c - `ccsg calls`: the calls of the trace with the values
 * they were given and gave back (values.h), chosen by function and by
 * conditions on those values (where.h).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmds.h"
#include "json.h"
#include "usage.h"
#include "values.h"
#include "where.h"

enum { CALLS_FUNCTION = CLI_SWITCHES + 1, CALLS_WHERE };

static const struct opt calls_opts[] = {
	CLI_OPT_DB,
	CLI_OPT_FORMAT("text|json"),
	CLI_OPT_IDL,
	{ "function", CALLS_FUNCTION, "F",
	  "only the calls of function F (INTERFACE::FUNCTION, or FUNCTION "
	  "of any interface; any case)" },
	{ "where", CALLS_WHERE, "EXPR",
	  "only the calls whose values meet EXPR: args.x > 3, "
	  "result == \"ok\" (docs/ccsg.md)" },
	OPT_END
};

/* Is name ("INTERFACE::FUNCTION") function f? */
static int is_function(const char *name, const char *f)
{
	const char *sep = strstr(name, "::");

	return !strcasecmp(name, f) || (sep && !strcasecmp(sep + 2, f));
}

/* Bytes not decoded, in text: hex:0011..., hex:- when none. */
static void hex_text(FILE *out, const struct ccsg_value_rec *r)
{
	fputs(r->len ? "hex:" : "hex:-", out);
	for (size_t i = 0; i < r->len; i++)
		fprintf(out, "%02x", r->bytes[i]);
}

static void print_call(FILE *out, const struct ccsg_call *c, const char *name,
		       const struct ccsg_call_values *cv, int json, int first)
{
	if (!json) {
		fprintf(out, "%lld %s", (long long)c->call_id, name);
		for (int k = 0; k < 2; k++) {
			fputs(k ? " -> " : " ", out);
			if (cv->value[k])
				xdr_value_json(out, cv->value[k]);
			else if (cv->rec[k])
				hex_text(out, cv->rec[k]);
			else
				fputs("-", out);
			if (cv->status[k] == XDR_CUT)
				fputs(" (cut)", out);
		}
		putc('\n', out);
		return;
	}
	fprintf(out, "%s{\"call\":%lld,\"function\":", first ? "" : ",\n",
		(long long)c->call_id);
	json_cstr(out, name);
	ccsg_values_json(out, cv);
	putc('}', out);
}

static int list_calls(struct session *s, struct ccsg_values *v,
		      const char *function, const struct ccsg_where *w,
		      int json)
{
	int first = 1;

	if (json)
		putchar('[');
	for (size_t i = 0; i < s->trace.ncalls; i++) {
		const struct ccsg_call *c = &s->trace.calls[i];
		struct ccsg_call_values cv;
		char name[512];

		ccsg_call_name(&s->names, &s->trace, c, name, sizeof(name));
		if (function && !is_function(name, function))
			continue;
		ccsg_values_of(v, c, &cv);
		if (ccsg_where_match(w, cv.value[0], cv.value[1]))
			print_call(stdout, c, name, &cv, json, first),
				first = 0;
		ccsg_call_values_release(&cv);
	}
	if (json)
		puts("]");
	return ferror(stdout) ? fail("cannot write the calls") : 0;
}

static int run_calls(int argc, char **argv)
{
	const char *function = NULL, *expr = NULL, *val;
	struct ccsg_where *w = NULL;
	struct ccsg_values v;
	struct opt_parser p;
	struct session s;
	struct cli o;
	int ret, c;

	if (cli_parse(&o, &cmd_calls, argc, argv,
		      1 << CCSG_TEXT | 1 << CCSG_JSON))
		return o.status;
	/* its own options, which cli_parse() let through */
	opt_init(&p, &cmd_calls, argc, argv);
	while ((c = opt_next(&p, &val)) > 0)
		if (c == CALLS_FUNCTION)
			function = val;
		else if (c == CALLS_WHERE)
			expr = val;
	memset(&v, 0, sizeof(v));
	memset(&s, 0, sizeof(s));
	/* the types first: a .x that does not parse is named by line */
	ret = (expr && ccsg_where_parse(expr, &w)) ||
	      ccsg_values_load(&v, o.db, o.idl, o.nidl) ||
	      session_open(&s, &o, 0) ||
	      list_calls(&s, &v, function, w, o.format == CCSG_JSON);
	if (!ret)
		ccsg_values_note(&v);
	session_close(&s);
	ccsg_values_release(&v);
	ccsg_where_free(w);
	free(o.idl);
	return ret ? 1 : 0;
}

const struct command cmd_calls = {
	"calls",
	run_calls,
	"[--db PATH] [--format=text|json] [--idl FILE.x]... [--function F] "
	"[--where EXPR]",
	"the calls with the values they were given and gave back",
	calls_opts,
};
