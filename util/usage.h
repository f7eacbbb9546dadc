/*
 * usage.h - diagnostics for the command-line tools (never for libcausal.so).
 *
 * Messages are lowercase, quote their subject and have no trailing period:
 *	return fail("cannot open '%s': %s", path, strerror(errno));
 * fail() (git's error(), named so as not to be glibc's error(3)) returns -1
 * so that engine code can return it.  Only main.c and cmd-*.c files may
 * call die(), which exits.
 */
#ifndef CAUSAL_USAGE_H
#define CAUSAL_USAGE_H

#define CAUSAL_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Name printed before every message; set once by main(). */
extern const char *causal_progname;

/*
 * "PROG: error: MESSAGE" on stderr; returns -1.  The name is in
 * parentheses so that this header can follow <check.h>, whose deprecated
 * fail() is a function-like macro.
 */
int(fail)(const char *fmt, ...) CAUSAL_PRINTF(1, 2);
/* "PROG: warning: MESSAGE" on stderr. */
void warning(const char *fmt, ...) CAUSAL_PRINTF(1, 2);
/* "PROG: fatal: MESSAGE" on stderr, then exit(1). */
__attribute__((noreturn)) void die(const char *fmt, ...) CAUSAL_PRINTF(1, 2);

#endif
