/*
 * xdr-types.h - the data types of rpcgen .x files (RFC 4506's XDR
 * language, with rpcgen's additions): every typedef, struct, union and
 * enum, and each procedure's argument and result types, for the XDR
 * interpreter (xdr-value.h) that decodes recorded values of calls.
 *
 * Understood: int, unsigned [int], hyper, unsigned hyper, long, short,
 * char (and their unsigned forms, which rpcgen sends as int), bool,
 * float, double, quadruple, enum, string<n>, opaque[n] and <n>, fixed
 * and variable arrays, struct, union switch (with default), optional
 * data (*), void, typedef, const, program / version / procedure (one
 * argument or several, rpcgen -N).  Named types are looked up when
 * decoding, so they may be used before they are defined and refer to
 * themselves (a list: struct node { int v; node *next; }).
 */
#ifndef CAUSAL_XDR_TYPES_H
#define CAUSAL_XDR_TYPES_H

#include <stddef.h>
#include <stdint.h>

enum xdr_kind {
	XDR_T_VOID,
	XDR_T_INT,
	XDR_T_UINT,
	XDR_T_HYPER,
	XDR_T_UHYPER,
	XDR_T_FLOAT,
	XDR_T_DOUBLE,
	XDR_T_QUAD,
	XDR_T_BOOL,
	XDR_T_ENUM,
	XDR_T_STRING,
	XDR_T_OPAQUE,
	XDR_T_ARRAY,
	XDR_T_STRUCT,
	XDR_T_UNION,
	XDR_T_OPTIONAL,
	XDR_T_NAMED,
};

#define XDR_NO_MAX UINT32_MAX

struct xdr_type;

struct xdr_decl {
	char *name;
	struct xdr_type *type;
};

struct xdr_enum_value {
	char *name;
	int64_t value;
};

/* A union's case: its value and the arm (xdr_type.fields) it selects. */
struct xdr_case {
	int64_t value;
	size_t arm;
};

struct xdr_type {
	int kind;      /* enum xdr_kind */
	int fixed;     /* OPAQUE, ARRAY: [n], else <n> */
	uint32_t size; /* fixed: n; variable: the maximum (XDR_NO_MAX) */
	char *name;    /* NAMED: the type it names */
	struct xdr_type *elem; /* ARRAY, OPTIONAL */
	/* STRUCT: the members; UNION: the arms (a void arm: type VOID) */
	struct xdr_decl *fields;
	size_t nfields;
	struct xdr_decl disc; /* UNION: the discriminant */
	struct xdr_case *cases;
	size_t ncases;
	long default_arm;	       /* UNION: -1 when none */
	struct xdr_enum_value *values; /* ENUM */
	size_t nvalues;
};

struct xdr_proc {
	uint32_t prog, vers, proc;
	char *name;
	struct xdr_type **args; /* nargs, none for void */
	size_t nargs;
	struct xdr_type *result;
};

struct xdr_types {
	struct xdr_decl *defs; /* typedef, struct, union, enum by name */
	size_t ndefs, cap_defs;
	struct xdr_proc *procs;
	size_t nprocs, cap_procs;
	void **allocs; /* everything above points into these */
	size_t nallocs, cap_allocs;
};

void xdr_types_init(struct xdr_types *t);
void xdr_types_release(struct xdr_types *t);

/*
 * Add the types and procedures of an rpcgen .x file (path names it in
 * messages).  A file that does not parse is one fail() naming FILE:LINE
 * and -EINVAL; a missing one -ENOENT.
 */
int xdr_types_parse(struct xdr_types *t, const char *text, const char *path);
int xdr_types_load(struct xdr_types *t, const char *path);

/* The type named name (NULL: none). */
const struct xdr_type *xdr_types_find(const struct xdr_types *t,
				      const char *name);
/* The procedure (NULL: none of the files defines it). */
const struct xdr_proc *xdr_types_proc(const struct xdr_types *t, uint32_t prog,
				      uint32_t vers, uint32_t proc);

#endif
