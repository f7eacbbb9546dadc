/*
 * export-otlp.c - OTLP/JSON (export.h, export-otlp.h): the passes over
 * the calls (the threads' chains and spawns first, then every call's
 * spans spilled by process) and the documents: one request, or batches
 * of at most o->batch spans each handed to a callback.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "export-otlp.h"
#include "json.h"

/* ---- the first pass ---------------------------------------------------- */

static int64_t self_cpu(const struct otlp *ot, const struct export_part *p,
			size_t i)
{
	const struct ccsg_call *c = &p->calls[i];

	return c->server_proc && ccsg_proc_dim(ot->x->g, c->server_proc) >= 0
		       ? p->self[i]
		       : 0;
}

/* Thread th was spawned by the call ot->at_*. */
static void spawned(void *arg, int32_t th)
{
	struct otlp *ot = arg;
	const struct export_part *p = ot->at_p;
	size_t i = ot->at_i;

	memcpy(ot->spawner[th].chain, otlp_chain_of(p, i), DB_CHAIN_LEN);
	ot->spawner[th].span =
		otlp_call_span(p, i, otlp_has_server(&p->calls[i]));
	ot->spawner_set[th] = 1;
	ot->spawn_ctx[th] = ot->at_owner;
}

/* Threads' chains, and the calls that spawned threads. */
static int first_part(void *arg, const struct export_part *p)
{
	struct otlp *ot = arg;

	for (size_t i = 0; i < p->n; i++) {
		const struct ccsg_call *c = &p->calls[i];
		int32_t owner = p->t->chains[c->chain].owner;
		int64_t ord = p->ord0 + (int64_t)i;

		if (owner >= 0) {
			if (!ot->own_set[owner]) {
				memcpy(ot->own[owner], otlp_chain_of(p, i),
				       DB_CHAIN_LEN);
				ot->own_set[owner] = 1;
			}
			if (c->parent < 0)
				ot->roots[owner] = 1;
			ot->chains_self[owner] += self_cpu(ot, p, i);
		}
		ot->at_p = p;
		ot->at_i = i;
		ot->at_owner = owner;
		export_spawned(ot->x, ot->seen, c, ord, spawned, ot);
	}
	return 0;
}

/* A thread's span's self + descendant CPU: its own, its chains', and
 * that of the threads spawned in them or by it.  0 on a cycle (a
 * corrupt trace), as the DSCG's walk never meets it. */
static int64_t thread_sum(struct otlp *ot, int32_t j, int32_t *const *kids,
			  const size_t *nkids)
{
	const struct export_ctx *x = ot->x;
	int64_t s;

	if (ot->sum[j] >= 0)
		return ot->sum[j];
	if (ot->sum[j] == -2)
		return 0;
	ot->sum[j] = -2;
	s = otlp_thread_cpu(x, (size_t)j) + ot->chains_self[j];
	for (size_t k = 0; k < nkids[j]; k++)
		s += thread_sum(ot, kids[j][k], kids, nkids);
	return ot->sum[j] = s;
}

static int add_kid(int32_t **kids, size_t *nkids, size_t *cap, int32_t p,
		   int32_t j)
{
	if (GROW(kids[p], cap[p], nkids[p] + 1))
		return -ENOMEM;
	kids[p][nkids[p]++] = j;
	return 0;
}

static int by_ordinal(const void *a, const void *b)
{
	const struct spawn_at *x = a, *y = b;

	return x->ord != y->ord ? (x->ord < y->ord ? -1 : 1)
				: (x->th > y->th) - (x->th < y->th);
}

/* Which threads have a span, and the sums, once the first pass is in. */
static int settle_threads(struct otlp *ot)
{
	const struct ccsg_trace *t = ot->x->t;
	size_t nt = t->nthreads + 1;
	int32_t **kids = calloc(nt, sizeof(*kids));
	size_t *nkids = calloc(nt, sizeof(size_t)),
	       *cap = calloc(nt, sizeof(size_t));
	int ret = -ENOMEM;

	if (!kids || !nkids || !cap)
		goto out;
	/* threads with a span: those above a call, and those a call made */
	for (size_t j = 0; j < t->nthreads; j++) {
		size_t steps = 0;

		for (int32_t u = (int32_t)j;
		     u >= 0 && ot->roots[j] && !ot->emit[u] &&
		     steps++ <= t->nthreads;
		     u = t->threads[u].spawn_call < 0
				 ? t->threads[u].parent_thread
				 : -1)
			ot->emit[u] = 1;
	}
	for (size_t j = 0; j < t->nthreads; j++) {
		const struct ccsg_thread *th = &t->threads[j];
		int32_t p = th->spawn_call >= 0 ? ot->spawn_ctx[j]
						: th->parent_thread;

		if (th->spawn_call >= 0)
			ot->emit[j] = 1;
		if (th->infra)
			ot->emit[j] = 0;
		if (p >= 0 && add_kid(kids, nkids, cap, p, (int32_t)j))
			goto out;
	}
	for (size_t j = 0; j < t->nthreads; j++)
		thread_sum(ot, (int32_t)j, kids, nkids);
	/* the spawns by call, for the second pass */
	for (size_t j = 0; j < t->nthreads; j++)
		if (t->threads[j].spawn_call >= 0)
			ot->spawns[ot->nspawns++] =
				(struct spawn_at){ t->threads[j].spawn_call,
						   (int32_t)j };
	qsort(ot->spawns, ot->nspawns, sizeof(*ot->spawns), by_ordinal);
	for (size_t j = 0; j < t->nthreads; j++)
		if (ot->emit[j])
			otlp_thread_trace(ot, j);
	ret = 0;
out:
	for (size_t j = 0; kids && j < nt; j++)
		free(kids[j]);
	free(kids);
	free(nkids);
	free(cap);
	return ret;
}

/* ---- the second pass: each process's spill ------------------------------- */

/* The line buffer's file: appends to the spill of process ot->cur. */
static ssize_t spill_write(void *cookie, const char *buf, size_t n)
{
	struct otlp *ot = cookie;

	return export_spill_add(&ot->spill, (size_t)ot->cur, buf, n)
		       ? -1
		       : (ssize_t)n;
}

/* A side of a call: its span, a line of its process's spill. */
static int spill_span(struct otlp *ot, const struct export_part *p, size_t i,
		      int server)
{
	struct xbuf *keep = ot->b;

	ot->cur = server ? p->calls[i].server_proc : p->calls[i].client_proc;
	ot->b = ot->line;
	otlp_call_span_write(ot, p, i, server);
	xb_ch(ot->b, '\n');
	xb_flush(ot->b);
	ot->b = keep;
	if (ot->line->err)
		return -ENOMEM;
	return export_spill_count(&ot->spill, (size_t)ot->cur);
}

static int second_part(void *arg, const struct export_part *p)
{
	struct otlp *ot = arg;
	int ret;

	if (GROW(ot->self, ot->cap_self, p->n + 1) ||
	    GROW(ot->desc, ot->cap_desc, p->n + 1))
		return -ENOMEM;
	/* self and descendant CPU: the calls made in a call, and the
	 * threads it spawned with all under them; calls come after the call
	 * they were made in */
	for (size_t i = 0; i < p->n; i++) {
		int64_t ord = p->ord0 + (int64_t)i;

		ot->self[i] = self_cpu(ot, p, i);
		ot->desc[i] = 0;
		while (ot->next_spawn < ot->nspawns &&
		       ot->spawns[ot->next_spawn].ord <= ord) {
			const struct spawn_at *sa =
				&ot->spawns[ot->next_spawn++];

			if (sa->ord == ord && ot->sum[sa->th] > 0)
				ot->desc[i] += ot->sum[sa->th];
		}
	}
	for (size_t i = p->n; i-- > 0;) {
		int32_t up = p->calls[i].parent;

		if (up >= 0 && (size_t)up < i)
			ot->desc[up] += ot->self[i] + ot->desc[i];
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct ccsg_call *c = &p->calls[i];

		if (otlp_has_client(c) && (ret = spill_span(ot, p, i, 0)))
			return ret;
		if (otlp_has_server(c) && (ret = spill_span(ot, p, i, 1)))
			return ret;
	}
	return 0;
}

/* ---- documents and batches -------------------------------------------- */

static const char doc_head[] = "{\"resourceSpans\":[\n";
static const char doc_tail[] = "\n]}\n";

/* Hand the request so far to the callback and start the next one. */
static int cut(struct otlp *ot)
{
	long len;

	xb_str(ot->b, doc_tail);
	xb_flush(ot->b);
	if (ot->b->err || fflush(ot->mem) || (len = ftell(ot->mem)) < 0)
		return -EIO;
	ot->batches++;
	if (ot->fn_batch(ot->mem_buf, (size_t)len, ot->in_batch, ot->arg)) {
		ot->stopped = 1;
		return -ECANCELED;
	}
	ot->in_batch = 0;
	if (fseek(ot->mem, 0, SEEK_SET))
		return -EIO;
	xb_str(ot->b, doc_head);
	return 0;
}

/* Before a span of process q: a new request when the batch is full. */
static int next_span(struct otlp *ot, int32_t q, size_t batch, int *first)
{
	int ret;

	if (batch && ot->in_batch == batch) {
		otlp_close_resource(ot);
		if ((ret = cut(ot)))
			return ret;
		otlp_open_resource(ot, q, 1);
		*first = 1;
	}
	ot->in_batch++;
	return 0;
}

/* Where the spill's spans go. */
struct lines {
	struct otlp *ot;
	int32_t q;
	size_t batch;
	int *first;
};

/* The spill's lines in s[0 .. n), each a span of process q. */
static int put_lines(void *arg, const char *s, size_t n)
{
	const struct lines *l = arg;
	struct otlp *ot = l->ot;
	int ret;

	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t len = nl ? (size_t)(nl - s) : n;

		if ((ret = next_span(ot, l->q, l->batch, l->first)))
			return ret;
		if (!*l->first)
			XB_LIT(ot->b, ",\n");
		xb_put(ot->b, s, len);
		*l->first = 0;
		len += nl ? 1 : 0;
		s += len;
		n -= len;
	}
	return ot->b->err ? -EIO : 0;
}

static int write_all(struct otlp *ot, size_t batch)
{
	const struct ccsg_trace *t = ot->x->t;
	size_t nt = t->nthreads;
	int32_t *threads = malloc((nt + 1) * sizeof(int32_t));
	size_t *first_th = calloc(t->nprocs + 2, sizeof(size_t));
	int ret = -ENOMEM, first_res = 1;

	if (!threads || !first_th)
		goto out;
	/* each process's threads with a span, in thread order */
	for (size_t j = 0; j < nt; j++)
		if (ot->emit[j])
			first_th[t->threads[j].proc + 1]++;
	for (size_t q = 0; q <= t->nprocs; q++)
		first_th[q + 1] += first_th[q];
	for (size_t j = 0; j < nt; j++)
		if (ot->emit[j])
			threads[first_th[t->threads[j].proc]++] = (int32_t)j;
	for (size_t q = t->nprocs + 1; q-- > 1;)
		first_th[q] = first_th[q - 1];
	first_th[0] = 0;
	xb_str(ot->b, doc_head);
	for (size_t q = 1; q < t->nprocs; q++) {
		size_t a = first_th[q], z = first_th[q + 1];
		int first = 1;

		if (a == z && !ot->spill.group[q].items)
			continue;
		otlp_open_resource(ot, (int32_t)q, first_res);
		first_res = 0;
		for (size_t k = a; k < z; k++) {
			if ((ret = next_span(ot, (int32_t)q, batch, &first)))
				goto out;
			otlp_thread_span_write(ot, (size_t)threads[k], first);
			first = 0;
		}
		{
			struct lines l = { ot, (int32_t)q, batch, &first };

			if ((ret = export_spill_each(&ot->spill, q, put_lines,
						     &l)))
				goto out;
		}
		otlp_close_resource(ot);
	}
	if (batch)
		ret = ot->in_batch ? cut(ot) : 0;
	else {
		xb_str(ot->b, doc_tail);
		ret = 0;
	}
out:
	free(threads);
	free(first_th);
	return ret;
}

static void release(struct otlp *ot)
{
	if (ot->fn)
		for (size_t n = 0; n < ot->x->g->nnodes; n++)
			free(ot->fn[n]);
	free(ot->fn);
	free(ot->emit);
	free(ot->seen);
	free(ot->roots);
	free(ot->own);
	free(ot->own_set);
	free(ot->spawn_ctx);
	free(ot->spawner);
	free(ot->spawner_set);
	free(ot->chains_self);
	free(ot->sum);
	free(ot->th_trace);
	free(ot->th_trace_set);
	free(ot->spawns);
	free(ot->self);
	free(ot->desc);
	export_spill_release(&ot->spill);
	if (ot->line_file)
		fclose(ot->line_file);
	free(ot->line);
	free(ot->b);
}

/* The per-thread arrays, the names, and the two passes. */
static int setup(struct otlp *ot, struct export_ctx *x,
		 const struct export_source *src,
		 const struct export_otlp_opts *o, FILE *f)
{
	static const cookie_io_functions_t io = { .write = spill_write };
	const struct ccsg_trace *t = x->t;
	size_t nt = t->nthreads + 1;
	int ret;

	memset(ot, 0, sizeof(*ot));
	ot->x = x;
	ot->o = o;
	ot->b = malloc(sizeof(*ot->b));
	ot->line = malloc(sizeof(*ot->line));
	ot->emit = calloc(nt, 1);
	ot->seen = calloc(nt, 1);
	ot->roots = calloc(nt, 1);
	ot->own = calloc(nt, sizeof(*ot->own));
	ot->own_set = calloc(nt, 1);
	ot->spawn_ctx = malloc(nt * sizeof(int32_t));
	ot->spawner = calloc(nt, sizeof(*ot->spawner));
	ot->spawner_set = calloc(nt, 1);
	ot->chains_self = calloc(nt, sizeof(int64_t));
	ot->sum = malloc(nt * sizeof(int64_t));
	ot->th_trace = calloc(nt, 16);
	ot->th_trace_set = calloc(nt, 1);
	ot->spawns = malloc(nt * sizeof(*ot->spawns));
	if (!ot->b || !ot->line || !ot->seen || !ot->emit || !ot->roots ||
	    !ot->own || !ot->own_set || !ot->spawn_ctx || !ot->spawner ||
	    !ot->spawner_set || !ot->chains_self || !ot->sum || !ot->th_trace ||
	    !ot->th_trace_set || !ot->spawns ||
	    export_spill_init(&ot->spill, t->nprocs + 1))
		return -ENOMEM;
	if (!(ot->line_file = fopencookie(ot, "w", io)))
		return -ENOMEM;
	setvbuf(ot->line_file, NULL, _IONBF, 0); /* the xbuf is the buffer */
	xb_init(ot->b, f);
	xb_init(ot->line, ot->line_file);
	for (size_t j = 0; j < t->nthreads; j++) {
		ot->spawn_ctx[j] = -1;
		ot->sum[j] = -1;
	}
	/* the clocks and the threads (the graph folded, when the source's
	 * first pass folds it), then every call's spans spilled */
	if ((ret = export_align(x, src, first_part, ot)) ||
	    (ret = settle_threads(ot)))
		return ret;
	if (!(ot->fn = calloc(x->g->nnodes + 1, sizeof(char *))))
		return -ENOMEM;
	for (size_t n = 0; n < x->g->nnodes; n++) {
		char *p = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&p, &len);

		if (!m)
			return -ENOMEM;
		json_cstr(m, x->g->nodes[n].name ? x->g->nodes[n].name : "?");
		if (fclose(m))
			return -ENOMEM;
		/* without its quotes */
		memmove(p, p + 1, len - 1);
		p[len - 2] = '\0';
		ot->fn[n] = p;
	}
	return src->pass(src, second_part, ot);
}

int export_otlp(FILE *f, struct export_ctx *x, const struct export_source *src,
		const struct export_otlp_opts *o)
{
	struct otlp ot;
	int ret = setup(&ot, x, src, o, f);

	if (!ret)
		ret = write_all(&ot, 0);
	if (!ret) {
		xb_flush(ot.b);
		ret = ot.b->err ? -EIO : 0;
	}
	release(&ot);
	return ret;
}

int export_otlp_batches(struct export_ctx *x, const struct export_source *src,
			const struct export_otlp_opts *o, export_batch_fn fn,
			void *arg)
{
	struct otlp ot;
	int ret = setup(&ot, x, src, o, NULL);

	if (!ret) {
		ot.fn_batch = fn;
		ot.arg = arg;
		if (!(ot.mem = open_memstream(&ot.mem_buf, &ot.mem_len)))
			ret = -ENOMEM;
	}
	if (!ret) {
		ot.b->f = ot.mem;
		ret = write_all(&ot, o->batch ? o->batch : 512);
	}
	if (ot.mem)
		fclose(ot.mem);
	free(ot.mem_buf);
	release(&ot);
	return ret;
}
