/*
 * store-url.h - where a trace is stored, as --db names it: a path (an
 * SQLite file, the default store) or a ClickHouse database reached over
 * its HTTP interface:
 *
 *	clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE
 *
 * PORT defaults to 8123; USER and PASSWORD (percent-encoded in the URL)
 * default to $CLICKHOUSE_USER and $CLICKHOUSE_PASSWORD, then to
 * ClickHouse's own default (user "default", no password).  DATABASE is
 * letters, digits and '_' (it is written into SQL).  Any other
 * "SCHEME://" is refused rather than taken for a file name.
 */
#ifndef CAUSAL_STORE_URL_H
#define CAUSAL_STORE_URL_H

#include <stdbool.h>
#include <stddef.h>

struct store_url {
	char host[256];
	int port;
	char database[128];
	char user[128];
	char password[128];
	bool has_user;	 /* a user from the URL or the environment */
	char shown[768]; /* the URL without its password, for messages */
};

/* Whether s may name a database (or a cluster) in SQL: letters, digits
 * and '_', at least one. */
bool store_sql_name(const char *s);

/* Whether arg names a store by URL ("SCHEME://..."), not a path. */
bool store_is_url(const char *arg);

/*
 * Parse a clickhouse:// URL into u.  Returns 0, or -1 with a one-line
 * reason in why (an unknown scheme, no host, no database...).
 */
int store_url_parse(const char *arg, struct store_url *u, char *why,
		    size_t whylen);

#endif
