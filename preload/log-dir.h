/*
 * log-dir.h - where the logs go: resolved once, checked at every use.
 *
 * CAUSAL_LOG_DIR (default ./logs) is made absolute once, at start-up,
 * against the working directory of that moment, so a program that
 * chdir()s and then forks keeps writing where it started.  (An exec'd
 * image starts over from its environment and working directory: the
 * environment is the program's, and is not changed.)
 *
 * Each time a log is created (at start-up and in every fork child) the
 * path is walked again from / one component at a time, each opened with
 * O_NOFOLLOW, and the directory reached is checked on its descriptor
 * before the log is created in it with openat().  The directory is
 * refused when
 *   - any component of the path is a symbolic link,
 *   - it is owned by another user than the effective uid,
 *   - it is writable by group or others without the sticky bit.
 * A missing last component is created with mode 0700, and then checked
 * like any other: its parent is only required to be reached without a
 * symbolic link.  Whoever can write into the parent can at most swap the
 * directory for another, which the next check refuses.  Missing parents
 * are not created.
 *
 * CAUSAL_LOG_DIR_TRUST=1 turns every check off: the path is used as it
 * is (symbolic links followed), and only the last component is created.
 *
 * No malloc: this runs in our constructor and in fork children.
 */
#ifndef CAUSAL_LOG_DIR_H
#define CAUSAL_LOG_DIR_H

#include <stddef.h>

#define CAUSAL_LOG_DIR_MAX 4096

struct causal_log_dir {
	char path[CAUSAL_LOG_DIR_MAX];	/* absolute */
	int trust;			/* CAUSAL_LOG_DIR_TRUST=1 */
};

/*
 * Make dir absolute against the current working directory (no symbolic
 * link is resolved: the checks refuse them).  0 or -errno (ENAMETOOLONG,
 * or getcwd()'s error: a working directory that was removed).
 */
int causal_log_dir_resolve(struct causal_log_dir *d, const char *dir,
			   int trust);

/*
 * Walk to d->path, create its last component if missing, check the
 * directory and return a descriptor of it (O_PATH, close-on-exec; for
 * openat()), or -errno with a one-line explanation in why, starting with
 * "causal: " and naming the directory.  A refused directory gives -EPERM.
 */
int causal_log_dir_open(const struct causal_log_dir *d, char *why,
			size_t why_size);

#endif
