/*
 * cmd-dump.c - `tracedump dump FILE|DIR [--format=text|json]`.
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "dump.h"
#include "usage.h"

static const char dump_usage[] =
	"usage: tracedump dump FILE|DIR [--format=text|json]\n";

int cmd_dump(int argc, char **argv)
{
	enum dump_format fmt = DUMP_TEXT;
	struct dump_stats stats;
	const char *path = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--format=text")) {
			fmt = DUMP_TEXT;
		} else if (!strcmp(a, "--format=json")) {
			fmt = DUMP_JSON;
		} else if (!strcmp(a, "--format") && i + 1 < argc &&
			   (!strcmp(argv[i + 1], "text") || !strcmp(argv[i + 1], "json"))) {
			fmt = !strcmp(argv[++i], "json") ? DUMP_JSON : DUMP_TEXT;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(dump_usage, stdout);
			return 0;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "tracedump: unknown option '%s'\n%s", a, dump_usage);
			return 2;
		} else if (!path) {
			path = a;
		} else {
			fputs(dump_usage, stderr);
			return 2;
		}
	}
	if (!path) {
		fputs(dump_usage, stderr);
		return 2;
	}
	return dump_path(stdout, path, fmt, &stats) ? 1 : 0;
}
