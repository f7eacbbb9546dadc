/*
 * cmd-merge.c - `tracedump merge DIR [-o DB | --db STORE]`: options and
 * the summary.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ch-load.h"
#include "cmds.h"
#include "follow.h"
#include "merge.h"
#include "usage.h"

static const struct opt merge_opts[] = {
	{ "output", 'o', "DB",
	  "write the database to DB (default DIR/trace.db), which must be "
	  "a regular file or not exist" },
	{ "db", OPT_LONG, "STORE",
	  "the same as -o, or load DIR into a shared ClickHouse store: "
	  "clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE" },
	{ "raw", 'r', NULL,
	  "also store every record as it was logged (table records: twice "
	  "the size and time; tracedump dump reads the logs themselves)" },
	{ "follow", OPT_LONG + 1, NULL,
	  "keep loading each closed segment into the --db database as it "
	  "appears, once, until SIGINT or SIGTERM" },
	OPT_END
};

/* "ok 12, absent 3", or "none" when every row has NULL there. */
static void print_counts(const char *label, const struct merge_count *v,
			 size_t n)
{
	printf("%-17s", label);
	if (!n)
		printf("none");
	for (size_t i = 0; i < n; i++)
		printf("%s%s %" PRIu64, i ? ", " : "", v[i].value, v[i].n);
	putchar('\n');
}

/* The processes that did not end cleanly, one line each. */
static void print_ends(const struct db_ends *e)
{
	printf("ended uncleanly: %zu\n", e->n);
	for (size_t i = 0; i < e->n; i++) {
		fputs("  ", stdout);
		db_unclean_print(stdout, &e->v[i]);
		putchar('\n');
	}
}

static void print_summary(const struct merge_stats *sp)
{
	const struct merge_stats s = *sp;

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
	print_ends(&s.ends);
	if (s.rpc_calls) {
		print_counts("call tags:", s.tags, s.n_tags);
		print_counts("reply tags:", s.reply_tags, s.n_reply_tags);
	}
	if (s.keep_overflow)
		printf("keep overflow:   %" PRIu64
		       " records of unsampled chains pushed out of the keep "
		       "ring\n",
		       s.keep_overflow);
	if (s.write_failed)
		printf("failed writes:   %" PRIu64 " files (%" PRIu64
		       " disk full), %" PRIu64 " records lost\n",
		       s.write_failed, s.disk_full, s.lost);
	if (s.bad_records)
		printf("bad records:     %" PRIu64 "\n", s.bad_records);
	if (s.deleted_segments)
		printf("deleted by cap:  %" PRIu64 " segments, %" PRIu64
		       " records, %" PRIu64 " bytes\n",
		       s.deleted_segments, s.deleted_records, s.deleted_bytes);
	printf("merged in:       %.2f s, %.0f records/s\n", s.seconds,
	       s.seconds > 0 ? (double)s.records / s.seconds : 0.0);
}

/* DIR into a ClickHouse store, then the summaries of both steps. */
static int load_store(struct merge_opts *o, struct merge_stats *s)
{
	struct ch_load_stats ls;
	struct store_url u;
	char why[512];

	if (store_url_parse(o->output, &u, why, sizeof(why))) {
		fail("%s", why);
		return 1;
	}
	if (o->raw)
		return opt_bad(&cmd_merge,
			       "--raw is for an SQLite database; "
			       "a ClickHouse store has no records table");
	if (ch_load_run(o, &u, s, &ls))
		return 1;
	print_summary(s);
	printf("store:           %s\n", u.shown);
	if (ls.load_id)
		printf("load:            %" PRIu64 ", %" PRIu64
		       " processes, %" PRIu64 " rows in %.2f s, %.0f rows/s\n",
		       ls.load_id, ls.processes, ls.rows, ls.seconds,
		       ls.seconds > 0 ? (double)ls.rows / ls.seconds : 0.0);
	else
		printf("load:            none: the store holds these logs "
		       "already\n");
	if (ls.skipped)
		printf("already loaded:  %" PRIu64 " processes\n", ls.skipped);
	return 0;
}

/* --follow: until a stop signal, then what this run loaded. */
static int follow(const struct merge_opts *m)
{
	struct follow_opts o = { .dir = m->dir,
				 .db = m->output,
				 .rescan_ms = 2000 };
	struct follow_stats s;

	if (!o.db)
		return opt_bad(&cmd_merge, "--follow needs --db DB");
	if (m->raw)
		return opt_bad(&cmd_merge, "--raw does not go with --follow");
	if (follow_run(&o, &s))
		return 1;
	printf("segments loaded: %" PRIu64 " (%" PRIu64 " damaged), %" PRIu64
	       " records\n"
	       "already loaded:  %" PRIu64 " segments\n",
	       s.segments, s.corrupt, s.records, s.known);
	if (s.retries)
		printf("retried loads:   %" PRIu64 "\n", s.retries);
	return 0;
}

static int run_merge(int argc, char **argv)
{
	struct merge_opts o = { .ends = true };
	struct merge_stats s = { 0 };
	struct opt_parser p;
	bool follow_on = false;
	const char *v;
	int c;

	opt_init(&p, &cmd_merge, argc, argv);
	while ((c = opt_next(&p, &v)) > 0)
		if (c == 'o' || c == OPT_LONG)
			o.output = v;
		else if (c == 'r')
			o.raw = true;
		else if (c == OPT_LONG + 1)
			follow_on = true;
	if (c == OPT_STOP)
		return p.status;
	if (p.nargs != 1)
		return opt_bad(&cmd_merge,
			       p.nargs ? "too many arguments"
				       : "a log directory is needed");
	o.dir = p.args[0];
	if (follow_on)
		return follow(&o);
	/* A \r line only makes sense to a person watching. */
	o.progress = isatty(STDERR_FILENO);
	if (o.output && store_is_url(o.output))
		c = load_store(&o, &s);
	else if (!(c = merge_run(&o, &s) ? 1 : 0))
		print_summary(&s);
	merge_stats_release(&s);
	return c;
}

const struct command cmd_merge = {
	"merge",
	run_merge,
	"DIR [-o DB | --db STORE] [--raw] | --follow DIR --db DB",
	"load every log under DIR into one SQLite database, or into a "
	"ClickHouse store",
	merge_opts,
};
