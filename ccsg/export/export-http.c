/*
 * export-http.c - OTLP/HTTP (export.h): each request of the OTLP export
 * POSTed as JSON to the receiver with libcurl.
 *
 * As the OTLP/HTTP specification says, 429, 502, 503 and 504 are
 * answers to try again (so is a receiver that cannot be reached or does
 * not answer in time), any other answer but 2xx a refusal: the request
 * is not sent again and the export stops with the receiver's status and
 * the beginning of what it said.
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export.h"
#include "usage.h"

struct sender {
	CURL *curl;
	const char *url;
	const struct export_otlp_opts *o;
	size_t requests, spans;
	char body[256]; /* the beginning of the last answer */
	size_t nbody;
	char error[CURL_ERROR_SIZE];
};

static size_t keep_body(char *p, size_t size, size_t n, void *arg)
{
	struct sender *s = arg;
	size_t len = size * n;

	for (size_t i = 0; i < len && s->nbody + 1 < sizeof(s->body); i++)
		/* one line of printable text in a message */
		s->body[s->nbody++] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : ' ';
	s->body[s->nbody] = '\0';
	return len;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int send_batch(const char *json, size_t len, size_t nspans, void *arg)
{
	struct sender *s = arg;
	char why[CURL_ERROR_SIZE + 64] = "";
	long wait = 100, code = 0;
	int tries = 0;

	s->requests++;
	curl_easy_setopt(s->curl, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(s->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	for (; tries <= s->o->retries; tries++) {
		CURLcode rc;

		if (tries) {
			pause_ms(wait);
			wait = wait < 1000 ? 2 * wait : 2000;
		}
		s->nbody = 0;
		s->body[0] = s->error[0] = '\0';
		rc = curl_easy_perform(s->curl);
		if (rc != CURLE_OK) {
			snprintf(why, sizeof(why), "%s",
				 s->error[0] ? s->error
					     : curl_easy_strerror(rc));
			continue;
		}
		curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
		if (code >= 200 && code < 300) {
			s->spans += nspans;
			return 0;
		}
		if (code != 429 && code != 502 && code != 503 && code != 504)
			return fail(
				"the OTLP receiver '%s' refused request %zu "
				"(%zu spans): HTTP %ld%s%s",
				s->url, s->requests, nspans, code,
				s->body[0] ? ": " : "", s->body);
		snprintf(why, sizeof(why), "HTTP %ld%s%s", code,
			 s->body[0] ? ": " : "", s->body);
	}
	return fail("cannot send to the OTLP receiver '%s': %s (request %zu, "
		    "%d tries)",
		    s->url, why, s->requests, tries);
}

int export_otlp_send(struct export_ctx *x, const struct export_source *src,
		     const struct export_otlp_opts *o, const char *url)
{
	struct sender s = { .url = url, .o = o };
	struct curl_slist *headers = NULL;
	int ret;

	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return fail("cannot start libcurl");
	s.curl = curl_easy_init();
	headers = curl_slist_append(NULL, "Content-Type: application/json");
	if (!s.curl || !headers) {
		ret = fail("cannot start libcurl");
		goto out;
	}
	curl_easy_setopt(s.curl, CURLOPT_URL, url);
	curl_easy_setopt(s.curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(s.curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s.curl, CURLOPT_ERRORBUFFER, s.error);
	curl_easy_setopt(s.curl, CURLOPT_WRITEFUNCTION, keep_body);
	curl_easy_setopt(s.curl, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(s.curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(s.curl, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	ret = export_otlp_batches(x, src, o, send_batch, &s);
	if (ret == -ENOMEM)
		ret = fail("out of memory");
	else if (ret > 0 || ret == -ECANCELED || ret == -1)
		ret = -1; /* send_batch, or the source, said why */
	else if (ret)
		ret = fail("cannot make the OTLP requests: %s", strerror(-ret));
out:
	curl_slist_free_all(headers);
	if (s.curl)
		curl_easy_cleanup(s.curl);
	curl_global_cleanup();
	return ret ? -1 : 0;
}
