/*
 * idl.c - the names an RPC system gives its programs: rpcgen .x files
 * (programs, versions, procedures) and /etc/rpc (program names).  Shared
 * by ccsg (node names) and causalctl (selections by name).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "array.h"
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

/* --- the .x tokenizer ----------------------------------------------------- */

enum { T_EOF, T_IDENT, T_NUM, T_PUNCT, T_BAD };

struct lexer {
	const char *p, *path;
	int line;
	int kind;
	char tok[256];
	uint64_t num;
	struct cdef {
		char *name;
		uint64_t value;
	} * consts;
	size_t nconsts, cap_consts;
};

static void next(struct lexer *lx)
{
	const char *p = lx->p;

	for (;;) {
		if (*p == '\n') {
			lx->line++;
			p++;
			/* rpcgen passes '%' lines through; '#' is the
			 * preprocessor */
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == '%' || *p == '#')
				while (*p && *p != '\n')
					p++;
		} else if (isspace((unsigned char)*p)) {
			p++;
		} else if (p[0] == '/' && p[1] == '*') {
			for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
				lx->line += *p == '\n';
			p += *p ? 2 : 0;
		} else if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				p++;
		} else {
			break;
		}
	}
	lx->tok[0] = 0;
	if (!*p) {
		lx->kind = T_EOF;
	} else if (isalpha((unsigned char)*p) || *p == '_') {
		size_t n = 0;

		while (isalnum((unsigned char)*p) || *p == '_') {
			if (n < sizeof(lx->tok) - 1)
				lx->tok[n++] = *p;
			p++;
		}
		lx->tok[n] = 0;
		lx->kind = T_IDENT;
	} else if (isdigit((unsigned char)*p)) {
		char *end;

		errno = 0;
		lx->num = strtoull(p, &end, 0);
		snprintf(lx->tok, sizeof(lx->tok), "%.*s", (int)(end - p), p);
		lx->kind =
			errno || isalnum((unsigned char)*end) ? T_BAD : T_NUM;
		p = end;
		while (isalnum((unsigned char)*p))
			p++;
	} else {
		lx->tok[0] = *p++;
		lx->tok[1] = 0;
		lx->kind = T_PUNCT;
	}
	lx->p = p;
}

static int syntax(struct lexer *lx, const char *want)
{
	fail("%s:%d: malformed rpcgen file: expected %s, found '%s'", lx->path,
	     lx->line, want, lx->kind == T_EOF ? "end of file" : lx->tok);
	return -EINVAL;
}

static int expect(struct lexer *lx, const char *p)
{
	if (lx->kind != T_PUNCT || strcmp(lx->tok, p)) {
		char want[8];

		snprintf(want, sizeof(want), "'%s'", p);
		return syntax(lx, want);
	}
	next(lx);
	return 0;
}

static int ident(struct lexer *lx, char *buf, size_t len, const char *what)
{
	if (lx->kind != T_IDENT)
		return syntax(lx, what);
	snprintf(buf, len, "%s", lx->tok);
	next(lx);
	return 0;
}

/* "= VALUE ;" where VALUE is a number or a const. */
static int value(struct lexer *lx, uint64_t *v)
{
	if (expect(lx, "="))
		return -EINVAL;
	if (lx->kind == T_NUM) {
		*v = lx->num;
	} else if (lx->kind == T_IDENT) {
		size_t i;

		for (i = 0; i < lx->nconsts; i++)
			if (!strcmp(lx->consts[i].name, lx->tok))
				break;
		if (i == lx->nconsts) {
			fail("%s:%d: malformed rpcgen file: unknown constant "
			     "'%s'",
			     lx->path, lx->line, lx->tok);
			return -EINVAL;
		}
		*v = lx->consts[i].value;
	} else {
		return syntax(lx, "a number");
	}
	if (*v > 0xffffffffULL) {
		fail("%s:%d: malformed rpcgen file: '%s' is out of range",
		     lx->path, lx->line, lx->tok);
		return -EINVAL;
	}
	next(lx);
	return expect(lx, ";");
}

/* struct / union / enum / typedef: up to the ';' outside braces. */
static int skip_decl(struct lexer *lx)
{
	int depth = 0, line = lx->line;

	for (; lx->kind != T_EOF; next(lx)) {
		if (lx->kind != T_PUNCT)
			continue;
		if (lx->tok[0] == '{')
			depth++;
		else if (lx->tok[0] == '}' && --depth < 0)
			return syntax(lx, "a declaration");
		else if (lx->tok[0] == ';' && !depth) {
			next(lx);
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

static int parse_program(struct idl_names *nm, struct lexer *lx)
{
	char pname[256], vname[256], fname[256];
	size_t first = nm->n;
	uint64_t v;
	int ret;

	if ((ret = ident(lx, pname, sizeof(pname), "a program name")) ||
	    (ret = expect(lx, "{")))
		return ret;
	do {
		size_t vfirst = nm->n;

		if (lx->kind != T_IDENT || strcmp(lx->tok, "version"))
			return syntax(lx, "'version'");
		next(lx);
		if ((ret = ident(lx, vname, sizeof(vname), "a version name")) ||
		    (ret = expect(lx, "{")))
			return ret;
		do {
			int words = 0;

			/* TYPE... NAME ( ARGS ) = N ; */
			fname[0] = 0;
			while (lx->kind == T_IDENT ||
			       (lx->kind == T_PUNCT &&
				(lx->tok[0] == '*' ||
				 strchr("<>", lx->tok[0])))) {
				if (lx->kind == T_IDENT) {
					snprintf(fname, sizeof(fname), "%s",
						 lx->tok);
					words++;
				}
				next(lx);
			}
			if (words < 2)
				return syntax(
					lx,
					"a procedure 'TYPE NAME(ARGS) = N;'");
			if ((ret = expect(lx, "(")))
				return ret;
			while (lx->kind != T_EOF &&
			       !(lx->kind == T_PUNCT && lx->tok[0] == ')'))
				next(lx);
			if ((ret = expect(lx, ")")) || (ret = value(lx, &v)) ||
			    (ret = add_proc(nm, pname, vname, fname, 0,
					    (uint32_t)v)))
				return ret;
		} while (!(lx->kind == T_PUNCT && lx->tok[0] == '}'));
		next(lx);
		if ((ret = value(lx, &v)))
			return ret;
		for (size_t i = vfirst; i < nm->n; i++)
			nm->procs[i].vers = (uint32_t)v;
	} while (!(lx->kind == T_PUNCT && lx->tok[0] == '}'));
	next(lx);
	if ((ret = value(lx, &v)))
		return ret;
	for (size_t i = first; i < nm->n; i++)
		nm->procs[i].prog = (uint32_t)v;
	return 0;
}

int idl_names_parse(struct idl_names *nm, const char *text, const char *path)
{
	struct lexer lx = { .p = text, .path = path, .line = 1 };
	size_t before = nm->n;
	int ret = 0;

	/* a '%' or '#' line at the very start */
	while (*lx.p == '%' || *lx.p == '#') {
		while (*lx.p && *lx.p != '\n')
			lx.p++;
		if (*lx.p == '\n') {
			lx.p++;
			lx.line++;
		}
	}
	next(&lx);
	while (!ret && lx.kind != T_EOF) {
		if (lx.kind == T_IDENT && !strcmp(lx.tok, "program")) {
			next(&lx);
			ret = parse_program(nm, &lx);
		} else if (lx.kind == T_IDENT && !strcmp(lx.tok, "const")) {
			char name[256];
			uint64_t v;

			next(&lx);
			if (!(ret = ident(&lx, name, sizeof(name),
					  "a constant name")) &&
			    !(ret = value(&lx, &v))) {
				if (GROW(lx.consts, lx.cap_consts,
					 lx.nconsts + 1)) {
					ret = -ENOMEM;
					break;
				}
				lx.consts[lx.nconsts].name = strdup(name);
				lx.consts[lx.nconsts++].value = v;
			}
		} else if (lx.kind == T_IDENT && (!strcmp(lx.tok, "struct") ||
						  !strcmp(lx.tok, "union") ||
						  !strcmp(lx.tok, "enum") ||
						  !strcmp(lx.tok, "typedef"))) {
			ret = skip_decl(&lx);
		} else if (lx.kind == T_PUNCT && lx.tok[0] == ';') {
			next(&lx);
		} else {
			ret = syntax(
				&lx,
				"'program', 'const' or a type declaration");
		}
	}
	for (size_t i = 0; i < lx.nconsts; i++)
		free(lx.consts[i].name);
	free(lx.consts);
	if (!ret && nm->n == before) {
		fail("%s: no program definition in the rpcgen file", path);
		ret = -EINVAL;
	}
	return ret;
}

int idl_names_load(struct idl_names *nm, const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (!f) {
		fail("cannot open '%s': %s", path, strerror(errno));
		return -ENOENT;
	}
	{
		FILE *m = open_memstream(&text, &len);
		char buf[65536];
		size_t n;

		if (!m) {
			fclose(f);
			return -ENOMEM;
		}
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, m);
		fclose(m);
	}
	fclose(f);
	if (!text)
		return -ENOMEM;
	if (memchr(text, 0, len)) {
		fail("%s: not an rpcgen file (binary data)", path);
		ret = -EINVAL;
	} else {
		ret = idl_names_parse(nm, text, path);
	}
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
