/*
 * follow-watch.c - the follower's wait: inotify, a rescan period and the
 * stop signals (follow-watch.h).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "follow-watch.h"
#include "usage.h"

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

bool follow_watch_stopped(void)
{
	return stop_signal != 0;
}

int follow_watch_init(struct follow_watch *w, const char *dir, int rescan_ms)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block;

	w->rescan_ms = rescan_ms;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaddset(&block, sigs[i]);
		/* not the default: tmp-cleanup.h leaves them to us */
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return fail("cannot catch signal %d: %s", sigs[i],
				    strerror(errno));
	}
	if (sigprocmask(SIG_BLOCK, &block, &w->unblocked) < 0)
		return fail("cannot block signals: %s", strerror(errno));
	sigdelset(&w->unblocked, SIGINT);
	sigdelset(&w->unblocked, SIGTERM);
	sigdelset(&w->unblocked, SIGHUP);
	w->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (w->fd >= 0 &&
	    inotify_add_watch(w->fd, dir,
			      IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE) < 0) {
		close(w->fd);
		w->fd = -1;
	}
	if (w->fd < 0)
		warning("cannot watch '%s' (%s): rescanning it every %d ms",
			dir, strerror(errno), rescan_ms);
	return 0;
}

/* Read the pending events: what they name does not matter, a scan
 * follows. */
static void drain(int fd)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

bool follow_watch_wait(struct follow_watch *w)
{
	struct timespec ts = { w->rescan_ms / 1000,
			       (long)(w->rescan_ms % 1000) * 1000000 };
	struct pollfd pfd = { w->fd, POLLIN, 0 };

	if (stop_signal)
		return true;
	/* the signals are let in only here: no lost wake-up */
	if (ppoll(&pfd, w->fd >= 0, &ts, &w->unblocked) > 0)
		drain(w->fd);
	return stop_signal != 0;
}

void follow_watch_release(struct follow_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
