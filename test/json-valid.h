/*
 * json-valid.h - a strict JSON (RFC 8259) checker for the suites: one
 * value and nothing after it but white space, strings well-formed UTF-8
 * without raw control characters, escapes from JSON's list, numbers in
 * JSON's grammar.  Says where the first fault is.
 */
#ifndef TEST_JSON_VALID_H
#define TEST_JSON_VALID_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct jv {
	const unsigned char *p, *start;
	char err[128];
	int depth;
};

/* NULL if doc is one valid JSON text, else what is wrong and where. */
const char *json_invalid(const char *doc, struct jv *v);

#endif
