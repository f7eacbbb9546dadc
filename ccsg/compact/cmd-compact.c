/*
 * cmd-compact.c - `ccsg compact`: localised structural compaction of a
 * call tree (compact.h), from folded stacks or from the trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "compact.h"
#include "usage.h"

enum {
	C_FOLDED = OPT_LONG + 100,
	C_TREE,
	C_HIERARCHY,
	C_LEVEL,
	C_ACTION,
	C_SEP,
	C_STRICT,
};

static const struct opt compact_opts[] = {
	{ "folded", C_FOLDED, "FILE",
	  "read the tree from folded stacks in FILE ('-': standard input)" },
	{ "tree", C_TREE, "ccsg|dscg",
	  "take the tree from the trace: its CCSG or its DSCG" },
	{ "hierarchy", C_HIERARCHY, "name|location",
	  "trace names: interface > version > function (default), or host > "
	  "process > "
	  "interface > function" },
	{ "level", C_LEVEL, "N",
	  "first show at most N name elements in every node" },
	{ "action", C_ACTION, "'compact|expand PATH'",
	  "then compact or expand the node at PATH (NAME;NAME;...), in order "
	  "(repeatable)" },
	CLI_OPT_FORMAT("text|json|folded"),
	{ "sep", C_SEP, "SEP",
	  "the separator of name elements (default '.' in frames, '::' for the "
	  "trace)" },
	{ "strict", C_STRICT, NULL,
	  "a malformed folded line is an error, not skipped" },
	CLI_OPT_DB,
	CLI_OPT_IDL,
	OPT_END
};

struct action {
	int expand;
	const char *path;
};

struct compact_cli {
	const char *folded, *db, *sep;
	int tree;      /* 0: none, 1: ccsg, 2: dscg */
	int hierarchy; /* -1 when not given */
	int level;     /* 0 when not given */
	int format;
	int strict;
	struct action *actions;
	size_t nactions;
	const char **idl;
	size_t nidl;
};

static int parse_options(struct compact_cli *o, int argc, char **argv);

#define bad(...) opt_bad(&cmd_compact, __VA_ARGS__)

/* 0, or -1 when the command must exit with *status (0 after --help, 2
 * after a bad-usage message). */
static int parse(struct compact_cli *o, int argc, char **argv, int *status)
{
	*status = parse_options(o, argc, argv);
	if (*status < 0) {
		*status = 0;
		return -1;
	}
	if (!*status && o->hierarchy < 0)
		o->hierarchy = COMPACT_BY_NAME;
	return *status ? -1 : 0;
}

/* 0, -1 after --help, or 2 after a bad-usage message. */
static int parse_options(struct compact_cli *o, int argc, char **argv)
{
	struct opt_parser p;
	const char *v;
	int c;

	opt_init(&p, &cmd_compact, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		switch (c) {
		case C_FOLDED:
			o->folded = v;
			break;
		case C_TREE:
			if (strcmp(v, "ccsg") && strcmp(v, "dscg"))
				return bad("--tree takes 'ccsg' or 'dscg', not "
					   "'%s'",
					   v);
			o->tree = strcmp(v, "ccsg") ? 2 : 1;
			break;
		case C_HIERARCHY:
			if (strcmp(v, "name") && strcmp(v, "location"))
				return bad("--hierarchy takes 'name' or "
					   "'location', not '%s'",
					   v);
			o->hierarchy = strcmp(v, "name") ? COMPACT_BY_LOCATION
							 : COMPACT_BY_NAME;
			break;
		case C_LEVEL: {
			char *end;
			long n;

			errno = 0;
			n = strtol(v, &end, 10);
			if (errno || end == v || *end || n < 1 || n > INT32_MAX)
				return bad("--level takes a number of elements "
					   "(1 or more), not '%s'",
					   v);
			o->level = (int)n;
			break;
		}
		case C_ACTION: {
			struct action a = { 0, NULL }, *more;

			if (!strncmp(v, "compact ", 8))
				a.path = v + 8;
			else if (!strncmp(v, "expand ", 7))
				a = (struct action){ 1, v + 7 };
			if (!a.path || !*a.path)
				return bad("--action takes 'compact PATH' or "
					   "'expand PATH', not '%s'",
					   v);
			if (!(more = realloc(o->actions, (o->nactions +
							  1) * sizeof(*more))))
				die("out of memory");
			o->actions = more;
			o->actions[o->nactions++] = a;
			break;
		}
		case CLI_FORMAT:
			if ((o->format = compact_format_parse(v)) < 0)
				return bad("unknown format '%s'", v);
			break;
		case C_SEP:
			if (!*v || strpbrk(v, ";\n"))
				return bad("--sep takes a non-empty separator "
					   "without ';', not '%s'",
					   v);
			o->sep = v;
			break;
		case C_STRICT:
			o->strict = 1;
			break;
		case CLI_DB:
			o->db = v;
			break;
		case CLI_IDL: {
			const char **idl =
				realloc(o->idl, (o->nidl + 1) * sizeof(*idl));

			if (!idl)
				die("out of memory");
			o->idl = idl;
			o->idl[o->nidl++] = v;
			break;
		}
		}
	}
	if (c == OPT_STOP)
		return p.status ? p.status : -1;
	if (p.nargs)
		return bad("unexpected argument '%s'", p.args[0]);
	if (!o->folded == !o->tree)
		return bad("%s",
			   o->folded
				   ? "--folded and --tree exclude each other"
				   : "give --folded FILE or --tree=ccsg|dscg");
	if (o->folded && (o->hierarchy >= 0 || o->db || o->nidl))
		return bad("%s", "--hierarchy, --db and --idl go with --tree, "
				 "not --folded");
	if (o->tree && o->strict)
		return bad("%s", "--strict goes with --folded");
	return 0;
}

static int load_folded(struct compact_tree *t, const struct compact_cli *o)
{
	FILE *f = strcmp(o->folded, "-") ? fopen(o->folded, "r") : stdin;
	int ret;

	if (!f)
		return fail("cannot open '%s': %s", o->folded, strerror(errno));
	ret = compact_folded_read(
		t, f, strcmp(o->folded, "-") ? o->folded : "<stdin>",
		o->strict);
	if (f != stdin)
		fclose(f);
	return ret;
}

static int load_trace(struct compact_tree *t, const struct compact_cli *o)
{
	const char *dir = getenv("CAUSAL_LOG_DIR");
	char db[4096];
	struct session s;
	struct cli c;
	int ret;

	memset(&c, 0, sizeof(c));
	snprintf(db, sizeof(db), "%s/trace.db", dir && *dir ? dir : "logs");
	c.db = o->db ? o->db : db;
	c.idl = o->idl;
	c.nidl = o->nidl;
	/* by location, a CCSG node per serving object: one host each */
	c.by_object = o->tree == 1 && o->hierarchy == COMPACT_BY_LOCATION;
	if (session_open(&s, &c, 1)) {
		session_close(&s);
		return -1;
	}
	ret = o->tree == 1
		      ? compact_from_ccsg(t, &s.graph, &s.names, o->hierarchy)
		      : compact_from_dscg(t, &s.graph, &s.names, o->hierarchy);
	session_close(&s);
	if (ret)
		return fail("%s building the tree of '%s'",
			    ret == -ENOMEM ? "out of memory" : "bad arguments",
			    c.db);
	return 0;
}

static int run(struct compact_tree *t, const struct compact_cli *o)
{
	int ret;

	if (compact_tree_init(t, o->sep ? o->sep : o->folded ? "." : "::"))
		return fail("out of memory");
	if (o->folded ? load_folded(t, o) : load_trace(t, o))
		return -1;
	if ((ret = compact_tree_build(t)))
		return ret == -ENOENT
			       ? fail("the trace holds no node")
			       : fail("out of memory compacting the tree");
	if (o->level && (ret = compact_tree_level_max(t, o->level)))
		return ret == -EPERM
			       ? fail("%s", compact_tree_why(t))
			       : fail("out of memory compacting the tree");
	for (size_t i = 0; i < o->nactions; i++) {
		const struct action *a = &o->actions[i];
		int32_t c = compact_tree_find(t, a->path);

		if (c < 0)
			return fail("cannot %s '%s': no such node",
				    a->expand ? "expand" : "compact", a->path);
		ret = a->expand ? compact_tree_expand(t, c)
				: compact_tree_compact(t, c);
		if (ret == -EPERM)
			return fail("%s", compact_tree_why(t));
		if (ret)
			return fail("out of memory compacting the tree");
	}
	if (compact_tree_print(stdout, t, o->format))
		return fail("cannot write the compacted tree");
	return 0;
}

static int run_compact(int argc, char **argv)
{
	struct compact_cli o = { .hierarchy = -1 };
	struct compact_tree t;
	int status;

	if (parse(&o, argc, argv, &status)) {
		free(o.actions);
		free(o.idl);
		return status;
	}
	memset(&t, 0, sizeof(t));
	status = run(&t, &o) ? 1 : 0;
	compact_tree_release(&t);
	free(o.actions);
	free(o.idl);
	return status;
}

const struct command cmd_compact = {
	"compact",
	run_compact,
	"--folded FILE | --tree=ccsg|dscg [--hierarchy=name|location] [--level "
	"N] "
	"[--action 'compact|expand PATH']... [--format=text|json|folded] "
	"[--sep SEP] "
	"[--strict] [--db PATH] [--idl FILE.x]...",
	"localised structural compaction of a call tree (folded stacks, CCSG, "
	"DSCG)",
	compact_opts,
};
