#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "usage.h"

const char *causal_progname = "causal";

static void CAUSAL_PRINTF(2, 0)
    report(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s: ", causal_progname, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("error", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("warning", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("fatal", fmt, ap);
	va_end(ap);
	exit(1);
}
