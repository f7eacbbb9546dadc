/*
 * cmd-merge.c - `tracedump merge DIR [-o DB]`: options and the summary.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "merge.h"
#include "usage.h"

static const char merge_usage[] = "usage: tracedump merge DIR [-o DB]\n";

int cmd_merge(int argc, char **argv)
{
	struct merge_opts o = { 0 };
	struct merge_stats s;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
			o.output = argv[++i];
		} else if (!strncmp(a, "--output=", 9)) {
			o.output = a + 9;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(merge_usage, stdout);
			return 0;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "tracedump: unknown option '%s'\n%s", a, merge_usage);
			return 2;
		} else if (!o.dir) {
			o.dir = a;
		} else {
			fputs(merge_usage, stderr);
			return 2;
		}
	}
	if (!o.dir) {
		fputs(merge_usage, stderr);
		return 2;
	}
	/* A \r line only makes sense to a person watching. */
	o.progress = isatty(STDERR_FILENO);
	if (merge_run(&o, &s))
		return 1;
	printf("hosts:           %" PRIu64 "\n"
	       "processes:       %" PRIu64 "\n"
	       "threads:         %" PRIu64 "\n"
	       "records:         %" PRIu64 "\n"
	       "dropped records: %" PRIu64 "\n"
	       "truncated files: %" PRIu64 "\n"
	       "corrupt files:   %" PRIu64 "\n"
	       "rpc calls:       %" PRIu64 "\n"
	       "missing a side:  %" PRIu64 " (server %" PRIu64 ", client %" PRIu64 ")\n",
	       s.hosts, s.processes, s.threads, s.records, s.dropped,
	       s.truncated, s.corrupt, s.rpc_calls,
	       s.rpc_no_server + s.rpc_no_client, s.rpc_no_server, s.rpc_no_client);
	if (s.write_failed)
		printf("failed writes:   %" PRIu64 " files (%" PRIu64
		       " disk full), %" PRIu64 " records lost\n",
		       s.write_failed, s.disk_full, s.lost);
	if (s.bad_records)
		printf("bad records:     %" PRIu64 "\n", s.bad_records);
	return 0;
}
