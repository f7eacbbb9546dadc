/*
 * state.c - the library's global state and its one diagnostic voice.
 *
 * Defined here, set by start-up (lifecycle.c) and read everywhere: what
 * the probes read (probe.h: causal_run, causal_self, causal_cpu_clock)
 * and the rest of the library's (internal.h: causal_g).  causal_say() is
 * how the library speaks to the user: one line on the program's stderr.
 */
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "own-files.h"

struct causal_run causal_run;
struct causal_global causal_g;
CAUSAL_TLS struct causal_thread causal_self;
struct causal_cpu_clock causal_cpu_clock;

void causal_say(const char *first, ...)
{
	char line[1024];
	size_t len = 0;
	const char *part;
	ssize_t written;
	va_list ap;
	int fd, copy;

	va_start(ap, first);
	for (part = first; part; part = va_arg(ap, const char *)) {
		size_t n = strlen(part);

		if (n > sizeof(line) - len - 1)
			n = sizeof(line) - len - 1;
		memcpy(line + len, part, n);
		len += n;
	}
	va_end(ap);
	if (!len || line[len - 1] != '\n')
		line[len++] = '\n';
	/* the writer's threads have no stderr of their own: the program's */
	fd = causal_program_fd(STDERR_FILENO, &copy);
	/* nothing to do if stderr is closed: the program comes first */
	written = fd >= 0 ? write(fd, line, len) : -1;
	(void)written;
	if (copy && fd >= 0)
		close(fd);
}
