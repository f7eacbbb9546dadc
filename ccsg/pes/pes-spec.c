/*
 * pes-spec.c - the steps of `ccsg pes` written as text (pes-spec.h):
 * --clip, --filter and --aggregate parsed, each applied through the
 * transformation of pes.h it names, a malformed one said in one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pes-spec.h"
#include "usage.h"

/* --- numbers ---------------------------------------------------------------
 */

int pes_parse_u64(const char *s, uint64_t *v)
{
	char *e;

	errno = 0;
	if (*s == '-' || *s == '+')
		return -EINVAL;
	*v = strtoull(s, &e, 10);
	return errno || e == s || *e ? -EINVAL : 0;
}

int pes_parse_double(const char *s, double *v)
{
	char *e;

	errno = 0;
	*v = strtod(s, &e);
	return errno || e == s || *e || *v != *v ? -EINVAL : 0;
}

/* "A:B" as two signed 64-bit integers. */
int pes_parse_range(const char *s, int64_t *a, int64_t *b)
{
	char *e, *f;

	errno = 0;
	*a = strtoll(s, &e, 10);
	if (errno || e == s || *e != ':')
		return -EINVAL;
	*b = strtoll(e + 1, &f, 10);
	return errno || f == e + 1 || *f ? -EINVAL : 0;
}

/* --- the steps ------------------------------------------------------------ */

int pes_clip_spec(struct pes *p, const char *v)
{
	int64_t a, b;

	if (!strncmp(v, "time:", 5) && !pes_parse_range(v + 5, &a, &b)) {
		if (a < 0 || b < 0)
			return fail("time range %s is outside the sequence "
				    "(times are not negative)",
				    v + 5),
			       -ERANGE;
		return pes_clip_time(p, a, b);
	}
	if (!strncmp(v, "event:", 6) && !pes_parse_range(v + 6, &a, &b)) {
		if (a < 0 || b < 0)
			return fail("event range %s is outside the sequence",
				    v + 6),
			       -ERANGE;
		return pes_clip_event(p, (size_t)a, (size_t)b);
	}
	return fail("bad --clip '%s': expected time:T0:T1 or event:E0:E1", v),
	       -EINVAL;
}

int pes_filter_spec(struct pes *p, const char *v)
{
	double x, f0, f1, share = 0.5;
	uint64_t k;

	if (!strncmp(v, "time:", 5) && !pes_parse_double(v + 5, &x) && x >= 0 &&
	    x <= 1)
		return pes_filter_time(p, x);
	if (!strncmp(v, "event:", 6) && !pes_parse_u64(v + 6, &k))
		return pes_filter_event(p, (size_t)k);
	if (!strncmp(v, "frequency:", 10)) {
		char buf[128], *f[4], *save = NULL;
		size_t n = 0;

		snprintf(buf, sizeof(buf), "%s", v + 10);
		for (char *w = strtok_r(buf, ":", &save); w && n < 4;
		     w = strtok_r(NULL, ":", &save))
			f[n++] = w;
		if ((n == 2 || n == 3) && !pes_parse_double(f[0], &f0) &&
		    !pes_parse_double(f[1], &f1) &&
		    (n == 2 || (!pes_parse_double(f[2], &share) && share > 0 &&
				share <= 1)))
			return pes_filter_freq(p, f0, f1, share);
	}
	return fail("bad --filter '%s': expected time:FRACTION (0 to 1), "
		    "event:K or frequency:F0:F1[:SHARE]",
		    v),
	       -EINVAL;
}

/* "S1 S2 ... -> A" as state numbers (which must be states) and a name:
 * 0, or -EINVAL after the message. */
static int rule_states(struct pes *p, const char *rule, uint32_t *v, size_t max,
		       size_t *k, char *name, size_t namelen)
{
	char buf[4096], *save = NULL, *arrow;

	snprintf(buf, sizeof(buf), "%s", rule);
	if (!(arrow = strstr(buf, "->")))
		return fail("bad rule '%s': expected 'STATE... -> AGGREGATE'",
			    rule),
		       -EINVAL;
	*arrow = '\0';
	char *agg = strtok_r(arrow + 2, " \t", &save);
	if (!agg || strtok_r(NULL, " \t", &save) || strlen(agg) >= namelen)
		return fail("bad rule '%s': expected one name after '->'",
			    rule),
		       -EINVAL;
	strcpy(name, agg);
	*k = 0;
	save = NULL;
	for (char *w = strtok_r(buf, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		int64_t s = pes_state(p, w, 0);

		if (s < 0)
			return fail("rule '%s' names no state '%s'", rule, w),
			       -EINVAL;
		if (*k == max)
			return fail("rule '%s' has more than %zu states", rule,
				    max),
			       -EINVAL;
		v[(*k)++] = (uint32_t)s;
	}
	return 0;
}

int pes_aggregate_spec(struct pes *p, const char *v)
{
	uint32_t st[256];
	char name[256];
	size_t k;
	int ret;

	if (!strcmp(v, "undo"))
		return pes_undo(p);
	if (!strncmp(v, "rules:", 6)) {
		FILE *f = fopen(v + 6, "r");

		if (!f) {
			ret = -errno;
			fail("cannot open '%s': %s", v + 6, strerror(-ret));
			return ret;
		}
		ret = pes_aggregate_static(p, f, v + 6);
		fclose(f);
		return ret;
	}
	if (!strncmp(v, "static:", 7))
		return pes_aggregate_rule(p, v + 7);
	if (!strncmp(v, "sequence:", 9)) {
		if ((ret = rule_states(p, v + 9, st, 256, &k, name,
				       sizeof(name))))
			return ret;
		return pes_aggregate_sequence(p, st, k, name);
	}
	if (!strncmp(v, "parallel:", 9)) {
		if ((ret = rule_states(p, v + 9, st, 256, &k, name,
				       sizeof(name))))
			return ret;
		if (k != 2)
			return fail("a parallel rule names two states, from "
				    "and "
				    "to: '%s'",
				    v + 9),
			       -EINVAL;
		return pes_aggregate_parallel(p, st[0], st[1], name);
	}
	return fail("bad --aggregate '%s': expected rules:FILE, static:RULE, "
		    "sequence:RULE, parallel:RULE or undo",
		    v),
	       -EINVAL;
}
