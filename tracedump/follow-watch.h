/*
 * follow-watch.h - how `tracedump merge --follow` waits: for a file to
 * appear in the log directory (inotify), for the rescan period to pass
 * (subdirectories, filesystems without inotify, a missed event), or for
 * SIGINT, SIGTERM or SIGHUP, which end the follower.
 *
 * Those signals are blocked but while waiting (ppoll), so one that comes
 * during a load is seen only when the load is done: the segment in hand
 * is always finished before the follower stops.
 */
#ifndef CAUSAL_FOLLOW_WATCH_H
#define CAUSAL_FOLLOW_WATCH_H

#include <signal.h>
#include <stdbool.h>

struct follow_watch {
	int fd;		    /* inotify, or -1: rescans only */
	sigset_t unblocked; /* the mask while waiting */
	int rescan_ms;
};

/*
 * Watch dir (its own entries: files renamed into it or written and
 * closed); block and catch the signals.  Without inotify (the error is
 * said once on stderr) the follower rescans only.  0, or -1 after fail().
 */
int follow_watch_init(struct follow_watch *w, const char *dir, int rescan_ms);

/*
 * Wait until something happened in the directory, the rescan period
 * passed, or a stop signal came.  Returns true when the follower must
 * stop (follow_watch_stopped()).
 */
bool follow_watch_wait(struct follow_watch *w);

/* Whether a stop signal came. */
bool follow_watch_stopped(void);

void follow_watch_release(struct follow_watch *w);

#endif
