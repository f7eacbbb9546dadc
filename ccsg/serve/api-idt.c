/*
 * api-idt.c - the IDT as the viewer shows it (internal.h): the
 * interfaces of the .x files and of the trace, program > version >
 * procedure, each procedure with the statistics of its calls per
 * serving host (the CPU paper's Section 5), and their index.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

int api_idt_parse(const char *s, struct idt_id *out)
{
	int64_t a[3] = { 0, 0, 0 };
	int n;
	char k;

	if (!strcmp(s, "idt")) {
		*out = (struct idt_id){ 'r', 0, 0, 0 };
		return 0;
	}
	k = *s++;
	n = k == 'p' ? 1 : k == 'v' ? 2 : k == 'f' ? 3 : 0;
	if (!n)
		return -1;
	for (int i = 0; i < n; i++)
		if ((i && *s++ != '.') || api_parse_num(&s, &a[i]) ||
		    a[i] > UINT32_MAX)
			return -1;
	if (*s)
		return -1;
	*out = (struct idt_id){ k, (uint32_t)a[0], (uint32_t)a[1],
				(uint32_t)a[2] };
	return 0;
}

int api_idt_in(const struct viewer_idt_fn *fn, struct idt_id u)
{
	return u.k == 'r' ||
	       (fn->prog == u.prog &&
		(u.k == 'p' ||
		 (fn->vers == u.vers && (u.k == 'v' || fn->proc == u.proc))));
}

/* The range of fns under u: [*lo, *hi); empty when u names nothing. */
void api_idt_range(const struct viewer *v, struct idt_id u, size_t *lo,
		   size_t *hi)
{
	size_t i = 0;

	while (i < v->nfns && !api_idt_in(&v->fns[i], u))
		i++;
	*lo = i;
	while (i < v->nfns && api_idt_in(&v->fns[i], u))
		i++;
	*hi = i;
}

static void idt_put_id(FILE *f, struct idt_id u)
{
	switch (u.k) {
	case 'r':
		fputs("\"idt\"", f);
		break;
	case 'p':
		fprintf(f, "\"p%u\"", u.prog);
		break;
	case 'v':
		fprintf(f, "\"v%u.%u\"", u.prog, u.vers);
		break;
	default:
		fprintf(f, "\"f%u.%u.%u\"", u.prog, u.vers, u.proc);
	}
}

static void stat_put(FILE *f, const struct viewer_idt_stat *s)
{
	double lm = s->lat_n ? s->lat / s->lat_n : 0;
	double cm = s->n ? s->cpu / s->n : 0;
	double lv = s->lat_n ? s->lat2 / s->lat_n - lm * lm : 0;
	double cv = s->n ? s->cpu2 / s->n - cm * cm : 0;

	fprintf(f,
		"\"calls\": %.0f, \"latency_mean\": %.0f, \"latency_sd\": "
		"%.0f, \"cpu_mean\": %.0f, \"cpu_sd\": %.0f",
		s->n, lm, lv > 0 ? sqrt(lv) : 0.0, cm, cv > 0 ? sqrt(cv) : 0.0);
}

void api_idt_put_node(FILE *f, const struct viewer *v, struct idt_id u,
		      int full)
{
	size_t lo, hi;
	double calls = 0, cpu = 0;
	const struct viewer_idt_fn *fn;

	api_idt_range(v, u, &lo, &hi);
	fn = lo < hi ? &v->fns[lo] : NULL;
	fputs("{\"id\": ", f);
	idt_put_id(f, u);
	fputs(", \"name\": ", f);
	json_cstr(f, u.k == 'r'	  ? "<interfaces>"
		     : u.k == 'p' ? fn->prog_name
		     : u.k == 'v' ? fn->vers_name
				  : fn->proc_name);
	fprintf(f, ", \"kind\": \"%s\"",
		u.k == 'r'   ? "root"
		: u.k == 'p' ? "program"
		: u.k == 'v' ? "version"
			     : "procedure");
	for (size_t i = lo; i < hi; i++) {
		calls += v->fns[i].all.n;
		cpu += v->fns[i].all.cpu;
	}
	fprintf(f, ", \"has_children\": %s, \"total\": %.0f, \"self\": 0",
		u.k != 'f' && lo < hi ? "true" : "false", cpu);
	if (u.k != 'r')
		fprintf(f, ", \"prog\": %u", u.prog);
	if (u.k == 'v' || u.k == 'f')
		fprintf(f, ", \"vers\": %u", u.vers);
	if (u.k == 'f') {
		fprintf(f, ", \"proc\": %u, \"full_name\": ", u.proc);
		{
			char b[1024];

			snprintf(b, sizeof(b), "%s::%s", fn->prog_name,
				 fn->proc_name);
			json_cstr(f, b);
		}
		fputs(", ", f);
		stat_put(f, &fn->all);
		if (full) {
			int first = 1;

			fputs(", \"hosts\": [", f);
			for (size_t h = 0; h <= v->trace->nhosts; h++) {
				if (!fn->host[h].n)
					continue;
				fputs(first ? "{\"host\": " : ", {\"host\": ",
				      f);
				json_cstr(f, h < v->trace->nhosts
						     ? v->trace->hosts[h]
						     : "?");
				fputs(", ", f);
				stat_put(f, &fn->host[h]);
				fputc('}', f);
				first = 0;
			}
			fputc(']', f);
		}
	} else {
		fprintf(f, ", \"calls\": %.0f", calls);
	}
	fputc('}', f);
}

/* The children of u: the distinct programs, versions or procedures. */
size_t api_idt_children(const struct viewer *v, struct idt_id u,
			struct idt_id *out, size_t max)
{
	size_t lo, hi, n = 0;

	api_idt_range(v, u, &lo, &hi);
	if (u.k == 'f')
		return 0;
	for (size_t i = lo; i < hi; i++) {
		const struct viewer_idt_fn *fn = &v->fns[i];
		struct idt_id c = { u.k == 'r'	 ? 'p'
				    : u.k == 'p' ? 'v'
						 : 'f',
				    fn->prog, fn->vers, fn->proc };

		const struct viewer_idt_fn *pf = i > lo ? &v->fns[i - 1] : NULL;

		if (pf && pf->prog == c.prog &&
		    (c.k == 'p' || (pf->vers == c.vers &&
				    (c.k == 'v' || pf->proc == c.proc))))
			continue;
		if (n < max)
			out[n] = c;
		n++;
	}
	return n;
}

/* ---- the index ---------------------------------------------------------- */

static int by_fn(const void *a, const void *b)
{
	const struct viewer_idt_fn *x = a, *y = b;

	if (x->prog != y->prog)
		return x->prog < y->prog ? -1 : 1;
	if (x->vers != y->vers)
		return x->vers < y->vers ? -1 : 1;
	return (x->proc > y->proc) - (x->proc < y->proc);
}

static int add_fn(struct viewer *v, size_t *cap, uint32_t prog, uint32_t vers,
		  uint32_t proc, const char *pn, const char *vn, const char *fn)
{
	struct viewer_idt_fn *x;

	for (size_t i = 0; i < v->nfns; i++)
		if (v->fns[i].prog == prog && v->fns[i].vers == vers &&
		    v->fns[i].proc == proc)
			return 0;
	if (v->nfns == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct viewer_idt_fn *nf = realloc(v->fns, nc * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		v->fns = nf;
		*cap = nc;
	}
	x = &v->fns[v->nfns];
	memset(x, 0, sizeof(*x));
	x->prog = prog;
	x->vers = vers;
	x->proc = proc;
	x->prog_name = strdup(pn);
	x->vers_name = strdup(vn);
	x->proc_name = strdup(fn);
	x->host = calloc(v->trace->nhosts + 1, sizeof(*x->host));
	v->nfns++;
	if (!x->prog_name || !x->vers_name || !x->proc_name || !x->host)
		return -ENOMEM;
	return 0;
}

static void stat_add(struct viewer_idt_stat *s, int64_t lat, int64_t cpu)
{
	s->n++;
	s->cpu += (double)cpu;
	s->cpu2 += (double)cpu * (double)cpu;
	if (lat >= 0) {
		s->lat_n++;
		s->lat += (double)lat;
		s->lat2 += (double)lat * (double)lat;
	}
}

/* The IDT: the .x procedures and every function the trace called, with
 * the statistics of their calls per serving host (Section 5). */
int api_idt_index(struct viewer *v)
{
	const struct idl_names *nm = v->names;
	const struct ccsg_trace *t = v->trace;
	const struct ccsg_graph *g = v->graph;
	struct hashmap map = { 0 };
	size_t cap = 0;
	int ret = -ENOMEM;

	for (size_t i = 0; i < nm->n; i++)
		if (add_fn(v, &cap, nm->procs[i].prog, nm->procs[i].vers,
			   nm->procs[i].proc, nm->procs[i].prog_name,
			   nm->procs[i].vers_name, nm->procs[i].proc_name))
			return -ENOMEM;
	/* the function nodes name what the trace called */
	for (size_t n = 0; n < g->nnodes; n++) {
		const struct ccsg_node *x = &g->nodes[n];
		char full[1024], vers[16], *sep;

		if (x->kind != CCSG_FUNCTION)
			continue;
		snprintf(full, sizeof(full), "%s", x->name ? x->name : "?");
		snprintf(vers, sizeof(vers), "%u", x->vers);
		sep = strstr(full, "::");
		if (sep)
			*sep = '\0';
		if (add_fn(v, &cap, x->prog, x->vers, x->proc, full, vers,
			   sep ? sep + 2 : full))
			return -ENOMEM;
	}
	if (v->nfns) /* none (an empty trace): fns may be NULL */
		qsort(v->fns, v->nfns, sizeof(*v->fns), by_fn);
	for (size_t i = 0; i < v->nfns; i++)
		if (hashmap_put(&map,
				hash64(((uint64_t)v->fns[i].prog << 32) ^
				       ((uint64_t)v->fns[i].vers << 16) ^
				       v->fns[i].proc),
				(int32_t)i) < 0)
			goto out;
	for (size_t c = 0; c < t->ncalls; c++) {
		const struct ccsg_call *k = &t->calls[c];
		int32_t i, h;
		int64_t lat;

		if (k->lost)
			continue;
		i = hashmap_get(&map,
				hash64(((uint64_t)k->prog << 32) ^
				       ((uint64_t)k->vers << 16) ^ k->proc));
		if (i < 0 || v->fns[i].prog != k->prog ||
		    v->fns[i].vers != k->vers || v->fns[i].proc != k->proc) {
			/* a collision of the mixed keys: look it up */
			for (i = 0; (size_t)i < v->nfns; i++)
				if (v->fns[i].prog == k->prog &&
				    v->fns[i].vers == k->vers &&
				    v->fns[i].proc == k->proc)
					break;
			if ((size_t)i == v->nfns)
				continue;
		}
		h = k->server_proc > 0 ? ccsg_trace_host(t, k->server_proc)
				       : -1;
		lat = k->stub_start_ns != CCSG_NONE &&
				      k->stub_end_exit_ns != CCSG_NONE
			      ? k->stub_end_exit_ns - k->stub_start_ns
			      : -1;
		stat_add(&v->fns[i].all, lat, g->call_self[c]);
		stat_add(&v->fns[i].host[h >= 0 ? (size_t)h : t->nhosts], lat,
			 g->call_self[c]);
	}
	ret = 0;
out:
	hashmap_release(&map);
	return ret;
}
