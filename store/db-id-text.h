/*
 * db-id-text.h - one text column of a table looked up by the table's
 * integer id (hosts' names by host_id, log files' statuses by file_id),
 * read once, as a join in SQL would pair them.  Read as stored
 * (db-read.h's db_get_*()).
 */
#ifndef CAUSAL_DB_ID_TEXT_H
#define CAUSAL_DB_ID_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "causal/db-schema.h"
#include "hashmap.h"

struct db_id_text {
	char **v; /* the texts, in row order, owned; NULL for NULL */
	size_t n;
	struct hashmap by_id; /* id -> v[] */
};

/*
 * Read column text_col of table t of db by its id column id_col into m
 * (zeroed here): a row whose id is NULL is left out (a join matches no
 * NULL), a NULL text reads as if_null (NULL: stays NULL).  0, -ENOMEM,
 * or -EIO when SQLite failed (sqlite3_errmsg(db) says why); m is
 * released on failure.  Nothing is said.
 */
int db_id_text_load(struct db_id_text *m, sqlite3 *db, enum db_table t,
		    int id_col, int text_col, const char *if_null);

/* Whether a row has id: 1 and its text in *text, or 0 and NULL. */
int db_id_text_get(const struct db_id_text *m, int64_t id, const char **text);

void db_id_text_release(struct db_id_text *m);

#endif
