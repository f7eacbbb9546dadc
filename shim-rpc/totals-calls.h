/*
 * totals-calls.h - what the RPC probes add to the exact totals
 * (preload/totals.h; docs/tracing.md, "Exact totals"): a call counts when
 * its chain is unsampled, or always in a process whose own CAUSAL_SAMPLE
 * is below 1; the hooks read their own clocks, as the probes do:
 *
 *  - a stub: its CPU from the start hook's entry to the end hook's exit
 *    (P_1,start .. P_2,end of Equation 1; an unsampled one's between the
 *    inner edges, see below), its latency between the inner
 *    edges (Equation 3), keyed by the function called and the function
 *    whose skeleton the thread is running (its caller);
 *  - a skeleton: its self CPU (Equation 1: its CPU between the probes'
 *    inner edges less its direct child stubs'), keyed by its function.
 */
#ifndef CAUSAL_SHIM_RPC_TOTALS_CALLS_H
#define CAUSAL_SHIM_RPC_TOTALS_CALLS_H

#include <stdint.h>

struct causal_totals_stub {
	uint64_t cpu0, cpu1, mono0, mono1, alloc0;
	uint8_t on;
	uint8_t outer; /* the CPU read at the hooks' entry and exit */
};

/*
 * The clocks a stub reads: a recorded call's record reads all four
 * (the CPU at the start hook's entry and the end hook's exit, the
 * monotonic clock at the inner edges), passed here, and nothing is read
 * twice.  A call with no record (unsampled) reads two: the monotonic and
 * the CPU clock together at each inner edge, its hooks' own bookkeeping
 * around them (tens of nanoseconds, no record, no clock) left to its
 * caller.  0: not read there, read here.
 *
 * Stub start, at its entry, with the CPU clock read there ... */
void causal_totals_stub_start(struct causal_totals_stub *st, int unsampled,
			      uint64_t cpu0);
/* ... just before the call goes out and as soon as it is back: the
 * latency's inner edges ... */
void causal_totals_stub_sent(struct causal_totals_stub *st, uint64_t mono);
void causal_totals_stub_back(struct causal_totals_stub *st, uint64_t mono);
/* ... and at the stub end's exit, with the CPU clock read there and what
 * it called. */
void causal_totals_stub_end(struct causal_totals_stub *st, uint64_t cpu_exit,
			    uint32_t prog, uint32_t vers, uint32_t proc,
			    int failed);

/* A skeleton starts (at its start probe's exit) and ends (at its end
 * probe's entry; counted: 0 drops it, a fork child's inherited call). */
void causal_totals_skel_start(uint32_t prog, uint32_t vers, uint32_t proc,
			      int unsampled);
void causal_totals_skel_end(int failed, int counted);

#endif
