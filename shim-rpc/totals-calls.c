/*
 * totals-calls.c - the RPC probes' side of the exact totals
 * (totals-calls.h): a stack of the skeletons the thread runs, so that a
 * skeleton's self CPU leaves out its child stubs' and a stub knows its
 * caller.
 */
#include "totals-calls.h"
#include "probe.h"
#include "totals.h"

#define FRAMES 8

struct frame {
	struct causal_totals_key key;
	uint64_t cpu0, alloc0;
	uint64_t child_cpu, child_alloc; /* its direct child stubs' */
	uint8_t on;
};

/* the skeletons this thread is running, innermost last */
static CAUSAL_TLS struct {
	unsigned depth; /* may pass FRAMES: those are not kept */
	struct frame f[FRAMES];
} stack;

static struct frame *top(void)
{
	return stack.depth && stack.depth <= FRAMES ? &stack.f[stack.depth - 1]
						    : NULL;
}

static uint64_t alloc_now(void)
{
	return causal_heap_epoch() ? causal_self.heap.alloc_bytes : 0;
}

void causal_totals_stub_start(struct causal_totals_stub *st, int unsampled,
			      uint64_t cpu0)
{
	st->on = unsampled || causal_totals_every_call();
	if (!st->on)
		return;
	st->alloc0 = alloc_now();
	st->outer = cpu0 != 0;
	st->cpu0 = cpu0;
	st->cpu1 = 0;
}

/* An inner edge: the monotonic clock (read here unless given), and the
 * CPU clock with it unless the CPU is read at the hooks' entry and exit. */
static void inner_edge(const struct causal_totals_stub *st, uint64_t mono,
		       uint64_t *at, uint64_t *cpu)
{
	*at = mono ? mono : causal_now_ns();
	if (!st->outer)
		*cpu = causal_probe_cpu_ns(*at);
}

void causal_totals_stub_sent(struct causal_totals_stub *st, uint64_t mono)
{
	if (st->on)
		inner_edge(st, mono, &st->mono0, &st->cpu0);
}

void causal_totals_stub_back(struct causal_totals_stub *st, uint64_t mono)
{
	if (st->on)
		inner_edge(st, mono, &st->mono1, &st->cpu1);
}

void causal_totals_stub_end(struct causal_totals_stub *st, uint64_t cpu_exit,
			    uint32_t prog, uint32_t vers, uint32_t proc,
			    int failed)
{
	struct causal_totals_key k = {
		prog, vers, proc, 0, 0, 0, CAUSAL_TOTALS_STUB
	};
	struct causal_totals_add a = { 0 };
	struct frame *f = top();

	if (!st->on)
		return;
	if (st->outer)
		st->cpu1 = cpu_exit ? cpu_exit
				    : causal_probe_cpu_ns(causal_now_ns());
	a.cpu_ns = st->cpu1 > st->cpu0 ? st->cpu1 - st->cpu0 : 0;
	a.alloc_bytes = alloc_now() - st->alloc0;
	a.latency_ns = st->mono1 > st->mono0 ? st->mono1 - st->mono0 : 0;
	a.has_latency = 1;
	a.failed = (uint8_t) !!failed;
	if (f) {
		k.caller_prog = f->key.prog;
		k.caller_vers = f->key.vers;
		k.caller_proc = f->key.proc;
		f->child_cpu += a.cpu_ns;
		f->child_alloc += a.alloc_bytes;
	}
	causal_totals_count(&k, &a);
}

void causal_totals_skel_start(uint32_t prog, uint32_t vers, uint32_t proc,
			      int unsampled)
{
	struct frame *f;

	if (++stack.depth > FRAMES)
		return;
	f = &stack.f[stack.depth - 1];
	f->key = (struct causal_totals_key){
		prog, vers, proc, 0, 0, 0, CAUSAL_TOTALS_SKEL
	};
	f->on = unsampled || causal_totals_every_call();
	f->child_cpu = 0;
	f->child_alloc = 0;
	if (!f->on)
		return;
	f->alloc0 = alloc_now();
	f->cpu0 = causal_probe_cpu_ns(causal_now_ns());
}

void causal_totals_skel_end(int failed, int counted)
{
	struct frame *f = top();
	struct causal_totals_add a = { 0 };
	uint64_t cpu, alloc;

	if (!stack.depth)
		return;
	stack.depth--;
	if (!f || !f->on || !counted)
		return;
	cpu = causal_probe_cpu_ns(causal_now_ns()) - f->cpu0;
	alloc = alloc_now() - f->alloc0;
	/* Equation 1: what its own code used, not its child stubs */
	a.cpu_ns = cpu > f->child_cpu ? cpu - f->child_cpu : 0;
	a.alloc_bytes = alloc > f->child_alloc ? alloc - f->child_alloc : 0;
	a.failed = (uint8_t) !!failed;
	causal_totals_count(&f->key, &a);
}
