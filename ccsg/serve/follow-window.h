/*
 * follow-window.h - the SQLite store --follow watches (follow.h): has it
 * changed, and its last minutes as a trace file of their own.
 */
#ifndef CCSG_SERVE_FOLLOW_WINDOW_H
#define CCSG_SERVE_FOLLOW_WINDOW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <sqlite3.h>

/* What says that an SQLite file changed. */
struct store_sig {
	int known;
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
	int64_t data_version;	   /* of the connection kept open */
	uint64_t loads, last_load; /* a store's finished loads, newest id */
};

struct store_watch {
	sqlite3 *
		db; /* kept open: its data_version moves with others' commits */
	struct store_sig sig;
};

enum {
	STORE_SAME,
	STORE_CHANGED,	 /* or looked at for the first time */
	STORE_ABSENT,	 /* no file (yet, or no longer) */
	STORE_UNREADABLE /* err says why */
};

/* Look at the file path, or the store a clickhouse:// URL names (its
 * newest finished load: STORE_ABSENT while there is none): one of the
 * above, err (len bytes) set unless STORE_SAME or STORE_CHANGED. */
int store_watch_check(struct store_watch *w, const char *path, char *err,
		      size_t len);
/* Forget what was seen: the next check says STORE_CHANGED. */
static inline void store_watch_forget(struct store_watch *w)
{
	w->sig.known = 0;
}
void store_watch_close(struct store_watch *w);

/* The window a copy holds: has 0 when the trace has no call. */
struct window {
	int has;
	int64_t start_ns, end_ns;
};

/*
 * Copy the trace path into the file copy (replaced), keeping only the
 * chains that started within last_ns of its newest call event
 * (follow-window.c says on which clock), into *win.  A store made but
 * not yet written (no tables) makes an empty trace.  0, or -1 with err
 * set (*busy: because a writer held the store, worth trying again).
 */
int window_copy(const char *path, const char *copy, int64_t last_ns,
		struct window *win, int *busy, char *err, size_t len);
/* An empty trace (the merged schema, no rows) at copy: 0, or -1. */
int window_empty(const char *copy, char *err, size_t len);

#endif
