/*
 * chain-kind.c - a kept chain complete or not (chain-kind.h).
 */
#include <string.h>

#include "chain-kind.h"

static int tag_ok(const struct ccsg_trace *t, int32_t str)
{
	return str >= 0 && !strcmp(t->strings[str], "ok");
}

int ccsg_call_side_lost(const struct ccsg_trace *t, const struct ccsg_call *c)
{
	return (c->missing == CCSG_NO_SERVER && tag_ok(t, c->reply_tag)) ||
	       (c->missing == CCSG_NO_CLIENT && tag_ok(t, c->tag));
}
