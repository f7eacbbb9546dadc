/*
 * store-url.c - a --db argument as a store: a path or clickhouse://...
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-url.h"

#define CH_SCHEME "clickhouse://"
#define CH_DEFAULT_PORT 8123

bool store_sql_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

bool store_is_url(const char *arg)
{
	const char *p = arg;

	/* RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
	if (!isalpha((unsigned char)*p))
		return false;
	while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' ||
	       *p == '.')
		p++;
	return !strncmp(p, "://", 3);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decode [s, s + n) into out (size outlen); -1 if bad or long. */
static int decode(const char *s, size_t n, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
			int lo = i + 2 < n ? hexval(s[i + 2]) : -1;

			if (hi < 0 || lo < 0)
				return -1;
			c = hi * 16 + lo;
			i += 2;
		}
		if (o + 1 >= outlen || c == '\0')
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}

static int bad(char *why, size_t whylen, const char *arg, const char *what)
{
	snprintf(why, whylen, "bad store URL '%.200s': %s", arg, what);
	return -1;
}

static void from_env(char *out, size_t len, const char *name)
{
	const char *v = getenv(name);

	snprintf(out, len, "%s", v ? v : "");
}

int store_url_parse(const char *arg, struct store_url *u, char *why,
		    size_t whylen)
{
	const char *p, *at, *slash, *colon, *host;
	size_t hostlen;

	memset(u, 0, sizeof(*u));
	if (strncmp(arg, CH_SCHEME, strlen(CH_SCHEME))) {
		const char *end = strstr(arg, "://");

		snprintf(why, whylen,
			 "unknown store URL scheme '%.*s' in '%.200s' "
			 "(a path or clickhouse://HOST[:PORT]/DATABASE)",
			 end ? (int)(end - arg) : 0, arg, arg);
		return -1;
	}
	p = arg + strlen(CH_SCHEME);
	slash = strchr(p, '/');
	if (!slash)
		return bad(why, whylen, arg, "no /DATABASE");
	at = memchr(p, '@', (size_t)(slash - p));
	if (at) {
		const char *pw = memchr(p, ':', (size_t)(at - p));
		size_t ulen = (size_t)((pw ? pw : at) - p);

		if (decode(p, ulen, u->user, sizeof(u->user)) || !ulen)
			return bad(why, whylen, arg, "bad user");
		if (pw && decode(pw + 1, (size_t)(at - pw - 1), u->password,
				 sizeof(u->password)))
			return bad(why, whylen, arg, "bad password");
		if (!pw)
			from_env(u->password, sizeof(u->password),
				 "CLICKHOUSE_PASSWORD");
		u->has_user = true;
		host = at + 1;
	} else {
		from_env(u->user, sizeof(u->user), "CLICKHOUSE_USER");
		from_env(u->password, sizeof(u->password),
			 "CLICKHOUSE_PASSWORD");
		u->has_user = u->user[0] != '\0';
		host = p;
	}
	if (*host == '[') { /* [::1]:8123 */
		const char *close = memchr(host, ']', (size_t)(slash - host));

		if (!close)
			return bad(why, whylen, arg, "unclosed '['");
		colon = close[1] == ':' ? close + 1 : NULL;
		if (!colon && close + 1 != slash)
			return bad(why, whylen, arg, "bad host");
		hostlen = (size_t)(close + 1 - host);
	} else {
		colon = memchr(host, ':', (size_t)(slash - host));
		hostlen = (size_t)((colon ? colon : slash) - host);
	}
	if (!hostlen)
		return bad(why, whylen, arg, "no host");
	if (hostlen >= sizeof(u->host))
		return bad(why, whylen, arg, "host name too long");
	memcpy(u->host, host, hostlen);
	u->port = CH_DEFAULT_PORT;
	if (colon) {
		char *end;
		long port = strtol(colon + 1, &end, 10);

		if (end != slash || colon + 1 == slash || port < 1 ||
		    port > 65535)
			return bad(why, whylen, arg, "bad port");
		u->port = (int)port;
	}
	p = slash + 1;
	if (!*p)
		return bad(why, whylen, arg, "no database name");
	if (!store_sql_name(p))
		return bad(why, whylen, arg,
			   "a database name is letters, digits and '_'");
	if (strlen(p) >= sizeof(u->database))
		return bad(why, whylen, arg, "database name too long");
	strcpy(u->database, p);
	snprintf(u->shown, sizeof(u->shown), "clickhouse://%s%s%s:%d/%s",
		 at ? u->user : "", at ? "@" : "", u->host, u->port,
		 u->database);
	return 0;
}
