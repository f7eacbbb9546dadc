/*
 * compact-output.c - the compacted tree as text, JSON or folded stacks
 * (compact.h).  One depth-first walk with an explicit stack, so a tree of
 * any depth prints; siblings by total, largest first, then by name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "compact.h"
#include "json.h"

/* Deeper than this, text lines stop moving right and say their depth. */
#define TEXT_MAX_INDENT 50

int compact_format_parse(const char *s)
{
	if (!strcmp(s, "text"))
		return COMPACT_TEXT;
	if (!strcmp(s, "json"))
		return COMPACT_JSON;
	if (!strcmp(s, "folded"))
		return COMPACT_FOLDED;
	return -1;
}

/* A weight: whole numbers without a fraction, others to 15 digits. */
static void num(char *b, size_t n, double v)
{
	if (v == 0)
		v = 0; /* no "-0" */
	if (v > -1e15 && v < 1e15 && (double)(long long)v == v)
		snprintf(b, n, "%lld", (long long)v);
	else
		snprintf(b, n, "%.15g", v);
}

struct printer {
	FILE *f;
	struct compact_tree *t;
	int format;
	char *name; /* the name of the node being printed */
	size_t cap_name;
	char *path; /* folded: the path down to it */
	size_t npath, cap_path;
	char *other; /* a second name, for sorting */
	size_t cap_other;
};

/* The name of compacted node c into *buf; its length, or (size_t)-1. */
static size_t name_of(const struct compact_tree *t, int32_t c, char **buf,
		      size_t *cap)
{
	size_t n = compact_tree_node_name(t, c, NULL, 0);

	if (GROW(*buf, *cap, n + 1))
		return (size_t)-1;
	compact_tree_node_name(t, c, *buf, n + 1);
	return n;
}

static int by_weight(const void *a, const void *b, void *arg)
{
	struct printer *p = arg;
	const struct compact_node *x = &p->t->nodes[*(const int32_t *)a];
	const struct compact_node *y = &p->t->nodes[*(const int32_t *)b];
	int d;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	/* out of memory: any order will do */
	if (name_of(p->t, *(const int32_t *)a, &p->name, &p->cap_name) ==
		    (size_t)-1 ||
	    name_of(p->t, *(const int32_t *)b, &p->other, &p->cap_other) ==
		    (size_t)-1)
		return 0;
	if ((d = strcmp(p->name, p->other)))
		return d;
	/* a frame before the package of the same name */
	return (p->t->trie[y->name].elem < 0) - (p->t->trie[x->name].elem < 0);
}

static void print_elements(FILE *f, const struct compact_tree *t, int32_t k)
{
	int32_t depth, *e;

	if (k > 0 && t->trie[k].elem < 0)
		k = t->trie[k].parent;
	depth = t->trie[k].depth;
	if (!(e = malloc(((size_t)depth + 1) * sizeof(*e))))
		return;
	for (int32_t p = k, i = depth; p > 0; p = t->trie[p].parent)
		e[--i] = t->trie[p].elem;
	fputc('[', f);
	for (int32_t i = 0; i < depth; i++) {
		if (i)
			fputs(", ", f);
		json_cstr(f, t->elems[e[i]]);
	}
	fputc(']', f);
	free(e);
}

/* Open node c at depth d (0: top level). */
static int open_node(struct printer *p, int32_t c, size_t d, int first)
{
	const struct compact_node *x = &p->t->nodes[c];
	size_t n = name_of(p->t, c, &p->name, &p->cap_name);
	char self[32], total[32], calls[32];

	if (n == (size_t)-1)
		return -ENOMEM;
	num(self, sizeof(self), x->self);
	num(total, sizeof(total), x->total);
	num(calls, sizeof(calls), x->calls);
	switch (p->format) {
	case COMPACT_TEXT:
		fprintf(p->f, "%*s",
			(int)(2 * (d < TEXT_MAX_INDENT ? d : TEXT_MAX_INDENT)),
			"");
		if (d > TEXT_MAX_INDENT)
			fprintf(p->f, "(depth %zu) ", d);
		fprintf(p->f, "%s [x%s]\n", p->name, total);
		break;
	case COMPACT_JSON:
		fputs(first ? "\n" : ",\n", p->f);
		fputs("{\"name\": ", p->f);
		json_string(p->f, p->name, n);
		fputs(", \"elements\": ", p->f);
		print_elements(p->f, p->t, x->name);
		fprintf(p->f, ", \"self\": %s, \"total\": %s", self, total);
		if (p->t->has_calls)
			fprintf(p->f, ", \"calls\": %s", calls);
		fprintf(p->f, ", \"nodes\": %d, \"children\": [", x->members);
		break;
	case COMPACT_FOLDED:
		if (GROW(p->path, p->cap_path, p->npath + n + 2))
			return -ENOMEM;
		if (d)
			p->path[p->npath++] = ';';
		memcpy(p->path + p->npath, p->name, n);
		p->npath += n;
		if (x->self > 0)
			fprintf(p->f, "%.*s %s\n", (int)p->npath, p->path,
				self);
		break;
	}
	return 0;
}

/* The walk's stack: a node, where its sorted children start in the
 * order array, how many, the next to print, the path length above it. */
struct frame {
	int32_t c;
	size_t start, n, next, npath;
};

int compact_tree_print(FILE *f, struct compact_tree *t, int format)
{
	struct printer p = { f, t, format, NULL, 0, NULL, 0, 0, NULL, 0 };
	struct frame *st = NULL;
	int32_t *order = NULL;
	size_t nst = 0, cap_st = 0, norder = 0, cap_order = 0;
	double total = 0;
	size_t above = 0; /* the path's length above the node opened */
	int ret = -ENOMEM;

	for (int32_t k = t->nodes[0].first_child; k >= 0;
	     k = t->nodes[k].next_sibling)
		total += t->nodes[k].total;
	if (format == COMPACT_JSON) {
		char b[32];

		num(b, sizeof(b), total);
		fprintf(f, "{\"total\": %s, \"children\": [", b);
	}
	for (int32_t c = 0;;) {
		struct frame *fr;
		size_t start = norder;

		/* c's children, sorted, on top of the order array */
		for (int32_t k = t->nodes[c].first_child; k >= 0;
		     k = t->nodes[k].next_sibling)
			if (GROW(order, cap_order, norder + 1))
				goto out;
			else
				order[norder++] = k;
		qsort_r(order + start, norder - start, sizeof(*order),
			by_weight, &p);
		if (GROW(st, cap_st, nst + 1))
			goto out;
		st[nst++] =
			(struct frame){ c, start, norder - start, 0, above };
		/* the next node to open, closing those that are done */
		for (c = -1; nst && c < 0;) {
			fr = &st[nst - 1];
			if (fr->next < fr->n) {
				c = order[fr->start + fr->next++];
				above = p.npath;
				if (open_node(&p, c, nst - 1, fr->next == 1))
					goto out;
				break;
			}
			if (format == COMPACT_JSON)
				fputs("]}", f);
			p.npath = fr->npath;
			norder = fr->start;
			nst--;
		}
		if (c < 0)
			break;
	}
	if (format == COMPACT_JSON)
		fputc('\n', f);
	ret = 0;
out:
	free(st);
	free(order);
	free(p.name);
	free(p.other);
	free(p.path);
	if (!ret && (fflush(f) || ferror(f)))
		ret = -EIO;
	return ret;
}
