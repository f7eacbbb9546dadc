/*
 * where.c - the conditions of `ccsg calls --where` (where.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "usage.h"
#include "where.h"

enum op { OP_TRUE, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };
enum lit { LIT_NUM, LIT_STR, LIT_BOOL, LIT_NULL };

struct cond {
	int result; /* the path starts at result, else args */
	char *path; /* after it: ".x[2]" */
	int op;
	int lit;
	double num;
	char *str;
	int boolean;
};

struct ccsg_where {
	struct cond *c;
	size_t n;
};

static const char *skip(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

static int bad(const char *expr, const char *at, const char *why)
{
	return fail("bad --where '%s': %s at '%s'", expr, why,
		    *at ? at : "end");
}

static int parse_path(const char *expr, const char **pp, struct cond *c)
{
	const char *p = *pp, *start;

	if (!strncmp(p, "args", 4))
		p += 4;
	else if (!strncmp(p, "result", 6))
		p += 6, c->result = 1;
	else
		return bad(expr, p, "expected args or result");
	start = p;
	while (isalnum((unsigned char)*p) || strchr("._[]", *p)) {
		if (*p == '.' && !(isalpha((unsigned char)p[1]) || p[1] == '_'))
			return bad(expr, p, "expected a name after '.'");
		p++;
	}
	if (start < p && *start != '.' && *start != '[')
		return bad(expr, *pp, "expected args or result");
	c->path = strndup(start, (size_t)(p - start));
	*pp = p;
	return c->path ? 0 : fail("out of memory");
}

static int parse_op(const char **pp)
{
	static const struct {
		const char *s;
		int op;
	} ops[] = { { "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE },
		    { ">=", OP_GE }, { "<", OP_LT },  { ">", OP_GT },
		    { "=", OP_EQ } };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(*pp, ops[i].s, strlen(ops[i].s))) {
			*pp += strlen(ops[i].s);
			return ops[i].op;
		}
	return OP_TRUE;
}

static int parse_literal(const char *expr, const char **pp, struct cond *c)
{
	const char *p = *pp;
	char *end;

	if (*p == '"' || *p == '\'') {
		const char *close = strchr(p + 1, *p);

		if (!close)
			return bad(expr, p, "string not closed");
		c->lit = LIT_STR;
		c->str = strndup(p + 1, (size_t)(close - p - 1));
		*pp = close + 1;
		return c->str ? 0 : fail("out of memory");
	}
	if (!strncmp(p, "true", 4) || !strncmp(p, "false", 5)) {
		c->lit = LIT_BOOL;
		c->boolean = *p == 't';
		*pp = p + (*p == 't' ? 4 : 5);
		return 0;
	}
	if (!strncmp(p, "null", 4)) {
		c->lit = LIT_NULL;
		*pp = p + 4;
		return 0;
	}
	c->num = strtod(p, &end);
	if (end == p)
		return bad(expr, p,
			   "expected a number, a string, true, "
			   "false or null");
	c->lit = LIT_NUM;
	*pp = end;
	return 0;
}

int ccsg_where_parse(const char *expr, struct ccsg_where **out)
{
	struct ccsg_where *w = calloc(1, sizeof(*w));
	const char *p = skip(expr);

	*out = NULL;
	if (!w)
		return fail("out of memory");
	for (;;) {
		struct cond *c = realloc(w->c, (w->n + 1) * sizeof(*c));

		if (!c) {
			ccsg_where_free(w);
			return fail("out of memory");
		}
		w->c = c;
		c = &w->c[w->n++];
		memset(c, 0, sizeof(*c));
		if (parse_path(expr, &p, c))
			goto bad;
		p = skip(p);
		c->op = parse_op(&p);
		if (c->op != OP_TRUE &&
		    (p = skip(p), parse_literal(expr, &p, c)))
			goto bad;
		p = skip(p);
		if (!*p)
			break;
		if (strncmp(p, "and", 3) || !isspace((unsigned char)p[3])) {
			bad(expr, p, "expected 'and' or the end");
			goto bad;
		}
		p = skip(p + 3);
	}
	*out = w;
	return 0;
bad:
	ccsg_where_free(w);
	return -1;
}

void ccsg_where_free(struct ccsg_where *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++) {
		free(w->c[i].path);
		free(w->c[i].str);
	}
	free(w->c);
	free(w);
}

static int is_number(const struct xdr_value *v, double *d)
{
	switch (v->kind) {
	case XV_INT:
		*d = (double)v->i;
		return 1;
	case XV_UINT:
	case XV_BOOL:
		*d = (double)v->u;
		return 1;
	case XV_DOUBLE:
		*d = v->d;
		return 1;
	default:
		return 0;
	}
}

static int order(int op, int cmp)
{
	switch (op) {
	case OP_EQ:
		return cmp == 0;
	case OP_NE:
		return cmp != 0;
	case OP_LT:
		return cmp < 0;
	case OP_LE:
		return cmp <= 0;
	case OP_GT:
		return cmp > 0;
	default:
		return cmp >= 0;
	}
}

/* Opaque data as the hex its JSON shows. */
static int hex_cmp(const struct xdr_value *v, const char *s)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < v->len; i++) {
		unsigned char b = (unsigned char)v->s[i];
		int d;

		if ((d = digits[b >> 4] - s[2 * i]) || !s[2 * i])
			return s[2 * i] ? d : 1;
		if ((d = digits[b & 15] - s[2 * i + 1]) || !s[2 * i + 1])
			return s[2 * i + 1] ? d : 1;
	}
	return s[2 * v->len] ? -1 : 0;
}

static int truthy(const struct xdr_value *v)
{
	double d;

	if (is_number(v, &d))
		return d != 0;
	if (v->kind == XV_STR || v->kind == XV_BYTES || v->kind == XV_LIST)
		return v->len || v->n;
	return v->kind == XV_OBJ;
}

static int cond_match(const struct cond *c, const struct xdr_value *root)
{
	const struct xdr_value *v = root ? xdr_value_at(root, c->path) : NULL;
	double d;

	if (!v)
		return c->op == OP_NE;
	if (c->op == OP_TRUE)
		return truthy(v);
	switch (c->lit) {
	case LIT_NUM:
		if (!is_number(v, &d))
			return c->op == OP_NE;
		return order(c->op, (d > c->num) - (d < c->num));
	case LIT_STR:
		if (v->kind == XV_STR)
			return order(c->op, strcmp(v->s, c->str));
		if (v->kind == XV_BYTES)
			return order(c->op, hex_cmp(v, c->str));
		return c->op == OP_NE;
	case LIT_BOOL:
		if (v->kind != XV_BOOL)
			return c->op == OP_NE;
		return order(c->op, (int)v->u - c->boolean);
	default:
		return order(c->op, v->kind != XV_NULL);
	}
}

int ccsg_where_match(const struct ccsg_where *w, const struct xdr_value *args,
		     const struct xdr_value *result)
{
	for (size_t i = 0; w && i < w->n; i++)
		if (!cond_match(&w->c[i], w->c[i].result ? result : args))
			return 0;
	return 1;
}
