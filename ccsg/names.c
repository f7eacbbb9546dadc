/*
 * names.c - the rpcgen .x parser, /etc/rpc, and the names of the nodes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "names.h"
#include "usage.h"

void ccsg_names_init(struct ccsg_names *nm)
{
	memset(nm, 0, sizeof(*nm));
}

void ccsg_names_release(struct ccsg_names *nm)
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
	} *consts;
	size_t nconsts, cap_consts;
};

static void next(struct lexer *lx)
{
	const char *p = lx->p;

	for (;;) {
		if (*p == '\n') {
			lx->line++;
			p++;
			/* rpcgen passes '%' lines through; '#' is the preprocessor */
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
		lx->kind = errno || isalnum((unsigned char)*end) ? T_BAD : T_NUM;
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
	fail("%s:%d: malformed rpcgen file: expected %s, found '%s'", lx->path, lx->line, want,
	      lx->kind == T_EOF ? "end of file" : lx->tok);
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
			fail("%s:%d: malformed rpcgen file: unknown constant '%s'", lx->path,
			      lx->line, lx->tok);
			return -EINVAL;
		}
		*v = lx->consts[i].value;
	} else {
		return syntax(lx, "a number");
	}
	if (*v > 0xffffffffULL) {
		fail("%s:%d: malformed rpcgen file: '%s' is out of range", lx->path, lx->line,
		      lx->tok);
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
	fail("%s:%d: malformed rpcgen file: declaration not terminated", lx->path, line);
	return -EINVAL;
}

static int add_proc(struct ccsg_names *nm, const char *pn, const char *vn, const char *fn,
		    uint32_t vers, uint32_t proc)
{
	struct ccsg_idl_proc *p;

	if (GROW(nm->procs, nm->cap, nm->n + 1))
		return -ENOMEM;
	p = &nm->procs[nm->n];
	p->prog = 0;		/* known at the end of the program */
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

static int parse_program(struct ccsg_names *nm, struct lexer *lx)
{
	char pname[256], vname[256], fname[256];
	size_t first = nm->n;
	uint64_t v;
	int ret;

	if ((ret = ident(lx, pname, sizeof(pname), "a program name")) || (ret = expect(lx, "{")))
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
			while (lx->kind == T_IDENT || (lx->kind == T_PUNCT && (lx->tok[0] == '*' ||
				strchr("<>", lx->tok[0])))) {
				if (lx->kind == T_IDENT) {
					snprintf(fname, sizeof(fname), "%s", lx->tok);
					words++;
				}
				next(lx);
			}
			if (words < 2)
				return syntax(lx, "a procedure 'TYPE NAME(ARGS) = N;'");
			if ((ret = expect(lx, "(")))
				return ret;
			while (lx->kind != T_EOF && !(lx->kind == T_PUNCT && lx->tok[0] == ')'))
				next(lx);
			if ((ret = expect(lx, ")")) || (ret = value(lx, &v)) ||
			    (ret = add_proc(nm, pname, vname, fname, 0, (uint32_t)v)))
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

int ccsg_names_parse_idl(struct ccsg_names *nm, const char *text, const char *path)
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
			if (!(ret = ident(&lx, name, sizeof(name), "a constant name")) &&
			    !(ret = value(&lx, &v))) {
				if (GROW(lx.consts, lx.cap_consts, lx.nconsts + 1)) {
					ret = -ENOMEM;
					break;
				}
				lx.consts[lx.nconsts].name = strdup(name);
				lx.consts[lx.nconsts++].value = v;
			}
		} else if (lx.kind == T_IDENT && (!strcmp(lx.tok, "struct") ||
			   !strcmp(lx.tok, "union") || !strcmp(lx.tok, "enum") ||
			   !strcmp(lx.tok, "typedef"))) {
			ret = skip_decl(&lx);
		} else if (lx.kind == T_PUNCT && lx.tok[0] == ';') {
			next(&lx);
		} else {
			ret = syntax(&lx, "'program', 'const' or a type declaration");
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

int ccsg_names_load_idl(struct ccsg_names *nm, const char *path)
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
		ret = ccsg_names_parse_idl(nm, text, path);
	}
	free(text);
	return ret;
}

int ccsg_names_load_rpc(struct ccsg_names *nm, const char *path)
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

/* --- names of nodes --------------------------------------------------------- */

int ccsg_symbol_ok(const struct ccsg_trace *t, int32_t sym, uint32_t vers)
{
	const char *s, *u;
	char suffix[16];
	size_t n;

	if (sym < 0 || (size_t)sym >= t->nstrings)
		return 0;
	s = t->strings[sym];
	n = (size_t)snprintf(suffix, sizeof(suffix), "_%u", vers);
	u = strrchr(s, '_');
	if (!u || u == s || strlen(u) != n || strcmp(u, suffix))
		return 0;
	for (size_t i = 0; i < t->nsites; i++)
		if (t->sites[i].symbol == sym && t->sites[i].tirpc)
			return 0;
	return 1;
}

static const struct ccsg_idl_proc *idl_find(const struct ccsg_names *nm, uint32_t prog,
					    uint32_t vers, uint32_t proc)
{
	for (size_t i = 0; i < nm->n; i++)
		if (nm->procs[i].prog == prog && nm->procs[i].vers == vers &&
		    nm->procs[i].proc == proc)
			return &nm->procs[i];
	return NULL;
}

static void interface_name(const struct ccsg_names *nm, uint32_t prog, char *buf, size_t len)
{
	for (size_t i = 0; i < nm->n; i++)
		if (nm->procs[i].prog == prog) {
			snprintf(buf, len, "%s", nm->procs[i].prog_name);
			return;
		}
	for (size_t i = 0; i < nm->nrpc; i++)
		if (nm->rpc[i].prog == prog) {
			snprintf(buf, len, "%s", nm->rpc[i].name);
			return;
		}
	/* user-defined programs (0x20000000 and up) are written in hex */
	snprintf(buf, len, prog >= 0x20000000u ? "0x%x" : "%u", prog);
}

void ccsg_function_name(const struct ccsg_names *nm, const struct ccsg_trace *t,
			uint32_t prog, uint32_t vers, uint32_t proc, int32_t symbol,
			char *buf, size_t len)
{
	const struct ccsg_idl_proc *p = idl_find(nm, prog, vers, proc);
	char iface[256];

	if (p) {
		snprintf(buf, len, "%s::%s", p->prog_name, p->proc_name);
		return;
	}
	interface_name(nm, prog, iface, sizeof(iface));
	if (symbol >= 0 && ccsg_symbol_ok(t, symbol, vers)) {
		const char *s = t->strings[symbol];

		snprintf(buf, len, "%s::%.*s", iface, (int)(strrchr(s, '_') - s), s);
	} else {
		snprintf(buf, len, "%s::proc%u", iface, proc);
	}
}

void ccsg_call_name(const struct ccsg_names *nm, const struct ccsg_trace *t,
		    const struct ccsg_call *c, char *buf, size_t len)
{
	if (c->lost)
		snprintf(buf, len, "%s", CCSG_LOST_NAME);
	else
		ccsg_function_name(nm, t, c->prog, c->vers, c->proc, c->symbol, buf, len);
}

static void object_name(const struct ccsg_graph *g, const struct ccsg_node *n, char *buf,
			size_t len)
{
	const struct ccsg_trace *t = g->dscg->trace;
	int32_t h;

	if (n->server_proc < 0) {
		snprintf(buf, len, "%s (untraced)",
			 n->peer >= 0 ? t->strings[n->peer] : "unknown server");
		return;
	}
	h = ccsg_trace_host(t, n->server_proc);
	for (size_t i = 0; i < t->nobjects; i++)
		if (t->objects[i].proc == n->server_proc && t->objects[i].object_id == n->object_id &&
		    t->objects[i].address) {
			snprintf(buf, len, "%s:%s", h >= 0 ? t->hosts[h] : "?",
				 t->objects[i].address);
			return;
		}
	snprintf(buf, len, "%s:proc%d.object%d", h >= 0 ? t->hosts[h] : "?", n->server_proc,
		 n->object_id);
}

int ccsg_graph_name(struct ccsg_graph *g, const struct ccsg_names *nm)
{
	const struct ccsg_trace *t = g->dscg->trace;
	char buf[1024], obj[512];

	for (size_t i = 0; i < g->nnodes; i++) {
		struct ccsg_node *n = &g->nodes[i];

		if (n->kind != CCSG_FUNCTION)
			continue;
		ccsg_function_name(nm, t, n->prog, n->vers, n->proc, n->symbol, buf, sizeof(buf));
		if (g->by_object) {
			size_t l = strlen(buf);

			object_name(g, n, obj, sizeof(obj));
			snprintf(buf + l, sizeof(buf) - l, "@%s", obj);
		}
		if (!(n->name = strdup(buf)))
			return -ENOMEM;
	}
	/* thread nodes after, so their function node has its name */
	for (size_t i = 0; i < g->nnodes; i++) {
		struct ccsg_node *n = &g->nodes[i];

		if (n->kind == CCSG_MAIN)
			n->name = strdup("<main>");
		else if (n->kind == CCSG_THREAD && n->serving)
			n->name = strdup("<serving threads>");
		else if (n->kind == CCSG_THREAD && n->parent == 0)
			n->name = strdup("<threads of main>");
		else if (n->kind == CCSG_THREAD) {
			snprintf(buf, sizeof(buf), "<threads of %s>", g->nodes[n->parent].name);
			n->name = strdup(buf);
		}
		if (!n->name)
			return -ENOMEM;
	}
	return 0;
}
