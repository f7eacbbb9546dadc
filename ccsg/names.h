/*
 * names.h - interface and function names for the CCSG nodes.
 *
 * In order of preference: an rpcgen .x file (--idl, the paper's interface
 * definition tree: program, version and procedure names), the client stub
 * symbol recorded at run time ('say_it_1' -> 'say_it', unless the site is
 * libtirpc's own), the names the protocols of the programs libtirpc
 * itself calls fix (util/rpc-known.h: 'rpcbind::GETADDR'), /etc/rpc for
 * the program, and the numbers.
 */
#ifndef CCSG_NAMES_H
#define CCSG_NAMES_H

#include <stdint.h>

#include "ccsg.h"
#include "idl.h"

/* Is strings[sym] a client stub 'NAME_VERS' outside libtirpc? */
int ccsg_symbol_ok(const struct ccsg_trace *t, int32_t sym, uint32_t vers);

/* Give every node of g its name ("INTERFACE::FUNCTION", "@OBJECT" added
 * with --by=object).  0 or -ENOMEM. */
int ccsg_graph_name(struct ccsg_graph *g, const struct idl_names *nm);

/* "INTERFACE::FUNCTION" of a call's numbers into buf. */
void ccsg_function_name(const struct idl_names *nm, const struct ccsg_trace *t,
			uint32_t prog, uint32_t vers, uint32_t proc,
			int32_t symbol, char *buf, size_t len);

/* A call's function name; "<start lost>" when its start probe was
 * dropped (its numbers are unknown). */
#define CCSG_LOST_NAME "<start lost>"
void ccsg_call_name(const struct idl_names *nm, const struct ccsg_trace *t,
		    const struct ccsg_call *c, char *buf, size_t len);

#endif
