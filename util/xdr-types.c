/*
 * xdr-types.c - the types of rpcgen .x files (xdr-types.h): a recursive
 * descent parser over RFC 4506's grammar (Section 6.3) and rpcgen's
 * program definitions, on the tokenizer the names use (idl-lex.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "idl-lex.h"
#include "usage.h"
#include "xdr-types.h"

struct parser {
	struct xdr_types *t;
	struct idl_lexer lx;
	int nomem;
};

void xdr_types_init(struct xdr_types *t)
{
	memset(t, 0, sizeof(*t));
}

void xdr_types_release(struct xdr_types *t)
{
	for (size_t i = 0; i < t->nallocs; i++)
		free(t->allocs[i]);
	free(t->allocs);
	free(t->defs);
	free(t->procs);
	memset(t, 0, sizeof(*t));
}

/* Zeroed memory that lives as long as t (NULL: out of memory, noted). */
static void *alloc(struct parser *ps, size_t size)
{
	struct xdr_types *t = ps->t;
	void *p;

	if (GROW(t->allocs, t->cap_allocs, t->nallocs + 1) ||
	    !(p = calloc(1, size))) {
		ps->nomem = 1;
		return NULL;
	}
	t->allocs[t->nallocs++] = p;
	return p;
}

static char *copy(struct parser *ps, const char *s)
{
	char *p = alloc(ps, strlen(s) + 1);

	return p ? strcpy(p, s) : NULL;
}

/* Append one element of size to the array *v of *n, kept in t. */
static void *append(struct parser *ps, void *v, size_t *n, size_t size)
{
	char *p = alloc(ps, (*n + 1) * size);

	if (!p)
		return NULL;
	if (*n)
		memcpy(p, *(void **)v, *n * size);
	*(void **)v = p;
	return p + (*n)++ * size;
}

static struct xdr_type *new_type(struct parser *ps, int kind)
{
	struct xdr_type *ty = alloc(ps, sizeof(*ty));

	if (ty) {
		ty->kind = kind;
		ty->size = XDR_NO_MAX;
		ty->default_arm = -1;
	}
	return ty;
}

static int nomem(struct parser *ps)
{
	ps->nomem = 1;
	return -ENOMEM;
}

/* A value: [-] number or constant (an enum's member too). */
static int signed_value(struct parser *ps, int64_t *v)
{
	int neg = idl_lex_is(&ps->lx, "-");
	uint64_t u;
	int ret;

	if (neg)
		idl_lex_next(&ps->lx);
	if ((ret = idl_lex_number(&ps->lx, &u)))
		return ret;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

static int parse_decl(struct parser *ps, struct xdr_decl *d);

/* "{ NAME [= VALUE], ... }": members without a value count on. */
static int enum_body(struct parser *ps, struct xdr_type *ty)
{
	struct idl_lexer *lx = &ps->lx;
	int64_t next = 0;
	int ret;

	if ((ret = idl_lex_expect(lx, "{")))
		return ret;
	do {
		struct xdr_enum_value *e;
		char name[256];

		if ((ret = idl_lex_ident(lx, name, sizeof(name),
					 "an enum member")))
			return ret;
		if (idl_lex_is(lx, "=")) {
			idl_lex_next(lx);
			if ((ret = signed_value(ps, &next)))
				return ret;
		}
		e = append(ps, &ty->values, &ty->nvalues, sizeof(*e));
		if (!e || !(e->name = copy(ps, name)) ||
		    idl_lex_const_add(lx, name, (uint64_t)next & 0xffffffff))
			return nomem(ps);
		e->value = next++;
	} while (idl_lex_is(lx, ",") && (idl_lex_next(lx), 1));
	return idl_lex_expect(lx, "}");
}

/* "DECL;": a struct's member or a union's arm, appended to ty's. */
static int member(struct parser *ps, struct xdr_type *ty)
{
	struct xdr_decl *d = append(ps, &ty->fields, &ty->nfields, sizeof(*d));
	int ret;

	if (!d)
		return nomem(ps);
	if ((ret = parse_decl(ps, d)))
		return ret;
	return idl_lex_expect(&ps->lx, ";");
}

/* "{ DECL; ... }" */
static int struct_body(struct parser *ps, struct xdr_type *ty)
{
	struct idl_lexer *lx = &ps->lx;
	int ret;

	if ((ret = idl_lex_expect(lx, "{")))
		return ret;
	do {
		if ((ret = member(ps, ty)))
			return ret;
	} while (!idl_lex_is(lx, "}"));
	idl_lex_next(lx);
	return 0;
}

/* "switch (DECL) { case V: [case V:] DECL; ... [default: DECL;] }" */
static int union_body(struct parser *ps, struct xdr_type *ty)
{
	struct idl_lexer *lx = &ps->lx;
	int ret;

	if (!idl_lex_is(lx, "switch"))
		return idl_lex_syntax(lx, "'switch'");
	idl_lex_next(lx);
	if ((ret = idl_lex_expect(lx, "(")) ||
	    (ret = parse_decl(ps, &ty->disc)) ||
	    (ret = idl_lex_expect(lx, ")")) || (ret = idl_lex_expect(lx, "{")))
		return ret;
	do {
		int dflt = 0;

		if (idl_lex_is(lx, "default")) {
			idl_lex_next(lx);
			dflt = 1;
			if ((ret = idl_lex_expect(lx, ":")))
				return ret;
		} else if (!idl_lex_is(lx, "case")) {
			return idl_lex_syntax(lx, "'case' or 'default'");
		}
		while (idl_lex_is(lx, "case")) {
			struct xdr_case *c;

			idl_lex_next(lx);
			c = append(ps, &ty->cases, &ty->ncases, sizeof(*c));
			if (!c)
				return nomem(ps);
			c->arm = ty->nfields;
			if ((ret = signed_value(ps, &c->value)) ||
			    (ret = idl_lex_expect(lx, ":")))
				return ret;
		}
		if (dflt)
			ty->default_arm = (long)ty->nfields;
		if ((ret = member(ps, ty)))
			return ret;
	} while (!idl_lex_is(lx, "}"));
	idl_lex_next(lx);
	return 0;
}

/* The built-in type words, and what they are on the wire. */
static const struct {
	const char *word;
	int kind;
} builtins[] = {
	{ "int", XDR_T_INT },
	{ "long", XDR_T_INT },
	{ "short", XDR_T_INT },
	{ "char", XDR_T_INT },
	{ "hyper", XDR_T_HYPER },
	{ "float", XDR_T_FLOAT },
	{ "double", XDR_T_DOUBLE },
	{ "quadruple", XDR_T_QUAD },
	{ "bool", XDR_T_BOOL },
	{ "bool_t", XDR_T_BOOL },
	{ "u_int", XDR_T_UINT },
	{ "u_long", XDR_T_UINT },
	{ "u_short", XDR_T_UINT },
	{ "u_char", XDR_T_UINT },
	{ "u_hyper", XDR_T_UHYPER },
	{ "int32_t", XDR_T_INT },
	{ "uint32_t", XDR_T_UINT },
	{ "int64_t", XDR_T_HYPER },
	{ "uint64_t", XDR_T_UHYPER },
	{ "u_int32_t", XDR_T_UINT },
	{ "u_int64_t", XDR_T_UHYPER },
	{ "void", XDR_T_VOID },
	/* a procedure's argument or result (rpcgen's wrapstring) */
	{ "string", XDR_T_STRING },
};

/* A type specifier (RFC 4506 type-specifier; string and opaque are the
 * declaration's): *ty. */
static int type_spec(struct parser *ps, struct xdr_type **ty)
{
	struct idl_lexer *lx = &ps->lx;
	int kind = -1, ret;

	if (lx->kind != IDL_T_IDENT)
		return idl_lex_syntax(lx, "a type");
	if (!strcmp(lx->tok, "unsigned")) {
		idl_lex_next(lx);
		kind = XDR_T_UINT;
		if (idl_lex_is(lx, "hyper"))
			kind = XDR_T_UHYPER;
		if (idl_lex_is(lx, "int") || idl_lex_is(lx, "long") ||
		    idl_lex_is(lx, "short") || idl_lex_is(lx, "char") ||
		    idl_lex_is(lx, "hyper"))
			idl_lex_next(lx);
		return (*ty = new_type(ps, kind)) ? 0 : nomem(ps);
	}
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(lx->tok, builtins[i].word))
			kind = builtins[i].kind;
	if (kind >= 0) {
		idl_lex_next(lx);
		return (*ty = new_type(ps, kind)) ? 0 : nomem(ps);
	}
	if (idl_lex_is(lx, "enum") || idl_lex_is(lx, "struct") ||
	    idl_lex_is(lx, "union")) {
		int k = idl_lex_is(lx, "enum")	   ? XDR_T_ENUM
			: idl_lex_is(lx, "struct") ? XDR_T_STRUCT
						   : XDR_T_UNION;

		idl_lex_next(lx);
		if (lx->kind == IDL_T_IDENT && k != XDR_T_UNION) {
			/* "struct NAME": a reference (rpcgen) */
			if (!(*ty = new_type(ps, XDR_T_NAMED)) ||
			    !((*ty)->name = copy(ps, lx->tok)))
				return nomem(ps);
			idl_lex_next(lx);
			return 0;
		}
		if (!(*ty = new_type(ps, k)))
			return nomem(ps);
		ret = k == XDR_T_ENUM	  ? enum_body(ps, *ty)
		      : k == XDR_T_STRUCT ? struct_body(ps, *ty)
					  : union_body(ps, *ty);
		return ret;
	}
	if (!(*ty = new_type(ps, XDR_T_NAMED)) ||
	    !((*ty)->name = copy(ps, lx->tok)))
		return nomem(ps);
	idl_lex_next(lx);
	return 0;
}

/* "[n]" or "<[n]>" after a declaration's name, if any: *fixed, *size. */
static int bounds(struct parser *ps, int *fixed, uint32_t *size, int *has)
{
	struct idl_lexer *lx = &ps->lx;
	uint64_t n;
	int ret;

	*has = 1;
	if (idl_lex_is(lx, "[")) {
		idl_lex_next(lx);
		if ((ret = idl_lex_number(lx, &n)))
			return ret;
		*fixed = 1;
		*size = (uint32_t)n;
		return idl_lex_expect(lx, "]");
	}
	if (idl_lex_is(lx, "<")) {
		idl_lex_next(lx);
		*fixed = 0;
		*size = XDR_NO_MAX;
		if (!idl_lex_is(lx, ">")) {
			if ((ret = idl_lex_number(lx, &n)))
				return ret;
			*size = (uint32_t)n;
		}
		return idl_lex_expect(lx, ">");
	}
	*has = 0;
	return 0;
}

/* A declaration (RFC 4506 declaration): name and type into d. */
static int parse_decl(struct parser *ps, struct xdr_decl *d)
{
	struct idl_lexer *lx = &ps->lx;
	struct xdr_type *base = NULL, *ty;
	int string = idl_lex_is(lx, "string"),
	    opaque = idl_lex_is(lx, "opaque");
	int fixed = 0, has, ret;
	uint32_t size = XDR_NO_MAX;
	char name[256];

	if (string || opaque)
		idl_lex_next(lx);
	else if ((ret = type_spec(ps, &base)))
		return ret;
	if (base && base->kind == XDR_T_VOID) {
		d->type = base;
		return (d->name = copy(ps, "")) ? 0 : nomem(ps);
	}
	if (base && idl_lex_is(lx, "*")) {
		idl_lex_next(lx);
		if (!(ty = new_type(ps, XDR_T_OPTIONAL)))
			return nomem(ps);
		ty->elem = base;
		base = ty;
	}
	if ((ret = idl_lex_ident(lx, name, sizeof(name), "a name")) ||
	    (ret = bounds(ps, &fixed, &size, &has)))
		return ret;
	if ((string || opaque) && !has)
		return idl_lex_syntax(lx, "'[' or '<'");
	if (string && fixed)
		return idl_lex_syntax(lx, "'<' (a string is variable)");
	if (string || opaque || has) {
		if (!(ty = new_type(ps, string	 ? XDR_T_STRING
					: opaque ? XDR_T_OPAQUE
						 : XDR_T_ARRAY)))
			return nomem(ps);
		ty->fixed = fixed;
		ty->size = size;
		ty->elem = base;
		base = ty;
	}
	d->type = base;
	return (d->name = copy(ps, name)) ? 0 : nomem(ps);
}

static int add_def(struct parser *ps, const char *name, struct xdr_type *ty)
{
	struct xdr_types *t = ps->t;

	if (GROW(t->defs, t->cap_defs, t->ndefs + 1) ||
	    !(t->defs[t->ndefs].name = copy(ps, name)))
		return nomem(ps);
	t->defs[t->ndefs++].type = ty;
	return 0;
}

/* "struct|union|enum NAME BODY ;" and "typedef DECL ;" */
static int definition(struct parser *ps)
{
	struct idl_lexer *lx = &ps->lx;
	struct xdr_decl d = { 0 };
	char name[256];
	int ret;

	if (idl_lex_is(lx, "typedef")) {
		idl_lex_next(lx);
		if ((ret = parse_decl(ps, &d)))
			return ret;
		if (!*d.name)
			return idl_lex_syntax(lx, "a typedef's name");
	} else {
		int k = idl_lex_is(lx, "enum")	   ? XDR_T_ENUM
			: idl_lex_is(lx, "struct") ? XDR_T_STRUCT
						   : XDR_T_UNION;

		idl_lex_next(lx);
		if ((ret = idl_lex_ident(lx, name, sizeof(name), "a name")))
			return ret;
		if (!(d.type = new_type(ps, k)))
			return nomem(ps);
		ret = k == XDR_T_ENUM	  ? enum_body(ps, d.type)
		      : k == XDR_T_STRUCT ? struct_body(ps, d.type)
					  : union_body(ps, d.type);
		if (ret)
			return ret;
		d.name = name;
	}
	if ((ret = add_def(ps, d.name, d.type)))
		return ret;
	return idl_lex_expect(lx, ";");
}

/* "= VALUE ;" */
static int number_end(struct parser *ps, uint32_t *v)
{
	uint64_t n;
	int ret;

	if ((ret = idl_lex_expect(&ps->lx, "=")) ||
	    (ret = idl_lex_number(&ps->lx, &n)))
		return ret;
	*v = (uint32_t)n;
	return idl_lex_expect(&ps->lx, ";");
}

/* "TYPE NAME ( TYPE [, TYPE]... ) = N ;" */
static int procedure(struct parser *ps, struct xdr_proc *p)
{
	struct idl_lexer *lx = &ps->lx;
	char name[256];
	int ret;

	if ((ret = type_spec(ps, &p->result)) ||
	    (ret = idl_lex_ident(lx, name, sizeof(name), "a procedure name")) ||
	    (ret = idl_lex_expect(lx, "(")))
		return ret;
	if (!(p->name = copy(ps, name)))
		return nomem(ps);
	do {
		struct xdr_type *a;
		struct xdr_type **slot;

		if ((ret = type_spec(ps, &a)))
			return ret;
		if (lx->kind == IDL_T_IDENT) /* rpcgen -N: a name may follow */
			idl_lex_next(lx);
		if (a->kind == XDR_T_VOID)
			continue;
		slot = append(ps, &p->args, &p->nargs, sizeof(*slot));
		if (!slot)
			return nomem(ps);
		*slot = a;
	} while (idl_lex_is(lx, ",") && (idl_lex_next(lx), 1));
	if ((ret = idl_lex_expect(lx, ")")))
		return ret;
	return number_end(ps, &p->proc);
}

static int program(struct parser *ps)
{
	struct xdr_types *t = ps->t;
	struct idl_lexer *lx = &ps->lx;
	size_t first = t->nprocs;
	uint32_t n;
	int ret;

	idl_lex_next(lx); /* program */
	if (lx->kind != IDL_T_IDENT)
		return idl_lex_syntax(lx, "a program name");
	idl_lex_next(lx);
	if ((ret = idl_lex_expect(lx, "{")))
		return ret;
	do {
		size_t vfirst = t->nprocs;

		if (!idl_lex_is(lx, "version"))
			return idl_lex_syntax(lx, "'version'");
		idl_lex_next(lx);
		if (lx->kind != IDL_T_IDENT)
			return idl_lex_syntax(lx, "a version name");
		idl_lex_next(lx);
		if ((ret = idl_lex_expect(lx, "{")))
			return ret;
		do {
			if (GROW(t->procs, t->cap_procs, t->nprocs + 1))
				return nomem(ps);
			memset(&t->procs[t->nprocs], 0, sizeof(t->procs[0]));
			if ((ret = procedure(ps, &t->procs[t->nprocs])))
				return ret;
			t->nprocs++;
		} while (!idl_lex_is(lx, "}"));
		idl_lex_next(lx);
		if ((ret = number_end(ps, &n)))
			return ret;
		for (size_t i = vfirst; i < t->nprocs; i++)
			t->procs[i].vers = n;
	} while (!idl_lex_is(lx, "}"));
	idl_lex_next(lx);
	if ((ret = number_end(ps, &n)))
		return ret;
	for (size_t i = first; i < t->nprocs; i++)
		t->procs[i].prog = n;
	return 0;
}

int xdr_types_parse(struct xdr_types *t, const char *text, const char *path)
{
	struct parser ps = { .t = t };
	struct idl_lexer *lx = &ps.lx;
	int ret = 0;

	idl_lex_init(lx, text, path);
	while (!ret && lx->kind != IDL_T_EOF) {
		if (idl_lex_is(lx, "program")) {
			ret = program(&ps);
		} else if (idl_lex_is(lx, "const")) {
			char name[256];
			int64_t v;

			idl_lex_next(lx);
			if (!(ret = idl_lex_ident(lx, name, sizeof(name),
						  "a constant name")) &&
			    !(ret = idl_lex_expect(lx, "=")) &&
			    !(ret = signed_value(&ps, &v)) &&
			    !(ret = idl_lex_expect(lx, ";")) &&
			    idl_lex_const_add(lx, name, (uint64_t)v))
				ret = nomem(&ps);
		} else if (idl_lex_is(lx, "typedef") ||
			   idl_lex_is(lx, "struct") ||
			   idl_lex_is(lx, "union") || idl_lex_is(lx, "enum")) {
			ret = definition(&ps);
		} else if (idl_lex_is(lx, ";")) {
			idl_lex_next(lx);
		} else {
			ret = idl_lex_syntax(
				lx, "'program', 'const' or a type declaration");
		}
		if (ps.nomem && ret != -EINVAL) {
			fail("%s: out of memory", path);
			ret = -ENOMEM;
		}
	}
	idl_lex_release(lx);
	return ret;
}

int xdr_types_load(struct xdr_types *t, const char *path)
{
	char *text;
	int ret = idl_read_file(path, &text);

	if (ret)
		return ret;
	ret = xdr_types_parse(t, text, path);
	free(text);
	return ret;
}

const struct xdr_type *xdr_types_find(const struct xdr_types *t,
				      const char *name)
{
	/* the last definition wins, as a later file's would in C */
	for (size_t i = t->ndefs; i-- > 0;)
		if (!strcmp(t->defs[i].name, name))
			return t->defs[i].type;
	return NULL;
}

const struct xdr_proc *xdr_types_proc(const struct xdr_types *t, uint32_t prog,
				      uint32_t vers, uint32_t proc)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].prog == prog && t->procs[i].vers == vers &&
		    t->procs[i].proc == proc)
			return &t->procs[i];
	return NULL;
}
