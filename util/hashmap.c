/*
 * hashmap.c - open addressing on 64-bit keys (hashmap.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

void hashmap_release(struct hashmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* The slot of key: where it is, or the empty slot where it would go. */
static size_t slot(const struct hashmap *m, uint64_t key)
{
	size_t mask = m->cap - 1, i;

	for (i = hash64(key) & mask; m->vals[i] >= 0; i = (i + 1) & mask)
		if (m->keys[i] == key)
			break;
	return i;
}

int32_t hashmap_get(const struct hashmap *m, uint64_t key)
{
	if (!m->cap)
		return -1;
	return m->vals[slot(m, key)];
}

static int resize(struct hashmap *m, size_t cap)
{
	struct hashmap n = {0};

	if (cap > SIZE_MAX / sizeof(*n.keys))
		return -ENOMEM;
	n.keys = malloc(cap * sizeof(*n.keys));
	n.vals = malloc(cap * sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	memset(n.vals, 0xff, cap * sizeof(*n.vals)); /* all -1 */
	n.cap = cap;
	n.n = m->n;
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i] >= 0) {
			size_t j = slot(&n, m->keys[i]);

			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
		}
	hashmap_release(m);
	*m = n;
	return 0;
}

int32_t hashmap_put(struct hashmap *m, uint64_t key, int32_t val)
{
	size_t i = 0;

	if (val < 0)
		return -EINVAL;
	if (m->cap) {
		i = slot(m, key);
		if (m->vals[i] >= 0)
			return m->vals[i];
	}
	/* Keep the load at most 1/2 so probes stay short. */
	if ((m->n + 1) * 2 > m->cap) {
		if (m->cap > SIZE_MAX / 4 ||
		    resize(m, m->cap ? m->cap * 2 : 64))
			return -ENOMEM;
		i = slot(m, key);
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return val;
}
