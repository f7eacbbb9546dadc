/*
 * tmp-cleanup.c - temporary files removed at exit and on a fatal signal
 * (tmp-cleanup.h).  The handler only calls unlink() and rmdir(), which
 * are async-signal-safe, then ends the process by the signal again.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmp-cleanup.h"
#include "usage.h"

#define MAX_PAIRS 24 /* a store read by 16 workers, and more */

static struct pair {
	const char *volatile file, *volatile dir;
} pairs[MAX_PAIRS];
static bool installed;

static void remove_all(void)
{
	for (int i = MAX_PAIRS - 1; i >= 0; i--) {
		if (pairs[i].file)
			unlink(pairs[i].file);
		if (pairs[i].dir)
			rmdir(pairs[i].dir);
		pairs[i].file = pairs[i].dir = NULL;
	}
}

static void on_signal(int sig)
{
	remove_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	atexit(remove_all);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
		struct sigaction old, sa = { .sa_handler = on_signal };

		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_DFL) {
			sigemptyset(&sa.sa_mask);
			sigaction(sigs[i], &sa, NULL);
		}
	}
	installed = true;
}

int tmp_cleanup_add(const char *file, const char *dir)
{
	if (!installed)
		install();
	/* after the last pair in use: removal goes from the end */
	for (int i = MAX_PAIRS - 1; i >= 0; i--)
		if (pairs[i].file || pairs[i].dir) {
			if (i == MAX_PAIRS - 1)
				return -1;
			pairs[i + 1].dir = dir;
			pairs[i + 1].file = file;
			return 0;
		}
	pairs[0].dir = dir;
	pairs[0].file = file;
	return 0;
}

void tmp_cleanup_forget(const char *file, const char *dir)
{
	for (int i = 0; i < MAX_PAIRS; i++)
		if (pairs[i].file == file && pairs[i].dir == dir)
			pairs[i].file = pairs[i].dir = NULL;
}

int tmp_file_make(struct tmp_file *f, const char *stem, const char *name)
{
	const char *tmpdir = getenv("TMPDIR");

	f->path[0] = '\0';
	if (snprintf(f->dir, sizeof(f->dir), "%s/%s.XXXXXX",
		     tmpdir && *tmpdir ? tmpdir : "/tmp",
		     stem) >= (int)sizeof(f->dir))
		return fail("$TMPDIR is too long: '%s'", tmpdir);
	if (!mkdtemp(f->dir))
		return fail("cannot make a temporary directory '%s': %s",
			    f->dir, strerror(errno));
	snprintf(f->path, sizeof(f->path), "%s/%s", f->dir, name);
	if (tmp_cleanup_add(f->path, f->dir)) {
		rmdir(f->dir);
		f->path[0] = '\0';
		return fail("too many temporary files");
	}
	return 0;
}

void tmp_file_remove(struct tmp_file *f)
{
	if (!f->path[0])
		return;
	tmp_cleanup_forget(f->path, f->dir);
	unlink(f->path);
	rmdir(f->dir);
	f->path[0] = '\0';
}
