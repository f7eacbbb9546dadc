#include <stdio.h>
#include <string.h>

#include "causal/bpf-clock.h"
#include "causal/log-format.h"
#include "config.h"

int causal_parse_uint(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return -1;
	}
	if (v < min)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Digits of s into *v (at most max_digits of them); the end, or NULL. */
static const char *digits(const char *s, int max_digits, uint64_t *v, int *n)
{
	*v = 0;
	for (*n = 0; *s >= '0' && *s <= '9'; s++, ++*n) {
		if (*n == max_digits)
			return NULL;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	return *n ? s : NULL;
}

int causal_parse_sample(const char *s, uint64_t *threshold)
{
	uint64_t num, den = 1, frac = 0;
	int n, k = 0;

	if (!s || !(s = digits(s, 18, &num, &n)))
		return -1;
	if (*s == '/') {
		if (!(s = digits(s + 1, 18, &den, &n)) || *s || !den)
			return -1;
	} else if (*s == '.') {
		/* num.frac as (num * 10^k + frac) / 10^k */
		if (!(s = digits(s + 1, 18, &frac, &k)) || *s)
			return -1;
		for (int i = 0; i < k; i++)
			den *= 10;
		if (num > 1)
			return -1;
		num = num * den + frac;
	} else if (*s) {
		return -1;
	}
	if (num > den)
		return -1;
	*threshold = num == den
			     ? CAUSAL_DEFAULT_SAMPLE
			     : (uint64_t)(((unsigned __int128)num << 64) / den);
	return 0;
}

int causal_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
	uint64_t v;
	int n;

	if (!s || !(s = digits(s, 10, &v, &n)))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s, units[i].unit))
			continue;
		if (!v || v * units[i].ns > 3600000000000ull)
			return -1;
		*ns = v * units[i].ns;
		return 0;
	}
	return -1;
}

int causal_parse_monitor(const char *s, uint32_t *types)
{
	static const char *const names[] = CAUSAL_MONTYPE_NAMES;
	enum { NTYPES = sizeof(names) / sizeof(names[0]) };
	uint32_t v = 0;

	if (!s || !*s)
		return -1;
	for (;;) {
		size_t len = strcspn(s, ","), i;
		uint32_t bits;

		for (i = 0; i < NTYPES; i++)
			if (strlen(names[i]) == len &&
			    !strncmp(s, names[i], len))
				break;
		if (i < NTYPES)
			bits = 1u << i;
		else if (len == 3 && !strncmp(s, "all", 3))
			bits = CAUSAL_MONTYPE_SEMANTICS |
			       CAUSAL_MONTYPE_LATENCY | CAUSAL_MONTYPE_CPU |
			       CAUSAL_MONTYPE_MEMORY;
		else if (len == 4 && !strncmp(s, "none", 4))
			bits = 0;
		else
			return -1;
		v |= bits;
		s += len;
		if (!*s)
			break;
		s++; /* the comma; nothing after it is an error */
	}
	*types = v;
	return 0;
}

int causal_parse_hostport(const char *s, char *host, size_t size,
			  uint16_t default_port, uint16_t *port)
{
	const char *end, *colon;
	uint32_t p = default_port;
	size_t len;

	if (!s || !*s)
		return -1;
	if (*s == '[') {
		end = strchr(s, ']');
		if (!end)
			return -1;
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] && !colon)
			return -1;
		s++;
		len = (size_t)(end - s);
	} else {
		colon = strchr(s, ':');
		if (colon && strchr(colon + 1, ':'))
			return -1; /* IPv6 without brackets */
		len = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (!len || len >= size || strcspn(s, " \t\n/") < len)
		return -1;
	if (colon && causal_parse_uint(colon + 1, 1, 65535, &p))
		return -1;
	memcpy(host, s, len);
	host[len] = '\0';
	*port = (uint16_t)p;
	return 0;
}

static uint32_t round_up_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static int note(char *buf, size_t size, const char *name, const char *value,
		const char *why)
{
	size_t len = strlen(buf);

	if (len < size)
		snprintf(buf + len, size - len,
			 "causal: ignoring %s='%.64s': %s\n", name, value, why);
	return 1;
}

/* Tail keep's variables (keep.h): a bad one is said, its default kept. */
static int keep_config(struct causal_config *cfg, causal_getenv_fn getenv_fn,
		       char *problems, size_t problems_size)
{
	const char *v = getenv_fn("CAUSAL_KEEP_SLOWER_THAN");
	int n = 0;

	if (v && !strcmp(v, "p99"))
		cfg->keep_slower_ns = CAUSAL_KEEP_P99;
	else if (v && causal_parse_duration(v, &cfg->keep_slower_ns))
		n += note(problems, problems_size, "CAUSAL_KEEP_SLOWER_THAN", v,
			  "expected a duration such as 250ms, 2s or 800us, or "
			  "p99; tail keep is off");
	v = getenv_fn("CAUSAL_KEEP_WINDOW");
	if (v && causal_parse_duration(v, &cfg->keep_window_ns)) {
		cfg->keep_window_ns = CAUSAL_DEFAULT_KEEP_WINDOW_NS;
		n += note(problems, problems_size, "CAUSAL_KEEP_WINDOW", v,
			  "expected a duration such as 10s or 500ms; 10s");
	}
	v = getenv_fn("CAUSAL_KEEP_RING_KB");
	if (v && causal_parse_uint(v, 64, 1u << 20, &cfg->keep_ring_kb)) {
		cfg->keep_ring_kb = CAUSAL_DEFAULT_KEEP_RING_KB;
		n += note(problems, problems_size, "CAUSAL_KEEP_RING_KB", v,
			  "expected 64 to 1048576; 4096");
	}
	return n;
}

int causal_config_load(struct causal_config *cfg, causal_getenv_fn getenv_fn,
		       char *problems, size_t problems_size)
{
	const char *v;
	int n = 0;

	if (problems_size)
		problems[0] = '\0';
	snprintf(cfg->log_dir, sizeof(cfg->log_dir), "%s",
		 CAUSAL_DEFAULT_LOG_DIR);
	cfg->log_dir_trust = 0;
	cfg->buffer_kb = CAUSAL_DEFAULT_BUFFER_KB;
	cfg->flush_ms = CAUSAL_DEFAULT_FLUSH_MS;
	cfg->cpu_exact_us = CAUSAL_DEFAULT_CPU_EXACT_US;
	cfg->monitor = CAUSAL_DEFAULT_MONITOR;
	cfg->coordinator[0] = '\0';
	cfg->coordinator_port = CAUSAL_COORDINATOR_PORT;
	cfg->coordinator_key[0] = '\0';
	cfg->cpu_clock = CAUSAL_CPU_CLOCK_AUTO;
	snprintf(cfg->bpf_clock_dir, sizeof(cfg->bpf_clock_dir), "%s",
		 CAUSAL_BPF_CLOCK_DIR);
	cfg->sample = CAUSAL_DEFAULT_SAMPLE;
	cfg->values_max = CAUSAL_VALUES_DEFAULT;
	cfg->keep_slower_ns = 0;
	cfg->keep_window_ns = CAUSAL_DEFAULT_KEEP_WINDOW_NS;
	cfg->keep_ring_kb = CAUSAL_DEFAULT_KEEP_RING_KB;

	v = getenv_fn("CAUSAL_LOG_DIR");
	if (v && *v) {
		if (strlen(v) >= sizeof(cfg->log_dir) - 128)
			n += note(problems, problems_size, "CAUSAL_LOG_DIR", v,
				  "path too long");
		else
			snprintf(cfg->log_dir, sizeof(cfg->log_dir), "%s", v);
	}
	v = getenv_fn("CAUSAL_LOG_DIR_TRUST");
	if (v) {
		uint32_t trust;

		if (causal_parse_uint(v, 0, 1, &trust))
			n += note(problems, problems_size,
				  "CAUSAL_LOG_DIR_TRUST", v, "expected 0 or 1");
		else
			cfg->log_dir_trust = (int)trust;
	}
	v = getenv_fn("CAUSAL_BUFFER_KB");
	if (v) {
		uint32_t kb;

		if (causal_parse_uint(v, 4, 1u << 20, &kb))
			n += note(problems, problems_size, "CAUSAL_BUFFER_KB",
				  v, "expected a number of KiB from 4 to 1048576");
		else
			cfg->buffer_kb = round_up_pow2(kb);
	}
	v = getenv_fn("CAUSAL_FLUSH_MS");
	if (v) {
		uint32_t ms;

		if (causal_parse_uint(v, 1, 60000, &ms))
			n += note(problems, problems_size, "CAUSAL_FLUSH_MS", v,
				  "expected milliseconds from 1 to 60000");
		else
			cfg->flush_ms = ms;
	}
	v = getenv_fn("CAUSAL_CPU_EXACT_US");
	if (v) {
		uint32_t us;

		if (causal_parse_uint(v, 0, 1000, &us))
			n += note(problems, problems_size, "CAUSAL_CPU_EXACT_US",
				  v, "expected microseconds from 0 to 1000");
		else
			cfg->cpu_exact_us = us;
	}
	v = getenv_fn("CAUSAL_CPU_CLOCK");
	if (v) {
		static const char *const names[] = { "auto", "bpf", "syscall" };
		int k = 0;

		while (k < 3 && strcmp(v, names[k]))
			k++;
		if (k == 3)
			n += note(problems, problems_size, "CAUSAL_CPU_CLOCK",
				  v, "expected auto, bpf or syscall");
		else
			cfg->cpu_clock = k;
	}
	v = getenv_fn("CAUSAL_BPF_CLOCK_DIR");
	if (v) {
		/* room for "/clock" after it */
		if (!*v || strlen(v) >= sizeof(cfg->bpf_clock_dir) - 16)
			n += note(problems, problems_size,
				  "CAUSAL_BPF_CLOCK_DIR", v,
				  *v ? "path too long" : "empty path");
		else
			snprintf(cfg->bpf_clock_dir, sizeof(cfg->bpf_clock_dir),
				 "%s", v);
	}
	v = getenv_fn("CAUSAL_MONITOR");
	if (v) {
		uint32_t types;

		if (causal_parse_monitor(v, &types))
			n += note(problems, problems_size, "CAUSAL_MONITOR", v,
				  "expected a comma-separated list of "
				  "semantics, latency, cpu, memory, or all or "
				  "none");
		else
			cfg->monitor = types;
	}
	v = getenv_fn("CAUSAL_VALUES_MAX");
	if (v) {
		uint32_t max;

		if (causal_parse_uint(v, 0, CAUSAL_VALUES_LIMIT, &max))
			n += note(problems, problems_size, "CAUSAL_VALUES_MAX",
				  v, "expected bytes from 0 to 4096");
		else
			cfg->values_max = max;
	}
	v = getenv_fn("CAUSAL_SAMPLE");
	if (v && causal_parse_sample(v, &cfg->sample)) {
		cfg->sample = CAUSAL_DEFAULT_SAMPLE;
		cfg->keep_slower_ns = 0;
		cfg->keep_window_ns = CAUSAL_DEFAULT_KEEP_WINDOW_NS;
		cfg->keep_ring_kb = CAUSAL_DEFAULT_KEEP_RING_KB;
		n += note(problems, problems_size, "CAUSAL_SAMPLE", v,
			  "expected a probability such as 1/100, 0.01, 0 or 1; "
			  "every chain is recorded");
	}
	v = getenv_fn("CAUSAL_LOG_SEGMENT_MB");
	if (v && causal_parse_uint(v, 1, 1u << 20, &cfg->log_segment_mb)) {
		cfg->log_segment_mb = 0;
		n += note(problems, problems_size, "CAUSAL_LOG_SEGMENT_MB", v,
			  "expected a number of MiB from 1 to 1048576");
	}
	v = getenv_fn("CAUSAL_LOG_MAX_MB");
	if (v && causal_parse_uint(v, 1, 1u << 30, &cfg->log_max_mb)) {
		cfg->log_max_mb = 0;
		n += note(problems, problems_size, "CAUSAL_LOG_MAX_MB", v,
			  "expected a number of MiB from 1 to 1073741824");
	}
	n += keep_config(cfg, getenv_fn, problems, problems_size);
	v = getenv_fn("CAUSAL_COORDINATOR");
	if (v && (!strcmp(v, "local") || v[0] == '/')) {
		/* the Unix socket: port 0 */
		if (strlen(v) >= CAUSAL_SOCKET_PATH_MAX)
			n += note(problems, problems_size, "CAUSAL_COORDINATOR",
				  v, "socket path too long");
		else
			snprintf(cfg->coordinator, sizeof(cfg->coordinator),
				 "%s", v);
		cfg->coordinator_port = 0;
	} else if (v && *v &&
		   causal_parse_hostport(
			   v, cfg->coordinator, sizeof(cfg->coordinator),
			   CAUSAL_COORDINATOR_PORT, &cfg->coordinator_port)) {
		cfg->coordinator[0] = '\0';
		n += note(problems, problems_size, "CAUSAL_COORDINATOR", v,
			  "expected local, a socket path or HOST[:PORT]");
	}
	v = getenv_fn("CAUSAL_COORDINATOR_KEY");
	if (v && *v && strlen(v) >= sizeof(cfg->coordinator_key))
		n += note(problems, problems_size, "CAUSAL_COORDINATOR_KEY", v,
			  "path too long");
	else if (v)
		snprintf(cfg->coordinator_key, sizeof(cfg->coordinator_key),
			 "%s", v);
	return n;
}
