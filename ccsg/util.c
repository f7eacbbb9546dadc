/*
 * util.c - growable arrays and the hash map of internal.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int ccsg_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	p = realloc(*arr, c * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

void ccsg_map_release(struct ccsg_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

int32_t ccsg_map_get(const struct ccsg_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return -1;
	for (i = ccsg_hash64(key) & (m->cap - 1); m->vals[i] >= 0; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return -1;
}

static int map_resize(struct ccsg_map *m, size_t cap)
{
	struct ccsg_map n = { 0 };

	n.keys = malloc(cap * sizeof(*n.keys));
	n.vals = malloc(cap * sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	memset(n.vals, 0xff, cap * sizeof(*n.vals));
	n.cap = cap;
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i] >= 0)
			ccsg_map_put(&n, m->keys[i], m->vals[i]);
	ccsg_map_release(m);
	*m = n;
	return 0;
}

int32_t ccsg_map_put(struct ccsg_map *m, uint64_t key, int32_t val)
{
	size_t i;

	/* Keep the load under 1/2 so probes stay short. */
	if ((m->n + 1) * 2 > m->cap && map_resize(m, m->cap ? m->cap * 2 : 64))
		return -ENOMEM;
	for (i = ccsg_hash64(key) & (m->cap - 1); m->vals[i] >= 0; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return val;
}
