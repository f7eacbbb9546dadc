/*
 * spawn-links.c - parent links of children made by vfork() or
 * posix_spawn() (see spawn-links.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "array.h"
#include "spawn-links.h"

int spawn_links_add(struct spawn_links *sl, int64_t proc_id,
		    int64_t child_pid, uint64_t mono_ns)
{
	if (GROW(sl->v, sl->cap, sl->n + 1))
		return -ENOMEM;
	sl->v[sl->n++] = (struct spawn_note){ proc_id, child_pid, mono_ns };
	return 0;
}

/*
 * ?1 the parent's proc_id, ?2 the child's pid, ?3 the FORK record's time.
 * The pid must be the parent's child: ppid says so, unless the parent had
 * ended before the child started (an orphan is reparented).
 */
static const char link_sql[] =
	"UPDATE processes SET parent_uuid = "
	"  (SELECT uuid FROM processes WHERE proc_id = ?1) "
	"WHERE proc_id = "
	"  (SELECT c.proc_id FROM processes c, processes p "
	"   WHERE p.proc_id = ?1 AND c.host_id = p.host_id AND c.pid = ?2 "
	"   AND c.start_mono_ns >= ?3 AND c.proc_id <> p.proc_id "
	"   ORDER BY c.start_mono_ns, c.proc_id LIMIT 1) "
	"AND parent_uuid IS NULL "
	"AND (ppid = (SELECT pid FROM processes WHERE proc_id = ?1) "
	"     OR start_mono_ns >= "
	"        (SELECT end_mono_ns FROM processes WHERE proc_id = ?1))";

int spawn_links_store(const struct spawn_links *sl, sqlite3 *db,
		      uint64_t *linked)
{
	sqlite3_stmt *st;
	int rc = 0;

	*linked = 0;
	if (!sl->n)
		return 0;
	/*
	 * Each note looks up (host, pid, start): without an index that is a
	 * scan of every process per note (a build spawning 10,000 compilers
	 * makes 10^8 row visits).  The index is dropped after: the schema
	 * stays the one docs/database.md gives.
	 */
	if (sqlite3_exec(db, "CREATE INDEX spawn_links_tmp ON processes"
			 "(host_id, pid, start_mono_ns, proc_id)", NULL, NULL,
			 NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_prepare_v2(db, link_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < sl->n && !rc; i++) {
		sqlite3_bind_int64(st, 1, sl->v[i].proc_id);
		sqlite3_bind_int64(st, 2, sl->v[i].child_pid);
		sqlite3_bind_int64(st, 3, (int64_t)sl->v[i].mono_ns);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = -EIO;
		else
			*linked += (uint64_t)sqlite3_changes(db);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (sqlite3_exec(db, "DROP INDEX spawn_links_tmp", NULL, NULL,
			 NULL) != SQLITE_OK)
		rc = -EIO;
	return rc;
}

void spawn_links_release(struct spawn_links *sl)
{
	free(sl->v);
	sl->v = NULL;
	sl->n = sl->cap = 0;
}
