/*
 * values.c - the values of calls, read and decoded (values.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "db-read.h"
#include "json.h"
#include "store.h"
#include "usage.h"
#include "values.h"

static const char *const kind_names[] = {
	[CCSG_VALUE_STUB_ARGS] = "stub_args",
	[CCSG_VALUE_STUB_RESULTS] = "stub_results",
	[CCSG_VALUE_SKEL_ARGS] = "skel_args",
	[CCSG_VALUE_SKEL_RESULTS] = "skel_results",
};

/* Each value row with the call it belongs to: its stub's function in
 * the client process, or its skeleton's in the server's. */
static const char query[] =
	"SELECT c.call_id, v.kind, v.length, v.bytes FROM rpc_values v "
	"JOIN rpc_calls c ON (v.kind LIKE 'stub_%' AND "
	"c.client_proc_id = v.proc_id AND "
	"c.client_function_id = v.function_id) OR (v.kind LIKE 'skel_%' AND "
	"c.server_proc_id = v.proc_id AND "
	"c.server_function_id = v.function_id) "
	"ORDER BY c.call_id, v.kind";

static int kind_of(const char *s)
{
	for (int k = 0; k < 4; k++)
		if (s && !strcmp(s, kind_names[k]))
			return k;
	return -1;
}

static int read_rows(struct ccsg_values *v, sqlite3 *db, const char *path)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read the values of '%s': %s", path,
			    sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ccsg_value_rec *r;
		int kind = kind_of((const char *)sqlite3_column_text(st, 1));
		size_t len = (size_t)sqlite3_column_bytes(st, 3);
		const void *b = sqlite3_column_blob(st, 3);

		if (kind < 0)
			continue; /* a later tracedump's kind */
		if (GROW(v->recs, v->cap, v->n + 1))
			break;
		r = &v->recs[v->n];
		r->call_id = sqlite3_column_int64(st, 0);
		r->kind = kind;
		r->length = (uint32_t)sqlite3_column_int64(st, 2);
		r->len = len;
		if (!(r->bytes = malloc(len + 1)))
			break;
		if (len)
			memcpy(r->bytes, b, len);
		v->n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail("cannot read the values of '%s': %s", path,
			    rc == SQLITE_ROW ? "out of memory"
					     : sqlite3_errmsg(db));
	return 0;
}

int ccsg_values_load(struct ccsg_values *v, const char *db,
		     const char *const *idl, size_t nidl)
{
	const char *path;
	sqlite3 *sq = NULL;
	int ret = 0, has;

	memset(v, 0, sizeof(*v));
	xdr_types_init(&v->types);
	for (size_t i = 0; i < nidl; i++)
		if (xdr_types_load(&v->types, idl[i]))
			return -1;
	path = store_sqlite_path(db);
	if (!path)
		return 0; /* another store: its values are not read */
	if (sqlite3_open_v2(path, &sq, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		ret = fail("cannot open '%s': %s", path,
			   sq ? sqlite3_errmsg(sq) : "out of memory");
	} else if ((has = db_has_table(sq, DB_RPC_VALUES)) < 0) {
		ret = fail("'%s' is not a trace database: %s", path,
			   sqlite3_errmsg(sq));
	} else if (has) {
		ret = read_rows(v, sq, path);
	}
	sqlite3_close(sq);
	return ret;
}

void ccsg_values_release(struct ccsg_values *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->recs[i].bytes);
	free(v->recs);
	xdr_types_release(&v->types);
	memset(v, 0, sizeof(*v));
}

/* The first record of call_id (v->n: none). */
static size_t first_of(const struct ccsg_values *v, int64_t call_id)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->recs[mid].call_id < call_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->n && v->recs[lo].call_id == call_id ? lo : v->n;
}

static void decode_one(struct ccsg_values *v, const struct xdr_proc *p,
		       int result, struct ccsg_call_values *cv)
{
	const struct ccsg_value_rec *r = cv->rec[result];
	const struct xdr_type *const *types =
		p ? (result ? (const struct xdr_type *const *)&p->result
			    : (const struct xdr_type *const *)p->args)
		  : NULL;
	size_t ntypes = p ? (result ? 1 : p->nargs) : 0;

	cv->status[result] = XDR_UNDECODED;
	if (!p) {
		v->untyped++;
		return;
	}
	cv->status[result] =
		xdr_value_decode(&v->types, types, ntypes, r->bytes, r->len,
				 r->length, &cv->value[result]);
	if (cv->status[result] == XDR_DECODED)
		v->decoded++;
	else if (cv->status[result] == XDR_CUT)
		v->cut++;
	else
		v->undecoded++;
}

void ccsg_values_of(struct ccsg_values *v, const struct ccsg_call *c,
		    struct ccsg_call_values *cv)
{
	const struct xdr_proc *p;

	memset(cv, 0, sizeof(*cv));
	if (!v)
		return;
	for (size_t i = first_of(v, c->call_id);
	     i < v->n && v->recs[i].call_id == c->call_id; i++) {
		const struct ccsg_value_rec *r = &v->recs[i];
		int result = r->kind == CCSG_VALUE_STUB_RESULTS ||
			     r->kind == CCSG_VALUE_SKEL_RESULTS;

		/* the stub's first (kinds in order): the skeleton's only
		 * for a value the stub did not record */
		if (!cv->rec[result])
			cv->rec[result] = r;
	}
	if (!cv->rec[0] && !cv->rec[1])
		return;
	p = xdr_types_proc(&v->types, c->prog, c->vers, c->proc);
	for (int k = 0; k < 2; k++)
		if (cv->rec[k])
			decode_one(v, p, k, cv);
}

void ccsg_call_values_release(struct ccsg_call_values *cv)
{
	xdr_value_free(cv->value[0]);
	xdr_value_free(cv->value[1]);
	memset(cv, 0, sizeof(*cv));
}

void ccsg_values_json(FILE *f, const struct ccsg_call_values *cv)
{
	static const char *const keys[2][3] = {
		{ "args", "args_hex", "args_cut" },
		{ "result", "result_hex", "result_cut" },
	};

	for (int k = 0; k < 2; k++) {
		const struct ccsg_value_rec *r = cv->rec[k];

		if (!r)
			continue;
		if (cv->value[k]) {
			fprintf(f, ",\"%s\":", keys[k][0]);
			xdr_value_json(f, cv->value[k]);
			if (cv->status[k] == XDR_CUT)
				fprintf(f, ",\"%s\":true", keys[k][2]);
		} else {
			fprintf(f, ",\"%s\":", keys[k][1]);
			json_hex(f, r->bytes, r->len);
			if (r->len < r->length)
				fprintf(f, ",\"%s\":true", keys[k][2]);
		}
	}
}

char *ccsg_value_text(const struct ccsg_call_values *cv, int k, int *hex)
{
	const struct ccsg_value_rec *r = cv->rec[k];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	*hex = 0;
	if (!r || !(f = open_memstream(&text, &len)))
		return NULL;
	if (cv->value[k]) {
		xdr_value_json(f, cv->value[k]);
	} else {
		*hex = 1;
		for (size_t i = 0; i < r->len; i++)
			fprintf(f, "%02x", r->bytes[i]);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

void ccsg_values_json_call(FILE *f, struct ccsg_values *v,
			   const struct ccsg_call *c)
{
	struct ccsg_call_values cv;

	if (!v)
		return;
	ccsg_values_of(v, c, &cv);
	ccsg_values_json(f, &cv);
	ccsg_call_values_release(&cv);
}

void ccsg_values_note(const struct ccsg_values *v)
{
	if (v->undecoded || v->untyped)
		fprintf(stderr,
			"ccsg: note: %zu values not decoded, shown as hex: "
			"%zu not of their procedure's type, %zu of a "
			"procedure no --idl file defines\n",
			v->undecoded + v->untyped, v->undecoded, v->untyped);
}
