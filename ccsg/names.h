/*
 * names.h - interface and function names for the CCSG nodes.
 *
 * In order of preference: an rpcgen .x file (--idl, the paper's interface
 * definition tree: program, version and procedure names), the client stub
 * symbol recorded at run time ('say_it_1' -> 'say_it', unless the site is
 * libtirpc's own), /etc/rpc for the program, and the numbers.
 */
#ifndef CCSG_NAMES_H
#define CCSG_NAMES_H

#include <stdint.h>

#include "ccsg.h"

struct ccsg_idl_proc {
	uint32_t prog, vers, proc;
	char *prog_name, *vers_name, *proc_name;
};

struct ccsg_names {
	struct ccsg_idl_proc *procs;
	size_t n, cap;
	struct ccsg_rpcent {
		uint32_t prog;
		char *name;
	} *rpc;
	size_t nrpc, cap_rpc;
};

void ccsg_names_init(struct ccsg_names *nm);
void ccsg_names_release(struct ccsg_names *nm);
/*
 * Add the programs of an rpcgen .x file: "program NAME { version NAME {
 * TYPE PROC(ARGS) = N; ... } = N; ... } = N;".  Comments, '%' and '#'
 * lines, const (usable as numbers), struct, union, enum and typedef are
 * understood or skipped.  A malformed file is a fail() naming FILE:LINE,
 * -EINVAL; a missing one -ENOENT.
 */
int ccsg_names_load_idl(struct ccsg_names *nm, const char *path);
int ccsg_names_parse_idl(struct ccsg_names *nm, const char *text, const char *path);
/* Program names from an /etc/rpc style file; a missing file is fine. */
int ccsg_names_load_rpc(struct ccsg_names *nm, const char *path);

/* Is strings[sym] a client stub 'NAME_VERS' outside libtirpc? */
int ccsg_symbol_ok(const struct ccsg_trace *t, int32_t sym, uint32_t vers);

/* Give every node of g its name ("INTERFACE::FUNCTION", "@OBJECT" added
 * with --by=object).  0 or -ENOMEM. */
int ccsg_graph_name(struct ccsg_graph *g, const struct ccsg_names *nm);

/* "INTERFACE::FUNCTION" of a call's numbers into buf. */
void ccsg_function_name(const struct ccsg_names *nm, const struct ccsg_trace *t,
			uint32_t prog, uint32_t vers, uint32_t proc, int32_t symbol,
			char *buf, size_t len);

/* A call's function name; "<start lost>" when its start probe was
 * dropped (its numbers are unknown). */
#define CCSG_LOST_NAME "<start lost>"
void ccsg_call_name(const struct ccsg_names *nm, const struct ccsg_trace *t,
		    const struct ccsg_call *c, char *buf, size_t len);

#endif
