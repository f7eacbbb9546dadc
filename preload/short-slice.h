/*
 * short-slice.h - the writer's short scheduling slice (Linux 6.12 and
 * later, EEVDF): a woken writer then gets the CPU at once instead of
 * queueing behind the program's threads for a whole slice each, which on
 * a loaded machine is longer than a busy thread takes to fill its ring.
 * It changes nothing else (same policy, same nice, no privilege needed);
 * older kernels refuse it and the writer runs as before.  Also asked by
 * bench/record-cost's consumer, which stands in for the writer.
 */
#ifndef CAUSAL_SHORT_SLICE_H
#define CAUSAL_SHORT_SLICE_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline void causal_ask_short_slice(void)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} attr = { .size = sizeof(attr),
		   .policy = SCHED_OTHER,
		   .runtime = 100000 /* ns: the least the kernel takes */ };

	errno = 0;
	attr.nice = getpriority(PRIO_PROCESS, 0);
	if (errno == 0)
		syscall(SYS_sched_setattr, 0, &attr, 0);
}

#endif
