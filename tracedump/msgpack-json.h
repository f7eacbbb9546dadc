/*
 * msgpack-json.h - msgpack objects as JSON for tracedump (dump
 * --format=json, processes.argv); JSON strings are util/json.h's.
 */
#ifndef TRACEDUMP_MSGPACK_JSON_H
#define TRACEDUMP_MSGPACK_JSON_H

#include <stdio.h>

#include <msgpack.h>

/*
 * Write a msgpack object as JSON: bin and ext as lowercase hex strings,
 * maps as objects when every key is a string, else as arrays of
 * [key, value] pairs; NaN and infinities as null.
 */
void json_msgpack(FILE *out, const msgpack_object *o);

#endif
