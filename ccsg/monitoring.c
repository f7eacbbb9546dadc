/*
 * monitoring.c - the monitoring intervals and types a trace covers, and
 * the chains a switch cut (monitoring.h), read with SQL from the merged
 * database: monitor_switches, rpc_calls.client_mon and server_mon.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "causal/log-format.h"
#include "json.h"
#include "monitoring.h"
#include "trace.h"
#include "usage.h"

#define ALL_TYPES 0xfu

/* the types of calls: the first four of them */
static const char *const type_names[] = CAUSAL_MONTYPE_NAMES;

/* 'semantics|cpu' -> bits; NULL -> 0. */
static unsigned types_of(const unsigned char *s)
{
	unsigned bits = 0;

	while (s && *s) {
		size_t len = strcspn((const char *)s, "|");

		for (unsigned t = 0; t < 4; t++)
			if (strlen(type_names[t]) == len &&
			    !strncmp((const char *)s, type_names[t], len))
				bits |= 1u << t;
		s += len;
		if (*s)
			s++;
	}
	return bits;
}

static char *dup_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? strdup((const char *)s) : NULL;
}

static int load_intervals(struct ccsg_monitoring *m, sqlite3 *db)
{
	static const char sql[] =
		"SELECT h.name, p.pid, m.mono_ns, m.types, p.start_mono_ns, "
		"p.end_mono_ns, m.proc_id, m.kind FROM monitor_switches m "
		"JOIN processes p ON p.proc_id = m.proc_id JOIN hosts h ON "
		"h.host_id = p.host_id ORDER BY m.proc_id, m.seq";
	sqlite3_stmt *st;
	int64_t prev_proc = -1;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read monitor_switches: %s",
			    sqlite3_errmsg(db));
	m->throughout = ALL_TYPES;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t proc = sqlite3_column_int64(st, 6);
		unsigned types = types_of(sqlite3_column_text(st, 3));
		struct ccsg_mon_interval *last =
			m->niv ? &m->iv[m->niv - 1] : NULL;
		const unsigned char *kind = sqlite3_column_text(st, 7);

		if (kind && strcmp((const char *)kind, "initial"))
			m->switches++;
		m->throughout &= types;
		m->sometime |= types;
		if (last && proc == prev_proc) {
			if (last->types == types)
				continue; /* no change: one interval */
			last->to_ns = sqlite3_column_int64(st, 2);
		}
		if (m->niv == cap) {
			size_t n = cap ? 2 * cap : 16;
			void *p = realloc(m->iv, n * sizeof(*m->iv));

			if (!p) {
				sqlite3_finalize(st);
				return fail("out of memory");
			}
			m->iv = p;
			cap = n;
		}
		last = &m->iv[m->niv++];
		memset(last, 0, sizeof(*last));
		last->host = dup_text(st, 0);
		last->pid = sqlite3_column_int64(st, 1);
		last->from_ns = sqlite3_column_int64(st, 2);
		last->start_ns = sqlite3_column_int64(st, 4);
		last->to_ns = sqlite3_column_type(st, 5) == SQLITE_NULL
				      ? -1
				      : sqlite3_column_int64(st, 5);
		last->types = types;
		prev_proc = proc;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail("cannot read monitor_switches: %s",
			    sqlite3_errmsg(db));
	return 0;
}

/* The first call side of each chain monitored unlike the chain's first;
 * the chains where also holds (SQL on rpc_calls c, or NULL). */
static int load_cuts(struct ccsg_monitoring *m, sqlite3 *db, const char *where)
{
	static const char head[] =
		"SELECT c.call_id, CASE typeof(c.chain) WHEN 'blob' THEN "
		"lower(hex(c.chain)) ELSE c.chain END AS ch, c.client_mon, "
		"c.server_mon, c.prog, c.proc, coalesce(c.stub_start_event, "
		"c.skel_start_event) AS ev, (SELECT h.name || ' ' || p.pid "
		"FROM processes p JOIN hosts h ON h.host_id = p.host_id WHERE "
		"p.proc_id = c.client_proc_id), (SELECT h.name || ' ' || p.pid "
		"FROM processes p JOIN hosts h ON h.host_id = p.host_id WHERE "
		"p.proc_id = c.server_proc_id) FROM rpc_calls c WHERE "
		"(c.client_mon IS NOT NULL OR c.server_mon IS NOT NULL)";
	char chain[41] = "", *sql = NULL;
	unsigned ref = 0;
	int cut = 0, rc;
	size_t cap = 0;
	sqlite3_stmt *st;

	if (asprintf(&sql, "%s%s%s%s ORDER BY ch, ev, c.call_id", head,
		     where ? " AND (" : "", where ? where : "",
		     where ? ")" : "") < 0)
		return fail("out of memory");
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return fail("cannot read rpc_calls: %s", sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *ch = sqlite3_column_text(st, 1);
		int sides[2] = { sqlite3_column_type(st, 2) != SQLITE_NULL,
				 sqlite3_column_type(st, 3) != SQLITE_NULL };
		struct ccsg_mon_cut *c;

		if (!ch || strlen((const char *)ch) >= sizeof(chain))
			continue;
		if (strcmp((const char *)ch, chain)) {
			snprintf(chain, sizeof(chain), "%s", ch);
			ref = types_of(
				sqlite3_column_text(st, sides[0] ? 2 : 3));
			cut = 0;
		}
		for (int s = 0; s < 2 && !cut; s++) {
			unsigned types;

			if (!sides[s])
				continue;
			types = types_of(sqlite3_column_text(st, 2 + s));
			if (types == ref)
				continue;
			cut = 1;
			if (m->ncuts == cap) {
				size_t n = cap ? 2 * cap : 8;
				void *p =
					realloc(m->cuts, n * sizeof(*m->cuts));

				if (!p) {
					sqlite3_finalize(st);
					return fail("out of memory");
				}
				m->cuts = p;
				cap = n;
			}
			c = &m->cuts[m->ncuts++];
			memset(c, 0, sizeof(*c));
			snprintf(c->chain, sizeof(c->chain), "%s", chain);
			c->call_id = sqlite3_column_int64(st, 0);
			c->prog = sqlite3_column_int64(st, 4);
			c->proc = sqlite3_column_int64(st, 5);
			c->event = sqlite3_column_int64(st, 6);
			c->client = dup_text(st, 7);
			c->server = dup_text(st, 8);
			c->lost = ref & ~types;
			c->gained = types & ~ref;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
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
	memset(m, 0, sizeof(*m));
	if (ccsg_db_has_table(db, "monitor_switches") <= 0)
		return 0;
	m->present = 1;
	if (load_intervals(m, db) || (cuts && load_cuts(m, db, where))) {
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
	for (size_t i = 0; i < m->niv; i++)
		free(m->iv[i].host);
	for (size_t i = 0; i < m->ncuts; i++) {
		free(m->cuts[i].client);
		free(m->cuts[i].server);
	}
	free(m->iv);
	free(m->cuts);
	memset(m, 0, sizeof(*m));
}

static void types_text(FILE *f, unsigned bits, const char *sep)
{
	int n = 0;

	for (unsigned t = 0; t < 4; t++)
		if (bits & (1u << t))
			fprintf(f, "%s%s", n++ ? sep : "", type_names[t]);
	if (!n)
		fputs("none", f);
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

void ccsg_monitoring_text(FILE *f, const struct ccsg_monitoring *m)
{
	const char *host = NULL;
	int64_t pid = -1;

	if (!m->present ||
	    (!m->switches && m->throughout == ALL_TYPES && !m->ncuts))
		return;
	fprintf(f, "monitoring: %zu switch%s; on throughout: ", m->switches,
		m->switches == 1 ? "" : "es");
	types_text(f, m->throughout, ", ");
	fputs("; on at times: ", f);
	types_text(f, m->sometime & ~m->throughout, ", ");
	fputs(" (what was off is not in the figures below)\n", f);
	for (size_t i = 0; i < m->niv; i++) {
		const struct ccsg_mon_interval *iv = &m->iv[i];

		if (!host || strcmp(host, iv->host ? iv->host : "") ||
		    pid != iv->pid) {
			host = iv->host ? iv->host : "";
			pid = iv->pid;
			fprintf(f, "%s  %s pid %" PRId64 ":", i ? "\n" : "",
				host, pid);
		}
		fprintf(f, " from +%.3f s ",
			(iv->from_ns - iv->start_ns) / 1e9);
		types_text(f, iv->types, "|");
		fputc(';', f);
	}
	if (m->niv)
		fputc('\n', f);
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

void ccsg_monitoring_json(FILE *f, const struct ccsg_monitoring *m)
{
	fprintf(f, "{\"recorded\": %s, \"switches\": %zu, \"throughout\": ",
		m->present ? "true" : "false", m->switches);
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
		fputc('}', f);
	}
	fputs("], \"cut_chains\": [", f);
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
		fprintf(f, "  // %s\n", line);
	free(buf);
}
