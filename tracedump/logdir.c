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

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int logdir_scan(const char *dir, struct logdir *ld)
{
	struct stat st;
	size_t cap = 0;
	int rc;

	ld->names = NULL;
	ld->n = 0;
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
	return 0;
}

void logdir_release(struct logdir *ld)
{
	for (size_t i = 0; i < ld->n; i++)
		free(ld->names[i]);
	free(ld->names);
	ld->names = NULL;
	ld->n = 0;
}
