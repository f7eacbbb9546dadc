/*
 * spikes.h - sporadic bottlenecks in the merged database: the SPIKE_*
 * records (records.def) into the spike_* tables (db-schema.def).
 */
#ifndef CAUSAL_TRACEDUMP_SPIKES_H
#define CAUSAL_TRACEDUMP_SPIKES_H

#include <stdint.h>

#include <sqlite3.h>

/*
 * Read the SPIKE_* records back from the records table (where the merge
 * stored every record) and fill the spike_* tables; *rows the rows
 * written.  0, or -1 after fail().  A log without them costs one scan.
 */
int spikes_store(sqlite3 *db, uint64_t *rows);

#endif
