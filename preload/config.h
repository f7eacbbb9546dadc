/*
 * config.h - run-time settings of libcausal.so, read from the environment.
 *
 *   CAUSAL_LOG_DIR    where logs go (default ./logs, created mode 0700);
 *                     made absolute and checked by log-dir.h
 *   CAUSAL_LOG_DIR_TRUST
 *                     1: use the log directory without the checks of
 *                     log-dir.h (default 0)
 *   CAUSAL_BUFFER_KB  per-thread record buffer in KiB, rounded up to a
 *                     power of two (default 256, 4 .. 1048576)
 *   CAUSAL_FLUSH_MS   background writer period in ms (default 100, 1 .. 60000)
 *   CAUSAL_CPU_EXACT_US
 *                     an RPC probe less than this many microseconds after
 *                     its thread last read its CPU clock takes that reading
 *                     plus the time since (default 10, 0 .. 1000; 0: read
 *                     the clock, a system call, at every probe); the
 *                     system call clock only
 *   CAUSAL_CPU_CLOCK  how threads' CPU clocks are read: auto (the bpf
 *                     clock if `causalctl bpf-clock start` runs, else the
 *                     system call), bpf (the same, saying so when there
 *                     is no bpf clock), syscall (never look for it)
 *   CAUSAL_BPF_CLOCK_DIR
 *                     where the bpf clock is pinned (default
 *                     /sys/fs/bpf/causal, causalctl's --dir)
 *   CAUSAL_MONITOR    the monitoring types on at start-up, a comma-separated
 *                     list of semantics, latency, cpu, memory, or `all` or
 *                     `none` (default all; monitor.h)
 *   CAUSAL_COORDINATOR
 *                     the monitoring coordinator (`causalctl serve`):
 *                     `local` (its Unix socket, monitor-proto.h), a socket
 *                     path, or HOST[:PORT] over TCP (default port
 *                     CAUSAL_COORDINATOR_PORT); unset or empty: none, the
 *                     process keeps its start-up state
 *   CAUSAL_COORDINATOR_KEY
 *                     the key file of the coordinator over TCP
 *                     (monitor-auth.h)
 *   CAUSAL_SAMPLE     the probability that a call chain starting in this
 *                     process is recorded: `1/100`, `0.01`, `0` or `1`
 *                     (default 1: every chain); shim-rpc/sample.h
 *   CAUSAL_KEEP_SLOWER_THAN
 *                     tail keep (keep.h): a duration (`250ms`, `2s`,
 *                     `800us`) or `p99`; unset: tail keep off
 *   CAUSAL_KEEP_WINDOW
 *                     how long unsampled chains' records are held
 *                     (a duration, default 10s)
 *   CAUSAL_KEEP_RING_KB
 *                     the bytes the holding ring may take, per process
 *                     (default 4096)
 *
 * A malformed or out-of-range value is reported and the default is used:
 * the traced program must run whatever its environment says.
 */
#ifndef CAUSAL_CONFIG_H
#define CAUSAL_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define CAUSAL_DEFAULT_LOG_DIR "logs"
#define CAUSAL_DEFAULT_BUFFER_KB 256
#define CAUSAL_DEFAULT_FLUSH_MS 100
#define CAUSAL_DEFAULT_CPU_EXACT_US 10
#define CAUSAL_DEFAULT_MONITOR 0xfu /* every type: CAUSAL_MON_ALL */
#define CAUSAL_COORDINATOR_PORT 7350
#define CAUSAL_SOCKET_PATH_MAX 108 /* sun_path of sockaddr_un */
/* CAUSAL_SAMPLE's default threshold: probability 1, every chain
 * (CAUSAL_SAMPLE_ALL of shim-rpc/sample.h) */
#define CAUSAL_DEFAULT_SAMPLE UINT64_MAX
/* CAUSAL_VALUES_MAX: its default, and the most it may be (a probe's
 * buffer on its stack: shim-rpc/values.h) */
#define CAUSAL_VALUES_DEFAULT 256
#define CAUSAL_VALUES_LIMIT 4096
/* tail keep (keep.h) */
#define CAUSAL_DEFAULT_KEEP_WINDOW_NS 10000000000ull
#define CAUSAL_DEFAULT_KEEP_RING_KB 4096
#define CAUSAL_KEEP_P99 UINT64_MAX /* keep_slower_ns: "p99" */

/* CAUSAL_CPU_CLOCK */
enum causal_cpu_clock_want {
	CAUSAL_CPU_CLOCK_AUTO = 0,
	CAUSAL_CPU_CLOCK_WANT_BPF,
	CAUSAL_CPU_CLOCK_WANT_SYSCALL,
};

struct causal_config {
	char log_dir[1024];
	int log_dir_trust;	/* 0 or 1 */
	uint32_t buffer_kb;	/* a power of two */
	uint32_t flush_ms;
	uint32_t cpu_exact_us;
	uint32_t monitor;      /* CAUSAL_MON_* bits on at start-up */
	char coordinator[256]; /* host name or address, "local" or a socket
				* path (port 0); "" when none */
	uint16_t coordinator_port;
	char coordinator_key[256]; /* the key file's path, over TCP */
	int cpu_clock; /* enum causal_cpu_clock_want */
	char bpf_clock_dir[256];
	uint64_t sample; /* CAUSAL_SAMPLE as a threshold: causal_parse_sample */
	uint32_t values_max; /* CAUSAL_VALUES_MAX: bytes of a call's values */
	/* CAUSAL_LOG_SEGMENT_MB, CAUSAL_LOG_MAX_MB: 0 = unset (no rotation,
	 * no cap); set, the log rotates (log-file.h, segments) */
	uint32_t log_segment_mb, log_max_mb;
	uint64_t keep_slower_ns; /* 0: tail keep off; CAUSAL_KEEP_P99 */
	uint64_t keep_window_ns;
	uint32_t keep_ring_kb;
};

typedef const char *(*causal_getenv_fn)(const char *name);

/*
 * Fill cfg from getenv_fn.  Each problem is described in `problems` (one
 * line each, "causal: ..." prefixed) so the caller can print them with
 * write(2); returns the number of problems.
 */
int causal_config_load(struct causal_config *cfg, causal_getenv_fn getenv_fn,
		       char *problems, size_t problems_size);

/*
 * Parse a list of monitoring types ("cpu,latency", "all", "none",
 * "all,locks") into CAUSAL_MON_* bits ("all": the four types of calls,
 * not locks); 0 on success, -1 if malformed or a name is unknown.
 */
int causal_parse_monitor(const char *s, uint32_t *types);

/*
 * Parse HOST[:PORT] (an IPv6 address in brackets: [::1]:7350) into host
 * (size bytes) and *port (default_port without one); 0 or -1.
 */
int causal_parse_hostport(const char *s, char *host, size_t size,
			  uint16_t default_port, uint16_t *port);

/*
 * Parse a probability, N/M (integers, 0 <= N <= M, M > 0) or a decimal
 * from 0 to 1 (`0.01`, at most 18 digits after the point), into the
 * threshold of shim-rpc/sample.h: floor(p * 2^64), UINT64_MAX for 1.
 * 0 on success, -1 if malformed or outside [0, 1].
 */
int causal_parse_sample(const char *s, uint64_t *threshold);

/* A duration: digits then `us`, `ms` or `s`, above 0 and at most an
 * hour; 0 or -1 when malformed. */
int causal_parse_duration(const char *s, uint64_t *ns);

/* Parse a decimal in [min, max]; 0 on success, -1 if malformed or outside. */
int causal_parse_uint(const char *s, uint32_t min, uint32_t max, uint32_t *out);

#endif
