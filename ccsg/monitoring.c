/*
 * monitoring.c - the monitoring intervals and types a trace covers, and
 * the chains a switch cut (monitoring.h), read with SQL from the merged
 * database: monitor_switches, rpc_calls.client_mon and server_mon.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "causal/log-format.h"
#include "db-procs.h"
#include "db-read.h"
#include "hex.h"
#include "json.h"
#include "monitoring-select.h"
#include "monitoring.h"
#include "usage.h"

#define ALL_TYPES 0xfu

/* the types of calls: the first four of them */
static const char *const type_names[] = CAUSAL_MONTYPE_NAMES;

/* 'semantics|cpu' -> bits; NULL -> 0. */
static unsigned types_of(const char *s)
{
	unsigned bits = 0;

	while (s && *s) {
		size_t len = strcspn(s, "|");

		for (unsigned t = 0; t < 4; t++)
			if (strlen(type_names[t]) == len &&
			    !strncmp(s, type_names[t], len))
				bits |= 1u << t;
		s += len;
		if (*s)
			s++;
	}
	return bits;
}

/* The process of column col of r, with a hosts row: NULL without. */
static const struct db_proc *proc_of(const struct db_procs *procs,
				     const struct db_read *r, int col)
{
	const struct db_proc *pr;

	if (db_get_type(r, col) == SQLITE_NULL)
		return NULL;
	pr = db_procs_get(procs, db_get_int(r, col));
	return pr && pr->has_host ? pr : NULL;
}

/* The states of each process's monitoring, one interval a state (its
 * types and the selections in force for its host), from
 * monitor_switches (those of a process with a hosts row). */
static int load_intervals(struct ccsg_monitoring *m, sqlite3 *db,
			  const struct db_procs *procs)
{
	static const int cols[] = {
		DB_MONITOR_SWITCHES_PROC_ID,   DB_MONITOR_SWITCHES_MONO_NS,
		DB_MONITOR_SWITCHES_TYPES,     DB_MONITOR_SWITCHES_KIND,
		DB_MONITOR_SWITCHES_HOST,      DB_MONITOR_SWITCHES_INTERFACE,
		DB_MONITOR_SWITCHES_FUNCTION,  DB_MONITOR_SWITCHES_STATE,
		DB_MONITOR_SWITCHES_SELECTIONS
	};
	struct mon_selections sel = { 0 };
	struct db_read r;
	int64_t prev_proc = -1;
	size_t cap = 0;
	int rc, nomem = 0;

	if ((rc = db_read_open(&r, db, NULL, DB_MONITOR_SWITCHES, cols, 9,
			       "ORDER BY %s, %s",
			       DB_NAME(MONITOR_SWITCHES, PROC_ID),
			       DB_NAME(MONITOR_SWITCHES, SEQ))))
		return rc == -ENOMEM ? -1
				     : fail("cannot read monitor_switches: %s",
					    sqlite3_errmsg(db));
	m->throughout = ALL_TYPES;
	while (!nomem && db_read_next(&r)) {
		const struct db_proc *pr =
			proc_of(procs, &r, DB_MONITOR_SWITCHES_PROC_ID);
		int64_t proc = db_get_int(&r, DB_MONITOR_SWITCHES_PROC_ID);
		unsigned types;
		struct ccsg_mon_interval *last =
			m->niv ? &m->iv[m->niv - 1] : NULL;
		const char *kind;
		char *text;

		if (!pr)
			continue; /* no process, no host: the join has none */
		if (proc != prev_proc)
			mon_sel_reset(&sel);
		types = types_of(db_get_text(&r, DB_MONITOR_SWITCHES_TYPES));
		kind = db_get_text(&r, DB_MONITOR_SWITCHES_KIND);
		if (kind && strcmp(kind, "initial"))
			m->switches++;
		if (kind && !strcmp(kind, "initial"))
			sel.inherited =
				db_get_int(&r, DB_MONITOR_SWITCHES_SELECTIONS);
		if (kind && !strcmp(kind, "select")) {
			int rc2 = mon_sel_apply(
				&sel, pr->host,
				db_get_text(&r, DB_MONITOR_SWITCHES_HOST),
				db_get_text(&r, DB_MONITOR_SWITCHES_INTERFACE),
				db_get_text(&r, DB_MONITOR_SWITCHES_FUNCTION),
				db_get_text(&r, DB_MONITOR_SWITCHES_STATE));

			m->selects += rc2 > 0;
			nomem = rc2 < 0;
		}
		m->throughout &= types;
		m->sometime |= types;
		text = mon_sel_text(&sel, &nomem);
		if (last && proc == prev_proc) {
			if (last->types == types &&
			    !strcmp(last->selections ? last->selections : "",
				    text ? text : "")) {
				free(text);
				continue; /* no change: one interval */
			}
			last->to_ns =
				db_get_int(&r, DB_MONITOR_SWITCHES_MONO_NS);
		}
		if (nomem || GROW(m->iv, cap, m->niv + 1)) {
			free(text);
			nomem = 1;
			break;
		}
		last = &m->iv[m->niv++];
		memset(last, 0, sizeof(*last));
		last->host = pr->host ? strdup(pr->host) : NULL;
		last->pid = pr->pid;
		last->proc_id = proc;
		last->from_ns = db_get_int(&r, DB_MONITOR_SWITCHES_MONO_NS);
		last->start_ns = pr->start_mono_ns;
		last->to_ns = pr->end_null ? -1 : pr->end_mono_ns;
		last->types = types;
		last->selections = text;
		last->deselects = mon_sel_deselects(&sel) ||
				  !(types & CAUSAL_MONTYPE_CPU);
		prev_proc = proc;
	}
	mon_sel_reset(&sel);
	if (db_read_close(&r) || nomem)
		return nomem ? fail("out of memory")
			     : fail("cannot read monitor_switches: %s",
				    sqlite3_errmsg(db));
	return 0;
}

int ccsg_monitoring_deselected(const struct ccsg_monitoring *m, int64_t proc_id)
{
	for (size_t i = 0; i < m->niv; i++)
		if (m->iv[i].proc_id == proc_id && m->iv[i].deselects)
			return 1;
	return 0;
}

/* "host pid" of the process of column col, malloc'd; NULL without (as
 * SQL's h.name || ' ' || p.pid). */
static char *host_pid(const struct db_procs *procs, const struct db_read *r,
		      int col)
{
	const struct db_proc *pr = proc_of(procs, r, col);
	char *s;

	if (!pr || !pr->host || pr->pid_null ||
	    asprintf(&s, "%s %lld", pr->host, (long long)pr->pid) < 0)
		return NULL;
	return s;
}

/* The chain of the row as text: the hex of a blob (lowercase), else the
 * text (schema version 2); NULL for NULL and for a blob too long. */
static const char *chain_text(const struct db_read *r, char *buf, size_t len)
{
	const void *blob;
	int n;

	if (db_get_type(r, DB_RPC_CALLS_CHAIN) != SQLITE_BLOB)
		return db_get_text(r, DB_RPC_CALLS_CHAIN);
	blob = db_get_blob(r, DB_RPC_CALLS_CHAIN, &n);
	if ((size_t)n * 2 >= len)
		return NULL; /* too long for a chain id: skipped */
	hex_encode(buf, blob, (size_t)n);
	return buf;
}

/* The first call side of each chain monitored unlike the chain's first;
 * the chains where also holds (SQL on rpc_calls, or NULL). */
static int load_cuts(struct ccsg_monitoring *m, sqlite3 *db, const char *where,
		     const struct db_procs *procs)
{
	static const int cols[] = { DB_RPC_CALLS_CALL_ID,
				    DB_RPC_CALLS_CHAIN,
				    DB_RPC_CALLS_CLIENT_MON,
				    DB_RPC_CALLS_SERVER_MON,
				    DB_RPC_CALLS_PROG,
				    DB_RPC_CALLS_PROC,
				    DB_RPC_CALLS_STUB_START_EVENT,
				    DB_RPC_CALLS_SKEL_START_EVENT,
				    DB_RPC_CALLS_CLIENT_PROC_ID,
				    DB_RPC_CALLS_SERVER_PROC_ID };
	static const int mon[2] = { DB_RPC_CALLS_CLIENT_MON,
				    DB_RPC_CALLS_SERVER_MON };
	char chain[41] = "", buf[41];
	unsigned ref = 0;
	int cut = 0, rc;
	size_t cap = 0;
	struct db_read r;

	/* in chain order (its text's), then by the call's start */
	if ((rc = db_read_open(
		     &r, db, NULL, DB_RPC_CALLS, cols,
		     sizeof(cols) / sizeof(cols[0]),
		     "WHERE (%s IS NOT NULL OR %s IS NOT NULL)%s%s%s "
		     "ORDER BY CASE typeof(%s) WHEN 'blob' THEN "
		     "lower(hex(%s)) ELSE %s END, coalesce(%s, %s), %s",
		     DB_NAME(RPC_CALLS, CLIENT_MON),
		     DB_NAME(RPC_CALLS, SERVER_MON), where ? " AND (" : "",
		     where ? where : "", where ? ")" : "",
		     DB_NAME(RPC_CALLS, CHAIN), DB_NAME(RPC_CALLS, CHAIN),
		     DB_NAME(RPC_CALLS, CHAIN),
		     DB_NAME(RPC_CALLS, STUB_START_EVENT),
		     DB_NAME(RPC_CALLS, SKEL_START_EVENT),
		     DB_NAME(RPC_CALLS, CALL_ID))))
		return rc == -ENOMEM ? -1
				     : fail("cannot read rpc_calls: %s",
					    sqlite3_errmsg(db));
	while (db_read_next(&r)) {
		const char *ch = chain_text(&r, buf, sizeof(buf));
		int sides[2] = { db_get_type(&r, mon[0]) != SQLITE_NULL,
				 db_get_type(&r, mon[1]) != SQLITE_NULL };
		struct ccsg_mon_cut *c;

		if (!ch || strlen(ch) >= sizeof(chain))
			continue;
		if (strcmp(ch, chain)) {
			snprintf(chain, sizeof(chain), "%s", ch);
			ref = types_of(db_get_text(&r, mon[sides[0] ? 0 : 1]));
			cut = 0;
		}
		for (int s = 0; s < 2 && !cut; s++) {
			unsigned types;

			if (!sides[s])
				continue;
			types = types_of(db_get_text(&r, mon[s]));
			if (types == ref)
				continue;
			cut = 1;
			if (GROW(m->cuts, cap, m->ncuts + 1)) {
				db_read_close(&r);
				return fail("out of memory");
			}
			c = &m->cuts[m->ncuts++];
			memset(c, 0, sizeof(*c));
			snprintf(c->chain, sizeof(c->chain), "%s", chain);
			c->call_id = db_get_int(&r, DB_RPC_CALLS_CALL_ID);
			c->prog = db_get_int(&r, DB_RPC_CALLS_PROG);
			c->proc = db_get_int(&r, DB_RPC_CALLS_PROC);
			c->event = db_get_coalesce(
				&r, DB_RPC_CALLS_STUB_START_EVENT,
				DB_RPC_CALLS_SKEL_START_EVENT, 0);
			c->client = host_pid(procs, &r,
					     DB_RPC_CALLS_CLIENT_PROC_ID);
			c->server = host_pid(procs, &r,
					     DB_RPC_CALLS_SERVER_PROC_ID);
			c->lost = ref & ~types;
			c->gained = types & ~ref;
		}
	}
	if (db_read_close(&r))
		return fail("cannot read rpc_calls: %s", sqlite3_errmsg(db));
	return 0;
}

int ccsg_monitoring_load(struct ccsg_monitoring *m, sqlite3 *db)
{
	return ccsg_monitoring_load_cuts(m, db, 1, NULL);
}

int ccsg_monitoring_load_cuts(struct ccsg_monitoring *m, sqlite3 *db, int cuts,
			      const char *where)
{
	static const int cols[] = { DB_PROCESSES_PID,
				    DB_PROCESSES_START_MONO_NS,
				    DB_PROCESSES_END_MONO_NS };
	struct db_procs procs;
	int rc;

	memset(m, 0, sizeof(*m));
	if (db_has_table(db, DB_MONITOR_SWITCHES) <= 0)
		return 0;
	m->present = 1;
	if ((rc = db_procs_load(&procs, db, cols, 3))) {
		ccsg_monitoring_release(m);
		return rc == -ENOMEM ? fail("out of memory")
				     : fail("cannot read monitor_switches: %s",
					    sqlite3_errmsg(db));
	}
	rc = load_intervals(m, db, &procs) ||
	     (cuts && load_cuts(m, db, where, &procs));
	db_procs_release(&procs);
	if (rc) {
		ccsg_monitoring_release(m);
		return -1;
	}
	return 0;
}

static int cmp_cut(const void *a, const void *b)
{
	return strcmp(((const struct ccsg_mon_cut *)a)->chain,
		      ((const struct ccsg_mon_cut *)b)->chain);
}

int ccsg_monitoring_add_cuts(struct ccsg_monitoring *into,
			     const struct ccsg_monitoring *from)
{
	struct ccsg_mon_cut *v;

	if (!from->ncuts)
		return 0;
	v = realloc(into->cuts,
		    (into->ncuts + from->ncuts) * sizeof(*into->cuts));
	if (!v)
		return fail("out of memory");
	into->cuts = v;
	for (size_t i = 0; i < from->ncuts; i++) {
		struct ccsg_mon_cut *c = &into->cuts[into->ncuts];

		*c = from->cuts[i];
		c->client = c->server = NULL;
		into->ncuts++;
		if ((from->cuts[i].client &&
		     !(c->client = strdup(from->cuts[i].client))) ||
		    (from->cuts[i].server &&
		     !(c->server = strdup(from->cuts[i].server))))
			return fail("out of memory");
	}
	/* one cut a chain at most: in chain order, as one reader's */
	qsort(into->cuts, into->ncuts, sizeof(*into->cuts), cmp_cut);
	return 0;
}

void ccsg_monitoring_release(struct ccsg_monitoring *m)
{
	for (size_t i = 0; i < m->niv; i++) {
		free(m->iv[i].host);
		free(m->iv[i].selections);
	}
	for (size_t i = 0; i < m->ncuts; i++) {
		free(m->cuts[i].client);
		free(m->cuts[i].server);
	}
	free(m->iv);
	free(m->cuts);
	memset(m, 0, sizeof(*m));
}

const char *ccsg_monitoring_types(char *buf, size_t len, unsigned bits,
				  const char *sep)
{
	size_t at = 0;
	int n = 0;

	buf[0] = '\0';
	for (unsigned t = 0; t < 4 && at < len; t++)
		if (bits & (1u << t))
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       n++ ? sep : "", type_names[t]);
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}

static void types_text(FILE *f, unsigned bits, const char *sep)
{
	char buf[64];

	fputs(ccsg_monitoring_types(buf, sizeof(buf), bits, sep), f);
}

static void types_json(FILE *f, unsigned bits)
{
	int n = 0;

	fputc('[', f);
	for (unsigned t = 0; t < 4; t++)
		if (bits & (1u << t))
			fprintf(f, "%s\"%s\"", n++ ? ", " : "", type_names[t]);
	fputc(']', f);
}

/* One interval: "from +T s TYPES[ selections: ...]". */
static void interval_text(FILE *f, const struct ccsg_mon_interval *iv)
{
	fprintf(f, "from +%.3f s ", (iv->from_ns - iv->start_ns) / 1e9);
	types_text(f, iv->types, "|");
	if (iv->selections)
		fprintf(f, " selected: %s", iv->selections);
}

/* The intervals of one process, iv[0 .. n): all, one a line, or its
 * first and last on one line with how many between. */
static void process_text(FILE *f, const struct ccsg_monitoring *m,
			 const struct ccsg_mon_interval *iv, size_t n)
{
	fprintf(f, "  %s pid %" PRId64 ":", iv->host ? iv->host : "", iv->pid);
	if (m->list) {
		fputc('\n', f);
		for (size_t i = 0; i < n; i++) {
			fputs("    ", f);
			interval_text(f, &iv[i]);
			fputc('\n', f);
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (n > 3 && i == 1) {
			fprintf(f, " ... %zu more ...;", n - 2);
			i = n - 2;
			continue;
		}
		fputc(' ', f);
		interval_text(f, &iv[i]);
		fputc(';', f);
	}
	fputc('\n', f);
}

static int cmp_proc(const void *key, const void *iv)
{
	int64_t a = *(const int64_t *)key,
		b = ((const struct ccsg_mon_interval *)iv)->proc_id;

	return (a > b) - (a < b);
}

const struct ccsg_mon_interval *
ccsg_monitoring_of(const struct ccsg_monitoring *m, int64_t proc_id, size_t *n)
{
	/* one of proc_id's (they come by proc_id, in order), then its first */
	const struct ccsg_mon_interval *iv =
		m->niv ? bsearch(&proc_id, m->iv, m->niv, sizeof(*m->iv),
				 cmp_proc)
		       : NULL;

	*n = 0;
	if (!iv)
		return NULL;
	while (iv > m->iv && iv[-1].proc_id == proc_id)
		iv--;
	while (iv + *n < m->iv + m->niv && iv[*n].proc_id == proc_id)
		++*n;
	return iv;
}

/* Every process's intervals (they come process by process). */
static void intervals_text(FILE *f, const struct ccsg_monitoring *m)
{
	size_t i = 0, summarised = 0;

	while (i < m->niv) {
		size_t n = 1;

		while (i + n < m->niv &&
		       m->iv[i + n].proc_id == m->iv[i].proc_id)
			n++;
		process_text(f, m, &m->iv[i], n);
		summarised += n > 3;
		i += n;
	}
	if (summarised && !m->list)
		fputs("  (--switches lists every interval)\n", f);
}

void ccsg_monitoring_processes(FILE *f, const struct ccsg_monitoring *m)
{
	struct ccsg_monitoring all = *m;

	all.list = 1;
	intervals_text(f, &all);
}

void ccsg_monitoring_text(FILE *f, const struct ccsg_monitoring *m)
{

	if (!m->present || (!m->switches && m->throughout == ALL_TYPES &&
			    !m->ncuts && !m->selects))
		return;
	fprintf(f, "monitoring: %zu switch%s", m->switches,
		m->switches == 1 ? "" : "es");
	if (m->selects)
		fprintf(f, " (%zu selection%s)", m->selects,
			m->selects == 1 ? "" : "s");
	fputs("; on throughout: ", f);
	types_text(f, m->throughout, ", ");
	fputs("; on at times: ", f);
	types_text(f, m->sometime & ~m->throughout, ", ");
	fputs(" (what was off is not in the figures below)\n", f);
	intervals_text(f, m);
	if (!m->ncuts)
		return;
	fprintf(f,
		"chains cut by a switch: %zu (their calls were not all "
		"monitored alike: not whole)\n",
		m->ncuts);
	for (size_t i = 0; i < m->ncuts; i++) {
		const struct ccsg_mon_cut *c = &m->cuts[i];

		fprintf(f,
			"  chain %s cut at call %" PRId64 " (program %#" PRIx64
			" procedure %" PRId64 ", event %" PRId64 ", %s -> %s):",
			c->chain, c->call_id, (uint64_t)c->prog, c->proc,
			c->event, c->client ? c->client : "untraced client",
			c->server ? c->server : "untraced server");
		if (c->lost) {
			fputc(' ', f);
			types_text(f, c->lost, ", ");
			fputs(" not recorded from there", f);
		}
		if (c->gained) {
			fputs(c->lost ? ";" : "", f);
			fputc(' ', f);
			types_text(f, c->gained, ", ");
			fputs(" recorded from there only", f);
		}
		fputc('\n', f);
	}
}

/* "A, B" -> ["A", "B"]; NULL -> []. */
static void selections_json(FILE *f, const char *text)
{
	fputc('[', f);
	while (text && *text) {
		const char *sep = strstr(text, ", ");
		size_t len = sep ? (size_t)(sep - text) : strlen(text);
		char *one = strndup(text, len);

		json_cstr(f, one ? one : "");
		free(one);
		text += len;
		if (*text) {
			text += 2;
			fputs(", ", f);
		}
	}
	fputc(']', f);
}

/* The fields of "monitoring" but its cuts, from its '{'. */
static void states_json(FILE *f, const struct ccsg_monitoring *m)
{
	fprintf(f,
		"{\"recorded\": %s, \"switches\": %zu, \"selections\": %zu, "
		"\"throughout\": ",
		m->present ? "true" : "false", m->switches, m->selects);
	types_json(f, m->present ? m->throughout : ALL_TYPES);
	fputs(", \"sometime\": ", f);
	types_json(f, m->present ? m->sometime : ALL_TYPES);
	fputs(", \"intervals\": [", f);
	for (size_t i = 0; i < m->niv; i++) {
		const struct ccsg_mon_interval *iv = &m->iv[i];

		fputs(i ? ", {\"host\": " : "{\"host\": ", f);
		json_cstr(f, iv->host ? iv->host : "");
		fprintf(f,
			", \"pid\": %" PRId64 ", \"from_ns\": %" PRId64
			", \"to_ns\": ",
			iv->pid, iv->from_ns);
		if (iv->to_ns < 0)
			fputs("null", f);
		else
			fprintf(f, "%" PRId64, iv->to_ns);
		fputs(", \"types\": ", f);
		types_json(f, iv->types);
		fputs(", \"selections\": ", f);
		selections_json(f, iv->selections);
		fprintf(f, ", \"deselects\": %s}",
			iv->deselects ? "true" : "false");
	}
	fputc(']', f);
}

void ccsg_monitoring_json_states(FILE *f, const struct ccsg_monitoring *m)
{
	states_json(f, m);
	fputc('}', f);
}

void ccsg_monitoring_json(FILE *f, const struct ccsg_monitoring *m)
{
	states_json(f, m);
	fputs(", \"cut_chains\": [", f);
	for (size_t i = 0; i < m->ncuts; i++) {
		const struct ccsg_mon_cut *c = &m->cuts[i];

		fprintf(f,
			"%s{\"chain\": \"%s\", \"call_id\": %" PRId64
			", \"program\": %" PRId64 ", \"procedure\": %" PRId64
			", \"event\": %" PRId64 ", \"client\": ",
			i ? ", " : "", c->chain, c->call_id, c->prog, c->proc,
			c->event);
		if (c->client)
			json_cstr(f, c->client);
		else
			fputs("null", f);
		fputs(", \"server\": ", f);
		if (c->server)
			json_cstr(f, c->server);
		else
			fputs("null", f);
		fputs(", \"lost\": ", f);
		types_json(f, c->lost);
		fputs(", \"gained\": ", f);
		types_json(f, c->gained);
		fputc('}', f);
	}
	fputs("]}", f);
}

static void types_attr(FILE *f, const char *name, unsigned bits)
{
	fprintf(f, " %s=\"", name);
	types_text(f, bits, " ");
	fputc('"', f);
}

static void xml_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
}

void ccsg_monitoring_xml(FILE *f, const struct ccsg_monitoring *m)
{
	if (!m->present)
		return;
	fprintf(f, " <monitoring switches=\"%zu\"", m->switches);
	types_attr(f, "throughout", m->throughout);
	types_attr(f, "sometime", m->sometime);
	fputs(">\n", f);
	for (size_t i = 0; i < m->niv; i++) {
		const struct ccsg_mon_interval *iv = &m->iv[i];

		fputs("  <interval host=\"", f);
		xml_text(f, iv->host);
		fprintf(f, "\" pid=\"%" PRId64 "\" from_ns=\"%" PRId64 "\"",
			iv->pid, iv->from_ns);
		if (iv->to_ns >= 0)
			fprintf(f, " to_ns=\"%" PRId64 "\"", iv->to_ns);
		types_attr(f, "types", iv->types);
		if (iv->selections) {
			fputs(" selected=\"", f);
			xml_text(f, iv->selections);
			fputc('"', f);
		}
		fputs("/>\n", f);
	}
	for (size_t i = 0; i < m->ncuts; i++) {
		const struct ccsg_mon_cut *c = &m->cuts[i];

		fprintf(f,
			"  <cut chain=\"%s\" call_id=\"%" PRId64
			"\" program=\"%" PRId64 "\" procedure=\"%" PRId64
			"\" event=\"%" PRId64 "\"",
			c->chain, c->call_id, c->prog, c->proc, c->event);
		if (c->client) {
			fputs(" client=\"", f);
			xml_text(f, c->client);
			fputc('"', f);
		}
		if (c->server) {
			fputs(" server=\"", f);
			xml_text(f, c->server);
			fputc('"', f);
		}
		types_attr(f, "lost", c->lost);
		types_attr(f, "gained", c->gained);
		fputs("/>\n", f);
	}
	fputs(" </monitoring>\n", f);
}

void ccsg_monitoring_dot(FILE *f, const struct ccsg_monitoring *m)
{
	ccsg_monitoring_prefixed(f, m, "  // ");
}

void ccsg_monitoring_prefixed(FILE *f, const struct ccsg_monitoring *m,
			      const char *prefix)
{
	char *buf = NULL, *line, *save;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);

	if (!mf)
		return;
	ccsg_monitoring_text(mf, m);
	if (fclose(mf)) {
		free(buf);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(f, "%s%s\n", prefix, line);
	free(buf);
}
