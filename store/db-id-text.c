/*
 * db-id-text.c - a table's text column by its id (db-id-text.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "db-id-text.h"
#include "db-read.h"

int db_id_text_load(struct db_id_text *m, sqlite3 *db, enum db_table t,
		    int id_col, int text_col, const char *if_null)
{
	const int cols[] = { id_col, text_col };
	struct db_read r;
	size_t cap = 0;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	if (db_read_open(&r, db, NULL, t, cols, 2, NULL))
		return -EIO;
	while (!ret && db_read_next(&r)) {
		const char *s = db_get_text(&r, text_col);

		if (db_get_type(&r, id_col) == SQLITE_NULL)
			continue;
		if (!s)
			s = if_null;
		if (GROW(m->v, cap, m->n + 1) ||
		    (!(m->v[m->n] = s ? strdup(s) : NULL) && s))
			ret = -ENOMEM;
		else if (hashmap_put(&m->by_id,
				     (uint64_t)db_get_int(&r, id_col),
				     (int32_t)m->n++) < 0)
			ret = -ENOMEM; /* v[n] is kept: released below */
	}
	if (db_read_close(&r) && !ret)
		ret = -EIO;
	if (ret)
		db_id_text_release(m);
	return ret;
}

int db_id_text_get(const struct db_id_text *m, int64_t id, const char **text)
{
	int32_t i = hashmap_get(&m->by_id, (uint64_t)id);

	*text = i < 0 ? NULL : m->v[i];
	return i >= 0;
}

void db_id_text_release(struct db_id_text *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i]);
	free(m->v);
	hashmap_release(&m->by_id);
	memset(m, 0, sizeof(*m));
}
