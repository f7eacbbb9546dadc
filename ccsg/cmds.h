/*
 * cmds.h - ccsg subcommands (commands.h) and the options they share.
 * Each command takes the arguments after its name (argv[0] is the name)
 * and returns the exit status: 0, 1 for an error, 2 for bad usage.
 */
#ifndef CCSG_CMDS_H
#define CCSG_CMDS_H

#include "ccsg.h"
#include "stream.h"
#include "workers.h"
#include "commands.h"
#include "names.h"
#include "output.h"
#include "exact-totals.h"

extern const struct command cmd_dscg;
extern const struct command cmd_report;
extern const struct command cmd_latency;
extern const struct command cmd_compact;
extern const struct command cmd_impact;
extern const struct command cmd_pes;
extern const struct command cmd_export;
extern const struct command cmd_serve;
extern const struct command cmd_spikes;
extern const struct command cmd_diff;
extern const struct command cmd_calls;
extern const struct command cmd_diagnose;

/* The options the commands share: each lists those it takes. */
enum {
	CLI_DB = OPT_LONG,
	CLI_FORMAT,
	CLI_BY,
	CLI_GROUPS,
	CLI_IDL,
	CLI_CHANGE,
	CLI_CHANGES,
	CLI_RESOURCE,
	CLI_WORKERS,
	CLI_SWITCHES
};

#define CLI_OPT_DB                                                             \
	{                                                                      \
		"db", CLI_DB, "PATH|URL",                                      \
			"the trace (default logs/trace.db, or "                \
			"$CAUSAL_LOG_DIR/trace.db), "                          \
			"or a ClickHouse store: "                              \
			"clickhouse://HOST[:PORT]/DATABASE"                    \
	}
#define CLI_OPT_FORMAT(formats) { "format", CLI_FORMAT, formats, \
	"output format (default text)" }
#define CLI_OPT_BY { "by", CLI_BY, "function|object", \
	"a function node per procedure (default), or per serving object and procedure" }
#define CLI_OPT_GROUPS { "groups", CLI_GROUPS, "FILE", \
	"count CPU per group of hosts named in FILE, not per host" }
#define CLI_OPT_RESOURCE                                                       \
	{                                                                      \
		"resource", CLI_RESOURCE, "cpu|memory",                        \
			"what the graph measures: CPU time (default) or heap " \
			"bytes allocated and freed"                            \
	}
#define CLI_OPT_WORKERS                                                        \
	{                                                                      \
		"workers", CLI_WORKERS, "N",                                   \
			"fold the chains with N workers at once, each over "   \
			"its share (1 to 16; default 1)"                       \
	}
#define CLI_OPT_SWITCHES                                                       \
	{                                                                      \
		"switches", CLI_SWITCHES, NULL,                                \
			"list every monitoring interval of every process, "    \
			"one a line (default: a summary)"                      \
	}
#define CLI_OPT_IDL { "idl", CLI_IDL, "FILE.x", \
	"take names from the rpcgen file FILE.x (repeatable)" }

struct cli {
	const char *db;
	int format;
	int by_object;
	const char *groups;
	const char **idl;
	size_t nidl;
	int resource;		/* CCSG_RES_CPU, or CCSG_RES_ALLOC for memory */
	unsigned workers;	/* --workers: 1 unless given */
	int switches;		/* --switches */
	int empty_ok;		/* a trace without processes is no error */
	int with_heap;		/* with CPU: the bytes allocated too, into
				 * session.heap in the same pass (ccsg diff) */
	int status;		/* when cli_parse() returned -1 */
};

/*
 * Parse the options of cmd; the formats it allows are a mask of
 * 1 << enum ccsg_format.  0, or -1 when the command must exit with
 * o->status (0 after --help, 2 after a bad-usage message).
 */
int cli_parse(struct cli *o, const struct command *cmd, int argc, char **argv,
	      unsigned formats);
/* Add an --idl file to o (dies when out of memory). */
void cli_idl_add(struct cli *o, const char *path);

/* Everything a command needs, loaded from the options. */
struct session {
	struct ccsg_trace trace;
	struct ccsg_dscg dscg;
	struct ccsg_dims dims;
	struct ccsg_graph graph; /* CPU, or bytes allocated */
	struct ccsg_graph freed; /* --resource=memory: bytes freed */
	struct ccsg_graph heap;	 /* cli.with_heap: bytes allocated */
	struct idl_names names;
	struct ccsg_totals totals; /* a sampled trace's exact totals */
};

/* Load the trace and build the DSCG (and, with graph, the CCSG of
 * o->resource).  0 or the exit status after a message. */
int session_open(struct session *s, const struct cli *o, int graph);
/* The same with the graph, but the trace read and folded chain by chain
 * (stream.h), each chain shown to watch (or NULL): the calls are never
 * all in memory, nor in s->trace.  With o->workers > 1 (and no watch),
 * by that many workers (workers.h). */
int session_stream(struct session *s, const struct cli *o,
		   const struct ccsg_stream_watch *watch);
void session_close(struct session *s);

#endif
