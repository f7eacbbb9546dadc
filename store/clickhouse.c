/*
 * clickhouse.c - ClickHouse's HTTP interface with libcurl (clickhouse.h).
 *
 * A request answers 200 with the result (whole: wait_end_of_query), or
 * another status with the server's exception as text: "Code: 60,
 * e.displayText() = DB::Exception: Table t.x doesn't exist., e.what() =
 * DB::Exception" in 18.16, "Code: 60. DB::Exception: Table t.x does not
 * exist. (NAME) (version ...)" in current releases.  The message between
 * "DB::Exception: " and the end of its sentence is what ch_error() says.
 */
#include <curl/curl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clickhouse.h"
#include "rowbinary.h"

/* A server that sends nothing for this long is taken as gone. */
#define CH_CONNECT_TIMEOUT_S 10L
#define CH_STALL_S 300L

struct ch_client {
	CURL *curl;
	struct store_url url;
	char base[600]; /* http://host:port/?database=db */
	char error[1200];
	/* the request in progress */
	ch_sink_fn sink;
	void *arg;
	bool sink_failed;
	char body[1024]; /* an error answer's beginning */
	size_t nbody;
	char curl_error[CURL_ERROR_SIZE];
	bool insert_sync; /* ch_insert_sync() */
};

static bool curl_ready;

struct ch_client *ch_open(const struct store_url *u)
{
	struct ch_client *c;

	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			return NULL;
		curl_ready = true;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->url = *u;
	c->curl = curl_easy_init();
	if (!c->curl) {
		free(c);
		return NULL;
	}
	snprintf(c->base, sizeof(c->base), "http://%s:%d/", u->host, u->port);
	return c;
}

void ch_close(struct ch_client *c)
{
	if (!c)
		return;
	curl_easy_cleanup(c->curl);
	free(c);
}

const char *ch_error(const struct ch_client *c)
{
	return c->error;
}

int ch_fail(struct ch_client *c, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->error, sizeof(c->error), "%s: %s", c->url.shown, msg);
	return -1;
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct ch_client *c = arg;
	size_t len = size * n;
	long code = 0;

	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200 || !c->sink) {
		for (size_t i = 0; i < len && c->nbody + 1 < sizeof(c->body);
		     i++)
			c->body[c->nbody++] = p[i];
		c->body[c->nbody] = '\0';
		return len;
	}
	if (c->sink(p, len, c->arg)) {
		c->sink_failed = true;
		return 0; /* curl stops: CURLE_WRITE_ERROR */
	}
	return len;
}

/* The server's message in an error answer, as one short line. */
static void server_message(const char *body, char *out, size_t outlen)
{
	const char *m = strstr(body, "DB::Exception: ");
	const char *end;
	size_t n;

	m = m ? m + strlen("DB::Exception: ") : body;
	end = strstr(m, ", e.what()");
	if (!end)
		end = strstr(m, " (version ");
	if (!end)
		end = m + strcspn(m, "\n");
	n = (size_t)(end - m);
	/* current releases end with " (ERROR_NAME)" */
	if (n > 2 && m[n - 1] == ')') {
		const char *open = m + n - 1; /* the last '(' */

		while (open > m && *open != '(')
			open--;
		if (*open == '(' && open > m + 1 && open[-1] == ' ')
			n = (size_t)(open - 1 - m);
	}
	while (n && (m[n - 1] == '.' || m[n - 1] == ' ' || m[n - 1] == '\n'))
		n--;
	if (n > outlen - 1)
		n = outlen - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = m[i] >= 0x20 && m[i] < 0x7f ? m[i] : ' ';
	out[n] = '\0';
}

/*
 * One request: POST body (len bytes) to the URL with query (NULL: none)
 * and, unless no_db, the database.
 */
static int request(struct ch_client *c, const char *query, const void *body,
		   size_t len, bool no_db, bool insert)
{
	char *url, *esc = NULL;
	size_t urllen;
	long code = 0;
	CURLcode rc;

	if (query && !(esc = curl_easy_escape(c->curl, query, 0)))
		return ch_fail(c, "out of memory");
	urllen = strlen(c->base) + strlen(c->url.database) +
		 (esc ? strlen(esc) : 0) + 96;
	url = malloc(urllen);
	if (!url) {
		curl_free(esc);
		return ch_fail(c, "out of memory");
	}
	/*
	 * An answer streamed as it is computed gets an error appended after
	 * 200 and some rows, which a reader could take for more rows: with
	 * wait_end_of_query the server keeps the answer (in memory, then a
	 * temporary file) until the query ends, and a failure is a status.
	 */
	snprintf(url, urllen, "%s?wait_end_of_query=1%s%s%s%s%s", c->base,
		 no_db ? "" : "&database=", no_db ? "" : c->url.database,
		 insert && c->insert_sync ? "&insert_distributed_sync=1" : "",
		 esc ? "&query=" : "", esc ? esc : "");
	curl_free(esc);
	curl_easy_reset(c->curl);
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->curl_error);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, CH_CONNECT_TIMEOUT_S);
	curl_easy_setopt(c->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c->curl, CURLOPT_LOW_SPEED_TIME, CH_STALL_S);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	if (c->url.has_user) {
		curl_easy_setopt(c->curl, CURLOPT_HTTPAUTH,
				 (long)CURLAUTH_BASIC);
		curl_easy_setopt(c->curl, CURLOPT_USERNAME, c->url.user);
		curl_easy_setopt(c->curl, CURLOPT_PASSWORD, c->url.password);
	}
	c->nbody = 0;
	c->body[0] = c->curl_error[0] = '\0';
	c->sink_failed = false;
	rc = curl_easy_perform(c->curl);
	free(url);
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
	if (c->sink_failed)
		return -1; /* the sink said why */
	if (rc != CURLE_OK)
		return ch_fail(c, "%s: %s",
			       code ? "the answer broke off" : "cannot connect",
			       c->curl_error[0] ? c->curl_error
						: curl_easy_strerror(rc));
	if (code != 200) {
		char msg[300];

		server_message(c->body, msg, sizeof(msg));
		return ch_fail(c, "%s (HTTP %ld)", msg[0] ? msg : "refused",
			       code);
	}
	return 0;
}

int ch_exec(struct ch_client *c, const char *sql)
{
	c->sink = NULL;
	return request(c, NULL, sql, strlen(sql), false, false);
}

int ch_select(struct ch_client *c, const char *sql, ch_sink_fn sink, void *arg)
{
	int ret;

	c->sink = sink;
	c->arg = arg;
	ret = request(c, NULL, sql, strlen(sql), false, false);
	c->sink = NULL;
	return ret;
}

struct text {
	struct rb_buf b; /* the answer so far, NUL-terminated */
	struct ch_client *c;
};

static int keep_text(const char *p, size_t n, void *arg)
{
	struct text *t = arg;

	if (t->b.len)
		t->b.len--; /* the NUL: more text follows */
	rb_put(&t->b, p, n);
	rb_put_u8(&t->b, 0);
	return t->b.oom ? ch_fail(t->c, "out of memory") : 0;
}

char *ch_select_text(struct ch_client *c, const char *sql)
{
	struct text t = { .c = c };
	char *text;

	if (ch_select(c, sql, keep_text, &t) ||
	    (!t.b.len && keep_text("", 0, &t))) {
		rb_release(&t.b);
		return NULL;
	}
	text = (char *)t.b.p;
	/* its last newline */
	if (t.b.len > 1 && text[t.b.len - 2] == '\n')
		text[t.b.len - 2] = '\0';
	return text;
}

/* Made only when missing: a user may read and write but not create. */
int ch_create_database(struct ch_client *c)
{
	struct text t = { .c = c };
	char sql[200];
	bool exists;

	snprintf(sql, sizeof(sql),
		 "SELECT count() FROM system.databases WHERE name = '%s'",
		 c->url.database);
	c->sink = keep_text;
	c->arg = &t;
	if (request(c, NULL, sql, strlen(sql), true, false)) {
		c->sink = NULL;
		rb_release(&t.b);
		return -1;
	}
	exists = t.b.len && t.b.p[0] == '1';
	rb_release(&t.b);
	c->sink = NULL;
	if (exists)
		return 0;
	snprintf(sql, sizeof(sql), "CREATE DATABASE IF NOT EXISTS %s",
		 c->url.database);
	return request(c, NULL, sql, strlen(sql), true, false);
}

void ch_insert_sync(struct ch_client *c)
{
	c->insert_sync = true;
}

int ch_insert(struct ch_client *c, const char *into, const void *data,
	      size_t len)
{
	char *query;
	size_t n = strlen(into) + 64;
	int ret;

	query = malloc(n);
	if (!query)
		return ch_fail(c, "out of memory");
	snprintf(query, n, "INSERT INTO %s FORMAT RowBinary", into);
	c->sink = NULL;
	ret = request(c, query, data, len, false, true);
	free(query);
	return ret;
}
