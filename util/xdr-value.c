/*
 * xdr-value.c - the XDR interpreter (xdr-value.h): RFC 4506's encodings
 * read back by the types of the .x files, every length checked against
 * the bytes that remain.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "xdr-value.h"

/* What decoding one value gives: done, the bytes ran out, not a value. */
enum { D_OK = 0, D_OUT = -1, D_BAD = -2 };

struct decoder {
	const struct xdr_types *t;
	const uint8_t *p;
	size_t len, pos;
	size_t nodes;
};

static int take(struct decoder *d, size_t n, const uint8_t **at)
{
	if (n > d->len - d->pos)
		return D_OUT;
	*at = d->p + d->pos;
	d->pos += n;
	return D_OK;
}

static int get32(struct decoder *d, uint32_t *v)
{
	const uint8_t *b;
	int r = take(d, 4, &b);

	if (!r)
		*v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
		     (uint32_t)b[2] << 8 | b[3];
	return r;
}

static int get64(struct decoder *d, uint64_t *v)
{
	uint32_t hi, lo;
	int r;

	if ((r = get32(d, &hi)) || (r = get32(d, &lo)))
		return r;
	*v = (uint64_t)hi << 32 | lo;
	return D_OK;
}

/* n bytes and their padding to 4, copied into v (NUL-terminated). */
static int get_bytes(struct decoder *d, size_t n, struct xdr_value *v, int kind)
{
	const uint8_t *b;
	int r = take(d, n, &b);

	if (r)
		return r;
	v->kind = kind;
	if (!(v->s = malloc(n + 1)))
		return D_BAD;
	memcpy(v->s, b, n);
	v->s[n] = 0;
	v->len = n;
	return take(d, (4 - n % 4) % 4, &b);
}

/* A variable length: at most max, and no more than could follow. */
static int get_count(struct decoder *d, uint32_t max, uint32_t *n)
{
	int r = get32(d, n);

	if (r)
		return r;
	return max != XDR_NO_MAX && *n > max ? D_BAD : D_OK;
}

static int decode(struct decoder *d, const struct xdr_type *ty, int depth,
		  struct xdr_value *v);

/* count values of elem into v's kids, which it makes a list. */
static int decode_list(struct decoder *d, const struct xdr_type *elem,
		       uint32_t count, int depth, struct xdr_value *v)
{
	/* each element takes 4 bytes at least (XDR has no smaller item):
	 * room for what remains, never for what a hostile count says */
	size_t room = (d->len - d->pos) / 4 + 1;
	int r = D_OK;

	v->kind = XV_LIST;
	v->kids = calloc(count < room ? count : room, sizeof(*v->kids));
	if (!v->kids && count)
		return D_BAD;
	for (uint32_t i = 0; i < count; i++) {
		if (i >= room)
			return D_OUT;
		v->n = i + 1;
		if ((r = decode(d, elem, depth + 1, &v->kids[i])))
			return r;
	}
	return D_OK;
}

static int decode_struct(struct decoder *d, const struct xdr_type *ty,
			 int depth, struct xdr_value *v)
{
	int r;

	v->kind = XV_OBJ;
	v->kids = calloc(ty->nfields + 1, sizeof(*v->kids));
	v->keys = calloc(ty->nfields + 1, sizeof(*v->keys));
	if (!v->kids || !v->keys)
		return D_BAD;
	for (size_t i = 0; i < ty->nfields; i++) {
		v->keys[i] = ty->fields[i].name;
		v->n = i + 1;
		if ((r = decode(d, ty->fields[i].type, depth + 1, &v->kids[i])))
			return r;
	}
	return D_OK;
}

/* The discriminant's value as a case value. */
static int64_t case_value(const struct xdr_type *disc_ty,
			  const struct xdr_value *dv)
{
	(void)disc_ty;
	if (dv->kind == XV_INT)
		return dv->i;
	return (int64_t)dv->u;
}

static int decode_union(struct decoder *d, const struct xdr_type *ty, int depth,
			struct xdr_value *v)
{
	const struct xdr_type *dt = ty->disc.type;
	struct xdr_value *dv;
	long arm = ty->default_arm;
	int64_t c;
	int r;

	v->kind = XV_OBJ;
	v->kids = calloc(2, sizeof(*v->kids));
	v->keys = calloc(2, sizeof(*v->keys));
	if (!v->kids || !v->keys)
		return D_BAD;
	dv = &v->kids[0];
	v->keys[0] = ty->disc.name;
	v->n = 1;
	if ((r = decode(d, dt, depth + 1, dv)))
		return r;
	/* an enum's member decoded to its name: its number is in i */
	c = dv->kind == XV_STR ? dv->i : case_value(dt, dv);
	for (size_t i = 0; i < ty->ncases; i++)
		if (ty->cases[i].value == c)
			arm = (long)ty->cases[i].arm;
	if (arm < 0)
		return D_BAD; /* no arm for it and no default */
	if (ty->fields[arm].type->kind == XDR_T_VOID)
		return D_OK;
	v->keys[1] = ty->fields[arm].name;
	v->n = 2;
	return decode(d, ty->fields[arm].type, depth + 1, &v->kids[1]);
}

static int decode_enum(struct decoder *d, const struct xdr_type *ty,
		       struct xdr_value *v)
{
	uint32_t u;
	int r = get32(d, &u);

	if (r)
		return r;
	v->kind = XV_INT;
	v->i = (int32_t)u;
	for (size_t i = 0; i < ty->nvalues; i++)
		if (ty->values[i].value == v->i) {
			/* its name, its number kept for a union's switch */
			v->kind = XV_STR;
			v->s = strdup(ty->values[i].name);
			v->len = v->s ? strlen(v->s) : 0;
			return v->s ? D_OK : D_BAD;
		}
	return D_OK; /* not a member: shown as its number */
}

static int decode_scalar(struct decoder *d, int kind, struct xdr_value *v)
{
	uint32_t u;
	uint64_t w;
	float f;
	int r;

	if (kind == XDR_T_HYPER || kind == XDR_T_UHYPER ||
	    kind == XDR_T_DOUBLE) {
		if ((r = get64(d, &w)))
			return r;
		v->kind = kind == XDR_T_HYPER	 ? XV_INT
			  : kind == XDR_T_UHYPER ? XV_UINT
						 : XV_DOUBLE;
		v->i = (int64_t)w;
		v->u = w;
		memcpy(&v->d, &w, sizeof(v->d));
		return D_OK;
	}
	if ((r = get32(d, &u)))
		return r;
	v->kind = kind == XDR_T_INT ? XV_INT : XV_UINT;
	v->i = (int32_t)u;
	v->u = u;
	if (kind == XDR_T_FLOAT) {
		memcpy(&f, &u, sizeof(f));
		v->kind = XV_DOUBLE;
		v->d = f;
	} else if (kind == XDR_T_BOOL) {
		if (u > 1)
			return D_BAD;
		v->kind = XV_BOOL;
	}
	return D_OK;
}

static int decode(struct decoder *d, const struct xdr_type *ty, int depth,
		  struct xdr_value *v)
{
	uint32_t n;
	int r;

	if (depth > XDR_VALUE_DEPTH || ++d->nodes > XDR_VALUE_NODES)
		return D_BAD;
	switch (ty->kind) {
	case XDR_T_VOID:
		v->kind = XV_NULL;
		return D_OK;
	case XDR_T_INT:
	case XDR_T_UINT:
	case XDR_T_HYPER:
	case XDR_T_UHYPER:
	case XDR_T_FLOAT:
	case XDR_T_DOUBLE:
	case XDR_T_BOOL:
		return decode_scalar(d, ty->kind, v);
	case XDR_T_QUAD:
		return get_bytes(d, 16, v, XV_BYTES);
	case XDR_T_ENUM:
		return decode_enum(d, ty, v);
	case XDR_T_STRING:
		if ((r = get_count(d, ty->size, &n)))
			return r;
		return get_bytes(d, n, v, XV_STR);
	case XDR_T_OPAQUE:
		n = ty->size;
		if (!ty->fixed && (r = get_count(d, ty->size, &n)))
			return r;
		return get_bytes(d, n, v, XV_BYTES);
	case XDR_T_ARRAY:
		n = ty->size;
		if (!ty->fixed && (r = get_count(d, ty->size, &n)))
			return r;
		return decode_list(d, ty->elem, n, depth, v);
	case XDR_T_STRUCT:
		return decode_struct(d, ty, depth, v);
	case XDR_T_UNION:
		return decode_union(d, ty, depth, v);
	case XDR_T_OPTIONAL:
		if ((r = get32(d, &n)))
			return r;
		if (n > 1)
			return D_BAD;
		if (!n) {
			v->kind = XV_NULL;
			return D_OK;
		}
		return decode(d, ty->elem, depth + 1, v);
	case XDR_T_NAMED: {
		const struct xdr_type *to = xdr_types_find(d->t, ty->name);

		if (!to)
			return D_BAD;
		/* a name adds no value of its own: not a level of nesting
		 * the input chose, but bounded all the same */
		--d->nodes;
		return decode(d, to, depth + 1, v);
	}
	default:
		return D_BAD;
	}
}

static void release(struct xdr_value *v)
{
	for (size_t i = 0; i < v->n && v->kids; i++)
		release(&v->kids[i]);
	free(v->kids);
	free(v->keys);
	free(v->s);
}

void xdr_value_free(struct xdr_value *v)
{
	if (v) {
		release(v);
		free(v);
	}
}

int xdr_value_decode(const struct xdr_types *t,
		     const struct xdr_type *const *types, size_t ntypes,
		     const uint8_t *bytes, size_t len, size_t length,
		     struct xdr_value **out)
{
	struct decoder d = { .t = t, .p = bytes, .len = len };
	struct xdr_value *v = calloc(1, sizeof(*v)), *at = v;
	int r = D_OK;

	*out = NULL;
	if (!v)
		return XDR_UNDECODED;
	if (len > length)
		length = len;
	if (ntypes > 1) {
		v->kind = XV_LIST;
		if (!(v->kids = calloc(ntypes, sizeof(*v->kids)))) {
			free(v);
			return XDR_UNDECODED;
		}
	}
	for (size_t i = 0; i < ntypes && !r; i++) {
		if (ntypes > 1) {
			at = &v->kids[i];
			v->n = i + 1;
		}
		r = decode(&d, types[i], 0, at);
	}
	if (r == D_OK && d.pos == len && len == length) {
		*out = v;
		return XDR_DECODED;
	}
	if (r == D_OUT && len < length) {
		*out = v;
		return XDR_CUT;
	}
	xdr_value_free(v);
	return XDR_UNDECODED;
}

void xdr_value_json(FILE *out, const struct xdr_value *v)
{
	switch (v->kind) {
	case XV_BOOL:
		fputs(v->u ? "true" : "false", out);
		break;
	case XV_INT:
		fprintf(out, "%" PRId64, v->i);
		break;
	case XV_UINT:
		fprintf(out, "%" PRIu64, v->u);
		break;
	case XV_DOUBLE:
		if (isfinite(v->d))
			fprintf(out, "%.17g", v->d);
		else
			fputs("null", out);
		break;
	case XV_STR:
		json_string(out, v->s, v->len);
		break;
	case XV_BYTES:
		json_hex(out, v->s, v->len);
		break;
	case XV_LIST:
	case XV_OBJ:
		putc(v->kind == XV_LIST ? '[' : '{', out);
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				putc(',', out);
			if (v->kind == XV_OBJ) {
				json_cstr(out, v->keys[i]);
				putc(':', out);
			}
			xdr_value_json(out, &v->kids[i]);
		}
		putc(v->kind == XV_LIST ? ']' : '}', out);
		break;
	default:
		fputs("null", out);
	}
}

const struct xdr_value *xdr_value_at(const struct xdr_value *v,
				     const char *path)
{
	while (v && *path) {
		if (*path == '.') {
			path++;
		} else if (*path == '[') {
			char *end;
			unsigned long i = strtoul(path + 1, &end, 10);

			if (*end != ']' || end == path + 1 ||
			    v->kind != XV_LIST || i >= v->n)
				return NULL;
			v = &v->kids[i];
			path = end + 1;
		} else {
			size_t n = strcspn(path, ".[");
			size_t i;

			if (v->kind != XV_OBJ)
				return NULL;
			for (i = 0; i < v->n; i++)
				if (v->keys[i] && strlen(v->keys[i]) == n &&
				    !strncmp(v->keys[i], path, n))
					break;
			if (i == v->n)
				return NULL;
			v = &v->kids[i];
			path += n;
		}
	}
	return v;
}
