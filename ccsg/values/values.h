/*
 * values.h - the values of calls (monitoring type values: the table
 * rpc_values, docs/tracing.md "Values of calls") decoded by the types of
 * the --idl files (util/xdr-value.h), for `ccsg calls`, `ccsg dscg
 * --format=json`, the viewer and the OTLP export.
 *
 * A call's "args" and "result" are its stub's copies (what the client
 * sent and received), else its skeleton's (a server whose clients are
 * not traced).  What cannot be decoded (no --idl names the procedure,
 * bytes that are not a value of its type) is shown as hex and counted;
 * a copy cut at CAUSAL_VALUES_MAX is decoded as far as it goes.
 */
#ifndef CCSG_VALUES_H
#define CCSG_VALUES_H

#include <stdint.h>
#include <stdio.h>

#include "trace.h"
#include "xdr-value.h"

/* One row of rpc_values, by the call it belongs to. */
struct ccsg_value_rec {
	int64_t call_id;
	int kind; /* enum ccsg_value_kind */
	uint32_t length;
	uint8_t *bytes;
	size_t len;
};

enum ccsg_value_kind {
	CCSG_VALUE_STUB_ARGS,
	CCSG_VALUE_STUB_RESULTS,
	CCSG_VALUE_SKEL_ARGS,
	CCSG_VALUE_SKEL_RESULTS,
};

struct ccsg_values {
	struct xdr_types types;
	struct ccsg_value_rec *recs; /* by call_id, then kind */
	size_t n, cap;
	/* values shown so far: decoded, cut (decoded in part), shown as
	 * hex because their bytes are not a value of the type, or because
	 * no --idl file defines the procedure */
	size_t decoded, cut, undecoded, untyped;
};

/*
 * The values of the trace db (SQLite: a path or sqlite:// URL; a store
 * of another kind, or a trace merged before values existed, has none)
 * and the types of the idl files.  0, or -1 after a message (a .x that
 * does not parse: FILE:LINE).
 */
int ccsg_values_load(struct ccsg_values *v, const char *db,
		     const char *const *idl, size_t nidl);
void ccsg_values_release(struct ccsg_values *v);

/* A call's values: each decoded (NULL: none, or shown as hex). */
struct ccsg_call_values {
	const struct ccsg_value_rec *rec[2]; /* args, result; NULL: none */
	struct xdr_value *value[2];
	int status[2]; /* enum xdr_decode_status */
};

/* Decode call c's values into cv (count them in v); release with
 * ccsg_call_values_release(). */
void ccsg_values_of(struct ccsg_values *v, const struct ccsg_call *c,
		    struct ccsg_call_values *cv);
void ccsg_call_values_release(struct ccsg_call_values *cv);

/*
 * Print cv as JSON members, each after a comma: "args", "result" (the
 * decoded value), "args_hex" / "result_hex" (the bytes, not decoded),
 * "args_cut" / "result_cut" (true: copied in part); nothing of a value
 * not recorded.
 */
void ccsg_values_json(FILE *f, const struct ccsg_call_values *cv);

/*
 * cv's value k (0 args, 1 result) as text (malloc'ed; NULL: none or out
 * of memory): its JSON, or its bytes in hex when it was not decoded
 * (*hex set then).
 */
char *ccsg_value_text(const struct ccsg_call_values *cv, int k, int *hex);

/* The same for a call of the trace (nothing when v is NULL). */
void ccsg_values_json_call(FILE *f, struct ccsg_values *v,
			   const struct ccsg_call *c);

/* One line on stderr of what could not be decoded, if anything. */
void ccsg_values_note(const struct ccsg_values *v);

#endif
