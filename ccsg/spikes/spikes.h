/*
 * spikes.h - `ccsg spikes`: the breaches of resource policies and the
 * samples around them (docs/tracing.md, "Sporadic bottlenecks"), with the RPC
 * chains in progress and the whole-run profile beside the windows'.
 * Addresses are symbolised offline from the recorded memory maps with
 * elfutils' libdwfl (debug files found by build id or .gnu_debuglink).
 */
#ifndef CCSG_SPIKES_H
#define CCSG_SPIKES_H

#include <stdint.h>
#include <stdio.h>

/* How many entries the lists keep, most samples first. */
#define SPIKES_TOP_FUNCTIONS 10
#define SPIKES_TOP_STACKS 5
#define SPIKES_TOP_PROFILE 20

struct spikes_count {
	const char *name; /* function, "a <- b <- c" stack, or chain */
	uint64_t samples;
	const void *ref; /* a chain: its struct spikes_chain */
};

struct spikes_list {
	struct spikes_count *v;
	size_t n, cap;
};

struct spikes_chain {
	uint8_t id[20];
	char hex[41];
	char *root_function; /* NULL: no call of it in the trace */
	char *client_host;   /* NULL: unknown (untraced client) */
	int64_t client_pid;  /* 0: unknown */
};

/* How a process sampled (spike_samplers: its last row, and the changes). */
struct spikes_sampler {
	int64_t proc_id, pid;
	const char *host, *exe;
	char *source; /* "perf", "perf-user", "timer", "off" */
	uint64_t signal, rate_hz, samples, cpu_ns, fallback, lost;
	char **changes; /* every note but "start" and "end", in order */
	size_t nchanges;
};

/* Samples per second of a sampled thread's CPU time; 0 when unknown. */
double spikes_rate_obtained(const struct spikes_sampler *s);

struct spikes_breach {
	int64_t proc_id, pid;
	uint64_t time_ns; /* CLOCK_REALTIME of the breach */
	const char *host, *exe;
	char *resource, *rule;
	uint64_t value, threshold, mark, n;
	uint64_t before, after; /* samples found on each side */
	/* the wall time from the first sample to the last, each side */
	uint64_t span_before_ns, span_after_ns;
	const struct spikes_sampler *sampler; /* NULL: an older trace */
	struct spikes_list top_before, top_after, stacks, chains;
};

struct spikes_report {
	struct spikes_breach *b;
	size_t nb;
	struct spikes_sampler *samplers; /* by proc_id */
	size_t nsamplers;
	struct spikes_list window, run;
	uint64_t window_samples, run_samples;
	struct spikes_chain **chains; /* each its own allocation */
	size_t nchains;
	void *priv; /* names, symbolisers */
};

/*
 * Read the breaches, their windows and the whole-run profile from the
 * merged trace at path.  0, or -1 after fail() (no such file, not a
 * trace, a trace merged before the spike tables).
 */
int spikes_load(struct spikes_report *r, const char *path);
void spikes_release(struct spikes_report *r);

/* The report as text or as JSON (docs/spikes.md gives the names); 0 or -1. */
int spikes_print_text(FILE *out, const struct spikes_report *r);
int spikes_print_json(FILE *out, const struct spikes_report *r);

#endif
