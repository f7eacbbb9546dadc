/*
 * export-spill.c - bytes kept apart by group, spilled compressed to a
 * temporary file past a budget (export-spill.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "array.h"
#include "export-buf.h"
#include "export-spill.h"

/* A group's bytes in the file: compressed, and their size before. */
struct spill_chunk {
	off_t off;
	size_t len, raw;
	int32_t next; /* the group's next chunk, -1 */
};

size_t export_spill_budget = (size_t)32 << 20;

int export_spill_init(struct export_spill *s, size_t ngroups)
{
	memset(s, 0, sizeof(*s));
	if (!(s->group = calloc(ngroups + 1, sizeof(*s->group))))
		return -ENOMEM;
	s->ngroups = ngroups;
	for (size_t g = 0; g < ngroups; g++)
		s->group[g].first = s->group[g].last = -1;
	return 0;
}

void export_spill_release(struct export_spill *s)
{
	for (size_t g = 0; s->group && g < s->ngroups; g++)
		free(s->group[g].p);
	free(s->group);
	free(s->chunks);
	free(s->z);
	if (s->file)
		fclose(s->file);
	memset(s, 0, sizeof(*s));
}

int export_spill_add(struct export_spill *s, size_t g, const char *p, size_t n)
{
	struct spill_group *sg = &s->group[g];

	if (GROW(sg->p, sg->cap, sg->n + n))
		return -ENOMEM;
	memcpy(sg->p + sg->n, p, n);
	sg->n += n;
	s->held += n;
	return 0;
}

/* The file, made on the first spill: unlinked, so nothing is left. */
static int open_file(struct export_spill *s)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/ccsg-spill.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		return -EIO;
	unlink(path);
	if (!(s->file = fdopen(fd, "w+"))) {
		close(fd);
		return -EIO;
	}
	return 0;
}

/* The largest group's memory to the file, compressed (spans are alike:
 * a tenth of the bytes to copy into the page cache and back). */
static int spill_largest(struct export_spill *s)
{
	size_t big = 0, zn;
	struct spill_group *sg;
	off_t off;

	for (size_t g = 1; g < s->ngroups; g++)
		if (s->group[g].n > s->group[big].n)
			big = g;
	sg = &s->group[big];
	if (!sg->n)
		return 0;
	if (GROW(s->chunks, s->cap_chunks, s->nchunks + 1) ||
	    GROW(s->z, s->cap_z, ZSTD_compressBound(sg->n)))
		return -ENOMEM;
	if ((!s->file && open_file(s)) || fseeko(s->file, 0, SEEK_END) ||
	    (off = ftello(s->file)) < 0)
		return -EIO;
	zn = ZSTD_compress(s->z, s->cap_z, sg->p, sg->n, 1);
	if (ZSTD_isError(zn))
		return -ENOMEM;
	/* a block at a time: one write of megabytes makes the kernel's copy
	 * several times slower (export-chrome.c) */
	for (size_t at = 0; at < zn; at += XBUF_SIZE) {
		size_t k = zn - at < XBUF_SIZE ? zn - at : XBUF_SIZE;

		if (fwrite(s->z + at, 1, k, s->file) != k)
			return -EIO;
	}
	s->chunks[s->nchunks] = (struct spill_chunk){ off, zn, sg->n, -1 };
	if (sg->last >= 0)
		s->chunks[sg->last].next = (int32_t)s->nchunks;
	else
		sg->first = (int32_t)s->nchunks;
	sg->last = (int32_t)s->nchunks++;
	s->held -= sg->n;
	free(sg->p); /* its room too: the budget holds what is held */
	sg->p = NULL;
	sg->n = sg->cap = 0;
	return 0;
}

int export_spill_count(struct export_spill *s, size_t g)
{
	int ret;

	s->group[g].items++;
	while (s->held > export_spill_budget)
		if ((ret = spill_largest(s)))
			return ret;
	return 0;
}

int export_spill_each(struct export_spill *s, size_t g,
		      int (*fn)(void *arg, const char *p, size_t n), void *arg)
{
	const struct spill_group *sg = &s->group[g];
	int ret;

	for (int32_t k = sg->first; k >= 0; k = s->chunks[k].next) {
		const struct spill_chunk *c = &s->chunks[k];
		char *buf = malloc(c->raw + 1);

		if (!buf || GROW(s->z, s->cap_z, c->len)) {
			free(buf);
			return -ENOMEM;
		}
		if (fseeko(s->file, c->off, SEEK_SET) ||
		    fread(s->z, 1, c->len, s->file) != c->len ||
		    ZSTD_decompress(buf, c->raw, s->z, c->len) != c->raw) {
			free(buf);
			return -EIO;
		}
		ret = fn(arg, buf, c->raw);
		free(buf);
		if (ret)
			return ret;
	}
	return sg->n ? fn(arg, sg->p, sg->n) : 0;
}
