/*
 * tmp-cleanup.c - temporary files removed at exit and on a fatal signal
 * (tmp-cleanup.h).  The handler only calls unlink() and rmdir(), which
 * are async-signal-safe, then ends the process by the signal again.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "tmp-cleanup.h"

#define MAX_PAIRS 4

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
