/*
 * pes.c - program execution sequences (pes.h): the state table, the PES
 * file, clipping, the time and event filters and the three aggregations
 * of Chitra (TR 92-23, Section 2.3).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashmap.h"
#include "pes.h"
#include "usage.h"

#define NAME_MAX_LEN 255

/* What pes_undo() restores: the sequence before a sequence aggregation. */
struct pes_undo {
	uint32_t *seq;
	int64_t *t;
	size_t n;
	int64_t end;
	int end_known;
	size_t nstates;
};

static const struct {
	const char *name;
	double seconds;
} units[] = { { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 } };

int pes_init(struct pes *p, const char *unit)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].name)) {
			strcpy(p->unit, units[i].name);
			p->seconds_per_unit = units[i].seconds;
			return 0;
		}
	return -EINVAL;
}

static void state_free(struct pes_state *s)
{
	free(s->name);
	free(s->members);
	for (size_t i = 0; i < s->npaths; i++)
		free(s->paths[i].states);
	free(s->paths);
}

static void undo_free(struct pes_undo *u)
{
	free(u->seq);
	free(u->t);
}

void pes_release(struct pes *p)
{
	for (size_t i = 0; i < p->nstates; i++)
		state_free(&p->states[i]);
	free(p->states);
	free(p->seq);
	free(p->t);
	free(p->index);
	for (size_t i = 0; i < p->nundo; i++)
		undo_free(&p->undo[i]);
	free(p->undo);
	memset(p, 0, sizeof(*p));
}

/* --- the name index: open addressing, state + 1 per slot, 0 empty -------- */

static uint64_t hash_name(const char *s)
{
	return hash64(hash_fnv(HASH_FNV_SEED, s, strlen(s)));
}

static uint32_t *index_slot(const struct pes *p, const char *name)
{
	size_t mask = p->index_cap - 1;

	for (size_t i = hash_name(name) & mask;; i = (i + 1) & mask) {
		uint32_t v = p->index[i];

		if (!v || !strcmp(p->states[v - 1].name, name))
			return &p->index[i];
	}
}

static int index_rebuild(struct pes *p, size_t cap)
{
	uint32_t *idx = calloc(cap, sizeof(*idx));

	if (!idx)
		return -ENOMEM;
	free(p->index);
	p->index = idx;
	p->index_cap = cap;
	for (size_t i = 0; i < p->nstates; i++)
		*index_slot(p, p->states[i].name) = (uint32_t)i + 1;
	return 0;
}

static int name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > NAME_MAX_LEN)
		return 0;
	for (; *name; name++)
		if (isspace((unsigned char)*name))
			return 0;
	return 1;
}

/* A new state of kind, name unused (checked by the caller). */
static int64_t state_new(struct pes *p, const char *name, enum pes_kind kind)
{
	struct pes_state *s;

	if (p->nstates >= UINT32_MAX - 1)
		return -ENOMEM;
	if (2 * (p->nstates + 1) > p->index_cap &&
	    index_rebuild(p, p->index_cap ? 2 * p->index_cap : 64))
		return -ENOMEM;
	if (GROW(p->states, p->cap_states, p->nstates + 1))
		return -ENOMEM;
	s = &p->states[p->nstates];
	memset(s, 0, sizeof(*s));
	if (!(s->name = strdup(name)))
		return -ENOMEM;
	s->kind = kind;
	*index_slot(p, name) = (uint32_t)p->nstates + 1;
	return (int64_t)p->nstates++;
}

int64_t pes_state(struct pes *p, const char *name, int create)
{
	uint32_t v;

	if (!name_ok(name))
		return -EINVAL;
	v = p->index_cap ? *index_slot(p, name) : 0;
	if (v)
		return v - 1;
	if (!create)
		return -ENOENT;
	return state_new(p, name, PES_PROGRAM);
}

int pes_append(struct pes *p, int64_t t, uint32_t state)
{
	if (state >= p->nstates || (p->n && t < p->t[p->n - 1]))
		return -EINVAL;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 1024;
		uint32_t *s = realloc(p->seq, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		p->seq = s;
		int64_t *tt = realloc(p->t, cap * sizeof(*tt));
		if (!tt)
			return -ENOMEM;
		p->t = tt;
		p->cap = cap;
	}
	p->seq[p->n] = state;
	p->t[p->n++] = t;
	return 0;
}

/* --- the PES file ----------------------------------------------------------
 */

/* A time of the file: a whole number of its timebase from 0. */
static int parse_time(const char *s, int64_t *v)
{
	char *e;

	errno = 0;
	long long x = strtoll(s, &e, 10);
	if (errno || e == s || *e || x < 0)
		return -1;
	*v = x;
	return 0;
}

/* Split line into at most max blank-separated words (in place). */
static size_t split(char *line, char **w, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *tok = strtok_r(line, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return max + 1;
		w[n++] = tok;
	}
	return n;
}

int pes_read(struct pes *p, FILE *in, const char *path)
{
	char *line = NULL, *w[4];
	size_t cap = 0, lineno = 0;
	int have_base = 0, ret = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, in)) >= 0) {
		size_t nw;
		int64_t t;
		int64_t s;

		lineno++;
		if (memchr(line, '\0', (size_t)len)) {
			ret = fail("%s:%zu: a NUL byte", path, lineno);
			goto out;
		}
		char *c = line + strspn(line, " \t\r\n");
		if (!*c || *c == '#')
			continue;
		nw = split(c, w, 3);
		if (p->end_known) {
			ret = fail("%s:%zu: a line after 'end'", path, lineno);
			goto out;
		}
		if (!strcmp(w[0], "timebase")) {
			if (have_base || p->n) {
				ret = fail("%s:%zu: 'timebase' comes once, "
					   "before the first state",
					   path, lineno);
				goto out;
			}
			if (nw != 2 || pes_init(p, w[1])) {
				ret = fail("%s:%zu: expected 'timebase "
					   "s|ms|us|ns'",
					   path, lineno);
				goto out;
			}
			have_base = 1;
			continue;
		}
		if (!have_base) {
			ret = fail("%s:%zu: expected 'timebase UNIT' before "
				   "the first state",
				   path, lineno);
			goto out;
		}
		if (!strcmp(w[0], "end")) {
			if (nw != 2 || parse_time(w[1], &t)) {
				ret = fail("%s:%zu: expected 'end TIME'", path,
					   lineno);
				goto out;
			}
			if (!p->n || t < p->t[p->n - 1]) {
				ret = fail("%s:%zu: 'end' %" PRId64
					   " before the last state",
					   path, lineno, t);
				goto out;
			}
			p->end = t;
			p->end_known = 1;
			continue;
		}
		if (nw != 2) {
			ret = fail("%s:%zu: expected 'TIME STATE'", path,
				   lineno);
			goto out;
		}
		if (parse_time(w[0], &t)) {
			ret = fail("%s:%zu: bad time '%s' (a whole number from "
				   "0)",
				   path, lineno, w[0]);
			goto out;
		}
		if (p->n && t < p->t[p->n - 1]) {
			ret = fail("%s:%zu: time %" PRId64
				   " is before the previous %" PRId64,
				   path, lineno, t, p->t[p->n - 1]);
			goto out;
		}
		s = pes_state(p, w[1], 1);
		if (s == -EINVAL) {
			ret = fail("%s:%zu: a state name is at most %d bytes",
				   path, lineno, NAME_MAX_LEN);
			goto out;
		}
		if (s < 0 || pes_append(p, t, (uint32_t)s)) {
			ret = fail("out of memory");
			goto out;
		}
	}
	if (ferror(in))
		ret = fail("cannot read '%s': %s", path, strerror(errno));
	else if (!p->n)
		ret = fail("%s: no state in the file", path);
out:
	free(line);
	return ret ? -EINVAL : 0;
}

int pes_write(const struct pes *p, FILE *out)
{
	fprintf(out, "timebase %s\n", p->unit);
	for (size_t i = 0; i < p->n; i++)
		fprintf(out, "%" PRId64 " %s\n", p->t[i],
			p->states[p->seq[i]].name);
	if (p->end_known)
		fprintf(out, "end %" PRId64 "\n", p->end);
	return ferror(out) ? -EIO : 0;
}

/* --- clipping ------------------------------------------------------------- */

static int64_t last_time(const struct pes *p)
{
	return p->end_known ? p->end : p->t[p->n - 1];
}

/* Keep entries [a, b) only. */
static void keep_range(struct pes *p, size_t a, size_t b)
{
	memmove(p->seq, p->seq + a, (b - a) * sizeof(*p->seq));
	memmove(p->t, p->t + a, (b - a) * sizeof(*p->t));
	p->n = b - a;
}

int pes_clip_time(struct pes *p, int64_t t0, int64_t t1)
{
	size_t a = 0, b;

	if (!p->n || t0 >= t1 || t1 <= p->t[0] || t0 >= last_time(p))
		return fail("time range %" PRId64 ":%" PRId64
			    " is outside the sequence (%" PRId64 " to %" PRId64
			    ")",
			    t0, t1, p->n ? p->t[0] : 0,
			    p->n ? last_time(p) : 0),
		       -ERANGE;
	/* the entry in force at t0: the last one entered at or before it */
	while (a + 1 < p->n && p->t[a + 1] <= t0)
		a++;
	for (b = a; b < p->n && p->t[b] < t1; b++)
		;
	if (t1 < last_time(p)) {
		p->end = t1;
		p->end_known = 1;
	}
	if (p->t[a] < t0)
		p->t[a] = t0;
	keep_range(p, a, b);
	return 0;
}

int pes_clip_event(struct pes *p, size_t e0, size_t e1)
{
	if (e0 > e1 || e1 >= p->n)
		return fail("event range %zu:%zu is outside the sequence "
			    "(events 0 to %zu)",
			    e0, e1, p->n ? p->n - 1 : 0),
		       -ERANGE;
	if (e1 + 1 < p->n) {
		p->end = p->t[e1 + 1];
		p->end_known = 1;
	}
	keep_range(p, e0, e1 + 1);
	return 0;
}

/* --- filters: remove every entry of the states drop marks ----------------- */

int pes_remove_states(struct pes *p, const unsigned char *drop,
		      const char *what)
{
	size_t k = 0, i;

	for (i = 0; i < p->n && drop[p->seq[i]]; i++)
		;
	if (i == p->n)
		return fail("the %s filter would remove every state", what),
		       -EINVAL;
	/* the last entry, when removed, ends what comes before it: its own
	 * occupancy was unknown */
	if (!p->end_known && drop[p->seq[p->n - 1]]) {
		p->end = p->t[p->n - 1];
		p->end_known = 1;
	}
	for (; i < p->n; i++)
		if (!drop[p->seq[i]]) {
			p->seq[k] = p->seq[i];
			p->t[k++] = p->t[i];
		}
	p->n = k;
	for (size_t s = 0; s < p->nstates; s++)
		if (drop[s])
			p->states[s].removed = 1;
	return 0;
}

int pes_filter_time(struct pes *p, double fraction)
{
	double span = (double)(last_time(p) - p->t[0]);
	double *total = calloc(p->nstates, sizeof(*total));
	unsigned char *drop = calloc(p->nstates, 1);
	int ret = 0;

	if (!total || !drop) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < p->n; i++) {
		int64_t o = pes_occupancy(p, i);

		if (o > 0)
			total[p->seq[i]] += (double)o;
	}
	for (size_t s = 0; s < p->nstates; s++)
		drop[s] = span > 0 ? total[s] < fraction * span : fraction > 0;
	ret = pes_remove_states(p, drop, "time");
out:
	free(total);
	free(drop);
	return ret;
}

int pes_filter_event(struct pes *p, size_t k)
{
	size_t *count = calloc(p->nstates, sizeof(*count));
	unsigned char *drop = calloc(p->nstates, 1);
	int ret = -ENOMEM;

	if (count && drop) {
		for (size_t i = 0; i < p->n; i++)
			count[p->seq[i]]++;
		for (size_t s = 0; s < p->nstates; s++)
			drop[s] = count[s] < k;
		ret = pes_remove_states(p, drop, "event");
	}
	free(count);
	free(drop);
	return ret;
}

/* --- aggregation ---------------------------------------------------------- */

/* "S1 S2 ... -> AGG": the states (which must be in the sequence) in
 * *states, *k of them, the aggregate's name in *agg (in line). */
static int parse_rule(struct pes *p, char *line, const char *where,
		      const size_t *count, uint32_t **states, size_t *k,
		      char **agg)
{
	char *arrow = strstr(line, "->"), *save = NULL;
	uint32_t *v = NULL;
	size_t n = 0, cap = 0;

	if (!arrow)
		return fail("%s: expected 'STATE... -> AGGREGATE'", where);
	*arrow = '\0';
	char *name = strtok_r(arrow + 2, " \t\r\n", &save);
	if (!name || strtok_r(NULL, " \t\r\n", &save) || !name_ok(name))
		return fail("%s: expected one aggregate name after '->'",
			    where);
	save = NULL;
	for (char *w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		int64_t s = pes_state(p, w, 0);

		if (s < 0 || !count[s]) {
			free(v);
			return fail("%s: the rule names no state '%s' of the "
				    "sequence",
				    where, w);
		}
		if (GROW(v, cap, n + 1)) {
			free(v);
			return fail("out of memory");
		}
		v[n++] = (uint32_t)s;
	}
	if (!n)
		return fail("%s: the rule lists no state before '->'", where);
	*states = v;
	*k = n;
	*agg = name;
	return 0;
}

static size_t *count_states(const struct pes *p)
{
	size_t *count = calloc(p->nstates + 1, sizeof(*count));

	if (count)
		for (size_t i = 0; i < p->n; i++)
			count[p->seq[i]]++;
	return count;
}

struct static_rule {
	uint32_t *states;
	size_t k;
	char *agg;
};

static int apply_static(struct pes *p, struct static_rule *r, size_t nr)
{
	size_t n0 = p->nstates, k = 0;
	uint32_t *map = malloc(n0 * sizeof(*map));
	unsigned char *mapped = calloc(n0, 1);
	int ret = 0;

	if (!map || !mapped) {
		ret = fail("out of memory");
		goto out;
	}
	for (size_t s = 0; s < n0; s++)
		map[s] = (uint32_t)s;
	for (size_t i = 0; i < nr; i++) {
		int64_t a = pes_state(p, r[i].agg, 0);

		if (a < 0)
			a = state_new(p, r[i].agg, PES_STATIC);
		if (a < 0) {
			ret = fail("out of memory");
			goto out;
		}
		struct pes_state *as = &p->states[a];
		uint32_t *m = realloc(as->members,
				      (as->nmembers + r[i].k) * sizeof(*m));
		if (!m) {
			ret = fail("out of memory");
			goto out;
		}
		memcpy(m + as->nmembers, r[i].states, r[i].k * sizeof(*m));
		as->members = m;
		as->nmembers += r[i].k;
		for (size_t j = 0; j < r[i].k; j++) {
			map[r[i].states[j]] = (uint32_t)a;
			mapped[r[i].states[j]] = 1;
		}
	}
	/* consecutive entries of one aggregate: the program stays in it */
	for (size_t i = 0; i < p->n; i++) {
		uint32_t s = p->seq[i];

		/* map[s] is new (>= n0): an equal entry before came from
		 * a rule too */
		if (mapped[s] && k && p->seq[k - 1] == map[s])
			continue;
		p->seq[k] = map[s];
		p->t[k++] = p->t[i];
	}
	p->n = k;
out:
	free(map);
	free(mapped);
	return ret;
}

/* Check the rules (no state in two, aggregates new), then apply them. */
static int static_rules(struct pes *p, struct static_rule *r, size_t nr,
			const char *path, const size_t *lines)
{
	unsigned char *seen = calloc(p->nstates, 1);
	int ret = 0;

	if (!seen)
		return fail("out of memory");
	for (size_t i = 0; i < nr && !ret; i++) {
		char where[4200];

		if (lines)
			snprintf(where, sizeof(where), "%s:%zu", path,
				 lines[i]);
		else
			snprintf(where, sizeof(where), "%s", path);
		if (pes_state(p, r[i].agg, 0) >= 0)
			ret = fail("%s: aggregate '%s' is already a state",
				   where, r[i].agg);
		for (size_t j = 0; j < r[i].k && !ret; j++) {
			if (seen[r[i].states[j]])
				ret = fail("%s: state '%s' is in two rules",
					   where,
					   p->states[r[i].states[j]].name);
			seen[r[i].states[j]] = 1;
		}
	}
	free(seen);
	return ret ? ret : apply_static(p, r, nr);
}

int pes_aggregate_static(struct pes *p, FILE *rules, const char *path)
{
	struct static_rule *r = NULL;
	size_t nr = 0, cap_r = 0, cap = 0, lineno = 0, *lines = NULL;
	size_t cap_l = 0;
	char *line = NULL, **kept = NULL;
	size_t *count = count_states(p);
	int ret = 0;

	if (!count)
		return fail("out of memory"), -ENOMEM;
	while (getline(&line, &cap, rules) >= 0) {
		char where[64 + 4096];
		char *c = line + strspn(line, " \t\r\n");

		lineno++;
		if (!*c || *c == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%zu", path, lineno);
		if (GROW(r, cap_r, nr + 1) || GROW(lines, cap_l, nr + 1) ||
		    !(kept = realloc(kept, (nr + 1) * sizeof(*kept))) ||
		    !(kept[nr] = strdup(c))) {
			ret = fail("out of memory");
			break;
		}
		if ((ret = parse_rule(p, kept[nr], where, count, &r[nr].states,
				      &r[nr].k, &r[nr].agg))) {
			free(kept[nr]);
			break;
		}
		lines[nr++] = lineno;
	}
	if (!ret && ferror(rules))
		ret = fail("cannot read '%s'", path);
	if (!ret && !nr)
		ret = fail("%s: no rule in the file", path);
	if (!ret)
		ret = static_rules(p, r, nr, path, lines);
	for (size_t i = 0; i < nr; i++) {
		free(r[i].states);
		free(kept[i]);
	}
	free(kept);
	free(r);
	free(lines);
	free(line);
	free(count);
	return ret ? -EINVAL : 0;
}

int pes_aggregate_rule(struct pes *p, const char *rule)
{
	struct static_rule r;
	size_t *count = count_states(p);
	char *copy = strdup(rule);
	int ret;

	if (!count || !copy)
		ret = fail("out of memory");
	else if (!(ret = parse_rule(p, copy, "rule", count, &r.states, &r.k,
				    &r.agg))) {
		ret = static_rules(p, &r, 1, "rule", NULL);
		free(r.states);
	}
	free(copy);
	free(count);
	return ret ? -EINVAL : 0;
}

static int undo_push(struct pes *p)
{
	struct pes_undo u = { 0 };

	if (GROW(p->undo, p->cap_undo, p->nundo + 1))
		return -ENOMEM;
	u.seq = malloc((p->n + 1) * sizeof(*u.seq));
	u.t = malloc((p->n + 1) * sizeof(*u.t));
	if (!u.seq || !u.t) {
		undo_free(&u);
		return -ENOMEM;
	}
	memcpy(u.seq, p->seq, p->n * sizeof(*u.seq));
	memcpy(u.t, p->t, p->n * sizeof(*u.t));
	u.n = p->n;
	u.end = p->end;
	u.end_known = p->end_known;
	u.nstates = p->nstates;
	p->undo[p->nundo++] = u;
	return 0;
}

int pes_undo(struct pes *p)
{
	struct pes_undo *u;

	if (!p->nundo)
		return fail("nothing to undo: no sequence aggregation"),
		       -ENOENT;
	u = &p->undo[--p->nundo];
	free(p->seq);
	free(p->t);
	p->seq = u->seq;
	p->t = u->t;
	p->n = p->cap = u->n;
	p->end = u->end;
	p->end_known = u->end_known;
	/* states named since are gone; none was removed by a filter since,
	 * as far as the restored sequence is concerned */
	while (p->nstates > u->nstates)
		state_free(&p->states[--p->nstates]);
	for (size_t i = 0; i < p->n; i++)
		p->states[p->seq[i]].removed = 0;
	return index_rebuild(p, p->index_cap);
}

static int check_new_name(struct pes *p, const char *name)
{
	if (!name_ok(name))
		return fail("bad aggregate name '%s'", name);
	if (pes_state(p, name, 0) >= 0)
		return fail("aggregate '%s' is already a state", name);
	return 0;
}

int pes_aggregate_sequence(struct pes *p, const uint32_t *pattern, size_t k,
			   const char *name)
{
	size_t out = 0, found = 0;
	int64_t a;

	if (k < 2)
		return fail("a sequence aggregate needs 2 states or more"),
		       -EINVAL;
	for (size_t j = 0; j < k; j++)
		if (pattern[j] >= p->nstates)
			return -EINVAL;
	if (check_new_name(p, name))
		return -EINVAL;
	for (size_t i = 0; i + k <= p->n && !found; i++)
		found = !memcmp(p->seq + i, pattern, k * sizeof(*pattern));
	if (!found)
		return fail("sequence for '%s' does not occur", name), -ENOENT;
	if (undo_push(p) || (a = state_new(p, name, PES_SEQUENCE)) < 0)
		return fail("out of memory"), -ENOMEM;
	struct pes_state *s = &p->states[a];
	if (!(s->members = malloc(k * sizeof(*s->members))))
		return fail("out of memory"), -ENOMEM;
	memcpy(s->members, pattern, k * sizeof(*pattern));
	s->nmembers = k;
	/* left to right, without overlap: AABAACAABAAD with AA -> Y gives
	 * YBYCYBYD (Section 2.3.3) */
	for (size_t i = 0; i < p->n;) {
		if (i + k <= p->n &&
		    !memcmp(p->seq + i, pattern, k * sizeof(*pattern))) {
			p->seq[out] = (uint32_t)a;
			p->t[out++] = p->t[i];
			i += k;
		} else {
			p->seq[out] = p->seq[i];
			p->t[out++] = p->t[i++];
		}
	}
	p->n = out;
	return 0;
}

/* The path states[0..len) of parallel aggregate s: its index, added when
 * new. */
static int64_t path_find(struct pes_state *s, struct hashmap *m, size_t *cap,
			 const uint32_t *states, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ states[i]) * 0x100000001b3ULL;
	h = hash64(h ^ len);
	for (;; h++) {
		int32_t v = hashmap_get(m, h);

		if (v < 0)
			break;
		if (s->paths[v].len == len &&
		    !memcmp(s->paths[v].states, states, len * sizeof(*states)))
			return v;
	}
	if (s->npaths >= INT32_MAX || GROW(s->paths, *cap, s->npaths + 1))
		return -ENOMEM;
	struct pes_path *pa = &s->paths[s->npaths];
	memset(pa, 0, sizeof(*pa));
	if (!(pa->states = malloc(len * sizeof(*states))))
		return -ENOMEM;
	memcpy(pa->states, states, len * sizeof(*states));
	pa->len = len;
	if (hashmap_put(m, h, (int32_t)s->npaths) < 0)
		return -ENOMEM;
	return (int64_t)s->npaths++;
}

int pes_aggregate_parallel(struct pes *p, uint32_t from, uint32_t to,
			   const char *name)
{
	struct hashmap m = { 0 };
	size_t out = 0, cap = 0, found = 0;
	int64_t a;
	int ret = 0;

	if (from >= p->nstates || to >= p->nstates)
		return -EINVAL;
	if (check_new_name(p, name))
		return -EINVAL;
	/* is there a path at all? */
	for (size_t i = 0; i < p->n && !found; i++) {
		if (p->seq[i] != from)
			continue;
		size_t j = i + 1;
		while (j < p->n && p->seq[j] != to && p->seq[j] != from)
			j++;
		found = j < p->n && p->seq[j] == to && j > i + 1;
	}
	if (!found)
		return fail("no state lies between '%s' and '%s'",
			    p->states[from].name, p->states[to].name),
		       -ENOENT;
	if ((a = state_new(p, name, PES_PARALLEL)) < 0)
		return fail("out of memory"), -ENOMEM;
	struct pes_state *s = &p->states[a];
	if (!(s->members = malloc(2 * sizeof(*s->members))))
		return fail("out of memory"), -ENOMEM;
	s->members[0] = from;
	s->members[1] = to;
	s->nmembers = 2;
	for (size_t i = 0; i < p->n;) {
		size_t j = i + 1;

		p->seq[out] = p->seq[i];
		p->t[out++] = p->t[i];
		if (p->seq[i] != from) {
			i++;
			continue;
		}
		while (j < p->n && p->seq[j] != to && p->seq[j] != from)
			j++;
		if (j < p->n && p->seq[j] == to && j == i + 1) {
			s->direct++;
		} else if (j < p->n && p->seq[j] == to) {
			int64_t v = path_find(s, &m, &cap, p->seq + i + 1,
					      j - i - 1);
			if (v < 0) {
				ret = fail("out of memory");
				break;
			}
			s->paths[v].count++;
			s->paths[v].sojourn += (double)(p->t[j] - p->t[i + 1]);
			p->seq[out] = (uint32_t)a;
			p->t[out++] = p->t[i + 1];
			i = j;
			continue;
		}
		/* no path: copy what lies before j as it is */
		while (++i < j) {
			p->seq[out] = p->seq[i];
			p->t[out++] = p->t[i];
		}
	}
	p->n = out;
	hashmap_release(&m);
	return ret;
}
