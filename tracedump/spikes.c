/*
 * spikes.c - the spike_* tables from the SPIKE_* records (spikes.h).
 *
 * A pass after the merge over what it stored in `records`, so that the
 * merge's own loop needs no case for them: the records are few (a
 * window's samples, the maps, one row per sampled address), and the
 * scan by type is one read of the table.
 */
#include <string.h>

#include <msgpack.h>
#include <sqlite3.h>

#include "causal/log-format.h"
#include "log-record.h"
#include "schema.h"
#include "spikes.h"
#include "usage.h"

struct spikes {
	sqlite3 *db;
	sqlite3_stmt *ins[4]; /* breaches, samples, maps, profile */
	uint64_t rows;
};

static int put(struct spikes *s, int64_t proc_id, int64_t seq,
	       const struct record *r)
{
	sqlite3_stmt *st;

	switch (r->type) {
	case CAUSAL_REC_SPIKE_BREACH: {
		const struct record_spike_breach *b = &r->spike_breach;

		st = s->ins[0];
		schema_bind_int(st, DB_SPIKE_BREACHES_PROC_ID, proc_id);
		schema_bind_int(st, DB_SPIKE_BREACHES_SEQ, seq);
		schema_bind_u64(st, DB_SPIKE_BREACHES_MONO_NS, r->mono_ns);
		schema_bind_text(st, DB_SPIKE_BREACHES_RESOURCE,
				 b->resource.ptr ? b->resource.ptr : "",
				 (int)b->resource.len);
		schema_bind_text(st, DB_SPIKE_BREACHES_RULE,
				 b->rule.ptr ? b->rule.ptr : "",
				 (int)b->rule.len);
		schema_bind_u64(st, DB_SPIKE_BREACHES_VALUE, b->value);
		schema_bind_u64(st, DB_SPIKE_BREACHES_THRESHOLD, b->threshold);
		schema_bind_u64(st, DB_SPIKE_BREACHES_WINDOW_MS, b->window_ms);
		schema_bind_u64(st, DB_SPIKE_BREACHES_MARK, b->mark);
		schema_bind_u64(st, DB_SPIKE_BREACHES_N, b->n);
		schema_bind_u64(st, DB_SPIKE_BREACHES_LOST, b->lost);
		break;
	}
	case CAUSAL_REC_SPIKE_SAMPLE: {
		const struct record_spike_sample *m = &r->spike_sample;

		st = s->ins[1];
		schema_bind_int(st, DB_SPIKE_SAMPLES_PROC_ID, proc_id);
		schema_bind_u64(st, DB_SPIKE_SAMPLES_IDX, m->idx);
		schema_bind_u64(st, DB_SPIKE_SAMPLES_MONO_NS, r->mono_ns);
		schema_bind_u64(st, DB_SPIKE_SAMPLES_TID, m->thread);
		schema_bind_text(st, DB_SPIKE_SAMPLES_KIND,
				 m->kind ? "offcpu" : "cpu", -1);
		schema_bind_u64(st, DB_SPIKE_SAMPLES_IP, m->ip);
		if (m->stack.ptr && m->stack.len >= 8)
			schema_bind_blob(st, DB_SPIKE_SAMPLES_STACK,
					 m->stack.ptr,
					 (int)(m->stack.len & ~(size_t)7));
		if (m->ctx.set) {
			schema_bind_chain(st, DB_SPIKE_SAMPLES_CTX_CHAIN,
					  m->ctx.chain);
			schema_bind_u64(st, DB_SPIKE_SAMPLES_CTX_EVENT,
					m->ctx.event);
			schema_bind_u64(st, DB_SPIKE_SAMPLES_CTX_FUNCTION,
					m->ctx.function);
		}
		break;
	}
	case CAUSAL_REC_SPIKE_MAP: {
		const struct record_spike_map *m = &r->spike_map;

		st = s->ins[2];
		schema_bind_int(st, DB_SPIKE_MAPS_PROC_ID, proc_id);
		schema_bind_u64(st, DB_SPIKE_MAPS_START_ADDR, m->start);
		schema_bind_u64(st, DB_SPIKE_MAPS_END_ADDR, m->end);
		schema_bind_u64(st, DB_SPIKE_MAPS_FILE_OFFSET, m->offset);
		schema_bind_text(st, DB_SPIKE_MAPS_PATH,
				 m->path.ptr ? m->path.ptr : "",
				 (int)m->path.len);
		break;
	}
	case CAUSAL_REC_SPIKE_PROFILE:
		st = s->ins[3];
		schema_bind_int(st, DB_SPIKE_PROFILE_PROC_ID, proc_id);
		schema_bind_u64(st, DB_SPIKE_PROFILE_IP, r->spike_profile.ip);
		schema_bind_u64(st, DB_SPIKE_PROFILE_SAMPLES,
				r->spike_profile.samples);
		break;
	default:
		return 0;
	}
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return fail("database: insert spike record: %s",
			    sqlite3_errmsg(s->db));
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	s->rows++;
	return 0;
}

int spikes_store(sqlite3 *db, uint64_t *rows)
{
	static const enum db_table tables[4] = { DB_SPIKE_BREACHES,
						 DB_SPIKE_SAMPLES,
						 DB_SPIKE_MAPS,
						 DB_SPIKE_PROFILE };
	struct spikes s = { .db = db };
	sqlite3_stmt *q = NULL;
	msgpack_zone zone;
	int rc = 0, i;

	*rows = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT proc_id, seq, data FROM records"
			       " WHERE type BETWEEN ?1 AND ?2",
			       -1, &q, NULL) != SQLITE_OK)
		return fail("database: %s", sqlite3_errmsg(db));
	sqlite3_bind_int(q, 1, CAUSAL_REC_SPIKE_SAMPLE);
	sqlite3_bind_int(q, 2, CAUSAL_REC_SPIKE_PROFILE);
	for (i = 0; i < 4; i++)
		if (schema_prepare_insert(db, tables[i],
					  i >= 2 ? "INSERT OR IGNORE"
						 : "INSERT",
					  1, &s.ins[i])) {
			rc = -1;
			goto out;
		}
	if (!msgpack_zone_init(&zone, 4096)) {
		rc = fail("out of memory");
		goto out;
	}
	while (!rc && (i = sqlite3_step(q)) == SQLITE_ROW) {
		const char *data = sqlite3_column_blob(q, 2);
		size_t len = (size_t)sqlite3_column_bytes(q, 2), off = 0;
		msgpack_object obj;
		struct record r;

		msgpack_zone_clear(&zone);
		/* the merge decoded it once: a record that fails is skipped */
		if (!data || msgpack_unpack(data, len, &off, &zone, &obj) < 0 ||
		    record_decode(&obj, &r) < 0)
			continue;
		rc = put(&s, sqlite3_column_int64(q, 0),
			 sqlite3_column_int64(q, 1), &r);
	}
	if (!rc && i != SQLITE_DONE)
		rc = fail("database: %s", sqlite3_errmsg(db));
	msgpack_zone_destroy(&zone);
out:
	for (i = 0; i < 4; i++)
		sqlite3_finalize(s.ins[i]);
	sqlite3_finalize(q);
	*rows = s.rows;
	return rc;
}
