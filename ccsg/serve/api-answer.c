/*
 * api-answer.c - what every endpoint of the viewer's API does with its
 * request and its answer (internal.h): the query parameters read (a bad
 * one is a 400), the error written in place of the answer, the unknown
 * node, and the pieces every tree's nodes put: locations (host, process,
 * thread) and vectors.  It also grows the viewer's scratch list.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

const char *const api_tree_names[NTREES] = { "idt", "dscg", "ccsg", "ccdg" };

/* Replace whatever was written by {"error": MESSAGE}; -1 to unwind. */
int api_reply_error(struct ctx *x, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fclose(x->f);
	free(x->buf);
	x->buf = NULL;
	x->len = 0;
	x->f = open_memstream(&x->buf, &x->len);
	x->status = status;
	if (!x->f)
		return -1;
	fputs("{\"error\": ", x->f);
	json_cstr(x->f, msg);
	fputs("}\n", x->f);
	return -1;
}

const char *api_query(const struct ctx *x, const char *key)
{
	for (size_t i = 0; i < x->rq->nparams; i++)
		if (!strcmp(x->rq->params[i].key, key))
			return x->rq->params[i].value ? x->rq->params[i].value
						      : "";
	return NULL;
}

/* Digits only, at most 18 of them (no overflow): 0 and *out, or -1. */
int api_parse_num(const char **s, int64_t *out)
{
	const char *p = *s;
	int64_t n = 0;
	int d = 0;

	while (*p >= '0' && *p <= '9') {
		if (++d > 18)
			return -1;
		n = n * 10 + (*p++ - '0');
	}
	if (!d)
		return -1;
	*s = p;
	*out = n;
	return 0;
}

/* A whole string that is a number in [lo, hi]. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	if (!s || api_parse_num(&s, out) || *s || *out < lo || *out > hi)
		return -1;
	return 0;
}

/* An optional numeric parameter; a bad one is a 400. */
int api_num_param(struct ctx *x, const char *key, int64_t lo, int64_t hi,
		  int64_t dflt, int64_t *out)
{
	const char *s = api_query(x, key);

	*out = dflt;
	if (!s)
		return 0;
	if (parse_int(s, lo, hi, out))
		return api_reply_error(
			x, 400,
			"'%s' must be a number from %lld to %lld, "
			"not '%.64s'",
			key, (long long)lo, (long long)hi, s);
	return 0;
}

const char *api_need_param(struct ctx *x, const char *key)
{
	const char *s = api_query(x, key);

	if (!s || !*s)
		api_reply_error(x, 400, "missing parameter '%s'", key);
	return s && *s ? s : NULL;
}

int api_unknown_node(struct ctx *x, const char *id)
{
	return api_reply_error(x, 404, "unknown node '%.200s' in tree '%s'", id,
			       x->ct ? "compacted" : api_tree_names[x->tree]);
}

/* ---- locations ---------------------------------------------------------- */

const char *api_host_name(const struct ccsg_trace *t, int32_t proc)
{
	int32_t h = proc > 0 ? ccsg_trace_host(t, proc) : -1;

	return h >= 0 ? t->hosts[h] : "";
}

void api_process_name(const struct ccsg_trace *t, int32_t proc, char *buf,
		      size_t len)
{
	const char *exe, *base;

	if (proc <= 0 || (size_t)proc >= t->nprocs) {
		snprintf(buf, len, "%s", proc > 0 ? "?" : "");
		return;
	}
	exe = t->procs[proc].exe;
	base = exe && strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	snprintf(buf, len, "%s[%d]", base ? base : "", t->procs[proc].pid);
}

/* "host": ..., "process": ..., "tid": ... of (proc, tid). */
void api_put_location(FILE *f, const struct ccsg_trace *t, int32_t proc,
		      int32_t tid)
{
	char p[600];

	api_process_name(t, proc, p, sizeof(p));
	fputs("\"host\": ", f);
	json_cstr(f, api_host_name(t, proc));
	fputs(", \"process\": ", f);
	json_cstr(f, p);
	fprintf(f, ", \"proc_id\": %d, \"tid\": %d", proc, tid);
}

void api_put_vec(FILE *f, const char *key, const int64_t *v, size_t n)
{
	fprintf(f, ", \"%s\": [", key);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
	fputc(']', f);
}

/* ---- the viewer's scratch list --------------------------------------- */

int api_list_add(struct viewer *v, int32_t k)
{
	if (v->nlist == v->cap_list) {
		size_t cap = v->cap_list ? v->cap_list * 2 : 64;
		int32_t *nl = realloc(v->list, cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		v->list = nl;
		v->cap_list = cap;
	}
	v->list[v->nlist++] = k;
	return 0;
}
