/*
 * export-otlp.c - OTLP/JSON (export.h).
 */
#include <errno.h>

#include "export.h"

int export_otlp(FILE *f, const struct export_ctx *x,
		const struct export_otlp_opts *o)
{
	(void)f;
	(void)x;
	(void)o;
	return -ENOSYS;
}

int export_otlp_send(const struct export_ctx *x,
		     const struct export_otlp_opts *o, const char *url)
{
	(void)x;
	(void)o;
	(void)url;
	return -ENOSYS;
}
