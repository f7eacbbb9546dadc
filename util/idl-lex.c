/*
 * idl-lex.c - the tokenizer of rpcgen .x files (idl-lex.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "idl-lex.h"
#include "usage.h"

void idl_lex_init(struct idl_lexer *lx, const char *text, const char *path)
{
	memset(lx, 0, sizeof(*lx));
	lx->p = text;
	lx->path = path;
	lx->line = 1;
	/* a '%' or '#' line at the very start */
	while (*lx->p == '%' || *lx->p == '#') {
		while (*lx->p && *lx->p != '\n')
			lx->p++;
		if (*lx->p == '\n') {
			lx->p++;
			lx->line++;
		}
	}
	idl_lex_next(lx);
}

void idl_lex_release(struct idl_lexer *lx)
{
	for (size_t i = 0; i < lx->nconsts; i++)
		free(lx->consts[i].name);
	free(lx->consts);
	lx->consts = NULL;
	lx->nconsts = lx->cap_consts = 0;
}

int idl_lex_is(const struct idl_lexer *lx, const char *s)
{
	return (lx->kind == IDL_T_PUNCT || lx->kind == IDL_T_IDENT) &&
	       !strcmp(lx->tok, s);
}

int idl_lex_const_add(struct idl_lexer *lx, const char *name, uint64_t v)
{
	char *copy = strdup(name);

	if (!copy || GROW(lx->consts, lx->cap_consts, lx->nconsts + 1)) {
		free(copy);
		return -ENOMEM;
	}
	lx->consts[lx->nconsts].name = copy;
	lx->consts[lx->nconsts++].value = v;
	return 0;
}

int idl_lex_number(struct idl_lexer *lx, uint64_t *v)
{
	if (lx->kind == IDL_T_NUM) {
		*v = lx->num;
	} else if (lx->kind == IDL_T_IDENT) {
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
		return idl_lex_syntax(lx, "a number");
	}
	if (*v > 0xffffffffULL) {
		fail("%s:%d: malformed rpcgen file: '%s' is out of range",
		     lx->path, lx->line, lx->tok);
		return -EINVAL;
	}
	idl_lex_next(lx);
	return 0;
}

int idl_read_file(const char *path, char **text)
{
	FILE *f = fopen(path, "r"), *m;
	char buf[65536];
	size_t len = 0, n;

	*text = NULL;
	if (!f) {
		fail("cannot open '%s': %s", path, strerror(errno));
		return -ENOENT;
	}
	m = open_memstream(text, &len);
	if (!m) {
		fclose(f);
		return -ENOMEM;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	fclose(m);
	fclose(f);
	if (!*text)
		return -ENOMEM;
	if (memchr(*text, 0, len)) {
		fail("%s: not an rpcgen file (binary data)", path);
		free(*text);
		*text = NULL;
		return -EINVAL;
	}
	return 0;
}

void idl_lex_next(struct idl_lexer *lx)
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
		lx->kind = IDL_T_EOF;
	} else if (isalpha((unsigned char)*p) || *p == '_') {
		size_t n = 0;

		while (isalnum((unsigned char)*p) || *p == '_') {
			if (n < sizeof(lx->tok) - 1)
				lx->tok[n++] = *p;
			p++;
		}
		lx->tok[n] = 0;
		lx->kind = IDL_T_IDENT;
	} else if (isdigit((unsigned char)*p)) {
		char *end;

		errno = 0;
		lx->num = strtoull(p, &end, 0);
		snprintf(lx->tok, sizeof(lx->tok), "%.*s", (int)(end - p), p);
		lx->kind = errno || isalnum((unsigned char)*end) ? IDL_T_BAD
								 : IDL_T_NUM;
		p = end;
		while (isalnum((unsigned char)*p))
			p++;
	} else {
		lx->tok[0] = *p++;
		lx->tok[1] = 0;
		lx->kind = IDL_T_PUNCT;
	}
	lx->p = p;
}

int idl_lex_syntax(struct idl_lexer *lx, const char *want)
{
	fail("%s:%d: malformed rpcgen file: expected %s, found '%s'", lx->path,
	     lx->line, want, lx->kind == IDL_T_EOF ? "end of file" : lx->tok);
	return -EINVAL;
}

int idl_lex_expect(struct idl_lexer *lx, const char *p)
{
	if (lx->kind != IDL_T_PUNCT || strcmp(lx->tok, p)) {
		char want[8];

		snprintf(want, sizeof(want), "'%s'", p);
		return idl_lex_syntax(lx, want);
	}
	idl_lex_next(lx);
	return 0;
}

int idl_lex_ident(struct idl_lexer *lx, char *buf, size_t len, const char *what)
{
	if (lx->kind != IDL_T_IDENT)
		return idl_lex_syntax(lx, what);
	snprintf(buf, len, "%s", lx->tok);
	idl_lex_next(lx);
	return 0;
}
