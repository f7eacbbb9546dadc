/*
 * follow-ch.c - the follower's writer for a ClickHouse store
 * (follow-ch.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "causal/db-schema.h"
#include "ch-store.h"
#include "ch-write.h"
#include "clickhouse.h"
#include "follow-ch.h"
#include "hashmap.h"
#include "store-url.h"
#include "usage.h"

/* What the SQL text below names (db-schema.h). */
DB_NAMED_TABLE(loaded_segments);
DB_NAMED(LOADED_SEGMENTS, name);

struct follow_ch {
	struct store_url u;
	bool known; /* names read */
	/* the segments loaded: names[i], found by their hash in map */
	char **names;
	size_t n, cap;
	struct hashmap map;
};

struct follow_ch *follow_ch_open(const char *url)
{
	struct follow_ch *c = calloc(1, sizeof(*c));
	char why[512];

	if (!c) {
		fail("out of memory");
		return NULL;
	}
	if (store_url_parse(url, &c->u, why, sizeof(why))) {
		fail("%s", why);
		free(c);
		return NULL;
	}
	return c;
}

/* The slot of name in the map, or where it goes (*found false). */
static uint64_t find(const struct follow_ch *c, const char *name, bool *found)
{
	uint64_t h = hash_fnv(HASH_FNV_SEED, name, strlen(name));
	int32_t i;

	/* another name of the same hash: the next key */
	while ((i = hashmap_get(&c->map, h)) >= 0 && strcmp(c->names[i], name))
		h++;
	*found = i >= 0;
	return h;
}

bool follow_ch_is_loaded(const struct follow_ch *c, const char *name)
{
	bool found;

	find(c, name, &found);
	return found;
}

/* Add name to the segments loaded.  0 or -1 (no memory). */
static int add_name(struct follow_ch *c, const char *name, size_t len)
{
	bool found;
	char *copy = strndup(name, len);
	uint64_t h;

	if (!copy)
		return -1;
	h = find(c, copy, &found);
	if (found) {
		free(copy);
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		char **v = realloc(c->names, cap * sizeof(*v));

		if (!v) {
			free(copy);
			return -1;
		}
		c->names = v;
		c->cap = cap;
	}
	if (hashmap_put(&c->map, h, (int32_t)c->n) < 0) {
		free(copy);
		return -1;
	}
	c->names[c->n++] = copy;
	return 0;
}

int follow_ch_known(struct follow_ch *c, char *err, size_t len)
{
	struct ch_client *ch;
	char *text = NULL;
	int ret = -1;

	if (c->known)
		return 0;
	if (!(ch = ch_open(&c->u))) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	if (!ch_store_check(ch, true))
		text = ch_select_text(ch, "SELECT name FROM loaded_segments "
					  "WHERE " CH_OF_FINISHED_LOADS
					  " FORMAT TabSeparated");
	if (!text) {
		snprintf(err, len, "%s", ch_error(ch));
	} else {
		ret = 0;
		/* a name is a path of the log directory (logdir.h): no
		 * tab or newline to escape */
		for (char *p = text; *p && !ret;) {
			size_t n = strcspn(p, "\n");

			ret = add_name(c, p, n);
			p += n + (p[n] == '\n');
		}
		if (ret)
			snprintf(err, len, "out of memory");
		c->known = !ret;
	}
	free(text);
	ch_close(ch);
	return ret;
}

int follow_ch_load(struct follow_ch *c, const char *path, const char *dir,
		   const char *name, char *err, size_t len)
{
	struct ch_load_stats ls;

	if (ch_write_segment(path, dir, &c->u, &ls, err, len))
		return -1;
	if (add_name(c, name, strlen(name))) {
		/* loaded: only this run would load it again */
		snprintf(err, len, "out of memory");
		return -1;
	}
	return 0;
}

void follow_ch_close(struct follow_ch *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	hashmap_release(&c->map);
	free(c);
}
