/*
 * ch-load.c - one host's logs into a ClickHouse store (ch-load.h): the
 * merge into a temporary SQLite file, then its copy (store/ch-write.h).
 */
#include <string.h>

#include "ch-load.h"
#include "tmp-cleanup.h"

int ch_load_run(const struct merge_opts *o, const struct store_url *u,
		struct merge_stats *ms, struct ch_load_stats *ls)
{
	struct merge_opts mo = *o;
	struct tmp_file db;
	int ret = -1;

	memset(ls, 0, sizeof(*ls));
	if (tmp_file_make(&db, "causal-load", "trace.db"))
		return -1;
	mo.output = db.path;
	mo.raw = false;
	if (!merge_run(&mo, ms))
		ret = ch_write_load(db.path, o->dir, u, ls);
	tmp_file_remove(&db);
	return ret;
}
