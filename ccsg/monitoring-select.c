/*
 * monitoring-select.c - the selections in force in a process, replayed
 * from its switches (monitoring-select.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "monitoring-select.h"

static void sel_free(struct mon_sel *x)
{
	free(x->host);
	free(x->interface);
	free(x->function);
}

void mon_sel_reset(struct mon_selections *s)
{
	for (size_t i = 0; i < s->n; i++)
		sel_free(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

int mon_sel_apply(struct mon_selections *s, const char *own, const char *host,
		  const char *interface, const char *function,
		  const char *state)
{
	struct mon_sel x;

	if (host && strcmp(host, "*") && (!own || strcmp(host, own)))
		return 0; /* another host's: it concerns not the process */
	/* the same fields replace the one in force: it goes last */
	for (size_t i = 0; i < s->n; i++)
		if (same(s->v[i].host, host) &&
		    same(s->v[i].interface, interface) &&
		    same(s->v[i].function, function)) {
			sel_free(&s->v[i]);
			memmove(&s->v[i], &s->v[i + 1],
				(s->n - i - 1) * sizeof(*s->v));
			s->n--;
			break;
		}
	x.host = strdup(host ? host : "*");
	x.interface = strdup(interface ? interface : "*");
	x.function = strdup(function ? function : "*");
	x.on = state && !strcmp(state, "on");
	if (!x.host || !x.interface || !x.function ||
	    GROW(s->v, s->cap, s->n + 1)) {
		sel_free(&x);
		return -ENOMEM;
	}
	s->v[s->n++] = x;
	return 1;
}

int mon_sel_deselects(const struct mon_selections *s)
{
	if (s->inherited)
		return 1;
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].on)
			return 1;
	return 0;
}

char *mon_sel_text(const struct mon_selections *s, int *nomem)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!s->n && !s->inherited)
		return NULL;
	if (!(f = open_memstream(&buf, &len))) {
		*nomem = 1;
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%s%s %s %s %s", i ? ", " : "", s->v[i].host,
			s->v[i].interface, s->v[i].function,
			s->v[i].on ? "on" : "off");
	if (s->inherited)
		fprintf(f, "%s%lld inherited", s->n ? ", " : "", s->inherited);
	if (fclose(f)) {
		free(buf);
		*nomem = 1;
		return NULL;
	}
	return buf;
}
