/*
 * coord-publish.c - what may be published (coordinator.h): the monitoring
 * types, the selections, a PUBLISH as a command sent it.  The coordinator
 * checks each publication here, and the commands check their own input
 * here before they send it, so both say the same thing about it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "causal/log-format.h"
#include "causal/monitor-proto.h"
#include "coordinator.h"
#include "usage.h"

/*
 * The coordinator checks quietly: a peer's bad publication is answered
 * and counted, never written to its stderr (a pipe nobody reads would
 * stop the loop once full, and any user could fill it).
 */
static int quiet;
#define complain(...) (quiet ? -1 : fail(__VA_ARGS__))

/* The bits of enums.def's monitor_types: `all`, the types of calls, is
 * the first four; locks and values are named alone. */
static const char *const type_names[] = CAUSAL_MONTYPE_NAMES;
#define NTYPES (sizeof(type_names) / sizeof(type_names[0]))

int coord_types(int n, char *const words[], char *out, size_t size)
{
	unsigned bits = 0;
	size_t len = 0;

	if (n <= 0)
		return complain("no monitoring type given (semantics, latency, "
				"cpu, memory, all, locks, values)"),
		       -EINVAL;
	for (int i = 0; i < n; i++) {
		const char *s = words[i];

		for (;;) {
			size_t l = strcspn(s, ",");
			unsigned b = 0;

			for (unsigned t = 0; t < NTYPES; t++)
				if (strlen(type_names[t]) == l &&
				    !strncmp(s, type_names[t], l))
					b = 1u << t;
			if (l == 3 && !strncmp(s, "all", 3))
				b = 0xf;
			if (!b) {
				complain("unknown monitoring type '%.*s' "
					 "(semantics, latency, cpu, memory, "
					 "all, locks, values)",
					 (int)l, s);
				return -EINVAL;
			}
			bits |= b;
			s += l;
			if (!*s)
				break;
			s++; /* the comma: a type must follow */
		}
	}
	out[0] = '\0';
	for (unsigned t = 0; t < NTYPES; t++)
		if (bits & (1u << t))
			len += (size_t)snprintf(
				out + len, len < size ? size - len : 0, "%s%s",
				len ? "," : "", type_names[t]);
	return len < size ? 0 : -EINVAL;
}

int coord_is_number(const char *s)
{
	size_t digits = strlen(s);
	uint32_t v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		digits -= 2;
	/* at most 10 digits here: 0000000000042 is said no */
	return digits <= 10 && !causal_mon_number(s, &v);
}

static int is_host(const char *s)
{
	if (!*s || strlen(s) > 63)
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return 0;
	return 1;
}

int coord_selection(const char *host, const char *iface, const char *func,
		    const char *on)
{
	if (!is_host(host))
		return complain("bad host '%s': a host name or '*'", host),
		       -EINVAL;
	if (strcmp(iface, "*") && !coord_is_number(iface))
		return complain("bad interface '%s': '*' or a program number "
				"(decimal or 0x)",
				iface),
		       -EINVAL;
	if (strcmp(func, "*") && !coord_is_number(func) &&
	    !(causal_mon_is_name(func) && strlen(func) < 48))
		return complain("bad function '%s': '*', a procedure number or "
				"a name",
				func),
		       -EINVAL;
	if (strcmp(on, "on") && strcmp(on, "off"))
		return complain("expected 'on' or 'off', not '%s'", on),
		       -EINVAL;
	return 0;
}

int coord_check_publish(char *rest, char *out, size_t size)
{
	struct causal_mon_event ev;
	char types[64];
	int r = -1;

	quiet = 1;
	if (causal_mon_event_parse(rest, &ev))
		goto out;
	if (ev.kind == CAUSAL_MONITOR_SELECT) {
		if (coord_selection(ev.host, ev.iface, ev.func, ev.on))
			goto out;
		snprintf(out, size, "select %s %s %s %s", ev.host, ev.iface,
			 ev.func, ev.on);
		r = 0;
		goto out;
	}
	if (coord_types(1, &ev.types, types, sizeof(types)))
		goto out;
	snprintf(out, size, "%s %s",
		 ev.kind == CAUSAL_MONITOR_ON ? "on" : "off", types);
	r = 0;
out:
	quiet = 0;
	return r;
}
