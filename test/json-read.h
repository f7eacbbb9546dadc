/*
 * json-read.h - a small JSON reader for the suites that check what ccsg
 * prints: the whole document into a tree of struct jval, and lookups that
 * fail the test when a key or a type is not what the contract says.
 * (json-valid.h checks a document's syntax strictly; this one reads it.)
 *
 *	struct jval *doc = json_parse(text, "ccsg report --format=json");
 *	const struct jval *nodes = json_need(doc, "nodes", J_ARR, "report");
 *	...
 *	json_free(doc);
 */
#ifndef CAUSAL_TEST_JSON_READ_H
#define CAUSAL_TEST_JSON_READ_H

#include <check.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	int type;
	double num;
	char *str;
	int n;		   /* items of an array or object */
	char **keys;	   /* an object's */
	struct jval *item; /* n of them */
};

/* Free a document json_parse() made (NULL: nothing). */
void json_free(struct jval *v);

/* Parse text, failing the test with where it went wrong. */
struct jval *json_parse(const char *text, const char *what);

/* The value of key in object o; NULL when o is not an object or has no
 * such key. */
const struct jval *json_get(const struct jval *o, const char *key);

/* Like json_get(), but the value must be there and of type (J_*): else
 * the test fails, naming what. */
const struct jval *json_need(const struct jval *o, const char *key, int type,
			     const char *what);

#endif
