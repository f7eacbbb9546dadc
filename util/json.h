/*
 * json.h - JSON string literals for the tools' output.
 *
 * What a traced program names (its argv, its executable, host names, RPC
 * symbols and peers) is arbitrary bytes; these functions make any of it
 * valid JSON (RFC 8259): '"' and '\\' escaped, \n \t \r as such, the other
 * control characters and DEL as \u00XX, and every byte that does not
 * begin a well-formed UTF-8 sequence (a stray continuation byte, a
 * truncated, overlong or surrogate sequence, a value past U+10FFFF) as
 * \ufffd, the replacement character, one per byte.  Valid UTF-8 is
 * copied as it is.
 */
#ifndef CAUSAL_JSON_H
#define CAUSAL_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Write the len bytes at s (NULs included) as a JSON string literal. */
void json_string(FILE *out, const char *s, size_t len);

/* Write the C string s as a JSON string literal; NULL as "". */
void json_cstr(FILE *out, const char *s);

/* Write the n C strings of v as JSON string literals separated by ", ":
 * the inside of an array. */
void json_cstrs(FILE *out, char *const *v, size_t n);

/* Write the n bytes at p as a JSON string of lowercase hex digits. */
void json_hex(FILE *out, const void *p, size_t n);

#endif
