/*
 * spawn-links.h - parent links of children made by vfork() or
 * posix_spawn().
 *
 * Such a child is traced only from the image it execs, whose HEADER cannot
 * name its parent.  The parent's FORK record (log-format.h) names the
 * child's pid, how it was made, and a time before the child started.  Once
 * every process row is stored, each such record sets parent_uuid of the
 * first image (by start time, then proc_id) on the parent's host with
 * that pid starting at or after that time, when that image has no parent
 * yet and its ppid is the parent's pid (or it started after the parent
 * ended, and was reparented).  Records are applied in file and log order:
 * the first link made wins.
 */
#ifndef CAUSAL_TRACEDUMP_SPAWN_LINKS_H
#define CAUSAL_TRACEDUMP_SPAWN_LINKS_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct spawn_note {
	int64_t proc_id;	/* the parent's row */
	int64_t child_pid;
	uint64_t mono_ns;	/* the FORK record's */
};

struct spawn_links {
	struct spawn_note *v;
	size_t n, cap;
};

/* 0 or -ENOMEM. */
int spawn_links_add(struct spawn_links *sl, int64_t proc_id,
		    int64_t child_pid, uint64_t mono_ns);

/*
 * Apply every note to db's processes table; *linked counts the rows
 * given a parent.  0, or -EIO on a database error (sqlite3_errmsg(db)).
 */
int spawn_links_store(const struct spawn_links *sl, sqlite3 *db,
		      uint64_t *linked);

void spawn_links_release(struct spawn_links *sl);

#endif
