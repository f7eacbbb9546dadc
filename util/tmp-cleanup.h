/*
 * tmp-cleanup.h - temporary files that must not outlive the command:
 * removed at exit and when SIGINT, SIGTERM or SIGHUP ends it (a copy of a
 * ClickHouse store, a load's merged database: hundreds of megabytes that
 * an interrupted command would otherwise leave in $TMPDIR).
 *
 * A signal whose disposition is not the default (a command that waits
 * for it, as `ccsg serve` does with sigwait) is left alone: that command
 * ends normally and the exit handler removes the files.
 */
#ifndef CAUSAL_TMP_CLEANUP_H
#define CAUSAL_TMP_CLEANUP_H

#include <limits.h>

/*
 * Remove file (may be NULL), then the directory dir (may be NULL) at
 * exit or on those signals, the pairs last added first (a file made
 * inside a directory added before it goes first).  Up to 24 pairs; the
 * strings must stay valid until forgotten.  Returns 0, or -1 when full.
 */
int tmp_cleanup_add(const char *file, const char *dir);

/*
 * Forget the pair (pointers as given to _add): the caller removed the
 * files, or renamed the file into place.
 */
void tmp_cleanup_forget(const char *file, const char *dir);

/* A file of its own in a private directory of $TMPDIR (else /tmp). */
struct tmp_file {
	char dir[PATH_MAX];
	char path[PATH_MAX + 32]; /* "" when there is none */
};

/*
 * Make the directory $TMPDIR/STEM.XXXXXX (mode 0700) and name path
 * dir/name in it (not created), both removed at exit or on those signals
 * (tmp_cleanup_add()).  0, or -1 after fail() saying why.
 */
int tmp_file_make(struct tmp_file *f, const char *stem, const char *name);

/* Remove the file and its directory now, and forget them. */
void tmp_file_remove(struct tmp_file *f);

#endif
