/*
 * tool-run.h - run a built tool (tracedump, ccsg) or a system command in
 * the test's directory (e2e.h), with a deadline, and keep what it printed.
 *
 * A hang is a failure, not a stuck suite: the command is killed when the
 * deadline passes and the test fails naming it.
 */
#ifndef CAUSAL_TEST_TOOL_RUN_H
#define CAUSAL_TEST_TOOL_RUN_H

#include "e2e.h"

/* Generous for a loaded 2-CPU machine and a sanitized build. */
#define TOOL_DEADLINE_S 60

struct tool_out {
	int status;	/* wait status */
	char *out;	/* stdout, NUL-terminated */
	char *err;	/* stderr */
};

/* Free what r holds. */
void tool_out_release(struct tool_out *r);

/*
 * Run argv (argv[0] a path) with env_add (NULL-terminated, or NULL),
 * waiting at most deadline_s seconds.
 */
struct tool_out tool_run_env(const char *const argv[],
			     const char *const env_add[], int deadline_s);
/* tool_run_env() with no env_add and TOOL_DEADLINE_S. */
struct tool_out tool_run(const char *const argv[]);

/* $CAUSAL_BUILD/name, which must be built (four rotating buffers). */
const char *tool_path(const char *name);

/* Lines of s, in place: each '\n' becomes '\0'; returns the count. */
size_t tool_lines(char *s, char **lines, size_t max);

#endif
