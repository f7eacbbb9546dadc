/*
 * impact-spec.c - the change statements of `ccsg impact` (impact.h): a
 * tokenizer that keeps lines and columns, so that a malformed statement
 * is one message at its offending token, and the statements' grammar
 * (docs/impact.md):
 *
 *	STATEMENT := ("reduction" | "increase") "on" SCOPE
 *		     "by" PERCENT "%" "to" "function" SET
 *	SCOPE     := "all" ["processors"] | "processor" "group" SET
 *		   | "processor" SET | "host" SET
 *	SET       := "{" NAME ("," NAME)* "}"
 *	PERCENT   := 20 | 12.5 | 300/7
 *
 * statements separated by ';', keywords in any case, '#' comments.
 * The percentage is kept as an exact fraction, and so is the factor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "array.h"
#include "impact-spec.h"
#include "usage.h"

enum { TK_END, TK_WORD, TK_PUNCT, TK_BAD };

struct lex {
	const char *p;
	const char *source;
	int one_line;
	int line, col; /* of p */
	int kind;
	int quoted; /* the word was a "string" */
	char tok[256];
	struct ccsg_spec_pos pos; /* of the token */
};

/* Characters that end a word; '#' starts a comment. */
#define SPEC_PUNCT "{},;%"
#define SPEC_STOP SPEC_PUNCT "\"#"

static void adv(struct lex *lx)
{
	if (*lx->p == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->p++;
}

static void next(struct lex *lx)
{
	size_t n = 0;

	for (;;) {
		if (*lx->p == '#')
			while (*lx->p && *lx->p != '\n')
				adv(lx);
		else if (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' ||
			 *lx->p == '\r')
			adv(lx);
		else
			break;
	}
	lx->pos = (struct ccsg_spec_pos){ lx->line, lx->col };
	lx->quoted = 0;
	lx->tok[0] = 0;
	if (!*lx->p) {
		lx->kind = TK_END;
	} else if (strchr(SPEC_PUNCT, *lx->p)) {
		lx->tok[0] = *lx->p;
		lx->tok[1] = 0;
		lx->kind = TK_PUNCT;
		adv(lx);
	} else if (*lx->p == '"') {
		adv(lx);
		lx->kind = TK_WORD;
		lx->quoted = 1;
		while (*lx->p && *lx->p != '"' && *lx->p != '\n') {
			if (n < sizeof(lx->tok) - 1)
				lx->tok[n++] = *lx->p;
			else
				lx->kind = TK_BAD;
			adv(lx);
		}
		lx->tok[n] = 0;
		if (*lx->p != '"')
			lx->kind = TK_BAD;
		else
			adv(lx);
	} else {
		lx->kind = TK_WORD;
		while (*lx->p && !strchr(SPEC_STOP, *lx->p) &&
		       !strchr(" \t\r\n", *lx->p)) {
			if (n < sizeof(lx->tok) - 1)
				lx->tok[n++] = *lx->p;
			else
				lx->kind = TK_BAD;
			adv(lx);
		}
		lx->tok[n] = 0;
	}
}

int ccsg_spec_fail(const char *source, int one_line, struct ccsg_spec_pos pos,
		   const char *msg)
{
	if (one_line)
		return fail("%s: column %d: %s", source, pos.col, msg);
	return fail("%s:%d:%d: %s", source, pos.line, pos.col, msg);
}

static int syntax(struct lex *lx, const char *want)
{
	char msg[512];

	if (lx->kind == TK_END)
		snprintf(msg, sizeof(msg), "expected %s, found the end", want);
	else if (lx->kind == TK_BAD)
		snprintf(msg, sizeof(msg),
			 "expected %s, found an unterminated or too long "
			 "name '%.40s'",
			 want, lx->tok);
	else
		snprintf(msg, sizeof(msg), "expected %s, found '%s'", want,
			 lx->tok);
	ccsg_spec_fail(lx->source, lx->one_line, lx->pos, msg);
	return -EINVAL;
}

static int is_kw(const struct lex *lx, const char *kw)
{
	return lx->kind == TK_WORD && !lx->quoted && !strcasecmp(lx->tok, kw);
}

static int expect_kw(struct lex *lx, const char *kw)
{
	char want[64];

	if (!is_kw(lx, kw)) {
		snprintf(want, sizeof(want), "'%s'", kw);
		return syntax(lx, want);
	}
	next(lx);
	return 0;
}

static int is_punct(const struct lex *lx, char c)
{
	return lx->kind == TK_PUNCT && lx->tok[0] == c;
}

static int expect_punct(struct lex *lx, char c)
{
	char want[8];

	if (!is_punct(lx, c)) {
		snprintf(want, sizeof(want), "'%c'", c);
		return syntax(lx, want);
	}
	next(lx);
	return 0;
}

/* "{ NAME, NAME... }" into *names / *pos / *n. */
static int name_set(struct lex *lx, char ***names, struct ccsg_spec_pos **pos,
		    size_t *n, const char *what)
{
	size_t cap = 0, cap_pos = 0;

	if (expect_punct(lx, '{'))
		return -EINVAL;
	for (;;) {
		if (lx->kind != TK_WORD || !lx->tok[0])
			return syntax(lx, what);
		if (GROW(*names, cap, *n + 1) || GROW(*pos, cap_pos, *n + 1))
			return -ENOMEM;
		if (!((*names)[*n] = strdup(lx->tok)))
			return -ENOMEM;
		(*pos)[(*n)++] = lx->pos;
		next(lx);
		if (is_punct(lx, '}'))
			break;
		if (!is_punct(lx, ','))
			return syntax(lx, "',' or '}'");
		next(lx);
	}
	next(lx);
	return 0;
}

/* A run of at most max decimal digits; its end, or NULL. */
static const char *digits(const char *s, int max, uint64_t *v)
{
	int n = 0;

	*v = 0;
	while (*s >= '0' && *s <= '9') {
		if (++n > max)
			return NULL;
		*v = *v * 10 + (uint64_t)(*s++ - '0');
	}
	return n ? s : NULL;
}

/* "20", "12.5" (9 decimals at most) or "300/7" as a / b. */
static int parse_percent(const char *s, uint64_t *a, uint64_t *b)
{
	const char *e = digits(s, 9, a);
	uint64_t f;

	*b = 1;
	if (!e)
		return -1;
	if (*e == '.') {
		const char *d = digits(e + 1, 9, &f);

		if (!d || *d)
			return -1;
		for (const char *q = e + 1; q < d; q++)
			*a *= 10, *b *= 10;
		*a += f;
		return 0;
	}
	if (*e == '/') {
		const char *d = digits(e + 1, 9, b);

		return d && !*d && *b ? 0 : -1;
	}
	return *e ? -1 : 0;
}

/* "by PERCENT %": the percentage and the factor of c. */
static int percentage(struct lex *lx, struct ccsg_change *c)
{
	int red = c->kind == CCSG_REDUCTION;
	uint64_t a, b, num, den, g;
	char msg[512];

	if (lx->kind != TK_WORD || lx->quoted || parse_percent(lx->tok, &a, &b))
		return syntax(lx, "a percentage (20, 12.5 or 300/7)");
	if (!a || a > (uint64_t)(red ? 100 : CCSG_INCREASE_MAX) * b) {
		if (red)
			snprintf(msg, sizeof(msg),
				 "a reduction is by more than 0%% and at most "
				 "100%%, not '%s%%' (an increase can be up to "
				 "%d%%)",
				 lx->tok, CCSG_INCREASE_MAX);
		else
			snprintf(msg, sizeof(msg),
				 "an increase is by more than 0%% and at most "
				 "%d%%, not '%s%%'",
				 CCSG_INCREASE_MAX, lx->tok);
		ccsg_spec_fail(lx->source, lx->one_line, lx->pos, msg);
		return -EINVAL;
	}
	if (!(c->percent = strdup(lx->tok)))
		return -ENOMEM;
	c->percent_value = (double)a / (double)b;
	num = red ? 100 * b - a : 100 * b + a;
	den = 100 * b;
	g = ccsg_gcd(num, den);
	c->num = num ? num / g : 0;
	c->den = num ? den / g : 1;
	next(lx);
	return expect_punct(lx, '%');
}

/* on all [processors] | processor group SET | processor SET | host SET */
static int scope(struct lex *lx, struct ccsg_change *c)
{
	if (is_kw(lx, "all")) {
		c->scope = CCSG_ON_ALL;
		next(lx);
		if (is_kw(lx, "processors") || is_kw(lx, "hosts"))
			next(lx);
		return 0;
	}
	if (is_kw(lx, "processor") || is_kw(lx, "processors")) {
		next(lx);
		c->scope = CCSG_ON_HOSTS;
		if (is_kw(lx, "group") || is_kw(lx, "groups")) {
			c->scope = CCSG_ON_GROUPS;
			next(lx);
		}
	} else if (is_kw(lx, "host") || is_kw(lx, "hosts")) {
		c->scope = CCSG_ON_HOSTS;
		next(lx);
	} else if (is_kw(lx, "group") || is_kw(lx, "groups")) {
		c->scope = CCSG_ON_GROUPS;
		next(lx);
	} else {
		return syntax(lx, "'all', 'processor group', 'processor' or "
				  "'host'");
	}
	return name_set(lx, &c->where, &c->where_pos, &c->nwhere,
			c->scope == CCSG_ON_GROUPS ? "a processor group name"
						   : "a host name");
}

static void change_release(struct ccsg_change *c)
{
	for (size_t i = 0; i < c->nwhere; i++)
		free(c->where[i]);
	for (size_t i = 0; i < c->nfunctions; i++)
		free(c->functions[i]);
	free(c->where);
	free(c->where_pos);
	free(c->functions);
	free(c->function_pos);
	free(c->percent);
	free(c->source);
	free(c->host_in);
	free(c->nodes);
	memset(c, 0, sizeof(*c));
}

/* KIND on SCOPE by PERCENT % to function SET */
static int statement(struct lex *lx, struct ccsg_change *c)
{
	int ret;

	c->pos = lx->pos;
	if (is_kw(lx, "reduction"))
		c->kind = CCSG_REDUCTION;
	else if (is_kw(lx, "increase"))
		c->kind = CCSG_INCREASE;
	else
		return syntax(lx, "'reduction' or 'increase'");
	next(lx);
	if ((ret = expect_kw(lx, "on")) || (ret = scope(lx, c)) ||
	    (ret = expect_kw(lx, "by")) || (ret = percentage(lx, c)) ||
	    (ret = expect_kw(lx, "to")))
		return ret;
	if (!is_kw(lx, "function") && !is_kw(lx, "functions"))
		return syntax(lx, "'function'");
	next(lx);
	return name_set(lx, &c->functions, &c->function_pos, &c->nfunctions,
			"a function (INTERFACE::FUNCTION)");
}

int ccsg_changes_parse(struct ccsg_changes *cs, const char *text,
		       const char *source, int one_line)
{
	struct lex lx = { .p = text, .source = source, .line = 1, .col = 1 };
	size_t n0 = cs->n;
	int ret = 0;

	/* columns alone only when there is one line */
	lx.one_line = one_line = one_line && !strchr(text, '\n');
	next(&lx);
	if (lx.kind == TK_END) {
		ccsg_spec_fail(source, one_line, lx.pos,
			       "no change: nothing but blanks and comments");
		return -EINVAL;
	}
	while (lx.kind != TK_END) {
		struct ccsg_change *c;

		if (GROW(cs->v, cs->cap, cs->n + 1)) {
			ret = -ENOMEM;
			break;
		}
		c = &cs->v[cs->n++];
		memset(c, 0, sizeof(*c));
		c->one_line = one_line;
		if (!(c->source = strdup(source))) {
			ret = -ENOMEM;
			break;
		}
		if ((ret = statement(&lx, c)))
			break;
		/* ';' between statements, optional after the last */
		if (lx.kind != TK_END && expect_punct(&lx, ';')) {
			ret = -EINVAL;
			break;
		}
	}
	if (ret) {
		while (cs->n > n0)
			change_release(&cs->v[--cs->n]);
		if (ret == -ENOMEM)
			fail("out of memory reading the changes");
	}
	return ret;
}

void ccsg_changes_release(struct ccsg_changes *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		change_release(&cs->v[i]);
	free(cs->v);
	memset(cs, 0, sizeof(*cs));
}

/* A name as it can be read back: quoted unless it is a plain word. */
static size_t put_name(char *buf, size_t len, const char *s)
{
	int plain = *s && !strpbrk(s, SPEC_STOP " \t\r\n");

	return (size_t)snprintf(buf, len, plain ? "%s" : "\"%s\"", s);
}

static size_t put_set(char *buf, size_t len, char *const *v, size_t n)
{
	size_t off = 0;

#define ROOM (off < len ? len - off : 0)
	off += (size_t)snprintf(buf, len, "{ ");
	for (size_t i = 0; i < n; i++) {
		off += put_name(buf + (off < len ? off : len), ROOM, v[i]);
		off += (size_t)snprintf(buf + (off < len ? off : len), ROOM,
					"%s", i + 1 < n ? ", " : " }");
	}
#undef ROOM
	return off;
}

void ccsg_change_format(const struct ccsg_change *c, char *buf, size_t len)
{
	static const char *const on[] = { "all processors", "processor group ",
					  "processor " };
	size_t off;

	off = (size_t)snprintf(buf, len, "%s on %s",
			       c->kind == CCSG_REDUCTION ? "reduction"
							 : "increase",
			       on[c->scope]);
	if (c->scope != CCSG_ON_ALL && off < len)
		off += put_set(buf + off, len - off, c->where, c->nwhere);
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off,
					" by %s%% to function ", c->percent);
	if (off < len)
		off += put_set(buf + off, len - off, c->functions,
			       c->nfunctions);
	if (off < len)
		snprintf(buf + off, len - off, ";");
}
