/*
 * bpf-clock.h - the host's bpf clock (include/causal/bpf-clock.h): load,
 * attach and pin it, stop it, report on it.  Engine of `causalctl
 * bpf-clock`; each function returns 0 or -1 once it said why (usage.h).
 *
 * Pinned in DIR (default /sys/fs/bpf/causal, on a bpf filesystem):
 *
 *   DIR/clock      the map, frozen, mode 0666: any process may open it
 *                  and map it read-only (BPF_OBJ_GET needs no privilege
 *                  even with kernel.unprivileged_bpf_disabled; a frozen
 *                  map can be written neither by bpf() nor through a
 *                  mapping, only by its programs)
 *   DIR/link       the sched_switch program's link, mode 0600: keeps it
 *                  attached without a process
 *   DIR/set-state  the program that marks the head LIVE or STOPPED
 *
 * So nothing keeps running: the kernel keeps the program attached until
 * `stop` removes the pins.
 */
#ifndef CAUSAL_CTL_BPF_CLOCK_H
#define CAUSAL_CTL_BPF_CLOCK_H

#include <limits.h>
#include <stdint.h>

struct bpf_clock_info {
	int present;	       /* DIR/clock exists */
	uint32_t state;	       /* enum causal_bpf_clock_state */
	uint32_t nslots, used; /* slots; slots a thread has written */
	uint32_t map_id, prog_id, link_id; /* 0: unknown */
	int link;	     /* 1 pinned, 0 missing, -errno cannot tell */
	unsigned mode;	     /* DIR/clock's permission bits */
	uint64_t started_ns; /* CLOCK_MONOTONIC it went live */
	uint64_t now_ns;     /* CLOCK_MONOTONIC of this report */
	char map_path[PATH_MAX];
};

/* Report on the clock in dir into *info (present 0: none). */
int bpf_clock_status(const char *dir, struct bpf_clock_info *info);

/*
 * Load, attach and pin the clock in dir, mounting a bpf filesystem on
 * /sys/fs/bpf when dir is under it and nothing is; leftovers of a clock
 * that is no longer attached are removed first.  *already: a live clock
 * was there, untouched.  verbose: libbpf's messages on stderr.
 */
int bpf_clock_start(const char *dir, int verbose, int *already,
		    struct bpf_clock_info *info);

/*
 * Mark the clock STOPPED (processes mapping it read their system call
 * from then on), detach its program and remove the pins.  *was: there
 * was a clock.
 */
int bpf_clock_stop(const char *dir, int *was);

#endif
