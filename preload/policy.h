/*
 * policy.h - resource policies (docs/tracing.md, "Sporadic bottlenecks"): the
 * rules whose breach makes the sampler keep a window of samples, and the
 * sampler's settings, parsed from CAUSAL_POLICY or the file
 * CAUSAL_POLICY_FILE.  Pure: no global state, unit-tested (suite policy).
 *
 * Grammar (items separated by ',', ';' or newlines; blanks ignored; in a
 * file '#' starts a comment that runs to the end of the line):
 *
 *   item     := rule | setting
 *   rule     := resource '>' number unit? ('/' duration)?
 *   resource := 'cpu' | 'blocked'   number in percent, '%' optional;
 *                                   '/' the sliding window (default 1s)
 *             | 'rss' | 'heap'      number in bytes, unit B, KB, MB, GB
 *                                   (powers of 1024); no window
 *   setting  := 'rate=' HZ          samples per second of a thread's CPU
 *                                   time (default 1000, 1..10000)
 *             | 'n=' N              samples before and after a breach
 *                                   (default 500, 1..100000)
 *             | 'period=' duration  how often the monitor checks
 *                                   (default 100ms, 10ms..10s)
 *             | 'holdoff=' duration a rule breached again within it
 *                                   opens no new window (default 1s)
 *             | 'depth=' D          call-stack frames kept (default 32,
 *                                   1..CAUSAL_POLICY_DEPTH_MAX)
 *             | 'signal=' SIG       the sampling signal: a number,
 *                                   RTMIN+k or RTMAX-k (default RTMAX-3)
 *             | 'sampler=' S        'perf' (the default: a perf_event
 *                                   cpu-clock event per thread, the
 *                                   timer where perf events are not
 *                                   allowed) or 'timer' (a POSIX CPU
 *                                   timer, which fires on the kernel's
 *                                   tick)
 *   duration := number ('ms' | 's')
 *
 * cpu is the process's CPU time over the window in percent of one CPU
 * (a process busy on two CPUs is at 200%); blocked the share of its
 * threads' time spent off CPU and not runnable (sleeping or waiting);
 * rss the resident set size; heap the live heap bytes counted by memory
 * monitoring.
 */
#ifndef CAUSAL_POLICY_H
#define CAUSAL_POLICY_H

#include <stddef.h>
#include <stdint.h>

#define CAUSAL_POLICY_RULES_MAX 8
#define CAUSAL_POLICY_DEPTH_MAX 48
#define CAUSAL_POLICY_TEXT_MAX 4096

enum causal_policy_resource {
	CAUSAL_POLICY_CPU,
	CAUSAL_POLICY_RSS,
	CAUSAL_POLICY_HEAP,
	CAUSAL_POLICY_BLOCKED,
};

struct causal_policy_rule {
	uint8_t resource;   /* enum causal_policy_resource */
	uint32_t window_ms; /* cpu, blocked; 0 for rss, heap */
	/* hundredths of a percent (cpu, blocked) or bytes (rss, heap) */
	uint64_t threshold;
	char text[128]; /* the rule as written, blanks removed */
};

struct causal_policy {
	unsigned nrules;
	struct causal_policy_rule rule[CAUSAL_POLICY_RULES_MAX];
	uint32_t rate_hz, n, period_ms, holdoff_ms, depth;
	int signo; /* 0: the default, RTMAX-3 */
	uint8_t timer_only; /* sampler=timer */
};

/* The name of a resource: "cpu", "rss", "heap", "blocked". */
const char *causal_policy_resource_name(unsigned resource);

/*
 * Parse text into p (defaults first).  0, or -1 with a one-line reason
 * in err ("policy: unknown resource 'disk'").
 */
int causal_policy_parse(struct causal_policy *p, const char *text, char *err,
			size_t errlen);

/*
 * CAUSAL_POLICY, else the file CAUSAL_POLICY_FILE names: 1 and p when a
 * policy is set, 0 when none is, -1 with a reason in err when it cannot
 * be read or parsed (then the caller runs without one).  The file is read
 * as read-file.h reads: a symbolic link, a FIFO or a device is refused,
 * never waited on, and it must hold less than CAUSAL_POLICY_TEXT_MAX
 * bytes.  No stdio, no malloc: it runs at the library's start-up.
 */
int causal_policy_load(struct causal_policy *p,
		       const char *(*getenv_fn)(const char *), char *err,
		       size_t errlen);

#endif
