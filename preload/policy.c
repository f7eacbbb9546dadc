/*
 * policy.c - parse a resource policy (policy.h has the grammar).
 *
 * Runs at the library's start-up, inside the traced program: no stdio
 * streams, no malloc (snprintf into the caller's buffer only).
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "read-file.h"

static const char *const resource_names[] = { "cpu", "rss", "heap", "blocked" };

const char *causal_policy_resource_name(unsigned resource)
{
	return resource < 4 ? resource_names[resource] : "?";
}

/* The item in [s, e) with the blanks removed, NUL-terminated in buf. */
static void squeeze(char *buf, size_t size, const char *s, const char *e)
{
	size_t n = 0;

	for (; s < e && n + 1 < size; s++)
		if (!isspace((unsigned char)*s))
			buf[n++] = *s;
	buf[n] = '\0';
}

/* An unsigned decimal number with an optional fraction, in 1/100s. */
static int number(const char **sp, uint64_t *hundredths)
{
	const char *s = *sp;
	uint64_t v = 0, frac = 0;
	int digits = 0, fdigits = 0;

	for (; isdigit((unsigned char)*s); s++, digits++) {
		if (v > UINT64_MAX / 1000)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++, fdigits++)
			if (fdigits < 2)
				frac = frac * 10 + (uint64_t)(*s - '0');
		if (fdigits == 1)
			frac *= 10;
	}
	if (!digits && !fdigits)
		return -1;
	*hundredths = v * 100 + frac;
	*sp = s;
	return 0;
}

/* number ('ms' | 's'), the whole of s, in milliseconds. */
static int duration(const char *s, uint32_t *ms)
{
	uint64_t h;

	if (number(&s, &h))
		return -1;
	if (!strcmp(s, "ms"))
		h /= 100;
	else if (!strcmp(s, "s"))
		h *= 10;
	else
		return -1;
	if (h > 3600 * 1000)
		return -1;
	*ms = (uint32_t)h;
	return 0;
}

static int fail(char *err, size_t errlen, const char *what, const char *item)
{
	snprintf(err, errlen, "policy: %s '%s'", what, item);
	return -1;
}

static int parse_rule(struct causal_policy_rule *r, const char *item,
		      const char *gt, char *err, size_t errlen)
{
	const char *s = gt + 1;
	size_t len = (size_t)(gt - item);
	uint64_t h;
	unsigned i;

	for (i = 0; i < 4; i++)
		if (strlen(resource_names[i]) == len &&
		    !strncmp(item, resource_names[i], len))
			break;
	if (i == 4)
		return fail(err, errlen, "unknown resource in", item);
	r->resource = (uint8_t)i;
	if (number(&s, &h))
		return fail(err, errlen, "no threshold in", item);
	if (i == CAUSAL_POLICY_CPU || i == CAUSAL_POLICY_BLOCKED) {
		r->threshold = h;
		r->window_ms = 1000;
		if (*s == '%')
			s++;
		if (i == CAUSAL_POLICY_BLOCKED && h > 10000)
			return fail(err, errlen, "a share above 100% in", item);
		if (*s == '/' &&
		    (duration(s + 1, &r->window_ms) || r->window_ms < 10))
			return fail(err, errlen, "bad window (10ms or more) in",
				    item);
		if (*s && *s != '/')
			return fail(err, errlen, "bad unit in", item);
	} else {
		static const char *const units[] = { "", "B", "KB", "MB",
						     "GB" };
		static const unsigned shift[] = { 0, 0, 10, 20, 30 };
		unsigned u;

		for (u = 0; u < 5; u++)
			if (!strcasecmp(s, units[u]))
				break;
		if (u == 5)
			return fail(err, errlen, "bad unit (B, KB, MB, GB) in",
				    item);
		if (h / 100 > (UINT64_MAX >> 31))
			return fail(err, errlen, "threshold too large in",
				    item);
		r->threshold = (h << shift[u]) / 100;
		r->window_ms = 0;
	}
	snprintf(r->text, sizeof(r->text), "%s", item);
	return 0;
}

/* RTMIN+k, RTMAX-k or a number: a signal the sampler may take. */
static int parse_signal(const char *v, int *signo)
{
	char *end;
	long k = 0;
	int base;

	if (!strncmp(v, "RTMIN", 5) || !strncmp(v, "RTMAX", 5)) {
		base = v[4] == 'N' ? SIGRTMIN : SIGRTMAX;
		v += 5;
		if (*v) {
			if (*v != (base == SIGRTMIN ? '+' : '-'))
				return -1;
			k = strtol(v + 1, &end, 10);
			if (*end || end == v + 1)
				return -1;
		}
		k = base == SIGRTMIN ? base + k : base - k;
	} else {
		k = strtol(v, &end, 10);
		if (*end || end == v)
			return -1;
	}
	/* not SIGKILL, SIGSTOP or what glibc keeps for itself */
	if (k < 1 || k > SIGRTMAX || k == SIGKILL || k == SIGSTOP ||
	    (k > SIGSYS && k < SIGRTMIN))
		return -1;
	*signo = (int)k;
	return 0;
}

static int setting(struct causal_policy *p, const char *item, const char *eq,
		   char *err, size_t errlen)
{
	size_t len = (size_t)(eq - item);
	const char *v = eq + 1;
	char *end;
	unsigned long n;

#define NAME_IS(s) (len == sizeof(s) - 1 && !strncmp(item, s, len))
	if (NAME_IS("period") || NAME_IS("holdoff")) {
		uint32_t ms;

		if (duration(v, &ms) ||
		    (NAME_IS("period") && (ms < 10 || ms > 10000)))
			return fail(err, errlen, "bad duration in", item);
		*(NAME_IS("period") ? &p->period_ms : &p->holdoff_ms) = ms;
		return 0;
	}
	if (NAME_IS("signal")) {
		if (parse_signal(v, &p->signo))
			return fail(err, errlen, "bad signal in", item);
		return 0;
	}
	if (NAME_IS("sampler")) {
		if (strcmp(v, "perf") && strcmp(v, "timer"))
			return fail(err, errlen, "bad sampler (perf, timer) in",
				    item);
		p->timer_only = !strcmp(v, "timer");
		return 0;
	}
	if (!NAME_IS("rate") && !NAME_IS("n") && !NAME_IS("depth"))
		return fail(err, errlen, "unknown setting", item);
	errno = 0;
	n = strtoul(v, &end, 10);
	if (*end || end == v || errno || *v == '-')
		return fail(err, errlen, "bad number in", item);
	if (NAME_IS("rate") && n >= 1 && n <= 10000)
		p->rate_hz = (uint32_t)n;
	else if (NAME_IS("n") && n >= 1 && n <= 100000)
		p->n = (uint32_t)n;
	else if (NAME_IS("depth") && n >= 1 && n <= CAUSAL_POLICY_DEPTH_MAX)
		p->depth = (uint32_t)n;
	else
		return fail(err, errlen, "value out of range in", item);
#undef NAME_IS
	return 0;
}

int causal_policy_parse(struct causal_policy *p, const char *text, char *err,
			size_t errlen)
{
	const char *s = text;

	memset(p, 0, sizeof(*p));
	p->rate_hz = 1000;
	p->n = 500;
	p->period_ms = 100;
	p->holdoff_ms = 1000;
	p->depth = 32;
	while (*s) {
		const char *e = s;
		char item[128];

		/* a comment runs to the end of its line */
		while (*e && !strchr(",;\n#", *e))
			e++;
		if ((size_t)(e - s) >= sizeof(item))
			return fail(err, errlen, "item too long at", "...");
		squeeze(item, sizeof(item), s, e);
		if (*e == '#')
			while (*e && *e != '\n')
				e++;
		s = *e ? e + 1 : e;
		if (!item[0])
			continue;
		if (strchr(item, '>')) {
			if (p->nrules == CAUSAL_POLICY_RULES_MAX)
				return fail(err, errlen, "too many rules at",
					    item);
			if (parse_rule(&p->rule[p->nrules], item,
				       strchr(item, '>'), err, errlen))
				return -1;
			p->nrules++;
		} else if (strchr(item, '=')) {
			if (setting(p, item, strchr(item, '='), err, errlen))
				return -1;
		} else {
			return fail(err, errlen, "neither a rule nor a setting",
				    item);
		}
	}
	if (!p->nrules)
		return fail(err, errlen, "no rule in", text);
	return 0;
}

int causal_policy_load(struct causal_policy *p,
		       const char *(*getenv_fn)(const char *), char *err,
		       size_t errlen)
{
	const char *text = getenv_fn("CAUSAL_POLICY");
	const char *file = getenv_fn("CAUSAL_POLICY_FILE");
	char buf[CAUSAL_POLICY_TEXT_MAX];
	ssize_t len;

	if (text && *text)
		return causal_policy_parse(p, text, err, errlen) ? -1 : 1;
	if (!file || !*file)
		return 0;
	/* never a FIFO or a device: the program would wait before main */
	len = causal_file_read(file, buf, sizeof(buf), 1);
	if (len == -ELOOP || len == -EINVAL) {
		snprintf(err, errlen, "policy: '%s' %s", file,
			 causal_file_strerror((int)-len));
		return -1;
	}
	if (len == -EFBIG) {
		snprintf(err, errlen, "policy: '%s' is longer than %d bytes",
			 file, CAUSAL_POLICY_TEXT_MAX - 1);
		return -1;
	}
	if (len < 0) {
		snprintf(err, errlen, "policy: cannot open '%s': %s", file,
			 strerror((int)-len));
		return -1;
	}
	if (strlen(buf) != (size_t)len) {
		snprintf(err, errlen, "policy: '%s' is not text", file);
		return -1;
	}
	return causal_policy_parse(p, buf, err, errlen) ? -1 : 1;
}
