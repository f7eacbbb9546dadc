/*
 * idl-lex.h - the tokenizer of rpcgen .x files, shared by the names
 * (idl.h) and the types (xdr-types.h) read from them: comments, '%'
 * and '#' lines skipped, constants remembered for the parsers to use.
 */
#ifndef CAUSAL_IDL_LEX_H
#define CAUSAL_IDL_LEX_H

#include <stddef.h>
#include <stdint.h>

enum { IDL_T_EOF, IDL_T_IDENT, IDL_T_NUM, IDL_T_PUNCT, IDL_T_BAD };

struct idl_lexer {
	const char *p, *path;
	int line;
	int kind;      /* IDL_T_* of the current token */
	char tok[256]; /* its text */
	uint64_t num;  /* IDL_T_NUM: its value */
	struct idl_const {
		char *name;
		uint64_t value;
	} * consts;
	size_t nconsts, cap_consts;
};

/* Start at text (path names it in messages), on its first token. */
void idl_lex_init(struct idl_lexer *lx, const char *text, const char *path);
void idl_lex_release(struct idl_lexer *lx);
void idl_lex_next(struct idl_lexer *lx);

/* Is the current token the punctuation or word s? */
int idl_lex_is(const struct idl_lexer *lx, const char *s);

/* fail() "PATH:LINE: malformed rpcgen file: expected WANT, found ..." and
 * -EINVAL; the others return it too, after such a message. */
int idl_lex_syntax(struct idl_lexer *lx, const char *want);
/* The punctuation p, then the next token. */
int idl_lex_expect(struct idl_lexer *lx, const char *p);
/* An identifier into buf (what: its description), then the next token. */
int idl_lex_ident(struct idl_lexer *lx, char *buf, size_t len,
		  const char *what);
/* A number or a known constant of at most 32 bits, then the next token. */
int idl_lex_number(struct idl_lexer *lx, uint64_t *v);
/* Remember constant name; 0 or -ENOMEM. */
int idl_lex_const_add(struct idl_lexer *lx, const char *name, uint64_t v);

/* The whole of file path, NUL-terminated, into *text (free() it); 0,
 * -ENOENT (cannot open: said), -EINVAL (binary: said) or -ENOMEM. */
int idl_read_file(const char *path, char **text);

#endif
