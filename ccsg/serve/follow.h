/*
 * follow.h - what `ccsg serve` serves: a model (the trace loaded, its
 * DSCG, CCSG and the viewer's indexes over them, api.h), built once, or
 * again and again from a growing store with --follow (docs/viewer.md,
 * "Following a growing trace").
 *
 * With --follow a thread of its own watches the store every refresh
 * period: an SQLite file by its identity (device, inode: a file renamed
 * into place is another), size, mtime and PRAGMA data_version on a
 * connection it keeps open; a ClickHouse store by its finished loads
 * (follow-window.h).  When the store changed, it copies it (one read
 * transaction: the sqlite3 backup API; a store: its SQLite copy,
 * store.h, made again), keeps in the copy only the
 * chains that started within the last MINUTES before the trace's newest
 * event, builds a new model from it and hands it over.  The serving
 * thread takes it between two requests (follow_take()): a request is
 * answered whole from one model, the old or the new one, never from one
 * half built.  The model taken over is freed by the watching thread, so
 * the serving thread never waits for it.
 */
#ifndef CCSG_SERVE_FOLLOW_H
#define CCSG_SERVE_FOLLOW_H

#include <stdint.h>

#include "api.h"
#include "cmds.h"
#include "values/values.h"

/* One model: everything a request reads. */
struct serve_model {
	struct session s;
	struct ccsg_values vals;
	struct viewer v;
	int viewer_ready; /* v was set up (viewer_release() it) */
	/* --follow: the window it holds (has_window 0: the store was
	 * empty), the generation (1, 2, ... as built) and when built */
	int has_window;
	int64_t window_start_ns, window_end_ns;
	uint64_t generation;
	int64_t built_ns;  /* CLOCK_REALTIME */
	char *follow_json; /* /api/info's "follow", the viewer's */
};

/*
 * Build a model of the trace o->db (with o's --idl and --groups, spec
 * the CCDG's first specification or NULL).  shown: the name /api/info
 * gives the trace (NULL: o->db).  The model, or NULL after a message.
 */
struct serve_model *serve_model_build(const struct cli *o, const char *spec,
				      const char *shown);
void serve_model_free(struct serve_model *m);

struct follow_opts {
	double last_min;  /* --last: minutes */
	double refresh_s; /* --refresh: seconds */
};
#define FOLLOW_LAST_MIN 10.0
#define FOLLOW_REFRESH_S 5.0

struct follow;

/*
 * Start following o->db: the first model is built now (from an empty
 * store when it has no data yet or cannot be read: said on stderr, and
 * in /api/info).  *fd: a descriptor that becomes readable when
 * follow_take() has something.  The follower, or NULL after a message
 * (a model that cannot be built even empty: a bad --idl or spec).
 */
struct follow *follow_start(const struct cli *o, const char *spec,
			    const struct follow_opts *fo, int *fd);
/*
 * The serving thread, when *fd is readable: the new model when there is
 * one (else cur), cur then handed back to be freed; its follow_json set
 * again when the store's state changed (an error, or its end).
 */
struct serve_model *follow_take(struct follow *f, struct serve_model *cur);
/* Stop the thread and free everything but cur (the caller's). */
void follow_stop(struct follow *f);

#endif
