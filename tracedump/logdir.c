/*
 * logdir.c - recursive, sorted listing of *.clog files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "array.h"
#include "causal/log-format.h"
#include "logdir.h"

static int add(struct logdir *ld, size_t *cap, const char *name)
{
	if (GROW(ld->names, *cap, ld->n + 1))
		return -ENOMEM;
	if (!(ld->names[ld->n] = strdup(name)))
		return -ENOMEM;
	ld->n++;
	return 0;
}

static bool has_suffix(const char *s)
{
	size_t n = strlen(s), k = strlen(CAUSAL_LOG_SUFFIX);

	return n > k && !strcmp(s + n - k, CAUSAL_LOG_SUFFIX);
}

/* root/rel is a directory; rel is "" at the top. */
static int scan(const char *root, const char *rel, struct logdir *ld,
		size_t *cap, int depth)
{
	char path[4096], sub[4096];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (depth > 64)
		return 0;
	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!rc && (de = readdir(d))) {
		struct stat st;
		char full[8192];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, sub);
		if (lstat(full, &st) < 0)
			continue;	/* vanished meanwhile */
		if (S_ISDIR(st.st_mode)) {
			rc = scan(root, sub, ld, cap, depth + 1);
			/* An unreadable subdirectory is not the whole run's loss. */
			if (rc == -EACCES)
				rc = 0;
			continue;
		}
		if (!has_suffix(de->d_name))
			continue;
		if (S_ISLNK(st.st_mode) && stat(full, &st) < 0)
			continue;
		/*
		 * Not only regular files: a FIFO or a device named *.clog
		 * is listed so that the reader rejects it by name.
		 */
		if (!S_ISDIR(st.st_mode))
			rc = add(ld, cap, sub);
	}
	closedir(d);
	return rc;
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

uint64_t logdir_segment(const char *name, size_t *stem_len)
{
	size_t n = strlen(name), k = strlen(CAUSAL_LOG_SUFFIX), d = 0;
	uint64_t v = 0;

	*stem_len = n > k ? n - k : n;
	if (n <= k)
		return 0;
	n -= k; /* the stem: name[0 .. n) */
	while (d < n && d < 18 && name[n - 1 - d] >= '0' &&
	       name[n - 1 - d] <= '9')
		d++;
	/* ".NNNNNN" after ".<32 hex digits>" */
	if (d < 6 || n < d + 34 || name[n - 1 - d] != '.' ||
	    name[n - d - 34] != '.' || !is_hex(name + n - d - 33, 32))
		return 0;
	for (size_t i = n - d; i < n; i++)
		v = v * 10 + (uint64_t)(name[i] - '0');
	*stem_len = n - d - 1;
	return v;
}

/* By log (the stem), then segment number, the open one (0) last. */
static int cmp_names(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx, ly;
	uint64_t sx = logdir_segment(x, &lx), sy = logdir_segment(y, &ly);
	int c = strncmp(x, y, lx < ly ? lx : ly);

	if (c || lx != ly)
		return c ? c : (lx < ly ? -1 : 1);
	if (sx != sy)
		return !sx ? 1 : !sy ? -1 : sx < sy ? -1 : 1;
	return strcmp(x, y);
}

/* Consecutive names of one stem, sorted: one log.  Only a numbered
 * segment has a successor in its log (the open one sorts last). */
static int group(struct logdir *ld)
{
	size_t cap = 0;

	for (size_t i = 0; i < ld->n; i++) {
		size_t stem, prev;

		logdir_segment(ld->names[i], &stem);
		if (i && logdir_segment(ld->names[i - 1], &prev) &&
		    stem == prev &&
		    !strncmp(ld->names[i], ld->names[i - 1], stem)) {
			ld->logs[ld->n_logs - 1].n++;
			continue;
		}
		if (GROW(ld->logs, cap, ld->n_logs + 1))
			return -ENOMEM;
		ld->logs[ld->n_logs++] = (struct logdir_log){ i, 1 };
	}
	return 0;
}

int logdir_scan(const char *dir, struct logdir *ld)
{
	struct stat st;
	size_t cap = 0;
	int rc;

	memset(ld, 0, sizeof(*ld));
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	rc = scan(dir, "", ld, &cap, 0);
	if (rc) {
		logdir_release(ld);
		return rc;
	}
	if (ld->n)
		qsort(ld->names, ld->n, sizeof(*ld->names), cmp_names);
	rc = group(ld);
	if (rc)
		logdir_release(ld);
	return rc;
}

void logdir_release(struct logdir *ld)
{
	for (size_t i = 0; i < ld->n; i++)
		free(ld->names[i]);
	free(ld->names);
	free(ld->logs);
	memset(ld, 0, sizeof(*ld));
}
