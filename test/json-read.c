/*
 * json-read.c - the helpers json-read.h declares, whose comments there are
 * their contract: compiled once and linked into the runner.
 */
#include "json-read.h"

/* The parser's place in the text, and what went wrong. */
struct jp {
	const char *p;
	const char *err;
};

static void jp_ws(struct jp *j)
{
	while (*j->p && isspace((unsigned char)*j->p))
		j->p++;
}

static int jp_value(struct jp *j, struct jval *v);

static int jp_string(struct jp *j, char **out)
{
	size_t cap = 16, n = 0;
	char *s = malloc(cap);

	j->p++; /* the opening quote */
	while (*j->p && *j->p != '"') {
		char c = *j->p++;

		if (c == '\\') {
			c = *j->p++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u': /* names are ASCII: keep a placeholder */
				for (int i = 0; i < 4 && *j->p; i++)
					j->p++;
				c = '?';
				break;
			case '\0':
				j->err = "unterminated string";
				free(s);
				return -1;
			}
		}
		if (n + 2 > cap)
			s = realloc(s, cap *= 2);
		s[n++] = c;
	}
	if (*j->p != '"') {
		j->err = "unterminated string";
		free(s);
		return -1;
	}
	j->p++;
	s[n] = '\0';
	*out = s;
	return 0;
}

static int jp_list(struct jp *j, struct jval *v, int object)
{
	char close = object ? '}' : ']';

	v->type = object ? J_OBJ : J_ARR;
	j->p++;
	jp_ws(j);
	if (*j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		v->item = realloc(v->item, (v->n + 1) * sizeof(*v->item));
		memset(&v->item[v->n], 0, sizeof(*v->item));
		if (object) {
			v->keys = realloc(v->keys, (v->n + 1) * sizeof(char *));
			jp_ws(j);
			if (*j->p != '"' || jp_string(j, &v->keys[v->n]))
				return j->err = "object key expected", -1;
			jp_ws(j);
			if (*j->p++ != ':')
				return j->err = "':' expected", -1;
		}
		if (jp_value(j, &v->item[v->n]))
			return -1;
		v->n++;
		jp_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == close) {
			j->p++;
			return 0;
		}
		return j->err = "',' or end of list expected", -1;
	}
}

static int jp_value(struct jp *j, struct jval *v)
{
	char *end;

	jp_ws(j);
	switch (*j->p) {
	case '{':
		return jp_list(j, v, 1);
	case '[':
		return jp_list(j, v, 0);
	case '"':
		v->type = J_STR;
		return jp_string(j, &v->str);
	case 't':
	case 'f':
	case 'n':
		if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
			v->type = *j->p == 't' ? J_BOOL : J_NULL;
			v->num = *j->p == 't';
			j->p += 4;
			return 0;
		}
		if (!strncmp(j->p, "false", 5)) {
			v->type = J_BOOL;
			j->p += 5;
			return 0;
		}
		break;
	default:
		v->num = strtod(j->p, &end);
		if (end != j->p) {
			v->type = J_NUM;
			j->p = end;
			return 0;
		}
	}
	j->err = "value expected";
	return -1;
}

static void jval_release(struct jval *v)
{
	for (int i = 0; i < v->n; i++) {
		jval_release(&v->item[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->item);
	free(v->keys);
	free(v->str);
}

void json_free(struct jval *v)
{
	if (v) {
		jval_release(v);
		free(v);
	}
}

struct jval *json_parse(const char *text, const char *what)
{
	struct jp j = { text, NULL };
	struct jval *v = calloc(1, sizeof(*v));

	if (!jp_value(&j, v)) {
		jp_ws(&j);
		if (!*j.p)
			return v;
		j.err = "trailing text";
	}
	ck_abort_msg("%s: bad JSON at offset %ld: %s", what, (long)(j.p - text),
		     j.err);
	return NULL;
}

const struct jval *json_get(const struct jval *o, const char *key)
{
	if (o && o->type == J_OBJ)
		for (int i = 0; i < o->n; i++)
			if (!strcmp(o->keys[i], key))
				return &o->item[i];
	return NULL;
}

const struct jval *json_need(const struct jval *o, const char *key, int type,
			     const char *what)
{
	const struct jval *v = json_get(o, key);

	ck_assert_msg(v && v->type == type, "%s: no \"%s\" of JSON type %d",
		      what, key, type);
	return v;
}
