/*
 * monitor.c - the process's monitoring state (monitor.h): applied at
 * start-up from CAUSAL_MONITOR, then by the coordinator's consumer
 * thread (consumer.c), each change written to the log as a MONITOR
 * record so the analysis knows when each type was on.
 *
 * One writer: start-up, then the consumer thread (a fork child's start,
 * before its consumer runs), which calls in here and is started by
 * start-up (lifecycle.c), never from here.  The MONITOR records go into a
 * buffer of their own, tid 0 (the process), which only that writer fills.
 */
#include <stdlib.h>

#include "internal.h"
#include "monitor.h"
#include "sites.h"

_Static_assert((int)CAUSAL_MON_SEMANTICS == (int)CAUSAL_MONTYPE_SEMANTICS &&
		       (int)CAUSAL_MON_LATENCY == (int)CAUSAL_MONTYPE_LATENCY &&
		       (int)CAUSAL_MON_CPU == (int)CAUSAL_MONTYPE_CPU &&
		       (int)CAUSAL_MON_MEMORY == (int)CAUSAL_MONTYPE_MEMORY &&
		       (int)CAUSAL_MON_LOCKS == (int)CAUSAL_MONTYPE_LOCKS &&
		       (int)CAUSAL_MON_VALUES == (int)CAUSAL_MONTYPE_VALUES,
	       "monitor.h and enums.def name the same bits");

struct causal_monitor causal_mon = { .types = CAUSAL_MON_ALL };

/* The buffer of the MONITOR records (tid 0), NULL when none could be had. */
static struct causal_tbuf *mon_tb;

/*
 * Memory accounting on or off (preload/heap.c).  Weak, so that the
 * library builds and runs without the heap shim: called only if present.
 */
void causal_heap_set_enabled(int on)
	__attribute__((weak, visibility("hidden")));

static void tell_heap(uint32_t types)
{
	if (causal_heap_set_enabled)
		causal_heap_set_enabled(!!(types & CAUSAL_MON_MEMORY));
}

uint32_t causal_mon_select(uint32_t types, uint32_t prog, uint32_t proc,
			   uintptr_t stub)
{
	int on;

	/* a flip while we read: read the copy now in force (never waits
	 * for the consumer, which writes only the copy not in force) */
	for (;;) {
		uint32_t flips = atomic_load_explicit(&causal_mon.flips,
						      memory_order_acquire);

		on = causal_mon_rules_match(&causal_mon.rules[flips & 1], prog,
					    proc, stub);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&causal_mon.flips,
					 memory_order_relaxed) == flips)
			break;
	}
	return on == 0 ? 0 : types;
}

/*
 * Put rule in force: the copy not in force becomes the one in force and
 * the rule; then the flip.  A probe still reading the old copy sees the
 * flip and reads again, so the next change may write that copy.
 */
static int rules_put(const struct causal_mon_rule *rule)
{
	uint32_t flips =
		atomic_load_explicit(&causal_mon.flips, memory_order_relaxed);
	struct causal_mon_rules *next = &causal_mon.rules[(flips + 1) & 1];

	*next = causal_mon.rules[flips & 1];
	if (causal_mon_rules_put(next, rule))
		return -1;
	atomic_store_explicit(&causal_mon.flips, flips + 1,
			      memory_order_release);
	/* the flip before any later write of the copy it retires */
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&causal_mon.nrules, next->n,
			      memory_order_release);
	return 0;
}

static uint8_t copy_field(uint8_t *dst, const char *s)
{
	size_t len = s ? strnlen(s, 255) : 0;

	memcpy(dst, s, len);
	return (uint8_t)len;
}

static void write_record(uint64_t seq, unsigned kind, uint32_t named,
			 const char *host, const char *iface, const char *func,
			 int on)
{
	uint8_t buf[sizeof(struct rec_monitor) + 3 * 255 + 8];
	struct rec_monitor *r;
	uint64_t pending;
	size_t tail = 0;

	if (!mon_tb)
		return;
	/* built on the stack first: the tail's length is needed to reserve */
	r = (void *)buf;
	r->host_len = copy_field(r->tail, host);
	tail += r->host_len;
	r->interface_len = copy_field(r->tail + tail, iface);
	tail += r->interface_len;
	r->function_len = copy_field(r->tail + tail, func);
	tail += r->function_len;
	r->seq = seq;
	r->kind = (uint8_t)kind;
	r->types = (uint8_t)causal_mon_types();
	r->named = (uint8_t)named;
	r->on = (uint8_t)on;
	r->selections = atomic_load(&causal_mon.nrules);
	{
		uint32_t size = (uint32_t)CAUSAL_REC_ALIGN(sizeof(*r) + tail);
		struct rec_monitor *w = (void *)causal_record_begin(
			mon_tb, CAUSAL_REC_MONITOR, size, &pending);

		if (!w)
			return;
		memcpy((uint8_t *)w + sizeof(struct causal_rec),
		       buf + sizeof(struct causal_rec),
		       sizeof(*r) + tail - sizeof(struct causal_rec));
		causal_record_commit(mon_tb, pending);
	}
}

int causal_monitor_admit(uint64_t now_ns)
{
	/* a token bucket, in thousandths of an event; the consumer thread
	 * alone calls it (a fork child's consumer inherits the bucket) */
	const uint64_t full = CAUSAL_MON_EVENT_BURST * 1000ull,
		       step = 1000000000ull / (CAUSAL_MON_EVENT_RATE * 1000ull);
	static uint64_t tokens = CAUSAL_MON_EVENT_BURST * 1000ull, since;
	uint64_t gained;

	if (!since || now_ns < since)
		since = now_ns;
	gained = (now_ns - since) / step;
	since += gained * step; /* the remainder counts next time */
	tokens = tokens + gained > full ? full : tokens + gained;
	if (tokens < 1000)
		return 0;
	tokens -= 1000;
	return 1;
}

int causal_monitor_apply(uint64_t seq, unsigned kind, uint32_t named,
			 const char *host, const char *iface, const char *func,
			 int on)
{
	uint32_t types = causal_mon_types(), before = types;

	named &= CAUSAL_MON_KNOWN;
	switch (kind) {
	case CAUSAL_MONITOR_INITIAL:
		types = named;
		break;
	case CAUSAL_MONITOR_ON:
		types |= named;
		break;
	case CAUSAL_MONITOR_OFF:
		types &= ~named;
		break;
	case CAUSAL_MONITOR_SELECT: {
		struct causal_mon_rule rule;
		int r = causal_mon_rule_parse(host, iface, func,
					      on ? "on" : "off",
					      causal_g.id.hostname, &rule);

		if (r < 0)
			return -1;
		/* a function by name: where it lies, before the rule is
		 * needed (the writer reads the files: sites.h) */
		if (r == 0 && rule.wild & CAUSAL_SEL_PROC_NAME)
			rule.nfound = (uint8_t)causal_sites_find(
				rule.name, rule.found, CAUSAL_SEL_RANGES);
		if (r == 0 && rules_put(&rule))
			return -1;
		break;
	}
	default:
		return -1;
	}
	atomic_store_explicit(&causal_mon.types, types, memory_order_release);
	if (seq)
		atomic_store(&causal_mon.applied, seq);
	if ((types ^ before) & CAUSAL_MON_MEMORY ||
	    kind == CAUSAL_MONITOR_INITIAL)
		tell_heap(types);
	write_record(seq, kind, kind == CAUSAL_MONITOR_INITIAL ? types : named,
		     host, iface, func, on);
	return 0;
}

/* The buffer for tid 0's records: LIVE, never started as a thread. */
static void take_buffer(struct causal_tbuf *tb)
{
	mon_tb = tb;
	if (mon_tb)
		mon_tb->tid = 0;
}

void causal_monitor_start(struct causal_tbuf *tb)
{
	uint32_t types = causal_g.cfg.monitor;

	take_buffer(tb);
	causal_monitor_apply(0, CAUSAL_MONITOR_INITIAL, types, NULL, NULL, NULL,
			     0);
}

void causal_monitor_after_fork(struct causal_tbuf *tb)
{
	/* the parent's buffer went back to the pool with its records */
	take_buffer(tb);
	causal_monitor_apply(atomic_load(&causal_mon.applied),
			     CAUSAL_MONITOR_INITIAL, causal_mon_types(), NULL,
			     NULL, NULL, 0);
}
