/*
 * logdir.h - find the logs (*.clog) under a directory.
 */
#ifndef CAUSAL_LOGDIR_H
#define CAUSAL_LOGDIR_H

#include <stddef.h>
#include <stdint.h>

/*
 * A process's log: one file, or the segments of a rotated one
 * (docs/tracing.md "Log files"), names[first .. first + n - 1] in order
 * of their number, the open one (no number) last.
 */
struct logdir_log {
	size_t first, n;
};

struct logdir {
	char **names; /* paths relative to the directory, sorted */
	size_t n;
	struct logdir_log *logs; /* in the order of names */
	size_t n_logs;
};

/*
 * A segment's number from its name, HOST.PID.UUID.NNNNNN.clog (at least
 * 6 digits after a 32-hex-digit UUID); 0 when the name has none (a log
 * that is not rotated, or a rotated log's open segment).  *stem_len: the
 * length of the name the log's segments share (without the number).
 */
uint64_t logdir_segment(const char *name, size_t *stem_len);

/*
 * Collect every file (or symlink to one) named *.clog under dir,
 * recursively; symlinked directories are not followed, so there are no
 * loops.  FIFOs, devices and sockets are listed too, so that a reader
 * rejects them by name (logread_file() never opens them).  Sorted so that
 * every tool sees the logs in the same order, a log's segments together
 * (logs).
 * Returns 0, -ENOTDIR if dir is not a directory, or another -errno.
 */
int logdir_scan(const char *dir, struct logdir *ld);

void logdir_release(struct logdir *ld);

#endif
