/*
 * cmd-schema.c - `tracedump schema`: the statements that make a trace
 * store, to read or to run by hand: SQLite's (what merge runs), a
 * ClickHouse server's (what a load runs), or a ClickHouse cluster's,
 * which no load makes (docs/clickhouse.md, "A cluster").
 */
#include <stdio.h>
#include <string.h>

#include "causal/db-schema.h"
#include "cmds.h"
#include "db-clickhouse.h"
#include "store-url.h"
#include "usage.h"

enum { OPT_CLICKHOUSE = OPT_LONG, OPT_CLUSTER };

static const struct opt schema_opts[] = {
	{ "clickhouse", OPT_CLICKHOUSE, NULL,
	  "the tables of a ClickHouse store on one server" },
	{ "cluster", OPT_CLUSTER, "NAME",
	  "the tables of a store on the ClickHouse cluster NAME, in "
	  "DATABASE (Distributed) and DATABASE_shard (each shard's)" },
	OPT_END
};

/* A name written into SQL, as a store URL's (and short). */
static int sql_name(const char *s)
{
	return store_sql_name(s) && strlen(s) <= 64;
}

static int run_schema(int argc, char **argv)
{
	const char *cluster = NULL;
	int clickhouse = 0, ret;
	struct opt_parser p;
	const char *v;
	int c;

	opt_init(&p, &cmd_schema, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		if (c == OPT_CLICKHOUSE)
			clickhouse = 1;
		else if (c == OPT_CLUSTER)
			cluster = v;
	}
	if (c == OPT_STOP)
		return p.status;
	if (cluster && !sql_name(cluster))
		return opt_bad(&cmd_schema,
			       "a cluster name is letters, digits and '_', "
			       "not '%s'",
			       cluster);
	if (cluster && p.nargs != 1)
		return opt_bad(&cmd_schema,
			       p.nargs ? "too many arguments"
				       : "--cluster needs the DATABASE");
	if (!cluster && p.nargs)
		return opt_bad(&cmd_schema, "DATABASE goes with --cluster");
	if (cluster && !sql_name(p.args[0]))
		return opt_bad(&cmd_schema,
			       "a database name is letters, digits and '_', "
			       "not '%s'",
			       p.args[0]);
	if (cluster)
		ret = db_ch_cluster_schema_write(stdout, cluster, p.args[0]);
	else if (clickhouse)
		ret = db_ch_schema_write(stdout);
	else
		ret = db_schema_write(stdout, DB_SQL_ALL);
	if (ret || fflush(stdout)) {
		fail("cannot write the schema");
		return 1;
	}
	return 0;
}

const struct command cmd_schema = {
	"schema",
	run_schema,
	"[--clickhouse | --cluster NAME DATABASE]",
	"print the statements that make a trace database: SQLite's, a "
	"ClickHouse server's, or a ClickHouse cluster's",
	schema_opts,
};
