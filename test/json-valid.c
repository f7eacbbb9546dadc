/*
 * json-valid.c - the helpers json-valid.h declares, whose comments there are
 * their contract: compiled once and linked into the runner.
 */
#include "json-valid.h"

static int jv_fail(struct jv *v, const char *what)
{
	if (!v->err[0])
		snprintf(v->err, sizeof(v->err), "%s at offset %ld", what,
			 (long)(v->p - v->start));
	return -1;
}

static void jv_ws(struct jv *v)
{
	while (*v->p == ' ' || *v->p == '\t' || *v->p == '\n' || *v->p == '\r')
		v->p++;
}

/* One UTF-8 sequence at p: its length, or 0 if not well-formed. */
static int jv_utf8(const unsigned char *p)
{
	int n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
	uint32_t cp = *p & (0x7f >> n);

	if (*p < 0xc2 || *p > 0xf4)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

static int jv_string(struct jv *v)
{
	v->p++; /* the opening quote */
	while (*v->p != '"') {
		if (!*v->p)
			return jv_fail(v, "unterminated string");
		if (*v->p < 0x20)
			return jv_fail(v, "raw control character in a string");
		if (*v->p == '\\') {
			v->p++;
			if (*v->p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!v->p[i] ||
					    !strchr("0123456789abcdefABCDEF",
						    v->p[i]))
						return jv_fail(
							v, "bad \\u escape");
				v->p += 5;
			} else if (*v->p && strchr("\"\\/bfnrt", *v->p)) {
				v->p++;
			} else {
				return jv_fail(v, "bad escape");
			}
		} else if (*v->p < 0x80) {
			v->p++;
		} else {
			int n = jv_utf8(v->p);

			if (!n)
				return jv_fail(v, "invalid UTF-8 in a string");
			v->p += n;
		}
	}
	v->p++;
	return 0;
}

static int jv_digits(struct jv *v)
{
	if (*v->p < '0' || *v->p > '9')
		return -1;
	while (*v->p >= '0' && *v->p <= '9')
		v->p++;
	return 0;
}

static int jv_number(struct jv *v)
{
	if (*v->p == '-')
		v->p++;
	if (*v->p == '0')
		v->p++;
	else if (jv_digits(v))
		return jv_fail(v, "bad number");
	if (*v->p == '.') {
		v->p++;
		if (jv_digits(v))
			return jv_fail(v, "bad fraction");
	}
	if (*v->p == 'e' || *v->p == 'E') {
		v->p++;
		if (*v->p == '+' || *v->p == '-')
			v->p++;
		if (jv_digits(v))
			return jv_fail(v, "bad exponent");
	}
	return 0;
}

static int jv_value(struct jv *v);

/* An object (close '}') or an array (close ']'). */
static int jv_members(struct jv *v, char close)
{
	if (++v->depth > 500)
		return jv_fail(v, "nested too deep");
	v->p++;
	jv_ws(v);
	if (*v->p == close) {
		v->p++;
		v->depth--;
		return 0;
	}
	for (;;) {
		jv_ws(v);
		if (close == '}') {
			if (*v->p != '"' || jv_string(v))
				return jv_fail(v, "object key is not a string");
			jv_ws(v);
			if (*v->p++ != ':')
				return jv_fail(v, "no ':' after a key");
		}
		if (jv_value(v))
			return -1;
		jv_ws(v);
		if (*v->p == ',') {
			v->p++;
			continue;
		}
		if (*v->p != close)
			return jv_fail(v, close == '}' ? "no ',' or '}'"
						       : "no ',' or ']'");
		v->p++;
		v->depth--;
		return 0;
	}
}

static int jv_value(struct jv *v)
{
	jv_ws(v);
	switch (*v->p) {
	case '{':
		return jv_members(v, '}');
	case '[':
		return jv_members(v, ']');
	case '"':
		return jv_string(v);
	case 't':
		return strncmp((const char *)v->p, "true", 4)
			       ? jv_fail(v, "bad literal")
			       : (v->p += 4, 0);
	case 'f':
		return strncmp((const char *)v->p, "false", 5)
			       ? jv_fail(v, "bad literal")
			       : (v->p += 5, 0);
	case 'n':
		return strncmp((const char *)v->p, "null", 4)
			       ? jv_fail(v, "bad literal")
			       : (v->p += 4, 0);
	default:
		return jv_number(v);
	}
}

const char *json_invalid(const char *doc, struct jv *v)
{
	memset(v, 0, sizeof(*v));
	v->p = v->start = (const unsigned char *)doc;
	if (jv_value(v))
		return v->err;
	jv_ws(v);
	if (*v->p) {
		jv_fail(v, "text after the value");
		return v->err;
	}
	return NULL;
}
