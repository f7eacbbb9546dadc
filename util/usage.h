/*
 * usage.h - diagnostics for the command-line tools (never for libcausal.so).
 *
 * Messages are lowercase, quote their subject and have no trailing period:
 *	return fail("cannot open '%s': %s", path, strerror(errno));
 * fail() and warning() print "PROG: error: ..." / "PROG: warning: ..." on
 * stderr; fail() returns -1 so engine code can return it.  Only main.c and
 * cmd-*.c files may call die(), which prints and exits with status 1.
 */
#ifndef CAUSAL_USAGE_H
#define CAUSAL_USAGE_H

#define CAUSAL_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Name printed before every message; set once by main(). */
extern const char *causal_progname;

int fail(const char *fmt, ...) CAUSAL_PRINTF(1, 2);
void warning(const char *fmt, ...) CAUSAL_PRINTF(1, 2);
__attribute__((noreturn)) void die(const char *fmt, ...) CAUSAL_PRINTF(1, 2);

#endif
