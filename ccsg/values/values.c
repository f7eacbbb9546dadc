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

static int kind_of(const char *s)
{
	for (int k = 0; k < 4; k++)
		if (s && !strcmp(s, kind_names[k]))
			return k;
	return -1;
}

/* A probe's function in its process, and the call it belongs to. */
struct fn_key {
	int64_t proc, fid, call_id;
};

static int by_fn(const void *a, const void *b)
{
	const struct fn_key *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->fid < y->fid ? -1 : x->fid > y->fid;
}

static int by_call(const void *a, const void *b)
{
	const struct ccsg_value_rec *x = a, *y = b;

	if (x->call_id != y->call_id)
		return x->call_id < y->call_id ? -1 : 1;
	return x->kind - y->kind;
}

/* The rows of rpc_values, their call to find: call_id holds the
 * process for now, fn[i] the probe's function. */
static int read_values(struct ccsg_values *v, int64_t **fn, sqlite3 *db,
		       const char *path)
{
	static const int cols[] = { DB_RPC_VALUES_PROC_ID,
				    DB_RPC_VALUES_FUNCTION_ID,
				    DB_RPC_VALUES_KIND, DB_RPC_VALUES_LENGTH,
				    DB_RPC_VALUES_BYTES };
	struct db_read r;
	size_t cap = 0;

	if (db_read_open(&r, db, path, DB_RPC_VALUES, cols, 5, NULL))
		return -1;
	while (db_read_next(&r)) {
		int kind = kind_of(db_get_text(&r, DB_RPC_VALUES_KIND));
		struct ccsg_value_rec *rec;
		const void *b;
		int len;

		if (kind < 0)
			continue; /* a later tracedump's kind */
		if (GROW(v->recs, v->cap, v->n + 1) ||
		    GROW(*fn, cap, v->n + 1)) {
			r.bad = 1;
			fail("out of memory");
			break;
		}
		rec = &v->recs[v->n];
		rec->call_id = db_get_int(&r, DB_RPC_VALUES_PROC_ID);
		(*fn)[v->n] = db_get_int(&r, DB_RPC_VALUES_FUNCTION_ID);
		rec->kind = kind;
		rec->length = (uint32_t)db_get_int(&r, DB_RPC_VALUES_LENGTH);
		b = db_get_blob(&r, DB_RPC_VALUES_BYTES, &len);
		rec->len = b && len > 0 ? (size_t)len : 0;
		if (!(rec->bytes = malloc(rec->len + 1))) {
			r.bad = 1;
			fail("out of memory");
			break;
		}
		if (rec->len)
			memcpy(rec->bytes, b, rec->len);
		v->n++;
	}
	return db_read_close(&r);
}

/* The calls' functions on each side, sorted: keys[0] the clients',
 * keys[1] the servers'. */
static int read_calls(struct fn_key *keys[2], size_t nkeys[2], sqlite3 *db,
		      const char *path)
{
	static const int cols[] = { DB_RPC_CALLS_CALL_ID,
				    DB_RPC_CALLS_CLIENT_PROC_ID,
				    DB_RPC_CALLS_CLIENT_FUNCTION_ID,
				    DB_RPC_CALLS_SERVER_PROC_ID,
				    DB_RPC_CALLS_SERVER_FUNCTION_ID };
	static const int side[2][2] = {
		{ DB_RPC_CALLS_CLIENT_PROC_ID,
		  DB_RPC_CALLS_CLIENT_FUNCTION_ID },
		{ DB_RPC_CALLS_SERVER_PROC_ID,
		  DB_RPC_CALLS_SERVER_FUNCTION_ID },
	};
	struct db_read r;
	size_t cap[2] = { 0, 0 };

	if (db_read_open(&r, db, path, DB_RPC_CALLS, cols, 5, NULL))
		return -1;
	while (!r.bad && db_read_next(&r))
		for (int s = 0; s < 2; s++) {
			if (db_get_type(&r, side[s][1]) == SQLITE_NULL)
				continue;
			if (GROW(keys[s], cap[s], nkeys[s] + 1)) {
				r.bad = 1;
				fail("out of memory");
				break;
			}
			keys[s][nkeys[s]++] = (struct fn_key){
				db_get_int(&r, side[s][0]),
				db_get_int(&r, side[s][1]),
				db_get_int(&r, DB_RPC_CALLS_CALL_ID)
			};
		}
	for (int s = 0; s < 2; s++)
		if (nkeys[s])
			qsort(keys[s], nkeys[s], sizeof(*keys[s]), by_fn);
	return db_read_close(&r);
}

/* Each value with the call it belongs to: its stub's function in the
 * client process, or its skeleton's in the server's; a value of no call
 * (its probe's records lost) is left out. */
static int read_rows(struct ccsg_values *v, sqlite3 *db, const char *path)
{
	struct fn_key *keys[2] = { NULL, NULL };
	size_t nkeys[2] = { 0, 0 }, kept = 0;
	int64_t *fn = NULL;
	int ret = read_values(v, &fn, db, path);

	if (!ret && v->n)
		ret = read_calls(keys, nkeys, db, path);
	for (size_t i = 0; !ret && i < v->n; i++) {
		struct ccsg_value_rec *rec = &v->recs[i];
		int s = rec->kind >= CCSG_VALUE_SKEL_ARGS;
		struct fn_key want = { rec->call_id, fn[i], 0 };
		const struct fn_key *k =
			nkeys[s] ? bsearch(&want, keys[s], nkeys[s],
					   sizeof(want), by_fn)
				 : NULL;

		if (!k) {
			free(rec->bytes);
			continue;
		}
		rec->call_id = k->call_id;
		v->recs[kept++] = *rec;
	}
	if (!ret) {
		v->n = kept;
		if (v->n)
			qsort(v->recs, v->n, sizeof(*v->recs), by_call);
	}
	free(fn);
	free(keys[0]);
	free(keys[1]);
	return ret;
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
