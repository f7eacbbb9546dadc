/*
 * cmds.h - ccsg subcommands and the options they share.  Each command
 * takes the arguments after its name (argv[0] is the name) and returns
 * the exit status: 0, 1 for an error, 2 for bad usage.
 */
#ifndef CCSG_CMDS_H
#define CCSG_CMDS_H

#include "ccsg.h"
#include "names.h"
#include "output.h"

int cmd_dscg(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_latency(int argc, char **argv);

struct cli {
	const char *db;
	int format;
	int by_object;
	const char *groups;
	const char **idl;
	size_t nidl;
};

/* Parse the options of a command; the formats it allows are a mask of
 * 1 << enum ccsg_format.  0, or the exit status (2) after a message. */
int cli_parse(struct cli *o, int argc, char **argv, unsigned formats, const char *usage);

/* Everything a command needs, loaded from the options. */
struct session {
	struct ccsg_trace trace;
	struct ccsg_dscg dscg;
	struct ccsg_dims dims;
	struct ccsg_graph graph;
	struct ccsg_names names;
};

/* Load the trace and build the DSCG (and, with graph, the CCSG).  0 or
 * the exit status after a message. */
int session_open(struct session *s, const struct cli *o, int graph);
void session_close(struct session *s);

#endif
