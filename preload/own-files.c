/*
 * own-files.c - a file table of the thread's own (own-files.h).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe.h"
#include "own-files.h"

/* The calling thread has a table of its own. */
static CAUSAL_TLS uint8_t own_table;

/* Close [from, to], by close_range() (Linux 5.9) or one by one. */
static void close_span(unsigned from, unsigned to)
{
	struct rlimit rl;

	if (from > to)
		return;
	if (syscall(SYS_close_range, from, to, 0) == 0)
		return;
	/* an older kernel: every number a descriptor can have */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_max != RLIM_INFINITY && rl.rlim_max - 1 < to)
		to = (unsigned)(rl.rlim_max - 1);
	if (to > 1u << 20)
		to = 1u << 20;
	for (unsigned fd = from; fd <= to; fd++)
		close((int)fd);
}

int causal_own_files(int keep)
{
	if (unshare(CLONE_FILES))
		return -errno;
	if (keep < 0) {
		close_span(0, UINT_MAX);
	} else {
		close_span(0, (unsigned)keep - 1);
		close_span((unsigned)keep + 1, UINT_MAX);
	}
	own_table = 1;
	return 0;
}

int causal_program_fd(int fd, int *copy)
{
	int pidfd, dup;

	*copy = own_table;
	if (!own_table)
		return fd;
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		return -1;
	dup = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	return dup;
}
