/*
 * spikes.c - the engine of `ccsg spikes` (spikes.h): breaches, windows,
 * chains and profiles from the spike_* tables of a merged trace, with
 * addresses symbolised offline by libdwfl from the recorded maps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <elfutils/libdwfl.h>
#include <sqlite3.h>

#include "db-procs.h"
#include "db-read.h"
#include "hashmap.h"
#include "hex.h"
#include "json.h"
#include "spikes.h"
#include "store.h"
#include "usage.h"

struct proc {
	int64_t pid;
	uint64_t start_real, start_mono;
	char *exe, *host;
	Dwfl *dwfl; /* NULL until first needed */
	int dwfl_failed;
};

struct priv {
	sqlite3 *db;
	struct proc *procs; /* by proc_id; [0] unused */
	size_t nprocs;
	struct hashmap syms; /* (proc_id, address) -> names[] */
	char **names;	     /* interned */
	size_t nnames, capnames;
	struct hashmap byname; /* hash of a name -> names[] (first) */
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* One copy of each name, so that lists compare names by pointer. */
static const char *intern(struct priv *p, const char *s)
{
	uint64_t h = str_hash(s);
	int32_t i = hashmap_get(&p->byname, h);

	if (i >= 0 && !strcmp(p->names[i], s))
		return p->names[i];
	if (i >= 0) /* a collision: linear, rare */
		for (size_t k = 0; k < p->nnames; k++)
			if (!strcmp(p->names[k], s))
				return p->names[k];
	if (p->nnames == p->capnames) {
		size_t cap = p->capnames ? 2 * p->capnames : 256;
		char **v = realloc(p->names, cap * sizeof(*v));

		if (!v)
			return NULL;
		p->names = v;
		p->capnames = cap;
	}
	if (!(p->names[p->nnames] = strdup(s)))
		return NULL;
	if (i < 0 && hashmap_put(&p->byname, h, (int32_t)p->nnames) < 0)
		return NULL;
	return p->names[p->nnames++];
}

/* The process's maps as /proc/PID/maps text, reported to a new Dwfl. */
static Dwfl *symboliser(struct priv *p, int64_t proc_id)
{
	static const int cols[] = { DB_SPIKE_MAPS_START_ADDR,
				    DB_SPIKE_MAPS_END_ADDR,
				    DB_SPIKE_MAPS_FILE_OFFSET,
				    DB_SPIKE_MAPS_PATH };
	struct proc *pr = &p->procs[proc_id];
	struct db_read r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	Dwfl *d = NULL;

	if (pr->dwfl || pr->dwfl_failed)
		return pr->dwfl;
	pr->dwfl_failed = 1;
	if (!(f = open_memstream(&text, &len)))
		return NULL;
	if (db_read_open(&r, p->db, NULL, DB_SPIKE_MAPS, cols, 4,
			 "WHERE %s = ? ORDER BY %s",
			 DB_NAME(SPIKE_MAPS, PROC_ID),
			 DB_NAME(SPIKE_MAPS, START_ADDR))) {
		fclose(f);
		free(text);
		return NULL;
	}
	db_read_bind(&r, 1, proc_id);
	/* libdwfl tells files apart by device and inode: one per path */
	while (db_read_next(&r)) {
		const char *path = db_get_text(&r, DB_SPIKE_MAPS_PATH);

		fprintf(f,
			"%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64
			" 00:01 %" PRIu64 " %s\n",
			(uint64_t)db_get_int(&r, DB_SPIKE_MAPS_START_ADDR),
			(uint64_t)db_get_int(&r, DB_SPIKE_MAPS_END_ADDR),
			(uint64_t)db_get_int(&r, DB_SPIKE_MAPS_FILE_OFFSET),
			str_hash(path ? path : "") >> 34, path ? path : "");
	}
	db_read_close(&r);
	fclose(f);
	f = fmemopen(text, len ? len : 1, "r");
	if (f && len && (d = dwfl_begin(&callbacks))) {
		dwfl_report_begin(d);
		if (dwfl_linux_proc_maps_report(d, f) != 0) {
			dwfl_end(d);
			d = NULL;
		} else {
			dwfl_report_end(d, NULL, NULL);
		}
	}
	if (f)
		fclose(f);
	free(text);
	pr->dwfl = d;
	pr->dwfl_failed = !d;
	return d;
}

/*
 * The function at addr in process proc_id: its symbol, "[module]" when
 * the module has none there, "[unknown]" outside every recorded map.  A
 * return address is looked up one byte back, in the call.
 */
static const char *symbol(struct priv *p, int64_t proc_id, uint64_t addr,
			  int is_return)
{
	uint64_t a = is_return && addr ? addr - 1 : addr;
	uint64_t key = (uint64_t)proc_id << 48 ^ a;
	int32_t i = hashmap_get(&p->syms, key);
	const char *name = NULL, *s;
	char buf[512];
	Dwfl *d;
	Dwfl_Module *m;

	if (i >= 0)
		return p->names[i];
	d = proc_id > 0 && (size_t)proc_id < p->nprocs ? symboliser(p, proc_id)
						       : NULL;
	m = d ? dwfl_addrmodule(d, a) : NULL;
	if (m && (s = dwfl_module_addrname(m, a))) {
		name = s;
	} else if (m) {
		const char *mod = dwfl_module_info(m, NULL, NULL, NULL, NULL,
						   NULL, NULL, NULL);
		const char *base = mod ? strrchr(mod, '/') : NULL;

		snprintf(buf, sizeof(buf), "[%s]",
			 base  ? base + 1
			 : mod ? mod
			       : "?");
		name = buf;
	} else {
		name = "[unknown]";
	}
	name = intern(p, name);
	if (!name)
		return NULL;
	for (i = 0; (size_t)i < p->nnames && p->names[i] != name; i++)
		;
	hashmap_put(&p->syms, key, i);
	return name;
}

/* ---- counted lists ------------------------------------------------------- */

static int add(struct spikes_list *l, const char *name, uint64_t n,
	       const void *ref)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].name == name) {
			l->v[i].samples += n;
			return 0;
		}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct spikes_count *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct spikes_count){ name, n, ref };
	return 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct spikes_count *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void sort(struct spikes_list *l, size_t keep)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), by_samples);
	if (l->n > keep)
		l->n = keep;
}

/* ---- loading ----------------------------------------------------------- */

/* The processes with a hosts row (processes JOIN hosts), by proc_id. */
static int load_procs(struct priv *p, const struct db_procs *procs)
{
	for (size_t i = 0; i < procs->n; i++) {
		const struct db_proc *dp = &procs->v[i];
		int64_t id = dp->proc_id;
		struct proc *pr;

		if (!dp->has_host || id <= 0 || id > 1 << 20)
			continue;
		if ((size_t)id >= p->nprocs) {
			struct proc *v = realloc(p->procs,
						 (size_t)(id + 1) * sizeof(*v));

			if (!v)
				return -1;
			memset(v + p->nprocs, 0,
			       ((size_t)id + 1 - p->nprocs) * sizeof(*v));
			p->procs = v;
			p->nprocs = (size_t)id + 1;
		}
		pr = &p->procs[id];
		pr->pid = dp->pid;
		pr->exe = dp->exe ? strdup(dp->exe) : NULL;
		pr->host = dp->host ? strdup(dp->host) : NULL;
		pr->start_real = (uint64_t)dp->start_realtime_ns;
		pr->start_mono = (uint64_t)dp->start_mono_ns;
	}
	return 0;
}

/* The index of the chain with this id in r->chains, or -1. */
static int32_t find_chain(const struct spikes_report *r, const uint8_t *id)
{
	for (size_t i = 0; i < r->nchains; i++)
		if (!memcmp(r->chains[i]->id, id, 20))
			return (int32_t)i;
	return -1;
}

/* The chain's entry; its root call is found later (resolve_chains()). */
static struct spikes_chain *chain_of(struct spikes_report *r,
				     const uint8_t *chain)
{
	struct spikes_chain *c, **v;
	int32_t i = find_chain(r, chain);

	if (i >= 0)
		return r->chains[i];
	v = realloc(r->chains, (r->nchains + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->chains = v;
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	r->chains[r->nchains++] = c;
	memcpy(c->id, chain, 20);
	hex_encode(c->hex, chain, 20);
	return c;
}

static uint64_t chain_hash(const uint8_t *id)
{
	uint64_t h;

	memcpy(&h, id, sizeof(h)); /* chain ids are random enough */
	return h;
}

/* The root call's function: 'compute_1' is the procedure 'compute'. */
static char *root_name(const struct db_read *r)
{
	const char *sym = db_get_text(r, DB_RPC_CALLS_SITE_SYMBOL);
	const char *us = sym ? strrchr(sym, '_') : NULL;
	char buf[512];

	if (us && us > sym && us[1] &&
	    strtoul(us + 1, NULL, 10) ==
		    (unsigned long)db_get_int(r, DB_RPC_CALLS_VERS))
		snprintf(buf, sizeof(buf), "%.*s", (int)(us - sym), sym);
	else
		snprintf(buf, sizeof(buf), "prog%lld.%lld::proc%lld",
			 (long long)db_get_int(r, DB_RPC_CALLS_PROG),
			 (long long)db_get_int(r, DB_RPC_CALLS_VERS),
			 (long long)db_get_int(r, DB_RPC_CALLS_PROC));
	return strdup(buf);
}

/*
 * Each chain's root call (its first start event; a call without start
 * probes first, as SQL sorts NULL) and who made it, in one scan of
 * rpc_calls for all the chains, which has no index by chain.
 */
static int resolve_chains(struct spikes_report *r, const struct db_procs *procs)
{
	static const int cols[] = { DB_RPC_CALLS_CHAIN,
				    DB_RPC_CALLS_SITE_SYMBOL,
				    DB_RPC_CALLS_PROG,
				    DB_RPC_CALLS_VERS,
				    DB_RPC_CALLS_PROC,
				    DB_RPC_CALLS_CLIENT_PROC_ID,
				    DB_RPC_CALLS_STUB_START_EVENT,
				    DB_RPC_CALLS_SKEL_START_EVENT,
				    DB_RPC_CALLS_CALL_ID };
	struct priv *p = r->priv;
	struct hashmap at = { 0 };
	int64_t *best_ev = NULL, *best_id = NULL;
	struct db_read rd = { 0 };
	int ret = -1;

	if (!r->nchains)
		return 0;
	best_ev = calloc(r->nchains, sizeof(*best_ev));
	best_id = calloc(r->nchains, sizeof(*best_id));
	if (!best_ev || !best_id)
		goto out;
	for (size_t i = 0; i < r->nchains; i++) {
		best_id[i] = -1;
		if (hashmap_put(&at, chain_hash(r->chains[i]->id), (int32_t)i) <
		    0)
			goto out;
	}
	if (db_read_open(&rd, p->db, NULL, DB_RPC_CALLS, cols,
			 sizeof(cols) / sizeof(cols[0]), NULL))
		goto out;
	while (db_read_next(&rd)) {
		int n;
		const uint8_t *id = db_get_blob(&rd, DB_RPC_CALLS_CHAIN, &n);
		int64_t ev, call;
		const struct db_proc *cp;
		struct spikes_chain *c;
		int32_t i;

		if (!id || n != 20 ||
		    db_get_type(&rd, DB_RPC_CALLS_CHAIN) != SQLITE_BLOB ||
		    (i = hashmap_get(&at, chain_hash(id))) < 0)
			continue;
		/* two chains whose ids share 8 bytes: the map has the first */
		if (memcmp(r->chains[i]->id, id, 20) &&
		    (i = find_chain(r, id)) < 0)
			continue;
		ev = db_get_coalesce(&rd, DB_RPC_CALLS_STUB_START_EVENT,
				     DB_RPC_CALLS_SKEL_START_EVENT, INT64_MIN);
		call = db_get_int(&rd, DB_RPC_CALLS_CALL_ID);
		c = r->chains[i];
		if (best_id[i] >= 0 && (ev > best_ev[i] || (ev == best_ev[i] &&
							    call > best_id[i])))
			continue;
		best_ev[i] = ev;
		best_id[i] = call;
		free(c->root_function);
		free(c->client_host);
		c->root_function = root_name(&rd);
		/* the client's process and host, when the trace has them */
		cp = db_get_type(&rd, DB_RPC_CALLS_CLIENT_PROC_ID) !=
				     SQLITE_NULL
			     ? db_procs_get(
				       procs,
				       db_get_int(&rd,
						  DB_RPC_CALLS_CLIENT_PROC_ID))
			     : NULL;
		c->client_host = cp && cp->host ? strdup(cp->host) : NULL;
		c->client_pid = cp ? cp->pid : 0;
	}
	ret = 0;
out:
	if (db_read_close(&rd))
		ret = -1;
	hashmap_release(&at);
	free(best_ev);
	free(best_id);
	return ret;
}

/*
 * Count the samples of [lo, hi) of a process into the breach, and the
 * wall time from the first to the last into *span.
 */
static int window(struct spikes_report *r, struct spikes_breach *b, uint64_t lo,
		  uint64_t hi, struct spikes_list *top, uint64_t *count,
		  uint64_t *span)
{
	static const int cols[] = { DB_SPIKE_SAMPLES_IP, DB_SPIKE_SAMPLES_STACK,
				    DB_SPIKE_SAMPLES_CTX_CHAIN,
				    DB_SPIKE_SAMPLES_MONO_NS };
	struct priv *p = r->priv;
	uint64_t first = UINT64_MAX, last = 0;
	struct db_read rd;
	int done = 1;

	if (db_read_open(&rd, p->db, NULL, DB_SPIKE_SAMPLES, cols, 4,
			 "WHERE %s = ? AND %s >= ? AND %s < ?",
			 DB_NAME(SPIKE_SAMPLES, PROC_ID),
			 DB_NAME(SPIKE_SAMPLES, IDX),
			 DB_NAME(SPIKE_SAMPLES, IDX)))
		return -1;
	db_read_bind(&rd, 1, b->proc_id);
	db_read_bind(&rd, 2, (int64_t)lo);
	db_read_bind(&rd, 3, (int64_t)hi);
	while (db_read_next(&rd)) {
		uint64_t ip = (uint64_t)db_get_int(&rd, DB_SPIKE_SAMPLES_IP);
		int nstack, nchain;
		const uint8_t *stack =
			db_get_blob(&rd, DB_SPIKE_SAMPLES_STACK, &nstack);
		const uint8_t *chain =
			db_get_blob(&rd, DB_SPIKE_SAMPLES_CTX_CHAIN, &nchain);
		const char *fn = symbol(p, b->proc_id, ip, 0), *s;
		uint64_t at =
			(uint64_t)db_get_int(&rd, DB_SPIKE_SAMPLES_MONO_NS);
		char frames[2048];
		size_t len;

		done = 0;
		first = at < first ? at : first;
		last = at > last ? at : last;
		if (!fn || add(top, fn, 1, NULL))
			break; /* out of memory */
		(*count)++;
		len = (size_t)snprintf(frames, sizeof(frames), "%s", fn);
		for (int i = 0;
		     i < nstack / 8 && i < 16 && len < sizeof(frames); i++) {
			uint64_t a = 0;

			memcpy(&a, stack + 8 * i, 8); /* little-endian */
			s = symbol(p, b->proc_id, a, 1);
			len += (size_t)snprintf(frames + len,
						sizeof(frames) - len, " <- %s",
						s ? s : "?");
		}
		if (!(s = intern(p, frames)) || add(&b->stacks, s, 1, NULL))
			break;
		if (chain && nchain == 20) {
			struct spikes_chain *c = chain_of(r, chain);

			if (!c || add(&b->chains, intern(p, c->hex), 1, c))
				break;
		}
		done = 1;
	}
	*span = last > first ? last - first : 0;
	/* a row left half done: out of memory */
	return db_read_close(&rd) || !done ? -1 : 0;
}

double spikes_rate_obtained(const struct spikes_sampler *s)
{
	return s->cpu_ns ? (double)s->samples * 1e9 / (double)s->cpu_ns : 0;
}

/* One entry per process that sampled: its last row (the figures are
 * running totals) and the notes of its changes.  A trace merged before
 * the table has none. */
static int load_samplers(struct spikes_report *r)
{
	static const int cols[] = {
		DB_SPIKE_SAMPLERS_PROC_ID,  DB_SPIKE_SAMPLERS_SOURCE,
		DB_SPIKE_SAMPLERS_SIGNAL,   DB_SPIKE_SAMPLERS_RATE_HZ,
		DB_SPIKE_SAMPLERS_SAMPLES,  DB_SPIKE_SAMPLERS_CPU_NS,
		DB_SPIKE_SAMPLERS_FALLBACK, DB_SPIKE_SAMPLERS_LOST,
		DB_SPIKE_SAMPLERS_NOTE
	};
	struct priv *p = r->priv;
	struct db_read rd;
	int has = db_has_table(p->db, DB_SPIKE_SAMPLERS);

	if (has <= 0)
		return has;
	r->samplers = calloc(p->nprocs ? p->nprocs : 1, sizeof(*r->samplers));
	if (!r->samplers)
		return -1;
	r->nsamplers = p->nprocs;
	if (db_read_open(&rd, p->db, NULL, DB_SPIKE_SAMPLERS, cols,
			 sizeof(cols) / sizeof(cols[0]), "ORDER BY %s, %s",
			 DB_NAME(SPIKE_SAMPLERS, PROC_ID),
			 DB_NAME(SPIKE_SAMPLERS, SEQ)))
		return -1;
	while (db_read_next(&rd)) {
		int64_t id = db_get_int(&rd, DB_SPIKE_SAMPLERS_PROC_ID);
		const char *note = db_get_text(&rd, DB_SPIKE_SAMPLERS_NOTE);
		struct spikes_sampler *s;

		if (id <= 0 || (size_t)id >= r->nsamplers)
			continue;
		s = &r->samplers[id];
		s->proc_id = id;
		s->pid = p->procs[id].pid;
		s->host = p->procs[id].host;
		s->exe = p->procs[id].exe;
		free(s->source);
		s->source = db_get_strdup(&rd, DB_SPIKE_SAMPLERS_SOURCE);
		s->signal = (uint64_t)db_get_int(&rd, DB_SPIKE_SAMPLERS_SIGNAL);
		s->rate_hz =
			(uint64_t)db_get_int(&rd, DB_SPIKE_SAMPLERS_RATE_HZ);
		s->samples =
			(uint64_t)db_get_int(&rd, DB_SPIKE_SAMPLERS_SAMPLES);
		s->cpu_ns = (uint64_t)db_get_int(&rd, DB_SPIKE_SAMPLERS_CPU_NS);
		s->fallback =
			(uint64_t)db_get_int(&rd, DB_SPIKE_SAMPLERS_FALLBACK);
		s->lost = (uint64_t)db_get_int(&rd, DB_SPIKE_SAMPLERS_LOST);
		if (!s->source) {
			rd.bad = 1;
			break;
		}
		if (note && strcmp(note, "start") && strcmp(note, "end")) {
			char **v = realloc(s->changes,
					   (s->nchanges + 1) * sizeof(*v));

			if (v)
				s->changes = v;
			if (!v || !(v[s->nchanges] = strdup(note))) {
				rd.bad = 1;
				break;
			}
			s->nchanges++;
		}
	}
	return db_read_close(&rd);
}

static int load_breaches(struct spikes_report *r)
{
	static const int cols[] = {
		DB_SPIKE_BREACHES_PROC_ID,  DB_SPIKE_BREACHES_MONO_NS,
		DB_SPIKE_BREACHES_RESOURCE, DB_SPIKE_BREACHES_RULE,
		DB_SPIKE_BREACHES_VALUE,    DB_SPIKE_BREACHES_THRESHOLD,
		DB_SPIKE_BREACHES_MARK,	    DB_SPIKE_BREACHES_N
	};
	struct priv *p = r->priv;
	struct db_read rd;

	if (db_read_open(&rd, p->db, NULL, DB_SPIKE_BREACHES, cols,
			 sizeof(cols) / sizeof(cols[0]), "ORDER BY %s, %s",
			 DB_NAME(SPIKE_BREACHES, PROC_ID),
			 DB_NAME(SPIKE_BREACHES, SEQ)))
		return -1;
	while (db_read_next(&rd)) {
		struct spikes_breach *v =
			realloc(r->b, (r->nb + 1) * sizeof(*v));
		struct spikes_breach *b;
		const struct proc *pr;

		if (!v) {
			rd.bad = 1;
			break;
		}
		r->b = v;
		b = &r->b[r->nb++];
		memset(b, 0, sizeof(*b));
		b->proc_id = db_get_int(&rd, DB_SPIKE_BREACHES_PROC_ID);
		if (b->proc_id > 0 && (size_t)b->proc_id < p->nprocs) {
			pr = &p->procs[b->proc_id];
			b->pid = pr->pid;
			b->host = pr->host;
			b->exe = pr->exe;
			b->time_ns = pr->start_real +
				     ((uint64_t)db_get_int(
					      &rd, DB_SPIKE_BREACHES_MONO_NS) -
				      pr->start_mono);
		}
		b->resource = db_get_strdup(&rd, DB_SPIKE_BREACHES_RESOURCE);
		b->rule = db_get_strdup(&rd, DB_SPIKE_BREACHES_RULE);
		b->value = (uint64_t)db_get_int(&rd, DB_SPIKE_BREACHES_VALUE);
		b->threshold =
			(uint64_t)db_get_int(&rd, DB_SPIKE_BREACHES_THRESHOLD);
		b->mark = (uint64_t)db_get_int(&rd, DB_SPIKE_BREACHES_MARK);
		b->n = (uint64_t)db_get_int(&rd, DB_SPIKE_BREACHES_N);
	}
	if (db_read_close(&rd))
		return -1;
	for (size_t i = 0; i < r->nb; i++) {
		struct spikes_breach *b = &r->b[i];
		uint64_t lo = b->mark > b->n ? b->mark - b->n : 0;

		if (window(r, b, lo, b->mark, &b->top_before, &b->before,
			   &b->span_before_ns) ||
		    window(r, b, b->mark, b->mark + b->n, &b->top_after,
			   &b->after, &b->span_after_ns))
			return -1;
		if (b->proc_id > 0 && (size_t)b->proc_id < r->nsamplers &&
		    r->samplers[b->proc_id].source)
			b->sampler = &r->samplers[b->proc_id];
		sort(&b->top_before, SPIKES_TOP_FUNCTIONS);
		sort(&b->top_after, SPIKES_TOP_FUNCTIONS);
		sort(&b->stacks, SPIKES_TOP_STACKS);
		sort(&b->chains, (size_t)-1);
	}
	return 0;
}

/* The windows' profile (each sample once) and the whole run's. */
static int load_profiles(struct spikes_report *r)
{
	static const int sample_cols[] = { DB_SPIKE_SAMPLES_PROC_ID,
					   DB_SPIKE_SAMPLES_IP };
	static const int profile_cols[] = { DB_SPIKE_PROFILE_PROC_ID,
					    DB_SPIKE_PROFILE_IP,
					    DB_SPIKE_PROFILE_SAMPLES };
	struct priv *p = r->priv;
	struct db_read rd;

	if (db_read_open(&rd, p->db, NULL, DB_SPIKE_SAMPLES, sample_cols, 2,
			 NULL))
		return -1;
	while (db_read_next(&rd)) {
		const char *fn = symbol(
			p, db_get_int(&rd, DB_SPIKE_SAMPLES_PROC_ID),
			(uint64_t)db_get_int(&rd, DB_SPIKE_SAMPLES_IP), 0);

		if (!fn || add(&r->window, fn, 1, NULL)) {
			rd.bad = 1;
			break;
		}
		r->window_samples++;
	}
	if (db_read_close(&rd) ||
	    db_read_open(&rd, p->db, NULL, DB_SPIKE_PROFILE, profile_cols, 3,
			 NULL))
		return -1;
	while (db_read_next(&rd)) {
		uint64_t ip = (uint64_t)db_get_int(&rd, DB_SPIKE_PROFILE_IP);
		uint64_t n =
			(uint64_t)db_get_int(&rd, DB_SPIKE_PROFILE_SAMPLES);
		const char *fn =
			ip ? symbol(p,
				    db_get_int(&rd, DB_SPIKE_PROFILE_PROC_ID),
				    ip, 0)
			   : intern(p, "[not counted]");

		if (!fn || add(&r->run, fn, n, NULL)) {
			rd.bad = 1;
			break;
		}
		r->run_samples += n;
	}
	if (db_read_close(&rd))
		return -1;
	sort(&r->window, SPIKES_TOP_PROFILE);
	sort(&r->run, SPIKES_TOP_PROFILE);
	return 0;
}

int spikes_load(struct spikes_report *r, const char *path)
{
	static const int proc_cols[] = { DB_PROCESSES_PID, DB_PROCESSES_EXE,
					 DB_PROCESSES_START_REALTIME_NS,
					 DB_PROCESSES_START_MONO_NS };
	struct priv *p = calloc(1, sizeof(*p));
	struct db_procs procs;
	int ok;

	memset(r, 0, sizeof(*r));
	if (!p)
		return fail("out of memory");
	r->priv = p;
	path = store_sqlite_path(path);
	if (!path)
		return -1;
	if (sqlite3_open_v2(path, &p->db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK)
		return fail("cannot open '%s': %s", path,
			    p->db ? sqlite3_errmsg(p->db) : "out of memory");
	if ((ok = db_has_table(p->db, DB_SPIKE_BREACHES)) < 0)
		return fail("'%s' is not a trace database: %s", path,
			    sqlite3_errmsg(p->db));
	if (!ok)
		return fail("'%s' has no spike tables: merge the logs again "
			    "with this tracedump",
			    path);
	if ((ok = db_procs_load(&procs, p->db, proc_cols,
				sizeof(proc_cols) / sizeof(proc_cols[0]))))
		return ok == -ENOMEM
			       ? fail("out of memory")
			       : fail("'%s': %s", path, sqlite3_errmsg(p->db));
	ok = !load_procs(p, &procs) && !load_samplers(r) && !load_breaches(r) &&
	     !resolve_chains(r, &procs) && !load_profiles(r);
	db_procs_release(&procs);
	if (!ok)
		return fail("'%s': %s", path, sqlite3_errmsg(p->db));
	return 0;
}

static void list_free(struct spikes_list *l)
{
	free(l->v);
}

void spikes_release(struct spikes_report *r)
{
	struct priv *p = r->priv;

	for (size_t i = 0; i < r->nb; i++) {
		struct spikes_breach *b = &r->b[i];

		free(b->resource);
		free(b->rule);
		list_free(&b->top_before);
		list_free(&b->top_after);
		list_free(&b->stacks);
		list_free(&b->chains);
	}
	free(r->b);
	for (size_t i = 0; i < r->nchains; i++) {
		free(r->chains[i]->root_function);
		free(r->chains[i]->client_host);
		free(r->chains[i]);
	}
	free(r->chains);
	for (size_t i = 0; i < r->nsamplers; i++) {
		free(r->samplers[i].source);
		for (size_t k = 0; k < r->samplers[i].nchanges; k++)
			free(r->samplers[i].changes[k]);
		free(r->samplers[i].changes);
	}
	free(r->samplers);
	list_free(&r->window);
	list_free(&r->run);
	if (p) {
		for (size_t i = 0; i < p->nprocs; i++) {
			free(p->procs[i].exe);
			free(p->procs[i].host);
			if (p->procs[i].dwfl)
				dwfl_end(p->procs[i].dwfl);
		}
		free(p->procs);
		for (size_t i = 0; i < p->nnames; i++)
			free(p->names[i]);
		free(p->names);
		hashmap_release(&p->syms);
		hashmap_release(&p->byname);
		sqlite3_close(p->db);
		free(p);
	}
	memset(r, 0, sizeof(*r));
}
