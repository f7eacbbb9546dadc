/*
 * xdr-value.h - an XDR interpreter over the types of rpcgen .x files
 * (xdr-types.h): recorded bytes of a call's arguments or results decoded
 * into a tree of values, printed as typed JSON and queried by path.
 *
 * The bytes are hostile (a log is input): every length is checked
 * against what remains, nesting is bounded (XDR_VALUE_DEPTH) and so is
 * the number of values (XDR_VALUE_NODES), so any input decodes, is cut,
 * or is refused, never crashes or takes more than its size.
 */
#ifndef CAUSAL_XDR_VALUE_H
#define CAUSAL_XDR_VALUE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xdr-types.h"

#define XDR_VALUE_DEPTH 64
#define XDR_VALUE_NODES 100000

enum xdr_value_kind {
	XV_NULL,   /* an absent optional, void */
	XV_BOOL,   /* u */
	XV_INT,	   /* i */
	XV_UINT,   /* u */
	XV_DOUBLE, /* d */
	XV_STR,	   /* s, len: a string, an enum member's name */
	XV_BYTES,  /* s, len: opaque data (JSON: hex) */
	XV_LIST,   /* kids, n: an array */
	XV_OBJ,	   /* keys, kids, n: a struct, a union */
};

struct xdr_value {
	int kind;
	int64_t i;
	uint64_t u;
	double d;
	char *s;
	size_t len;
	char **keys; /* XV_OBJ: borrowed from the types */
	struct xdr_value *kids;
	size_t n;
};

/* What a decoding came to. */
enum xdr_decode_status {
	XDR_DECODED,   /* all of it */
	XDR_CUT,       /* the bytes end before the value: what they hold */
	XDR_UNDECODED, /* not a value of the type: no tree */
};

/*
 * Decode the values of types[0..ntypes) one after the other from
 * bytes[0..len) (ntypes 0: void), the first len of a value of length
 * bytes: *out gets a tree (one value, or an XV_LIST of ntypes > 1), or
 * NULL when XDR_UNDECODED.  A value that ends short of length, or bytes
 * that end inside one shorter than length, are UNDECODED; an unknown
 * named type too.  *out is freed with xdr_value_free().
 */
int xdr_value_decode(const struct xdr_types *t,
		     const struct xdr_type *const *types, size_t ntypes,
		     const uint8_t *bytes, size_t len, size_t length,
		     struct xdr_value **out);
void xdr_value_free(struct xdr_value *v);

/* v as JSON (objects, arrays, numbers, strings; bytes as hex). */
void xdr_value_json(FILE *out, const struct xdr_value *v);

/* The value at path ("x", "items[2].name", "" for v itself), or NULL. */
const struct xdr_value *xdr_value_at(const struct xdr_value *v,
				     const char *path);

#endif
