/*
 * logdir.h - find the logs (*.clog) under a directory.
 */
#ifndef CAUSAL_LOGDIR_H
#define CAUSAL_LOGDIR_H

#include <stddef.h>

struct logdir {
	char **names;	/* paths relative to the directory, sorted (strcmp) */
	size_t n;
};

/*
 * Collect every file (or symlink to one) named *.clog under dir,
 * recursively; symlinked directories are not followed, so there are no
 * loops.  FIFOs, devices and sockets are listed too, so that a reader
 * rejects them by name (logread_file() never opens them).  Sorted so that every tool sees the logs in the same order.
 * Returns 0, -ENOTDIR if dir is not a directory, or another -errno.
 */
int logdir_scan(const char *dir, struct logdir *ld);

void logdir_release(struct logdir *ld);

#endif
