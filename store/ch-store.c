/*
 * ch-store.c - make or check a ClickHouse causal store (ch-store.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch-store.h"
#include "db-clickhouse.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "load_id,a,b,...": t's columns sorted, as the check query gives them. */
static int expected_columns(int t, char *out, size_t len)
{
	static const char *const loads[] = { "at_ns",	       "dir",
					     "load_id",	       "loader_host",
					     "processes",      "rows",
					     "schema_version", "state" };
	const char *names[128];
	size_t n = 0, used = 0;

	if (t == DB_NTABLES) {
		n = sizeof(loads) / sizeof(*loads);
		memcpy(names, loads, sizeof(loads));
	} else {
		names[n++] = "load_id";
		for (int i = 0; i < db_tables[t].ncols && n < 128; i++)
			names[n++] = db_tables[t].cols[i].name;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(out + used, len - used, "%s%s", i ? "," : "",
				 names[i]);

		if (w < 0 || (size_t)w >= len - used)
			return -1;
		used += (size_t)w;
	}
	return 0;
}

static const char *table_name(int t)
{
	return t == DB_NTABLES ? DB_CH_LOADS : db_tables[t].name;
}

/* The line of "TABLE\tcols" for name in the listing, or NULL. */
static const char *find_table(const char *listing, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = listing; l && *l;
	     l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, name, n) && l[n] == '\t')
			return l + n + 1;
	return NULL;
}

int ch_store_check(struct ch_client *c, bool create)
{
	static const char list_sql[] =
		"SELECT table, arrayStringConcat(arraySort(groupArray(name)), "
		"',') FROM system.columns WHERE database = currentDatabase() "
		"GROUP BY table FORMAT TabSeparated";
	char *listing, *versions;
	char want[4096];
	int ret = -1;

	if (create && ch_create_database(c))
		return -1;
	listing = ch_select_text(c, list_sql);
	if (!listing)
		return -1;
	if (*listing && !find_table(listing, DB_CH_LOADS)) {
		ch_fail(c, "not a causal store: the database has tables but "
			   "no table '" DB_CH_LOADS "'");
		goto out;
	}
	/* loads first: it marks the database as a store for the others,
	 * which may be making the rest of the tables at the same time */
	for (int i = 0; i <= DB_NTABLES; i++) {
		int t = i ? i - 1 : DB_NTABLES;
		const char *have;
		size_t n;

		if (i && t == DB_NTABLES)
			continue;
		if (t < DB_NTABLES && !db_ch_has_table(t))
			continue;
		if (expected_columns(t, want, sizeof(want))) {
			ch_fail(c, "too many columns in table '%s'",
				table_name(t));
			goto out;
		}
		have = find_table(listing, table_name(t));
		if (!have) {
			char *sql;
			int failed;

			if (!create) {
				ch_fail(c, "not a causal store: no table '%s'",
					table_name(t));
				goto out;
			}
			sql = db_ch_create(t);
			if (!sql) {
				ch_fail(c, "out of memory");
				goto out;
			}
			failed = ch_exec(c, sql);
			free(sql);
			if (failed)
				goto out;
			continue;
		}
		n = strcspn(have, "\n");
		if (n != strlen(want) || strncmp(have, want, n)) {
			ch_fail(c,
				"table '%s' has other columns than a causal "
				"store of schema version %d has (another "
				"version, or not a causal store)",
				table_name(t), DB_SCHEMA_VERSION);
			goto out;
		}
	}
	versions = ch_select_text(
		c, "SELECT DISTINCT schema_version FROM "
		   "loads WHERE schema_version != " DB_STR(
			   DB_SCHEMA_VERSION) " FORMAT TabSeparated");
	if (!versions)
		goto out;
	for (char *p = versions; *p; p++)
		if (*p == '\n')
			*p = ',';
	if (*versions)
		ch_fail(c, "the store holds loads of schema version %s, not %d",
			versions, DB_SCHEMA_VERSION);
	else
		ret = 0;
	free(versions);
out:
	free(listing);
	return ret;
}
