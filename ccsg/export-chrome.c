/*
 * export-chrome.c - the Trace Event Format (export.h).
 */
#include <errno.h>

#include "export.h"

int export_chrome(FILE *f, const struct export_ctx *x)
{
	(void)f;
	(void)x;
	return -ENOSYS;
}
