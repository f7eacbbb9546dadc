/*
 * spikes.h - sporadic bottlenecks in the merged database: the SPIKE_*
 * records (records.def) into the spike_* tables (db-schema.def).
 */
#ifndef CAUSAL_TRACEDUMP_SPIKES_H
#define CAUSAL_TRACEDUMP_SPIKES_H

#include <stdint.h>

#include <sqlite3.h>

struct record;

#define SPIKES_TABLES 5

/* The spike_* tables' insert statements, and the rows written. */
struct spikes {
	sqlite3 *db;
	/* breaches, samples, maps, profile, samplers */
	sqlite3_stmt *ins[SPIKES_TABLES];
	uint64_t rows;
};

/* Prepare the inserts into db's spike_* tables: 0, or -1 after fail(). */
int spikes_open(struct spikes *s, sqlite3 *db);
/* A SPIKE_* record r, number seq of process proc_id, into its table
 * (other types: nothing).  0, or -1 after fail(). */
int spikes_put(struct spikes *s, int64_t proc_id, int64_t seq,
	       const struct record *r);
void spikes_close(struct spikes *s);

#endif
