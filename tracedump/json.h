/*
 * json.h - JSON output for tracedump (dump --format=json, processes.argv).
 */
#ifndef CAUSAL_JSON_H
#define CAUSAL_JSON_H

#include <stddef.h>
#include <stdio.h>

#include <msgpack.h>

/*
 * Write s as a JSON string literal.  Control characters are escaped and
 * bytes that are not valid UTF-8 become U+FFFD, so the output is always
 * valid JSON whatever a traced program put in its argv.
 */
void json_string(FILE *out, const char *s, size_t len);

/*
 * Write a msgpack object as JSON: bin and ext as lowercase hex strings,
 * maps as objects when every key is a string, else as arrays of
 * [key, value] pairs; NaN and infinities as null.
 */
void json_msgpack(FILE *out, const msgpack_object *o);

#endif
