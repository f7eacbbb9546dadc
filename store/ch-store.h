/*
 * ch-store.h - a ClickHouse database as a causal store: made or checked
 * before it is written or read (db-clickhouse.h gives its tables).
 */
#ifndef CAUSAL_CH_STORE_H
#define CAUSAL_CH_STORE_H

#include <stdbool.h>

#include "clickhouse.h"

/* The loads a reader takes: those that finished. */
#define CH_FINISHED_LOADS "SELECT load_id FROM loads WHERE state = 'finished'"
/* A row of a finished load.  GLOBAL: over a cluster's Distributed tables
 * the subquery runs once, on the server asked, not again on each shard
 * (which ClickHouse refuses); on one server it is a plain IN. */
#define CH_OF_FINISHED_LOADS "load_id GLOBAL IN (" CH_FINISHED_LOADS ")"

/*
 * Check that c's database is a causal store of this schema version:
 * every table with the columns db-clickhouse.h gives, and no finished
 * load of another schema version.  create: make the database and the
 * tables it lacks first (a loader), else a missing one is an error (a
 * reader).  Returns 0, or -1 with ch_error() saying why in one line.
 */
int ch_store_check(struct ch_client *c, bool create);

#endif
