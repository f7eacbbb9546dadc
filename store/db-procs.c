/*
 * db-procs.c - the processes of a merged trace and their hosts' names
 * (db-procs.h), as a join in SQL would pair them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "db-procs.h"
#include "db-read.h"

/* A copy of s kept in p->names: *out, NULL for NULL.  0 or -ENOMEM. */
static int keep(struct db_procs *p, size_t *cap, const char *s,
		const char **out)
{
	*out = NULL;
	if (!s)
		return 0;
	if (GROW(p->names, *cap, p->nnames + 1) ||
	    !(p->names[p->nnames] = strdup(s)))
		return -ENOMEM;
	*out = p->names[p->nnames++];
	return 0;
}

static int load_procs(struct db_procs *p, sqlite3 *db, const int *more,
		      size_t nmore)
{
	int cols[DB_PROCESSES_NCOLS] = { DB_PROCESSES_PROC_ID,
					 DB_PROCESSES_HOST_ID };
	size_t ncols = 2;
	struct db_read r;
	size_t cap = 0, cap_names = 0;
	int ret = 0;

	for (size_t i = 0; i < nmore && ncols < DB_PROCESSES_NCOLS; i++)
		cols[ncols++] = more[i];
	if (db_read_open(&r, db, NULL, DB_PROCESSES, cols, ncols, "ORDER BY %s",
			 DB_NAME(PROCESSES, PROC_ID)))
		return -EIO;
	while (!ret && db_read_next(&r)) {
		struct db_proc *pr;

		if (GROW(p->v, cap, p->n + 1)) {
			ret = -ENOMEM;
			break;
		}
		pr = &p->v[p->n];
		memset(pr, 0, sizeof(*pr));
		pr->proc_id = db_get_int(&r, DB_PROCESSES_PROC_ID);
		if (db_get_type(&r, DB_PROCESSES_HOST_ID) != SQLITE_NULL)
			pr->has_host = db_id_text_get(
				&p->hosts, db_get_int(&r, DB_PROCESSES_HOST_ID),
				&pr->host);
		pr->pid = db_get_int(&r, DB_PROCESSES_PID);
		pr->pid_null = db_get_type(&r, DB_PROCESSES_PID) == SQLITE_NULL;
		pr->start_realtime_ns =
			db_get_int(&r, DB_PROCESSES_START_REALTIME_NS);
		pr->start_mono_ns = db_get_int(&r, DB_PROCESSES_START_MONO_NS);
		pr->end_mono_ns = db_get_int(&r, DB_PROCESSES_END_MONO_NS);
		pr->end_null = db_get_type(&r, DB_PROCESSES_END_MONO_NS) ==
			       SQLITE_NULL;
		if (keep(p, &cap_names, db_get_text(&r, DB_PROCESSES_EXE),
			 &pr->exe) ||
		    hashmap_put(&p->by_id, (uint64_t)pr->proc_id,
				(int32_t)p->n) < 0)
			ret = -ENOMEM;
		else
			p->n++;
	}
	if (db_read_close(&r) && !ret)
		ret = -EIO;
	return ret;
}

int db_procs_load(struct db_procs *p, sqlite3 *db, const int *cols, size_t n)
{
	int ret;

	memset(p, 0, sizeof(*p));
	/* a NULL name stays NULL: has_host says the row is there */
	ret = db_id_text_load(&p->hosts, db, DB_HOSTS, DB_HOSTS_HOST_ID,
			      DB_HOSTS_NAME, NULL);
	if (!ret)
		ret = load_procs(p, db, cols, n);
	if (ret)
		db_procs_release(p);
	return ret;
}

const struct db_proc *db_procs_get(const struct db_procs *p, int64_t proc_id)
{
	int32_t i = hashmap_get(&p->by_id, (uint64_t)proc_id);

	return i < 0 ? NULL : &p->v[i];
}

void db_procs_release(struct db_procs *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	free(p->v);
	hashmap_release(&p->by_id);
	db_id_text_release(&p->hosts);
	memset(p, 0, sizeof(*p));
}
