/*
 * compact-names.c - the names of a compaction tree (compact.h): elements
 * interned, the trie of their sequences (each whole name with its
 * prefixes, for the O(1) tests of the build), a name split at the
 * separator, and a compacted node's name and path written out and found
 * again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "internal.h"

static uint64_t str_hash(const char *s, size_t n)
{
	return hash64(hash_fnv(HASH_FNV_SEED, s, n) ^ n);
}

/* The index of element s[0 .. n), interned; -ENOMEM. */
static int32_t elem_intern(struct compact_tree *t, const char *s, size_t n)
{
	uint64_t h = str_hash(s, n);
	int32_t i = hashmap_get(&t->elem_map, h), last = -1;
	char *copy;

	for (; i >= 0; last = i, i = t->elem_next[i])
		if (strlen(t->elems[i]) == n && !memcmp(t->elems[i], s, n))
			return i;
	if (t->nelems >= INT32_MAX ||
	    GROW(t->elems, t->cap_elems, t->nelems + 1) ||
	    GROW(t->elem_next, t->cap_elem_next, t->nelems + 1))
		return -ENOMEM;
	if (!(copy = malloc(n + 1)))
		return -ENOMEM;
	memcpy(copy, s, n);
	copy[n] = '\0';
	i = (int32_t)t->nelems;
	if (last < 0 && hashmap_put(&t->elem_map, h, i) < 0) {
		free(copy);
		return -ENOMEM;
	}
	if (last >= 0)
		t->elem_next[last] = i;
	t->elems[i] = copy;
	t->elem_next[i] = -1;
	t->nelems++;
	return i;
}

/* The child of trie node parent by element elem (-1: the terminal), made
 * on demand; -ENOMEM. */
static int32_t trie_child(struct compact_tree *t, int32_t parent, int32_t elem)
{
	uint64_t key = hashmap_key2((uint32_t)parent, (uint32_t)elem);
	int32_t k = hashmap_get(&t->trie_map, key);
	struct compact_trie *n;

	if (k >= 0)
		return k;
	if (t->ntrie >= INT32_MAX || GROW(t->trie, t->cap_trie, t->ntrie + 1))
		return -ENOMEM;
	k = (int32_t)t->ntrie;
	n = &t->trie[k];
	n->parent = parent;
	n->elem = elem;
	n->depth = t->trie[parent].depth + (elem >= 0);
	n->path = -1;
	n->stamp = 0;
	n->slot = -1;
	if (elem < 0) {
		/* a whole name: its prefixes, for the O(1) tests of covers() */
		int32_t d = n->depth;

		if (t->npath + (size_t)d >= INT32_MAX ||
		    GROW(t->path, t->cap_path, t->npath + (size_t)d))
			return -ENOMEM;
		n->path = (int32_t)t->npath;
		for (int32_t p = parent; p > 0; p = t->trie[p].parent)
			t->path[t->npath + (size_t)t->trie[p].depth - 1] = p;
		t->npath += (size_t)d;
	}
	if (hashmap_put(&t->trie_map, key, k) < 0)
		return -ENOMEM;
	t->ntrie++;
	return k;
}

int32_t compact_tree_name(struct compact_tree *t, const char *const *elems,
			  size_t n)
{
	int32_t k = 0;

	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int32_t e = elem_intern(t, elems[i], strlen(elems[i]));

		if (e < 0 || (k = trie_child(t, k, e)) < 0)
			return -ENOMEM;
	}
	return trie_child(t, k, -1);
}

int32_t compact_tree_name_split(struct compact_tree *t, const char *s,
				size_t len)
{
	size_t sl = strlen(t->sep), start = 0;
	int32_t k = 0;
	int depth = 0;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i <= len; i++) {
		int32_t e;

		if (i < len) {
			char ch = s[i];

			if (ch == '(' || ch == '<' || ch == '[' || ch == '{')
				depth++;
			else if ((ch == ')' || ch == '>' || ch == ']' ||
				  ch == '}') &&
				 depth > 0)
				depth--;
			/* no empty element: a separator first, last or
			 * doubled stays in the element ("::f", "a..b") */
			if (depth || i == start || len - i <= sl ||
			    memcmp(s + i, t->sep, sl))
				continue;
		}
		if ((e = elem_intern(t, s + start, i - start)) < 0 ||
		    (k = trie_child(t, k, e)) < 0)
			return -ENOMEM;
		if (i < len)
			i += sl - 1;
		start = i + 1;
	}
	return trie_child(t, k, -1);
}

/* --- names and paths ------------------------------------------------------ */

/* The elements of trie node k joined by t->sep, as snprintf(). */
size_t compact_trie_name(const struct compact_tree *t, int32_t k, char *buf,
			 size_t len)
{
	size_t sl = strlen(t->sep), need = 0, pos;

	if (is_term(t, k))
		k = t->trie[k].parent;
	for (int32_t p = k; p > 0; p = t->trie[p].parent)
		need += strlen(t->elems[t->trie[p].elem]) +
			(t->trie[p].parent > 0 ? sl : 0);
	pos = need;
	for (int32_t p = k; p > 0; p = t->trie[p].parent) {
		const char *e = t->elems[t->trie[p].elem];
		size_t el = strlen(e);

		pos -= el;
		for (size_t i = 0; i < el; i++)
			if (pos + i + 1 < len)
				buf[pos + i] = e[i];
		if (t->trie[p].parent > 0) {
			pos -= sl;
			for (size_t i = 0; i < sl; i++)
				if (pos + i + 1 < len)
					buf[pos + i] = t->sep[i];
		}
	}
	if (len)
		buf[need < len ? need : len - 1] = '\0';
	return need;
}

size_t compact_tree_node_name(const struct compact_tree *t, int32_t c,
			      char *buf, size_t len)
{
	if (c <= 0 || (size_t)c >= t->nnodes || !t->nodes[c].members) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	return compact_trie_name(t, t->nodes[c].name, buf, len);
}

size_t compact_tree_path(const struct compact_tree *t, int32_t c, char *buf,
			 size_t len)
{
	size_t need = 0, pos;

	if (c <= 0 || (size_t)c >= t->nnodes || !t->nodes[c].members) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	for (int32_t x = c; x > 0; x = t->nodes[x].parent)
		need += compact_trie_name(t, t->nodes[x].name, NULL, 0) +
			(t->nodes[x].parent > 0);
	pos = need;
	for (int32_t x = c; x > 0; x = t->nodes[x].parent) {
		size_t nl = compact_trie_name(t, t->nodes[x].name, NULL, 0);

		pos -= nl;
		if (pos + 1 < len) {
			/* the name's bytes that fit; compact_trie_name() ends
			 * them */
			char save = pos + nl < len ? buf[pos + nl] : 0;

			compact_trie_name(t, t->nodes[x].name, buf + pos,
					  len - pos);
			if (pos + nl < len)
				buf[pos + nl] = save;
		}
		if (t->nodes[x].parent > 0) {
			pos--;
			if (pos + 1 < len)
				buf[pos] = ';';
		}
	}
	if (len)
		buf[need < len ? need : len - 1] = '\0';
	return need;
}

/* Is the name of trie node k the string s[0 .. n)? */
static int name_is(const struct compact_tree *t, int32_t k, const char *s,
		   size_t n)
{
	size_t sl = strlen(t->sep), pos = n;

	if (is_term(t, k))
		k = t->trie[k].parent;
	for (int32_t p = k; p > 0; p = t->trie[p].parent) {
		const char *e = t->elems[t->trie[p].elem];
		size_t el = strlen(e);

		if (pos < el || memcmp(s + pos - el, e, el))
			return 0;
		pos -= el;
		if (t->trie[p].parent > 0) {
			if (pos < sl || memcmp(s + pos - sl, t->sep, sl))
				return 0;
			pos -= sl;
		}
	}
	return pos == 0;
}

int32_t compact_tree_find(struct compact_tree *t, const char *path)
{
	const char *p = path;
	int32_t c = 0;

	t->why[0] = '\0';
	if (!t->built || !path || !*path) {
		snprintf(t->why, sizeof(t->why), "no node '%s'",
			 path ? path : "");
		return -ENOENT;
	}
	for (;;) {
		size_t n = strcspn(p, ";");
		int32_t k, z;

		/* a frame and a package of the same name: the frame first */
		for (k = -1, z = t->nodes[c].first_child; z >= 0;
		     z = t->nodes[z].next_sibling)
			if (name_is(t, t->nodes[z].name, p, n) &&
			    (k < 0 || is_term(t, t->nodes[z].name)))
				k = z;
		if (k < 0) {
			snprintf(t->why, sizeof(t->why), "no node '%s'", path);
			return -ENOENT;
		}
		c = k;
		if (!p[n])
			return c;
		p += n + 1;
	}
}
