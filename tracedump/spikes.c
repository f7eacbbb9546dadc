/*
 * spikes.c - the spike_* tables from the SPIKE_* records (spikes.h).
 *
 * The merge hands each SPIKE_* record to spikes_put() as it stores the
 * process's other records (merge_stores()): they are few (a window's
 * samples, the maps, one row per sampled address).
 */
#include <string.h>

#include <sqlite3.h>

#include "causal/log-format.h"
#include "log-record.h"
#include "schema.h"
#include "spikes.h"
#include "usage.h"

int spikes_put(struct spikes *s, int64_t proc_id, int64_t seq,
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
	case CAUSAL_REC_SPIKE_SAMPLER: {
		const struct record_spike_sampler *m = &r->spike_sampler;
		const char *source = record_sampler_source_name(m->source);

		st = s->ins[4];
		schema_bind_int(st, DB_SPIKE_SAMPLERS_PROC_ID, proc_id);
		schema_bind_int(st, DB_SPIKE_SAMPLERS_SEQ, seq);
		schema_bind_u64(st, DB_SPIKE_SAMPLERS_MONO_NS, r->mono_ns);
		schema_bind_text(st, DB_SPIKE_SAMPLERS_SOURCE,
				 source ? source : "?", -1);
		schema_bind_u64(st, DB_SPIKE_SAMPLERS_SIGNAL, m->signo);
		schema_bind_u64(st, DB_SPIKE_SAMPLERS_RATE_HZ, m->rate_hz);
		schema_bind_u64(st, DB_SPIKE_SAMPLERS_SAMPLES, m->samples);
		schema_bind_u64(st, DB_SPIKE_SAMPLERS_CPU_NS, m->cpu_ns);
		schema_bind_u64(st, DB_SPIKE_SAMPLERS_FALLBACK, m->fallback);
		schema_bind_u64(st, DB_SPIKE_SAMPLERS_LOST, m->lost);
		schema_bind_text(st, DB_SPIKE_SAMPLERS_NOTE,
				 m->note.ptr ? m->note.ptr : "",
				 (int)m->note.len);
		break;
	}
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

int spikes_open(struct spikes *s, sqlite3 *db)
{
	static const enum db_table tables[SPIKES_TABLES] = {
		DB_SPIKE_BREACHES, DB_SPIKE_SAMPLES, DB_SPIKE_MAPS,
		DB_SPIKE_PROFILE, DB_SPIKE_SAMPLERS
	};

	memset(s, 0, sizeof(*s));
	s->db = db;
	for (int i = 0; i < SPIKES_TABLES; i++)
		if (schema_prepare_insert(db, tables[i],
					  i == 2 || i == 3 ? "INSERT OR IGNORE"
							   : "INSERT",
					  1, &s->ins[i])) {
			spikes_close(s);
			return -1;
		}
	return 0;
}

void spikes_close(struct spikes *s)
{
	for (int i = 0; i < SPIKES_TABLES; i++) {
		sqlite3_finalize(s->ins[i]);
		s->ins[i] = NULL;
	}
}
