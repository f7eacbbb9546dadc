/*
 * internal.h - what compact.c (the build and the actions) and
 * compact-names.c (the names) share beyond compact.h.
 */
#ifndef CCSG_COMPACT_INTERNAL_H
#define CCSG_COMPACT_INTERNAL_H

#include "compact.h"

/* Does trie node k end a whole name (a terminal: no element)? */
static inline int is_term(const struct compact_tree *t, int32_t k)
{
	return k > 0 && t->trie[k].elem < 0;
}

/* The elements of trie node k joined by t->sep, into buf as snprintf()
 * does: the length it needs. */
size_t compact_trie_name(const struct compact_tree *t, int32_t k, char *buf,
			 size_t len);

#endif
