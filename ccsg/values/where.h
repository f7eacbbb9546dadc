/*
 * where.h - `ccsg calls --where EXPR`: conditions on a call's decoded
 * values (docs/ccsg.md, "calls").
 *
 *   EXPR  := COND [and COND]...
 *   COND  := PATH [OP LITERAL]       (a PATH alone: present, not false,
 *                                     null, 0 or empty)
 *   PATH  := args|result [.NAME | [N]]...
 *   OP    := == != < <= > >=
 *   LITERAL := a number, "a string" (or 'a string'), true, false, null
 *
 * Numbers compare as numbers, strings (and enum members by name, opaque
 * data by its hex) as strings; a value of another kind, or absent, makes
 * the condition false.
 */
#ifndef CCSG_WHERE_H
#define CCSG_WHERE_H

#include "xdr-value.h"

struct ccsg_where;

/* Parse expr into *w; 0, or -1 after a one-line message. */
int ccsg_where_parse(const char *expr, struct ccsg_where **w);
void ccsg_where_free(struct ccsg_where *w);

/* Does a call with these values (NULL: none) meet w? */
int ccsg_where_match(const struct ccsg_where *w, const struct xdr_value *args,
		     const struct xdr_value *result);

#endif
