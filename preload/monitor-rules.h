/*
 * monitor-rules.h - component selections (Section 5.2.2 of the monitoring
 * paper; monitor.h says what they select): parsing one as published,
 * keeping those in force, finding the one that decides for a call.  Pure
 * (monitor-rules.c: no global state), for the process's state (monitor.c)
 * and the unit tests alike.
 */
#ifndef CAUSAL_MONITOR_RULES_H
#define CAUSAL_MONITOR_RULES_H

#include <stdint.h>

#define CAUSAL_MON_RULES 64 /* selections in force at most */
#define CAUSAL_SEL_NAME_MAX 48
#define CAUSAL_SEL_RANGES 8 /* functions a selection by name finds, at most */

/* Where a function lies in the process: [lo, hi). */
struct causal_addr_range {
	uintptr_t lo, hi;
};

/* A field of a selection that is the wildcard `*`. */
enum {
	CAUSAL_SEL_ANY_HOST = 1u << 0,
	CAUSAL_SEL_ANY_PROG = 1u << 1,
	CAUSAL_SEL_ANY_PROC = 1u << 2,
	CAUSAL_SEL_PROC_NAME = 1u << 3, /* function by name: `name` */
};

/*
 * One selection {host, interface, function, on|off} that concerns this
 * process (its host field is `*` or this host).  The most specific wins:
 * the one with the most fields given; among those equally specific, the
 * latest published.  A selection for the same fields as one in force
 * replaces it.
 */
struct causal_mon_rule {
	uint32_t prog, proc;
	uint32_t order; /* publication order: the latest wins ties */
	uint8_t wild;	/* CAUSAL_SEL_* */
	uint8_t on;
	char name[CAUSAL_SEL_NAME_MAX]; /* CAUSAL_SEL_PROC_NAME: the function */
	/* ... and where the functions of that name lie (the writer finds
	 * them before the selection is put in force: sites.h) */
	uint8_t nfound;
	struct causal_addr_range found[CAUSAL_SEL_RANGES];
};

struct causal_mon_rules {
	uint32_t n, next_order;
	struct causal_mon_rule r[CAUSAL_MON_RULES];
};

/*
 * Parse a selection as published: host, interface (program) and
 * function (procedure) are `*`, a number (decimal or 0x hex) or, for the
 * function, a name (the function that makes the call: say_it, or
 * rpcgen's stub say_it_1; its addresses, `found`, are the caller's to
 * fill); on is "on" or "off".  Returns 0 (rule filled), 1 (another
 * host's: not for this process) or -1 (malformed).
 */
int causal_mon_rule_parse(const char *host, const char *iface, const char *func,
			  const char *on, const char *this_host,
			  struct causal_mon_rule *rule);

/* Put rule in force (replacing one for the same fields); 0 or -1 if
 * CAUSAL_MON_RULES are in force already. */
int causal_mon_rules_put(struct causal_mon_rules *rs,
			 const struct causal_mon_rule *rule);

/*
 * The selection that decides for a call of (prog, proc) whose stub
 * returns to `stub` (the return address its probe sees, 0 when none: a
 * skeleton): 1 on, 0 off, -1 no selection matches (then the component is
 * selected).  A selection by name matches a stub inside one of the
 * functions found for it: no name is looked up here.
 */
int causal_mon_rules_match(const struct causal_mon_rules *rs, uint32_t prog,
			   uint32_t proc, uintptr_t stub);

#endif
