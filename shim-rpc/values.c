/*
 * values.c - the RPC_VALUES records (values.h).
 */
#include "internal.h"
#include "values.h"

void causal_values_init(struct causal_values *v, uint64_t fid)
{
	v->cap.buf = v->buf;
	v->cap.max = causal_run.values_max < CAUSAL_VALUES_LIMIT
			     ? causal_run.values_max
			     : CAUSAL_VALUES_LIMIT;
	v->cap.len = 0;
	v->fid = fid;
	v->ready = 0;
	v->done = 0;
}

void causal_values_flush(struct causal_values *v)
{
	struct causal_tbuf *tb = causal_thread_current();
	struct rec_rpc_values *r;
	uint64_t pending;
	int kind = v ? v->kind : 0;

	if (!v || !v->ready || !tb || (v->done & (1u << kind)))
		return;
	v->ready = 0;
	v->done |= (uint8_t)(1u << kind);
	r = (void *)causal_record_begin(
		tb, CAUSAL_REC_RPC_VALUES,
		(uint32_t)CAUSAL_REC_ALIGN(sizeof(*r) + v->cap.len), &pending);
	if (!r)
		return;
	r->hdr.aux = v->cap.len;
	memcpy(r->tail, v->cap.buf, v->cap.len);
	r->function = v->fid;
	r->kind = (uint8_t)kind;
	r->length = v->length;
	causal_record_commit(tb, pending);
}

bool_t causal_values_run(XDR *xdrs, xdrproc_t proc, void *p, uint32_t *bytes,
			 struct causal_values *v, int kind)
{
	/* the stub encodes its arguments and decodes its results, the
	 * skeleton the other way round */
	enum xdr_op want = kind == CAUSAL_VALUES_STUB_ARGS ||
					   kind == CAUSAL_VALUES_SKEL_RESULTS
				   ? XDR_ENCODE
				   : XDR_DECODE;
	bool_t ok;

	if (!v || xdrs->x_op != want)
		return causal_xdr_run(xdrs, proc, p, bytes);
	ok = causal_xdr_run_capture(xdrs, proc, p, bytes, &v->cap);
	if (ok) {
		v->kind = (uint8_t)kind;
		v->length = *bytes;
		v->ready = 1;
	}
	return ok;
}
