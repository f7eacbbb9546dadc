/*
 * monitor-rules.c - component selections (monitor-rules.h; Section 5.2.2
 * of the monitoring paper): parsing one as published, keeping those in
 * force, and finding the one that decides for a call.  Pure (no global
 * state), so the unit tests link it alone.  A selection's words read as
 * the protocol says (causal/monitor-proto.h: numbers, names).
 */
#include <string.h>

#include "causal/monitor-proto.h"
#include "monitor-rules.h"

int causal_mon_rule_parse(const char *host, const char *iface, const char *func,
			  const char *on, const char *this_host,
			  struct causal_mon_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	if (!host || !iface || !func || !on || !*host)
		return -1;
	if (!strcmp(on, "on"))
		rule->on = 1;
	else if (strcmp(on, "off"))
		return -1;
	if (!strcmp(iface, "*"))
		rule->wild |= CAUSAL_SEL_ANY_PROG;
	else if (causal_mon_number(iface, &rule->prog))
		return -1;
	if (!strcmp(func, "*")) {
		rule->wild |= CAUSAL_SEL_ANY_PROC;
	} else if (causal_mon_number(func, &rule->proc)) {
		size_t len = strlen(func);

		if (!causal_mon_is_name(func) || len >= sizeof(rule->name))
			return -1;
		/* the name of the function: DEMO_PROG's SAY_IT is say_it */
		for (size_t i = 0; i <= len; i++)
			rule->name[i] = (char)(func[i] >= 'A' && func[i] <= 'Z'
						       ? func[i] - 'A' + 'a'
						       : func[i]);
		rule->wild |= CAUSAL_SEL_PROC_NAME;
	}
	if (!strcmp(host, "*")) {
		rule->wild |= CAUSAL_SEL_ANY_HOST;
		return 0;
	}
	if (strlen(host) > 255 || strcspn(host, " \t\n") != strlen(host))
		return -1;
	return this_host && !strcmp(host, this_host) ? 0 : 1;
}

static int same_fields(const struct causal_mon_rule *a,
		       const struct causal_mon_rule *b)
{
	if (a->wild != b->wild)
		return 0;
	if (!(a->wild & CAUSAL_SEL_ANY_PROG) && a->prog != b->prog)
		return 0;
	if (a->wild & CAUSAL_SEL_PROC_NAME)
		return !strcmp(a->name, b->name);
	return (a->wild & CAUSAL_SEL_ANY_PROC) || a->proc == b->proc;
}

int causal_mon_rules_put(struct causal_mon_rules *rs,
			 const struct causal_mon_rule *rule)
{
	uint32_t i;

	for (i = 0; i < rs->n && !same_fields(&rs->r[i], rule); i++)
		;
	if (i == rs->n) {
		if (rs->n == CAUSAL_MON_RULES)
			return -1;
		rs->n++;
	}
	rs->r[i] = *rule;
	rs->r[i].order = ++rs->next_order;
	return 0;
}

/* How many of the three fields a selection gives. */
static int specificity(const struct causal_mon_rule *r)
{
	return !(r->wild & CAUSAL_SEL_ANY_HOST) +
	       !(r->wild & CAUSAL_SEL_ANY_PROG) +
	       !(r->wild & CAUSAL_SEL_ANY_PROC);
}

/* Does the function found at r->found[i] make the call returning to
 * stub?  The call instruction is the byte before the return address. */
static int stub_in(const struct causal_mon_rule *r, uintptr_t stub)
{
	for (uint32_t i = 0; stub && i < r->nfound && i < CAUSAL_SEL_RANGES;
	     i++)
		if (stub - 1 >= r->found[i].lo && stub - 1 < r->found[i].hi)
			return 1;
	return 0;
}

static int matches(const struct causal_mon_rule *r, uint32_t prog,
		   uint32_t proc, uintptr_t stub)
{
	if (!(r->wild & CAUSAL_SEL_ANY_PROG) && r->prog != prog)
		return 0;
	if (r->wild & CAUSAL_SEL_PROC_NAME)
		return stub_in(r, stub);
	return (r->wild & CAUSAL_SEL_ANY_PROC) || r->proc == proc;
}

int causal_mon_rules_match(const struct causal_mon_rules *rs, uint32_t prog,
			   uint32_t proc, uintptr_t stub)
{
	const struct causal_mon_rule *best = NULL;
	int best_spec = -1;

	for (uint32_t i = 0; i < rs->n && i < CAUSAL_MON_RULES; i++) {
		const struct causal_mon_rule *r = &rs->r[i];
		int spec;

		if (!matches(r, prog, proc, stub))
			continue;
		spec = specificity(r);
		if (spec > best_spec ||
		    (spec == best_spec && r->order > best->order)) {
			best = r;
			best_spec = spec;
		}
	}
	return best ? best->on : -1;
}
