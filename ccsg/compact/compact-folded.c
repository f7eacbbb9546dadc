/*
 * compact-folded.c - a compaction tree from folded stacks (compact.h), the
 * format flame graph tools read: "main;foo;bar 42", the root frame first,
 * the count after the last blank.  Stacks that share a prefix share its
 * nodes (a trie, as Figure 2 is made from Figure 1's traces).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "compact.h"
#include "usage.h"

/* Malformed lines reported one by one; the rest are counted. */
#define MAX_REPORTED 10

struct reader {
	struct compact_tree *t;
	/* each distinct frame string once, with its name in the trie */
	struct frame {
		char *s;
		size_t len;
		int32_t name, next;
	} * frames;
	size_t nframes, cap_frames;
	struct hashmap frame_map; /* hash -> first frame */
	struct hashmap child;	  /* (parent node, name) -> node */
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	return hash64(hash_fnv(HASH_FNV_SEED, s, n) ^ n);
}

/* The trie name of frame s[0 .. n), split once per distinct frame. */
static int32_t frame_name(struct reader *r, const char *s, size_t n)
{
	uint64_t h = hash_bytes(s, n);
	int32_t i = hashmap_get(&r->frame_map, h), last = -1, name;
	struct frame *fr;

	for (; i >= 0; last = i, i = r->frames[i].next)
		if (r->frames[i].len == n && !memcmp(r->frames[i].s, s, n))
			return r->frames[i].name;
	if ((name = compact_tree_name_split(r->t, s, n)) < 0)
		return name;
	if (r->nframes >= INT32_MAX ||
	    GROW(r->frames, r->cap_frames, r->nframes + 1))
		return -ENOMEM;
	fr = &r->frames[r->nframes];
	if (!(fr->s = malloc(n + 1)))
		return -ENOMEM;
	memcpy(fr->s, s, n);
	fr->s[n] = '\0';
	fr->len = n;
	fr->name = name;
	fr->next = -1;
	i = (int32_t)r->nframes;
	if (last >= 0) {
		r->frames[last].next = i;
	} else if (hashmap_put(&r->frame_map, h, i) < 0) {
		free(fr->s);
		return -ENOMEM;
	}
	r->nframes++;
	return name;
}

/* What is wrong with line s[0 .. n) (NULL: nothing); the count in *count
 * and the stack's length in *stack. */
static const char *check_line(const char *s, size_t n, double *count,
			      size_t *stack)
{
	size_t end = n, sp;
	char *stop;

	if (strlen(s) != n)
		return "it holds a NUL byte";
	while (end && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	for (sp = end; sp && s[sp - 1] != ' ' && s[sp - 1] != '\t'; sp--)
		;
	if (!sp)
		return "no count after the stack";
	errno = 0;
	*count = strtod(s + sp, &stop);
	if (stop != s + end || errno || !isfinite(*count) || *count < 0 ||
	    s[sp] == '+' || s[sp] == '-')
		return "the count is not a non-negative number";
	while (sp && (s[sp - 1] == ' ' || s[sp - 1] == '\t'))
		sp--;
	if (!sp)
		return "no stack before the count";
	*stack = sp;
	for (size_t i = 0; i <= sp; i++)
		if ((i == sp || s[i] == ';') && (i == 0 || s[i - 1] == ';'))
			return "an empty frame";
	return NULL;
}

/* Add the stack s[0 .. n) with its count: 0 or -ENOMEM. */
static int add_stack(struct reader *r, const char *s, size_t n, double count)
{
	int32_t node = COMPACT_ROOT;

	for (size_t i = 0; i < n;) {
		size_t len = strcspn(s + i, ";");
		int32_t name, child;
		uint64_t key;

		if (len > n - i)
			len = n - i;
		if ((name = frame_name(r, s + i, len)) < 0)
			return -ENOMEM;
		key = hashmap_key2((uint32_t)node, (uint32_t)name);
		if ((child = hashmap_get(&r->child, key)) < 0) {
			if ((child = compact_tree_add(r->t, node, name, 0, 0,
						      0)) < 0 ||
			    hashmap_put(&r->child, key, child) < 0)
				return -ENOMEM;
		}
		node = child;
		i += len + 1;
	}
	r->t->orig[node].self += count;
	return 0;
}

int compact_folded_read(struct compact_tree *t, FILE *f, const char *name,
			int strict)
{
	struct reader r = { .t = t };
	size_t lineno = 0, stacks = 0, bad = 0, cap = 0, first_bad = 0;
	char *line = NULL;
	ssize_t got;
	int ret = -1;

	while ((got = getline(&line, &cap, f)) >= 0) {
		size_t n = (size_t)got, stack;
		const char *what;
		double count;

		lineno++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		line[n] = '\0';
		if (strspn(line, " \t") == n && strlen(line) == n)
			continue; /* a blank line */
		if ((what = check_line(line, n, &count, &stack))) {
			if (strict) {
				fail("%s:%zu: malformed line: %s", name, lineno,
				     what);
				goto out;
			}
			if (!bad++)
				first_bad = lineno;
			if (bad <= MAX_REPORTED)
				warning("%s:%zu: malformed line skipped: %s",
					name, lineno, what);
			continue;
		}
		if (add_stack(&r, line, stack, count)) {
			fail("out of memory reading '%s'", name);
			goto out;
		}
		stacks++;
	}
	if (ferror(f)) {
		fail("cannot read '%s': %s", name, strerror(errno));
		goto out;
	}
	if (bad > MAX_REPORTED)
		warning("%s: %zu malformed lines skipped in all (the first at "
			"line %zu)",
			name, bad, first_bad);
	if (!stacks) {
		fail("'%s' holds no stack", name);
		goto out;
	}
	compact_tree_sum_totals(t);
	ret = 0;
out:
	for (size_t i = 0; i < r.nframes; i++)
		free(r.frames[i].s);
	free(r.frames);
	hashmap_release(&r.frame_map);
	hashmap_release(&r.child);
	free(line);
	return ret;
}
