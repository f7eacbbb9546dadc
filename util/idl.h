/*
 * idl.h - program, version and procedure names from rpcgen .x files, and
 * program names from /etc/rpc.
 */
#ifndef CAUSAL_IDL_H
#define CAUSAL_IDL_H

#include <stddef.h>
#include <stdint.h>

struct idl_proc {
	uint32_t prog, vers, proc;
	char *prog_name, *vers_name, *proc_name;
};

struct idl_names {
	struct idl_proc *procs;
	size_t n, cap;
	struct idl_rpcent {
		uint32_t prog;
		char *name;
	} * rpc;
	size_t nrpc, cap_rpc;
};

void idl_names_init(struct idl_names *nm);
void idl_names_release(struct idl_names *nm);
/*
 * Add the programs of an rpcgen .x file: "program NAME { version NAME {
 * TYPE PROC(ARGS) = N; ... } = N; ... } = N;".  Comments, '%' and '#'
 * lines, const (usable as numbers), struct, union, enum and typedef are
 * understood or skipped.  A malformed file is a fail() naming FILE:LINE,
 * -EINVAL; a missing one -ENOENT.
 */
int idl_names_load(struct idl_names *nm, const char *path);
int idl_names_parse(struct idl_names *nm, const char *text, const char *path);
/* Program names from an /etc/rpc style file; a missing file is fine. */
int idl_names_load_rpc(struct idl_names *nm, const char *path);

/* The procedures named NAME (any case) of program prog (every program
 * when prog_any), into the first max of out; how many there are. */
size_t idl_names_find_proc(const struct idl_names *nm, const char *name,
			   int prog_any, uint32_t prog,
			   const struct idl_proc **out, size_t max);
/* Program prog's number by name (any case): the .x files first, then
 * /etc/rpc; 0 when found, -ENOENT when not. */
int idl_names_find_prog(const struct idl_names *nm, const char *name,
			uint32_t *prog);

#endif
