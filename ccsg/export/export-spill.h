/*
 * export-spill.h - bytes kept apart for each of a number of groups (the
 * OTLP export's processes: a process's spans are written together, but
 * come in chain order), in memory up to a budget in all, past it the
 * largest group's compressed (zstd) and appended to one temporary file,
 * unlinked at once; then read back group by group, in the order added.
 */
#ifndef CCSG_EXPORT_SPILL_H
#define CCSG_EXPORT_SPILL_H

#include <stdint.h>
#include <stdio.h>

struct spill_group {
	char *p; /* what is in memory */
	size_t n, cap;
	int32_t first, last; /* its chunks in the file, -1 */
	size_t items;	     /* export_spill_count()'s */
};

struct spill_chunk;

struct export_spill {
	struct spill_group *group;
	size_t ngroups;
	size_t held; /* bytes in memory */
	struct spill_chunk *chunks;
	size_t nchunks, cap_chunks;
	FILE *file;
	char *z; /* a chunk compressed, or read */
	size_t cap_z;
};

/* Bytes held in memory before the largest group goes to the file (a
 * variable for the tests). */
extern size_t export_spill_budget;

/* 0 or -ENOMEM. */
int export_spill_init(struct export_spill *s, size_t ngroups);
void export_spill_release(struct export_spill *s);

/* Append n bytes to group g: 0, -ENOMEM, or -EIO (the file). */
int export_spill_add(struct export_spill *s, size_t g, const char *p, size_t n);
/* Count an item of group g (the caller's unit: a span), then keep to the
 * budget: 0, -ENOMEM or -EIO. */
int export_spill_count(struct export_spill *s, size_t g);

/* Group g's bytes, in order, to fn in pieces (of whole adds): 0, fn's
 * non-zero, -ENOMEM or -EIO. */
int export_spill_each(struct export_spill *s, size_t g,
		      int (*fn)(void *arg, const char *p, size_t n), void *arg);

#endif
