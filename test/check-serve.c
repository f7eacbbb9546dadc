/*
 * check-serve.c - `ccsg serve` (the viewer's server and JSON API, api.h)
 * as a real process on a private port (--listen 127.0.0.1:0) over the
 * Figure 1 trace of the CPU paper: every endpoint, the linked navigation
 * (CCSG SAY_IT -> its three invocations on host D -> the IDT's procedure
 * with calls = 3), the CCDG of an impact specification, compaction;
 * unknown trees and nodes (404), malformed requests (400), a database
 * removed while serving, fuzzed parameters, bad input refused before
 * serving, and SIGINT / SIGTERM.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "json-read.h"
#include "json-valid.h"
#include "serve-run.h"
#include "tool-run.h"

/* An API answer (http_json()); an error's carries its "error". */
static struct jval *api(int port, const char *method, const char *target,
			int status)
{
	struct jval *doc = http_json(port, method, target, status);

	if (status >= 400)
		json_need(doc, "error", J_STR, target);
	return doc;
}

static struct jval *get(int port, const char *target)
{
	return api(port, "GET", target, 200);
}

static const char *str(const struct jval *o, const char *key)
{
	return json_need(o, key, J_STR, key)->str;
}

static double num(const struct jval *o, const char *key)
{
	return json_need(o, key, J_NUM, key)->num;
}

/* The child of tree node id named name: its id (static buffer). */
static const char *child_named(int port, const char *tree, const char *id,
			       const char *name)
{
	static char found[256];
	char target[512];
	struct jval *doc;
	const struct jval *kids;

	snprintf(target, sizeof(target), "/api/children?tree=%s&id=%s", tree,
		 id);
	doc = get(port, target);
	kids = json_need(doc, "children", J_ARR, target);
	found[0] = '\0';
	for (int i = 0; i < kids->n; i++)
		if (!strcmp(str(&kids->item[i], "name"), name))
			snprintf(found, sizeof(found), "%s",
				 str(&kids->item[i], "id"));
	json_free(doc);
	ck_assert_msg(found[0], "%s: no child '%s'", target, name);
	return found;
}

static int is_affected(int port, const char *id, const char *spec)
{
	char target[1024];
	struct jval *doc;
	int affected;

	snprintf(target, sizeof(target), "/api/node?tree=ccdg&id=%s&spec=%s",
		 id, spec);
	doc = get(port, target);
	affected = json_need(doc, "affected", J_BOOL, target)->num != 0;
	json_free(doc);
	return affected;
}

/* doc's "steps" are the strings given, NULL-terminated. */
static void steps_are(const struct jval *doc, ...)
{
	const struct jval *st = json_need(doc, "steps", J_ARR, "steps");
	const char *want;
	va_list ap;
	int n = 0;

	va_start(ap, doc);
	while ((want = va_arg(ap, const char *))) {
		ck_assert_msg(n < st->n, "steps: %d, more expected", st->n);
		ck_assert_int_eq(st->item[n].type, J_STR);
		ck_assert_str_eq(st->item[n].str, want);
		n++;
	}
	va_end(ap);
	ck_assert_int_eq(st->n, n);
}

/* ---- the tests ----------------------------------------------------------- */

/* reduction on processor { D } by 20% to function { *::say_it } */
#define SPEC                                                                   \
	"reduction%20on%20processor%20%7B%20D%20%7D%20by%2020%25%20to%20"      \
	"function%20%7B%20*%3A%3Asay_it%20%7D"

START_TEST(test_endpoints)
{
	struct server s;
	struct jval *doc;
	const struct jval *groups, *procs, *threads, *nodes;
	char foo[64], say_it[64], target[512];
	const char *p;
	struct e2e t;

	e2e_init(&t);
	serve_start(&s, fx_figure1(), NULL);

	doc = get(s.port, "/api/info");
	ck_assert_int_eq(json_need(doc, "hosts", J_ARR, "info")->n, 4);
	ck_assert_int_eq(num(doc, "calls"), 6);
	json_free(doc);

	/* CCSG: main > foo > say_it, its calls and its per-host vectors */
	snprintf(foo, sizeof(foo), "%s",
		 child_named(s.port, "ccsg", "n0", "0x20000001::foo"));
	snprintf(say_it, sizeof(say_it), "%s",
		 child_named(s.port, "ccsg", foo, "0x20000001::say_it"));
	snprintf(target, sizeof(target), "/api/node?tree=ccsg&id=%s", say_it);
	doc = get(s.port, target);
	ck_assert_int_eq(num(doc, "calls"), 3);
	ck_assert_int_eq(num(doc, "self"), 7800 * US);
	{
		const struct jval *v =
			json_need(doc, "self_v", J_ARR, "say_it");

		ck_assert_int_eq(v->n, 4);
		ck_assert_int_eq(v->item[3].num, 7800 * US); /* host D */
		ck_assert_int_eq(v->item[0].num, 0);
		/* its caller in the graph: foo, by the primary tree */
		v = json_need(doc, "callers", J_ARR, "say_it");
		ck_assert_int_eq(v->n, 1);
		ck_assert_str_eq(str(&v->item[0], "name"), "0x20000001::foo");
		ck_assert_int_eq(num(&v->item[0], "count"), 3);
		ck_assert(json_need(&v->item[0], "primary", J_BOOL, "caller")
				  ->num);
	}
	json_free(doc);
	snprintf(target, sizeof(target),
		 "/api/children?tree=ccsg&id=%s&secondary=1", foo);
	doc = get(s.port, target);
	ck_assert_int_eq(num(doc, "total"), 3);
	json_need(doc, "secondary", J_ARR, target);
	json_free(doc);

	/* linked navigation: CCSG say_it -> its three invocations, grouped
	 * by host D > its process > its thread */
	snprintf(target, sizeof(target), "/api/link?from=ccsg&id=%s&to=dscg",
		 say_it);
	doc = get(s.port, target);
	ck_assert_int_eq(num(doc, "count"), 3);
	groups = json_need(doc, "groups", J_ARR, target);
	ck_assert_int_eq(groups->n, 1);
	ck_assert_str_eq(str(&groups->item[0], "host"), "D");
	procs = json_need(&groups->item[0], "processes", J_ARR, target);
	ck_assert_int_eq(procs->n, 1);
	threads = json_need(&procs->item[0], "threads", J_ARR, target);
	ck_assert_int_eq(threads->n, 1);
	nodes = json_need(&threads->item[0], "nodes", J_ARR, target);
	ck_assert_int_eq(nodes->n, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_str_eq(str(&nodes->item[i], "name"),
				 "0x20000001::say_it");
		ck_assert_str_eq(str(&nodes->item[i], "host"), "D");
	}
	/* ... and the path from main to one of them: main > chain > foo >
	 * say_it (foo's client thread has no row: the chain hangs under
	 * main), the first say_it after times and what_to_say */
	snprintf(target, sizeof(target), "/api/path?tree=dscg&id=%s",
		 str(&nodes->item[0], "id"));
	json_free(doc);
	doc = get(s.port, target);
	{
		const struct jval *path = json_need(doc, "path", J_ARR, target);

		ck_assert_int_eq(path->n, 4);
		ck_assert_str_eq(
			str(json_need(&path->item[0], "node", J_OBJ, target),
			    "id"),
			"m");
		ck_assert_str_eq(
			str(json_need(&path->item[1], "node", J_OBJ, target),
			    "kind"),
			"chain");
		ck_assert_str_eq(
			str(json_need(&path->item[2], "node", J_OBJ, target),
			    "name"),
			"0x20000001::foo");
		ck_assert_int_eq(num(&path->item[3], "index"), 2);
	}
	json_free(doc);

	/* -> the IDT: the procedure with calls = 3, per host */
	snprintf(target, sizeof(target), "/api/link?from=ccsg&id=%s&to=idt",
		 say_it);
	doc = get(s.port, target);
	ck_assert_int_eq(num(doc, "count"), 1);
	nodes = json_need(
		&json_need(&json_need(&json_need(doc, "groups", J_ARR, target)
					       ->item[0],
				      "processes", J_ARR, target)
				    ->item[0],
			   "threads", J_ARR, target)
			 ->item[0],
		"nodes", J_ARR, target);
	snprintf(target, sizeof(target), "/api/node?tree=idt&id=%s",
		 str(&nodes->item[0], "id"));
	json_free(doc);
	doc = get(s.port, target);
	ck_assert_str_eq(str(doc, "kind"), "procedure");
	ck_assert_int_eq(num(doc, "calls"), 3);
	ck_assert_int_eq(num(doc, "cpu_mean"), 2600 * US);
	ck_assert_int_eq(json_need(doc, "hosts", J_ARR, target)->n, 1);
	json_free(doc);
	/* the IDT from the top: program > version > procedures */
	doc = get(s.port, "/api/children?tree=idt&id=idt");
	ck_assert_int_eq(num(doc, "total"), 1);
	json_free(doc);
	doc = get(s.port, "/api/children?tree=idt&id=v536870913.1");
	ck_assert_int_eq(num(doc, "total"), 4);
	json_free(doc);

	/* DSCG: main's children, a thread's, pages, search */
	doc = get(s.port, "/api/children?tree=dscg&id=c1&limit=2&offset=1");
	ck_assert_int_eq(json_need(doc, "children", J_ARR, "page")->n, 2);
	ck_assert_int_eq(num(doc, "total"), 5);
	ck_assert_str_eq(
		str(&json_need(doc, "children", J_ARR, "page")->item[0],
		    "name"),
		"0x20000001::what_to_say");
	json_free(doc);
	doc = get(s.port, "/api/search?tree=dscg&q=SAY_IT");
	ck_assert_int_eq(num(doc, "total"), 3);
	json_free(doc);
	doc = get(s.port, "/api/search?tree=ccsg&q=what");
	ck_assert_int_eq(num(doc, "total"), 2); /* and its threads' node */
	json_free(doc);
	doc = get(s.port, "/api/search?tree=idt&q=times");
	ck_assert_int_eq(num(doc, "total"), 1);
	json_free(doc);

	/* CCDG: say_it, foo and main affected; times not */
	ck_assert(is_affected(s.port, say_it, SPEC));
	ck_assert(is_affected(s.port, foo, SPEC));
	ck_assert(is_affected(s.port, "n0", SPEC));
	p = child_named(s.port, "ccsg", foo, "0x20000001::times");
	ck_assert(!is_affected(s.port, p, SPEC));
	snprintf(target, sizeof(target), "/api/node?tree=ccdg&id=%s&spec=%s",
		 say_it, SPEC);
	doc = get(s.port, target);
	ck_assert_int_eq(num(doc, "delta"), -1560 * US);
	json_free(doc);

	/* compaction by location: level 1 shows hosts; expand and compact
	 * one of them again, each action answering the steps of its state,
	 * which the next request gives */
	doc = api(s.port, "POST",
		  "/api/compact?tree=ccsg&hierarchy=location&op=level&level=1",
		  200);
	steps_are(doc, "level:1", NULL);
	json_free(doc);
	doc = get(s.port, "/api/children?tree=ccsg&compact=location&id=k:"
			  "%3Cmain%3E&step=level:1");
	ck_assert_int_eq(num(doc, "total"), 1);
	ck_assert_str_eq(
		str(&json_need(doc, "children", J_ARR, "k")->item[0], "id"),
		"k:<main>;A");
	json_free(doc);
	doc = api(s.port, "POST",
		  "/api/compact?tree=ccsg&hierarchy=location&op=expand&id=k:"
		  "%3Cmain%3E%3BA&step=level:1",
		  200);
	ck_assert_str_eq(str(json_need(doc, "node", J_OBJ, "expand"), "id"),
			 "k:<main>;A::p2[1002]");
	steps_are(doc, "level:1", "expand:k:<main>;A", NULL);
	json_free(doc);
	doc = api(s.port, "POST",
		  "/api/compact?tree=ccsg&hierarchy=location&op=compact&id=k:"
		  "%3Cmain%3E%3BA%3A%3Ap2%5B1002%5D&step=level:1&step=expand:"
		  "k:%3Cmain%3E%3BA",
		  200);
	ck_assert_str_eq(str(json_need(doc, "node", J_OBJ, "compact"), "id"),
			 "k:<main>;A");
	steps_are(doc, "level:1", "expand:k:<main>;A",
		  "compact:k:<main>;A::p2[1002]", NULL);
	json_free(doc);
	/* a node of one element cannot be compacted: 409 and the reason */
	json_free(api(s.port, "POST",
		      "/api/compact?tree=ccsg&hierarchy=location&op=compact&"
		      "id=k:%3Cmain%3E&step=level:1",
		      409));
	json_free(api(s.port, "POST",
		      "/api/compact?tree=dscg&hierarchy=name&op=level&level=1",
		      200));
	doc = get(s.port,
		  "/api/children?tree=dscg&compact=name&id=k:&step=level:1");
	ck_assert_int_eq(num(doc, "total"), 1);
	json_free(doc);

	/* the page and its script */
	{
		struct reply r = http(s.port, "GET", "/");

		ck_assert_int_eq(r.status, 200);
		ck_assert_ptr_nonnull(strstr(r.body, "<html"));
		free(r.body);
		r = http(s.port, "GET", "/app.js");
		ck_assert_int_eq(r.status, 200);
		free(r.body);
		r = http(s.port, "GET", "/d3.min.js");
		ck_assert_int_eq(
			r.status,
			access("/usr/share/nodejs/d3/dist/d3.min.js", R_OK)
				? 404
				: 200);
		free(r.body);
	}
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

START_TEST(test_errors)
{
	static const char *const not_found[] = {
		"/api/nothing",
		"/nothing",
		"/api/node?tree=nope&id=m",
		"/api/children?tree=DSCG&id=m",
		"/api/node?tree=dscg&id=c999",
		"/api/node?tree=dscg&id=c",
		"/api/node?tree=dscg&id=c-1",
		"/api/node?tree=dscg&id=c1x",
		"/api/node?tree=dscg&id=t9.9",
		"/api/node?tree=dscg&id=t1",
		"/api/node?tree=dscg&id=g1",
		"/api/node?tree=dscg&id=s0.0", /* chain 0 is whole */
		"/api/node?tree=dscg&id=mm",
		"/api/node?tree=dscg&id=n0",
		"/api/node?tree=ccsg&id=n99",
		"/api/node?tree=ccsg&id=n99999999999999999999",
		"/api/node?tree=ccsg&id=m",
		"/api/node?tree=idt&id=p1",
		"/api/node?tree=idt&id=f536870913.1.9",
		"/api/node?tree=idt&id=f536870913.1",
		"/api/path?tree=ccsg&id=n-1",
		"/api/children?tree=ccsg&compact=name&id=k:nothing",
		"/api/children?tree=ccsg&compact=name&id=n0",
		"/api/link?from=ccsg&id=n1&to=elsewhere",
		"/api/link?from=ccsg&id=n77&to=dscg",
	};
	static const char *const bad[] = {
		"/api/node?tree=dscg",
		"/api/node?id=m",
		"/api/node?tree=&id=m",
		"/api/children?tree=dscg&id=m&limit=0",
		"/api/children?tree=dscg&id=m&limit=x",
		"/api/children?tree=dscg&id=m&offset=-1",
		"/api/children?tree=dscg&id=m&offset=99999999999999999999",
		"/api/children?tree=idt&id=idt&compact=name",
		"/api/children?tree=dscg&id=m&compact=sideways",
		"/api/search?tree=ccsg",
		"/api/link?from=ccsg&id=n1",
		"/api/node?tree=ccdg&id=n0",
		"/api/node?tree=ccdg&id=n0&spec=reduction",
		("/api/node?tree=ccdg&id=n0&spec=reduction%20on%20processor%20"
		 "%7B%20Z%20%7D%20by%2020%25%20to%20function%20%7B%20foo%20%"
		 "7D"),
	};
	struct server s;
	struct e2e t;

	e2e_init(&t);
	serve_start(&s, fx_figure1(), NULL);
	for (size_t i = 0; i < sizeof(not_found) / sizeof(not_found[0]); i++)
		json_free(api(s.port, "GET", not_found[i], 404));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		json_free(api(s.port, "GET", bad[i], 400));
	json_free(api(s.port, "POST", "/api/node?tree=dscg&id=m", 405));
	json_free(api(s.port, "DELETE", "/api/node?tree=dscg&id=m", 405));
	json_free(api(s.port, "GET",
		      "/api/compact?tree=ccsg&hierarchy=name&op=reset", 405));
	json_free(api(s.port, "POST",
		      "/api/compact?tree=ccsg&hierarchy=name&op=fold", 400));
	json_free(api(s.port, "POST",
		      "/api/compact?tree=ccsg&hierarchy=up&op=reset", 400));
	json_free(api(s.port, "POST",
		      "/api/compact?tree=idt&hierarchy=name&op=reset", 400));
	json_free(api(s.port, "POST",
		      "/api/compact?tree=ccsg&hierarchy=name&op=expand&id=k:x",
		      404));
	json_free(api(s.port, "POST",
		      "/api/compact?tree=ccsg&hierarchy=name&op=level&level=0",
		      400));
	{
		/* a page of another site, through a rebound DNS name */
		struct reply r = http_send(s.port,
					   "GET /api/info HTTP/1.1\r\nHost: "
					   "evil.example:80\r\nConnection: "
					   "close\r\n\r\n",
					   0);

		ck_assert_int_eq(r.status, 403);
		free(r.body);
		r = http_send(s.port, "GARBAGE\r\n\r\n", 1);
		ck_assert(r.status == 0 || r.status >= 400);
		free(r.body);
		r = http_send(s.port,
			      "GET /api/info?tree=%zz&&=&id HTTP/1.0\r\n"
			      "Host: localhost\r\n\r\n",
			      1);
		ck_assert(r.status == 0 || r.status == 200);
		free(r.body);
	}
	json_free(get(s.port, "/api/info")); /* still serving */
	e2e_assert_exit(serve_stop(&s, SIGINT), 0, "ccsg serve (SIGINT)");
	e2e_release(&t);
}
END_TEST

/* The children of the compacted CCSG's node id in the state of steps (a
 * query string of step=, or ""): the body, which the caller frees. */
static char *compacted_kids(int port, const char *hier, const char *id,
			    const char *steps)
{
	char target[2048];
	struct reply r;

	snprintf(target, sizeof(target),
		 "/api/children?tree=ccsg&compact=%s&id=%s%s", hier, id, steps);
	r = http(port, "GET", target);
	ck_assert_msg(r.status == 200, "%s: %d %s", target, r.status, r.body);
	return r.body;
}

/* Each request's compaction is its own (issue 40, item 7): an action
 * changes nothing another request sees, states asked for in turn (more
 * than the viewer keeps built) each answer the same every time. */
START_TEST(test_compaction_per_request)
{
	static const char *const states[] = {
		"",
		"&step=level:1",
		"&step=level:1&step=expand:k:%3Cmain%3E%3BA",
		"&step=level:2",
		("&step=level:1&step=expand:k:%3Cmain%3E%3BA&step=compact:k:"
		 "%3Cmain%3E%3BA%3A%3Ap2%5B1002%5D"),
		"&step=level:3",
	};
	enum { N = sizeof(states) / sizeof(states[0]) };
	char *first[N][2];
	struct server s;
	struct jval *doc;
	struct e2e t;
	char target[4096];

	e2e_init(&t);
	serve_start(&s, fx_figure1(), NULL);
	for (int i = 0; i < N; i++) {
		first[i][0] = compacted_kids(s.port, "location", "k:%3Cmain%3E",
					     states[i]);
		first[i][1] = compacted_kids(
			s.port, "name", "k:%3Cmain%3E",
			strstr(states[i], "expand") ? "" : states[i]);
	}
	ck_assert_str_ne(first[0][0], first[1][0]);
	ck_assert_str_ne(first[1][0], first[2][0]);
	/* one viewer's actions, through POST, change no other's answer */
	json_free(api(s.port, "POST",
		      "/api/compact?tree=ccsg&hierarchy=location&op=level&"
		      "level=1",
		      200));
	json_free(api(s.port, "POST",
		      "/api/compact?tree=ccsg&hierarchy=name&op=reset&"
		      "step=level:1",
		      200));
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < N; i++)
			for (int h = 0; h < 2; h++) {
				char *again = compacted_kids(
					s.port, h ? "name" : "location",
					"k:%3Cmain%3E",
					h && strstr(states[i], "expand")
						? ""
						: states[i]);

				ck_assert_msg(!strcmp(again, first[i][h]),
					      "state '%s' (%s) answered "
					      "differently:\n%s\nthen\n%s",
					      states[i],
					      h ? "name" : "location",
					      first[i][h], again);
				free(again);
			}
	/* levels in a row: at most the least of them */
	for (int i = 0; i < 2; i++) {
		char *again = compacted_kids(
			s.port, "location", "k:%3Cmain%3E",
			i ? "&step=level:1&step=level:3"
			  : "&step=level:3&step=level:1&step=level:2");

		ck_assert_str_eq(again, first[1][0]);
		free(again);
	}
	for (int i = 0; i < N; i++) {
		free(first[i][0]);
		free(first[i][1]);
	}
	/* levels in a row are one; reset is no step at all */
	doc = api(s.port, "POST",
		  "/api/compact?tree=dscg&hierarchy=location&op=level&level=2&"
		  "step=level:1",
		  200);
	steps_are(doc, "level:1", NULL);
	json_free(doc);
	doc = api(s.port, "POST",
		  "/api/compact?tree=dscg&hierarchy=location&op=reset&"
		  "step=level:1&step=expand:k:%3Cmain%3E%3BA",
		  200);
	steps_are(doc, NULL);
	json_free(doc);
	/* bad steps */
	json_free(api(s.port, "GET",
		      "/api/children?tree=ccsg&compact=name&id=k:&step=fold:1",
		      400));
	json_free(api(s.port, "GET",
		      "/api/children?tree=ccsg&compact=name&id=k:&step=level:0",
		      400));
	json_free(api(s.port, "GET",
		      "/api/children?tree=ccsg&compact=name&id=k:&step=level:x",
		      400));
	json_free(
		api(s.port, "GET",
		    "/api/children?tree=ccsg&compact=name&id=k:&step=expand:k:",
		    400));
	json_free(api(s.port, "GET",
		      "/api/children?tree=ccsg&compact=name&id=k:&step=expand:"
		      "k:nothing",
		      404));
	json_free(api(s.port, "GET",
		      "/api/children?tree=ccsg&compact=location&id=k:&step="
		      "level:1&step=compact:k:%3Cmain%3E",
		      409));
	json_free(api(s.port, "GET",
		      "/api/children?tree=ccsg&id=n0&step=level:1", 400));
	{
		int n = snprintf(target, sizeof(target),
				 "/api/children?tree=ccsg&compact=name&id=k:");

		for (int i = 0; i < 101; i++)
			n += snprintf(target + n, sizeof(target) - (size_t)n,
				      "&step=level:%d", i % 3 + 1);
		json_free(api(s.port, "GET", target, 400));
	}
	/* a failed replay leaves nothing wrong behind */
	doc = get(
		s.port,
		"/api/children?tree=ccsg&compact=location&id=k:&step=level:1");
	ck_assert_int_eq(num(doc, "total"), 1);
	json_free(doc);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

/* A page of another site may link to the viewer, not use its API nor
 * post to it (issue 40, item 7); the viewer's own page may. */
START_TEST(test_cross_site)
{
	static const struct {
		const char *method, *target, *headers;
		int status;
	} cases[] = {
		{ "POST",
		  "/api/compact?tree=ccsg&hierarchy=name&op=level&level=1",
		  "Origin: http://evil.example\r\n", 403 },
		{ "POST",
		  "/api/compact?tree=ccsg&hierarchy=name&op=level&level=1",
		  "Sec-Fetch-Site: cross-site\r\n", 403 },
		{ "POST",
		  "/api/compact?tree=ccsg&hierarchy=name&op=level&level=1",
		  "Sec-Fetch-Site: same-site\r\n", 403 },
		{ "POST",
		  "/api/compact?tree=ccsg&hierarchy=name&op=level&level=1",
		  "Origin: null\r\n", 403 },
		{ "POST",
		  "/api/compact?tree=ccsg&hierarchy=name&op=level&level=1",
		  "Origin: http://127.0.0.1.evil.example\r\n", 403 },
		{ "GET", "/api/info", "Sec-Fetch-Site: cross-site\r\n", 403 },
		{ "GET", "/api/info", "Origin: http://evil.example\r\n", 403 },
		{ "POST", "/", "Origin: http://evil.example\r\n", 403 },
		/* a link from elsewhere opens the page */
		{ "GET", "/", "Sec-Fetch-Site: cross-site\r\n", 200 },
		{ "GET", "/app.js", "Sec-Fetch-Site: same-origin\r\n", 200 },
		/* the page's own requests, and a program's */
		{ "GET", "/api/info", "Sec-Fetch-Site: same-origin\r\n", 200 },
		{ "GET", "/api/info", "Sec-Fetch-Site: none\r\n", 200 },
		{ "POST",
		  "/api/compact?tree=ccsg&hierarchy=name&op=level&level=1",
		  "Sec-Fetch-Site: same-origin\r\n", 200 },
		{ "POST",
		  "/api/compact?tree=ccsg&hierarchy=name&op=level&level=1", "",
		  200 },
	};
	struct server s;
	struct e2e t;
	char req[1024];
	struct reply r;

	e2e_init(&t);
	serve_start(&s, fx_figure1(), NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = http_with(s.port, cases[i].method, cases[i].target,
			      cases[i].headers);
		ck_assert_msg(r.status == cases[i].status,
			      "%s %s with %s: %d, not %d: %s", cases[i].method,
			      cases[i].target, cases[i].headers, r.status,
			      cases[i].status, r.body);
		free(r.body);
	}
	/* Origin: the page's own, as the browser sends it with its POST */
	snprintf(req, sizeof(req),
		 "POST /api/compact?tree=ccsg&hierarchy=name&op=level&level=1 "
		 "HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: "
		 "http://127.0.0.1:%d\r\nSec-Fetch-Site: same-origin\r\n"
		 "Connection: close\r\nContent-Length: 0\r\n\r\n",
		 s.port, s.port);
	r = http_send(s.port, req, 0);
	ck_assert_msg(r.status == 200, "own origin: %d %s", r.status, r.body);
	free(r.body);
	/* ... on another port is another origin */
	snprintf(req, sizeof(req),
		 "POST /api/compact?tree=ccsg&hierarchy=name&op=level&level=1 "
		 "HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: "
		 "http://127.0.0.1:%d\r\nConnection: close\r\n"
		 "Content-Length: 0\r\n\r\n",
		 s.port, s.port + 1);
	r = http_send(s.port, req, 0);
	ck_assert_msg(r.status == 403, "other port: %d %s", r.status, r.body);
	free(r.body);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

/* The trace is in memory: removing the database changes nothing. */
START_TEST(test_db_disappears)
{
	static const char *const targets[] = {
		"/api/info",
		"/api/children?tree=dscg&id=m",
		"/api/children?tree=ccsg&id=n0",
		"/api/children?tree=idt&id=idt",
		("/api/node?tree=ccdg&id=n0&spec=" SPEC),
		"/api/link?from=ccsg&id=n1&to=dscg",
		"/api/children?tree=dscg&compact=location&id=k:",
	};
	struct server s;
	struct e2e t;
	const char *db;

	e2e_init(&t);
	db = fx_figure1();
	serve_start(&s, db, NULL);
	ck_assert_int_eq(unlink(db), 0);
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		json_free(get(s.port, targets[i]));
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

static uint32_t seed = 12345;

static unsigned rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) & 0xffff;
}
#define RAND() rnd()

/* Call ids far apart (a database not numbered 1..N by the merge): the
 * viewer's sorted index, not its table. */
START_TEST(test_sparse_ids)
{
	struct server s;
	struct jval *doc;
	const char *db;
	sqlite3 *sql;
	struct e2e t;

	e2e_init(&t);
	db = fx_figure1();
	ck_assert_int_eq(sqlite3_open(db, &sql), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(sql,
				      "UPDATE rpc_calls SET call_id = "
				      "call_id * 1000003",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(sql);
	serve_start(&s, db, NULL);
	doc = get(s.port, "/api/node?tree=dscg&id=c1000003");
	ck_assert_str_eq(str(doc, "name"), "0x20000001::foo");
	json_free(doc);
	doc = get(s.port, "/api/node?tree=dscg&id=c6000018");
	ck_assert_str_eq(str(doc, "name"), "0x20000001::say_it");
	json_free(doc);
	json_free(api(s.port, "GET", "/api/node?tree=dscg&id=c1", 404));
	json_free(api(s.port, "GET", "/api/node?tree=dscg&id=c1000004", 404));
	json_free(api(s.port, "GET", "/api/node?tree=dscg&id=c7000021", 404));
	doc = get(s.port, "/api/children?tree=dscg&id=c1000003");
	ck_assert_int_eq(num(doc, "total"), 5);
	json_free(doc);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

/* Random parameters on every endpoint: never a crash, always JSON. */
START_TEST(test_fuzz)
{
	static const char *const paths[] = {
		"/api/info",   "/api/node", "/api/children", "/api/path",
		"/api/search", "/api/link", "/api/compact",  "/api/x",
	};
	static const char *const keys[] = {
		"tree",	    "id",	 "offset",    "limit",	 "q",
		"from",	    "to",	 "spec",      "compact", "op",
		"level",    "hierarchy", "secondary", "",	 "%00",
		"id%5B%5D", "step",	 "step",
	};
	static const char *const values[] = {
		"idt",
		"dscg",
		"ccsg",
		"ccdg",
		"m",
		"n0",
		"n1",
		"k:",
		"k:%3Cmain%3E",
		"c1",
		"t1.1",
		"g0",
		"s0.0",
		"f536870913.1.4",
		"p536870913",
		"v536870913.1",
		"idt",
		"name",
		"location",
		"compact",
		"expand",
		"level",
		"reset",
		"0",
		"1",
		"-1",
		"4294967296",
		"99999999999999999999",
		"%FF%FE",
		"%00",
		"%25",
		"a%20b",
		"%0A",
		"",
		"reduction%20by",
		(SPEC),
		"n%00",
		"k:;;;",
		"level:1",
		"level:2",
		"level:0",
		"expand:k:%3Cmain%3E",
		"expand:k:%3Cmain%3E%3BA",
		"compact:k:%3Cmain%3E%3BA",
		"compact:",
		"expand:k:",
	};
	struct server s;
	struct e2e t;

	e2e_init(&t);
	serve_start(&s, fx_figure1(), NULL);
	for (int i = 0; i < 1500; i++) {
		char target[2048];
		int n = snprintf(
			target, sizeof(target), "%s",
			paths[RAND() % (sizeof(paths) / sizeof(paths[0]))]);
		int np = (int)(RAND() % 6);
		struct reply r;
		struct jv v;

		for (int k = 0; k < np; k++) {
			const char *key =
				keys[RAND() % (sizeof(keys) / sizeof(keys[0]))];
			const char *val = values[RAND() % (sizeof(values) /
							   sizeof(values[0]))];

			n += snprintf(target + n, sizeof(target) - (size_t)n,
				      "%c%s=%s", k ? '&' : '?', key, val);
		}
		r = http(s.port, RAND() % 4 ? "GET" : "POST", target);
		ck_assert_msg(r.status == 200 || r.status == 400 ||
				      r.status == 404 || r.status == 405 ||
				      r.status == 409,
			      "%s: status %d", target, r.status);
		ck_assert_msg(!json_invalid(r.body, &v), "%s: %s: %s", target,
			      v.err, r.body);
		free(r.body);
	}
	json_free(get(s.port, "/api/info"));
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

/* One line on stderr, nothing served: exit status. */
static int refused(const char *const argv[], const char *what)
{
	struct tool_out r = tool_run(argv);
	int status = r.status;
	char *nl = strchr(r.err, '\n');

	ck_assert_msg(nl && !nl[1], "%s: not one line: '%s'", what, r.err);
	ck_assert_msg(strstr(r.err, "ccsg: error: "), "%s: '%s'", what, r.err);
	ck_assert_msg(!strstr(r.out, "http://"), "%s: served: %s", what, r.out);
	tool_out_release(&r);
	return status;
}

START_TEST(test_bad_input)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	char text[PATH_MAX], busy[64];
	const char *db;
	int fd, st;
	struct e2e t;
	FILE *f;

	e2e_init(&t);
	db = fx_figure1();
	st = refused((const char *[]){ tool_path("ccsg"), "serve", "--db",
				       "missing.db", "--listen", "127.0.0.1:0",
				       NULL },
		     "missing db");
	e2e_assert_exit(st, 1, "missing db");
	e2e_fmt(text, sizeof(text), "%s/not-a-trace", t.dir);
	ck_assert_ptr_nonnull(f = fopen(text, "w"));
	fputs("hello\n", f);
	fclose(f);
	st = refused((const char *[]){ tool_path("ccsg"), "serve", "--db", text,
				       "--listen", "127.0.0.1:0", NULL },
		     "not a trace");
	e2e_assert_exit(st, 1, "not a trace");
	st = refused((const char *[]){ tool_path("ccsg"), "serve", "--db", db,
				       "--idl", "missing.x", "--listen",
				       "127.0.0.1:0", NULL },
		     "missing .x");
	e2e_assert_exit(st, 1, "missing .x");
	st = refused((const char *[]){ tool_path("ccsg"), "serve", "--db", db,
				       "--change", "reduction by", "--listen",
				       "127.0.0.1:0", NULL },
		     "bad --change");
	e2e_assert_exit(st, 1, "bad --change");
	st = refused((const char *[]){ tool_path("ccsg"), "serve", "--db", db,
				       "--listen", "127.0.0.1", NULL },
		     "no port");
	e2e_assert_exit(st, 1, "no port");
	st = refused((const char *[]){ tool_path("ccsg"), "serve", "--db", db,
				       "--listen", "127.0.0.1:70000", NULL },
		     "port out of range");
	e2e_assert_exit(st, 1, "port out of range");
	/* a port in use */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	snprintf(busy, sizeof(busy), "127.0.0.1:%d", ntohs(a.sin_port));
	{
		struct tool_out r = tool_run(
			(const char *[]){ tool_path("ccsg"), "serve", "--db",
					  db, "--listen", busy, NULL });

		e2e_assert_exit(r.status, 1, "port in use");
		ck_assert_msg(strstr(r.err, "Address already in use"), "%s",
			      r.err);
		tool_out_release(&r);
	}
	close(fd);
	{
		struct tool_out r =
			tool_run((const char *[]){ tool_path("ccsg"), "serve",
						   "--db", db, "stray", NULL });

		e2e_assert_exit(r.status, 2, "stray argument");
		ck_assert_msg(!strstr(r.out, "http://"), "%s", r.out);
		tool_out_release(&r);
	}
	e2e_release(&t);
}
END_TEST

Suite *serve_suite(void)
{
	Suite *s = suite_create("serve");
	TCase *tc = tcase_create("serve");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_endpoints);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_compaction_per_request);
	tcase_add_test(tc, test_cross_site);
	tcase_add_test(tc, test_db_disappears);
	tcase_add_test(tc, test_sparse_ids);
	tcase_add_test(tc, test_fuzz);
	tcase_add_test(tc, test_bad_input);
	suite_add_tcase(s, tc);
	return s;
}
