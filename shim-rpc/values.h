/*
 * values.h - the monitoring type values (docs/tracing.md, "Values of
 * calls"): the first CAUSAL_VALUES_MAX bytes of a call's XDR-encoded
 * arguments and results, copied on the stub's and the skeleton's own
 * pass over them (xdr-size.h: never a second run of the program's XDR
 * procedures) and written as RPC_VALUES records.
 *
 * Each process decides for its own components, and for the calls it
 * records at all (a sampled chain, a type of calls on): the tag does not
 * carry the type, whose bit (5) lies beyond the tag's four bits of types
 * of calls, so a peer of any version reads the tag unchanged.
 */
#ifndef CAUSAL_SHIM_RPC_VALUES_H
#define CAUSAL_SHIM_RPC_VALUES_H

#include <rpc/rpc.h>
#include <stdint.h>

#include "config.h"
#include "monitor.h"
#include "xdr-size.h"

/* One call side's copy: on the probe's stack (CAUSAL_VALUES_LIMIT). */
struct causal_values {
	struct causal_xdr_capture cap;
	uint64_t fid;	 /* the probe's function id */
	uint32_t length; /* what the last pass took, whole */
	uint8_t kind;	 /* its kind (enum causal_values_kind) */
	uint8_t ready;	 /* a pass copied, not yet written */
	uint8_t done;	 /* the kinds written (1 << kind) */
	uint8_t buf[CAUSAL_VALUES_LIMIT];
};

/*
 * Are values taken for a call of (prog, proc) (stub: its call site, NULL
 * for a skeleton) that this process records with types?  Only when the
 * process has values on and the call's component is selected.  With
 * values off: one load and a branch.
 */
static inline int causal_values_wanted(uint32_t types, uint32_t prog,
				       uint32_t proc, const void *stub)
{
	if (__builtin_expect(!(causal_mon_types() & CAUSAL_MON_VALUES), 1) ||
	    !CAUSAL_MON_RECORD(types))
		return 0;
	return !!(causal_mon_call(prog, proc, stub) & CAUSAL_MON_VALUES);
}

/* Ready v for a call side with function id fid. */
void causal_values_init(struct causal_values *v, uint64_t fid);

/*
 * Run proc over p on xdrs as causal_xdr_run() does, copying what it
 * moves when v is not NULL and the pass is the call's own of kind (enum
 * causal_values_kind: the stub encodes its arguments and decodes its
 * results, the skeleton the other way round) and succeeds.
 */
bool_t causal_values_run(XDR *xdrs, xdrproc_t proc, void *p, uint32_t *bytes,
			 struct causal_values *v, int kind);

/*
 * Write the RPC_VALUES record of v's last copy (none: nothing), once per
 * kind and call: a retransmission encodes the arguments again.  Its
 * function id: v->fid, set by then.
 */
void causal_values_flush(struct causal_values *v);

#endif
