/*
 * idl.c - the names an RPC system gives its programs: rpcgen .x files
 * (programs, versions, procedures) and /etc/rpc (program names).  Shared
 * by ccsg (node names) and causalctl (selections by name).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "array.h"
#include "idl-lex.h"
#include "idl.h"
#include "usage.h"

void idl_names_init(struct idl_names *nm)
{
	memset(nm, 0, sizeof(*nm));
}

void idl_names_release(struct idl_names *nm)
{
	for (size_t i = 0; i < nm->n; i++) {
		free(nm->procs[i].prog_name);
		free(nm->procs[i].vers_name);
		free(nm->procs[i].proc_name);
	}
	for (size_t i = 0; i < nm->nrpc; i++)
		free(nm->rpc[i].name);
	free(nm->procs);
	free(nm->rpc);
	memset(nm, 0, sizeof(*nm));
}

/* "= VALUE ;" where VALUE is a number or a const. */
static int value(struct idl_lexer *lx, uint64_t *v)
{
	int ret;

	if ((ret = idl_lex_expect(lx, "=")) || (ret = idl_lex_number(lx, v)))
		return ret;
	return idl_lex_expect(lx, ";");
}

/* struct / union / enum / typedef: up to the ';' outside braces. */
static int skip_decl(struct idl_lexer *lx)
{
	int depth = 0, line = lx->line;

	for (; lx->kind != IDL_T_EOF; idl_lex_next(lx)) {
		if (lx->kind != IDL_T_PUNCT)
			continue;
		if (lx->tok[0] == '{')
			depth++;
		else if (lx->tok[0] == '}' && --depth < 0)
			return idl_lex_syntax(lx, "a declaration");
		else if (lx->tok[0] == ';' && !depth) {
			idl_lex_next(lx);
			return 0;
		}
	}
	fail("%s:%d: malformed rpcgen file: declaration not terminated",
	     lx->path, line);
	return -EINVAL;
}

static int add_proc(struct idl_names *nm, const char *pn, const char *vn,
		    const char *fn, uint32_t vers, uint32_t proc)
{
	struct idl_proc *p;

	if (GROW(nm->procs, nm->cap, nm->n + 1))
		return -ENOMEM;
	p = &nm->procs[nm->n];
	p->prog = 0; /* known at the end of the program */
	p->vers = vers;
	p->proc = proc;
	p->prog_name = strdup(pn);
	p->vers_name = strdup(vn);
	p->proc_name = strdup(fn);
	if (!p->prog_name || !p->vers_name || !p->proc_name)
		return -ENOMEM;
	nm->n++;
	return 0;
}

static int parse_program(struct idl_names *nm, struct idl_lexer *lx)
{
	char pname[256], vname[256], fname[256];
	size_t first = nm->n;
	uint64_t v;
	int ret;

	if ((ret = idl_lex_ident(lx, pname, sizeof(pname), "a program name")) ||
	    (ret = idl_lex_expect(lx, "{")))
		return ret;
	do {
		size_t vfirst = nm->n;

		if (lx->kind != IDL_T_IDENT || strcmp(lx->tok, "version"))
			return idl_lex_syntax(lx, "'version'");
		idl_lex_next(lx);
		if ((ret = idl_lex_ident(lx, vname, sizeof(vname),
					 "a version name")) ||
		    (ret = idl_lex_expect(lx, "{")))
			return ret;
		do {
			int words = 0;

			/* TYPE... NAME ( ARGS ) = N ; */
			fname[0] = 0;
			while (lx->kind == IDL_T_IDENT ||
			       (lx->kind == IDL_T_PUNCT &&
				(lx->tok[0] == '*' ||
				 strchr("<>", lx->tok[0])))) {
				if (lx->kind == IDL_T_IDENT) {
					snprintf(fname, sizeof(fname), "%s",
						 lx->tok);
					words++;
				}
				idl_lex_next(lx);
			}
			if (words < 2)
				return idl_lex_syntax(
					lx,
					"a procedure 'TYPE NAME(ARGS) = N;'");
			if ((ret = idl_lex_expect(lx, "(")))
				return ret;
			while (lx->kind != IDL_T_EOF &&
			       !(lx->kind == IDL_T_PUNCT && lx->tok[0] == ')'))
				idl_lex_next(lx);
			if ((ret = idl_lex_expect(lx, ")")) ||
			    (ret = value(lx, &v)) ||
			    (ret = add_proc(nm, pname, vname, fname, 0,
					    (uint32_t)v)))
				return ret;
		} while (!(lx->kind == IDL_T_PUNCT && lx->tok[0] == '}'));
		idl_lex_next(lx);
		if ((ret = value(lx, &v)))
			return ret;
		for (size_t i = vfirst; i < nm->n; i++)
			nm->procs[i].vers = (uint32_t)v;
	} while (!(lx->kind == IDL_T_PUNCT && lx->tok[0] == '}'));
	idl_lex_next(lx);
	if ((ret = value(lx, &v)))
		return ret;
	for (size_t i = first; i < nm->n; i++)
		nm->procs[i].prog = (uint32_t)v;
	return 0;
}

int idl_names_parse(struct idl_names *nm, const char *text, const char *path)
{
	struct idl_lexer lx;
	size_t before = nm->n;
	int ret = 0;

	idl_lex_init(&lx, text, path);
	while (!ret && lx.kind != IDL_T_EOF) {
		if (lx.kind == IDL_T_IDENT && !strcmp(lx.tok, "program")) {
			idl_lex_next(&lx);
			ret = parse_program(nm, &lx);
		} else if (lx.kind == IDL_T_IDENT && !strcmp(lx.tok, "const")) {
			char name[256];
			uint64_t v;

			idl_lex_next(&lx);
			if (!(ret = idl_lex_ident(&lx, name, sizeof(name),
						  "a constant name")) &&
			    !(ret = value(&lx, &v))) {
				if (idl_lex_const_add(&lx, name, v)) {
					ret = -ENOMEM;
					break;
				}
			}
		} else if (lx.kind == IDL_T_IDENT &&
			   (!strcmp(lx.tok, "struct") ||
			    !strcmp(lx.tok, "union") ||
			    !strcmp(lx.tok, "enum") ||
			    !strcmp(lx.tok, "typedef"))) {
			ret = skip_decl(&lx);
		} else if (lx.kind == IDL_T_PUNCT && lx.tok[0] == ';') {
			idl_lex_next(&lx);
		} else {
			ret = idl_lex_syntax(
				&lx,
				"'program', 'const' or a type declaration");
		}
	}
	idl_lex_release(&lx);
	if (!ret && nm->n == before) {
		fail("%s: no program definition in the rpcgen file", path);
		ret = -EINVAL;
	}
	return ret;
}

int idl_names_load(struct idl_names *nm, const char *path)
{
	char *text;
	int ret = idl_read_file(path, &text);

	if (ret)
		return ret;
	ret = idl_names_parse(nm, text, path);
	free(text);
	return ret;
}

int idl_names_load_rpc(struct idl_names *nm, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char name[256];
		unsigned long num;
		char *hash = strchr(line, '#');

		if (hash)
			*hash = 0;
		if (sscanf(line, "%255s %lu", name, &num) != 2)
			continue;
		if (GROW(nm->rpc, nm->cap_rpc, nm->nrpc + 1))
			break;
		nm->rpc[nm->nrpc].prog = (uint32_t)num;
		nm->rpc[nm->nrpc].name = strdup(name);
		if (nm->rpc[nm->nrpc].name)
			nm->nrpc++;
	}
	fclose(f);
	return 0;
}

/* --- lookups by name ---------------------------------------------------------
 */

size_t idl_names_find_proc(const struct idl_names *nm, const char *name,
			   int prog_any, uint32_t prog,
			   const struct idl_proc **out, size_t max)
{
	size_t found = 0;

	for (size_t i = 0; i < nm->n; i++) {
		const struct idl_proc *p = &nm->procs[i];

		if ((prog_any || p->prog == prog) &&
		    !strcasecmp(p->proc_name, name)) {
			if (found < max)
				out[found] = p;
			found++;
		}
	}
	return found;
}

int idl_names_find_prog(const struct idl_names *nm, const char *name,
			uint32_t *prog)
{
	for (size_t i = 0; i < nm->n; i++)
		if (!strcasecmp(nm->procs[i].prog_name, name)) {
			*prog = nm->procs[i].prog;
			return 0;
		}
	for (size_t i = 0; i < nm->nrpc; i++)
		if (!strcasecmp(nm->rpc[i].name, name)) {
			*prog = nm->rpc[i].prog;
			return 0;
		}
	return -ENOENT;
}
