/*
 * groups.c - the dimensions of the CPU vectors: one per host, or one per
 * processor group (CPU paper, Section 3: processors treated as identical).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccsg.h"
#include "usage.h"

void ccsg_dims_release(struct ccsg_dims *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->names[i]);
	free(g->names);
	free(g->of_host);
	memset(g, 0, sizeof(*g));
}

static int add_dim(struct ccsg_dims *g, const char *name)
{
	char **p = realloc(g->names, (g->n + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	g->names = p;
	if (!(p[g->n] = strdup(name)))
		return -ENOMEM;
	return (int)g->n++;
}

int ccsg_dims_hosts(struct ccsg_dims *g, const struct ccsg_trace *t)
{
	memset(g, 0, sizeof(*g));
	g->of_host = malloc((t->nhosts + 1) * sizeof(int32_t));
	if (!g->of_host)
		return -ENOMEM;
	for (size_t i = 0; i < t->nhosts; i++)
		if ((g->of_host[i] = add_dim(g, t->hosts[i])) < 0) {
			ccsg_dims_release(g);
			return -ENOMEM;
		}
	return 0;
}

int ccsg_dims_parse(struct ccsg_dims *g, const struct ccsg_trace *t, FILE *f, const char *path)
{
	char line[4096];
	int lineno = 0, ret = -EINVAL;

	memset(g, 0, sizeof(*g));
	g->of_host = malloc((t->nhosts + 1) * sizeof(int32_t));
	if (!g->of_host)
		return -ENOMEM;
	for (size_t i = 0; i < t->nhosts; i++)
		g->of_host[i] = -1;
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *colon, *name, *tok, *save;
		int dim;

		lineno++;
		if (hash)
			*hash = 0;
		name = line + strspn(line, " \t\r\n");
		if (!*name)
			continue;
		if (!(colon = strchr(name, ':'))) {
			fail("%s:%d: expected 'GROUP: HOST...'", path, lineno);
			goto bad;
		}
		*colon = 0;
		for (char *e = colon; e > name && strchr(" \t", e[-1]); e--)
			e[-1] = 0;
		if (!*name || strpbrk(name, " \t")) {
			fail("%s:%d: bad group name '%s'", path, lineno, name);
			goto bad;
		}
		for (size_t i = 0; i < g->n; i++)
			if (!strcmp(g->names[i], name)) {
				fail("%s:%d: group '%s' defined twice", path, lineno, name);
				goto bad;
			}
		if ((dim = add_dim(g, name)) < 0) {
			ret = -ENOMEM;
			goto bad;
		}
		for (tok = strtok_r(colon + 1, " \t\r\n,", &save); tok;
		     tok = strtok_r(NULL, " \t\r\n,", &save)) {
			size_t h;

			for (h = 0; h < t->nhosts; h++)
				if (!strcmp(t->hosts[h], tok))
					break;
			if (h == t->nhosts) {
				fail("%s:%d: unknown host '%s' (not in the trace)", path, lineno, tok);
				goto bad;
			}
			if (g->of_host[h] >= 0) {
				fail("%s:%d: host '%s' is already in group '%s'", path, lineno, tok,
				      g->names[g->of_host[h]]);
				goto bad;
			}
			g->of_host[h] = dim;
		}
	}
	/* hosts in no group: a group each */
	for (size_t h = 0; h < t->nhosts; h++)
		if (g->of_host[h] < 0 && (g->of_host[h] = add_dim(g, t->hosts[h])) < 0) {
			ret = -ENOMEM;
			goto bad;
		}
	return 0;
bad:
	ccsg_dims_release(g);
	return ret;
}

int ccsg_dims_groups(struct ccsg_dims *g, const struct ccsg_trace *t, const char *path)
{
	FILE *f = fopen(path, "r");
	int ret;

	if (!f) {
		memset(g, 0, sizeof(*g));
		fail("cannot open groups file '%s': %s", path, strerror(errno));
		return -ENOENT;
	}
	ret = ccsg_dims_parse(g, t, f, path);
	fclose(f);
	return ret;
}
