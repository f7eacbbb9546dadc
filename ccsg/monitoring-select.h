/*
 * monitoring-select.h - the component selections in force in one
 * process (docs/causalctl.md, "Component selection"), replayed from its
 * monitor_switches rows in order, for monitoring.c.
 *
 * A selection for the same host, interface and function as one in
 * force replaces it (and is then the latest); one for another host than
 * the process's own (or '*') does not concern it.  A fork's child starts
 * with its parent's selections, which its log does not list: its
 * 'initial' row counts them only (inherited).
 */
#ifndef CCSG_MONITORING_SELECT_H
#define CCSG_MONITORING_SELECT_H

#include <stddef.h>

struct mon_sel {
	char *host, *interface, *function;
	int on;
};

struct mon_selections {
	struct mon_sel *v; /* in the order they were published */
	size_t n, cap;
	long long inherited; /* selections of unknown fields, from a fork */
};

/* Forget every selection (a new process). */
void mon_sel_reset(struct mon_selections *s);
/* Apply a 'select' row seen by a process of host own (NULL: unknown):
 * 1, 0 when it is for another host, or -ENOMEM. */
int mon_sel_apply(struct mon_selections *s, const char *own, const char *host,
		  const char *interface, const char *function,
		  const char *state);
/* Do the selections in force switch some calls off (an 'off' one, or
 * inherited ones, which may be)? */
int mon_sel_deselects(const struct mon_selections *s);
/* "HOST INTERFACE FUNCTION on|off" each, ", " between, malloc'ed; NULL
 * with none (or out of memory: *nomem set). */
char *mon_sel_text(const struct mon_selections *s, int *nomem);

#endif
