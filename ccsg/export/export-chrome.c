/*
 * export-chrome.c - the Trace Event Format (export.h), JSON that Perfetto
 * UI and chrome://tracing open.
 *
 * A process track per traced process (its pid in the file is its proc_id:
 * pids of different hosts may be equal), named host/pid/executable; a
 * thread track per thread, named by its system thread id and its role,
 * with a slice over its life; each call a complete event ("X") for the
 * stub on the calling thread and one for the skeleton on the serving
 * thread, flows (v1: "s" then "f" bound to the enclosing slice) from the
 * stub's start into the skeleton and from the skeleton's end back into
 * the stub, and one from the spawning thread (in the spawning call's
 * skeleton) into each thread it made.  Times are microseconds on the
 * aligned clock (export.c) from the metadata's base_ns; the alignment of
 * each host and its error bound are in "metadata".
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export-buf.h"
#include "export.h"
#include "json.h"

struct pipe;

struct chrome {
	const struct export_ctx *x;
	struct xbuf *b;
	char **fn;     /* per CCSG node: its name as a JSON string */
	char *lost;    /* CCSG_LOST_NAME as one */
	uint8_t *role; /* per thread: R_* */
	const struct export_part *p; /* the calls being written */
	struct pipe *pipe;	     /* the formatter threads', or NULL */
};

enum { R_SERVES = 1, R_CALLS = 2 };

static char *json_of(const char *s)
{
	char *p = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&p, &n);

	if (!m)
		return NULL;
	json_cstr(m, s);
	if (fclose(m)) {
		free(p);
		return NULL;
	}
	return p;
}

static int64_t tid_of(const struct export_ctx *x, int32_t th)
{
	return x->os_tid[th] ? x->os_tid[th] : x->t->threads[th].tid;
}

/* ,"pid":P,"tid":T,"ts":TS */
static void where(struct chrome *ch, int32_t proc, int32_t th, int64_t ts)
{
	struct xbuf *b = ch->b;

	XB_LIT(b, ",\"pid\":");
	xb_i64(b, proc);
	XB_LIT(b, ",\"tid\":");
	xb_i64(b, th >= 0 ? tid_of(ch->x, th) : 0);
	XB_LIT(b, ",\"ts\":");
	xb_us(b, ts - ch->x->base_ns);
}

/* ,"monitoring":{...}: the types and selections in force per process,
 * and when (docs/ccsg.md, "Under selective monitoring"). */
static void monitoring(struct xbuf *b, const struct ccsg_monitoring *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	ccsg_monitoring_json_states(f, m);
	if (!fclose(f)) {
		XB_LIT(b, ",\n \"monitoring\":");
		xb_str(b, text);
	}
	free(text);
}

static void metadata(struct chrome *ch)
{
	const struct export_ctx *x = ch->x;
	const struct ccsg_trace *t = x->t;
	struct xbuf *b = ch->b;
	int64_t worst = 0;

	XB_LIT(b, "{\"displayTimeUnit\":\"ns\",\n\"metadata\":{"
		  "\"generator\":\"ccsg export\",\"trace\":");
	xb_json(b, t->path);
	XB_LIT(b, ",\"clock\":\"each host's CLOCK_MONOTONIC plus its "
		  "offset_ns; ts: microseconds from base_ns\",\"base_ns\":");
	xb_i64(b, x->base_ns);
	XB_LIT(b, ",\n \"hosts\":[");
	for (size_t h = 0; h < t->nhosts; h++) {
		const struct export_host *e = &x->hosts[h];

		xb_str(b, h ? ",\n  {\"host\":" : "\n  {\"host\":");
		xb_json(b, t->hosts[h]);
		XB_LIT(b, ",\"reference\":");
		xb_str(b, e->ref == (int32_t)h ? "true" : "false");
		XB_LIT(b, ",\"aligned_against\":");
		if (e->via >= 0)
			xb_json(b, t->hosts[e->via]);
		else
			XB_LIT(b, "null");
		XB_LIT(b, ",\"offset_ns\":");
		xb_i64(b, e->offset_ns);
		XB_LIT(b, ",\"error_ns\":");
		xb_i64(b, e->error_ns);
		XB_LIT(b, ",\"pairs\":");
		xb_i64(b, e->pairs);
		XB_LIT(b, ",\"calls_used\":");
		xb_i64(b, e->calls_used);
		XB_LIT(b, ",\"calls_set_aside\":");
		xb_i64(b, e->calls_set_aside);
		XB_LIT(b, ",\"outliers\":");
		xb_i64(b, e->outliers);
		XB_LIT(b, ",\"consistent\":");
		xb_str(b, e->inconsistent ? "false}" : "true}");
		if (e->error_ns > worst)
			worst = e->error_ns;
	}
	XB_LIT(b, "],\n \"max_error_ns\":");
	xb_i64(b, worst);
	XB_LIT(b, ",\"clamped_calls\":");
	xb_i64(b, x->clamped);
	if (x->sampling) { /* head sampling: the recorded chains' events */
		char rate[32];

		snprintf(rate, sizeof(rate), "%.9g", x->sample_rate);
		XB_LIT(b, ",\"sample_rate\":");
		xb_str(b, rate);
		XB_LIT(b, ",\"scaled\":false");
	}
	monitoring(b, &t->mon);
	XB_LIT(b, "},\n\"traceEvents\":[\n");
}

static void names(struct chrome *ch)
{
	const struct export_ctx *x = ch->x;
	const struct ccsg_trace *t = x->t;
	struct xbuf *b = ch->b;
	char label[1024];

	for (size_t p = 1; p < t->nprocs; p++) {
		if (!t->procs[p].present)
			continue;
		export_proc_label(x, (int32_t)p, label, sizeof(label));
		XB_LIT(b, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
		xb_i64(b, (int64_t)p);
		XB_LIT(b, ",\"args\":{\"name\":");
		xb_json(b, label);
		XB_LIT(b, "}},\n");
	}
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct ccsg_thread *th = &t->threads[i];

		snprintf(label, sizeof(label), "%lld %s%s%s%s",
			 (long long)tid_of(x, (int32_t)i),
			 th->tid == 1 ? "main"
			 : th->infra  ? "infrastructure"
			 : th->spawn_call >= 0 || th->parent_thread >= 0
				 ? "spawned"
				 : "thread",
			 ch->role[i] & R_CALLS ? ", client" : "",
			 ch->role[i] & R_SERVES ? ", server" : "", "");
		XB_LIT(b, "{\"ph\":\"M\",\"name\":\"thread_name\"");
		where(ch, th->proc, (int32_t)i, x->base_ns);
		XB_LIT(b, ",\"args\":{\"name\":");
		xb_json(b, label);
		XB_LIT(b, "}},\n");
	}
}

/* The end of a thread: its end record, else its process's. */
static int64_t thread_end(const struct export_ctx *x, size_t i)
{
	const struct ccsg_thread *th = &x->t->threads[i];

	return th->end_mono_ns != CCSG_NONE ? th->end_mono_ns
					    : x->proc_end[th->proc];
}

static void threads(struct chrome *ch)
{
	const struct export_ctx *x = ch->x;
	const struct ccsg_trace *t = x->t;
	struct xbuf *b = ch->b;

	for (size_t i = 0; i < t->nthreads; i++) {
		const struct ccsg_thread *th = &t->threads[i];
		int64_t s = x->th_start[i], e = thread_end(x, i);
		int32_t pt;

		if (s == CCSG_NONE)
			continue;
		s = export_time(x, th->proc, s);
		e = e == CCSG_NONE || export_time(x, th->proc, e) < s
			    ? s
			    : export_time(x, th->proc, e);
		XB_LIT(b, "{\"ph\":\"X\",\"cat\":\"thread\",\"name\":");
		xb_str(b, th->tid == 1 ? "\"main\"" : "\"thread\"");
		where(ch, th->proc, (int32_t)i, s);
		XB_LIT(b, ",\"dur\":");
		xb_us(b, e - s);
		XB_LIT(b, ",\"args\":{\"tid\":");
		xb_i64(b, th->tid);
		XB_LIT(b, ",\"cpu_us\":");
		if (th->cpu_ns != CCSG_NONE)
			xb_us(b, th->cpu_ns);
		else
			XB_LIT(b, "null");
		XB_LIT(b, ",\"self_cpu_us\":");
		xb_us(b, x->g->thread_self[i]);
		xb_str(b, th->end_mono_ns == CCSG_NONE ? ",\"ended\":false}},\n"
						       : "}},\n");
		/* the spawn: from the parent thread (inside the spawning
		 * call's skeleton when a call made it) to this one */
		pt = th->parent_tid > 0 && th->parent_tid != th->tid
			     ? ccsg_trace_thread(t, th->proc, th->parent_tid)
			     : -1;
		if (pt < 0)
			continue;
		{
			int64_t at = x->th_spawn[i] != CCSG_NONE
					     ? export_time(x, th->proc,
							   x->th_spawn[i])
					     : s;
			int64_t id =
				2 * (int64_t)export_ncalls(x) + 1 + (int64_t)i;

			XB_LIT(b, "{\"ph\":\"s\",\"cat\":\"spawn\","
				  "\"name\":\"spawn\",\"id\":");
			xb_i64(b, id);
			where(ch, th->proc, pt, at > s ? s : at);
			XB_LIT(b, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":"
				  "\"spawn\",\"name\":\"spawn\",\"id\":");
			xb_i64(b, id);
			where(ch, th->proc, (int32_t)i, e > s ? s + 1 : s);
			XB_LIT(b, "},\n");
		}
	}
}

/* The outcome: the client's status, or the server's reply. */
static const char *outcome(const struct ccsg_trace *t,
			   const struct ccsg_call *c, int server)
{
	if (!server && c->status >= 0 && c->status_name >= 0)
		return t->strings[c->status_name];
	if (server && c->reply >= 0 && c->reply < CCSG_NREPLY)
		return ccsg_reply_names[c->reply];
	if (c->status >= 0 && c->status_name >= 0)
		return t->strings[c->status_name];
	return c->reply >= 0 && c->reply < CCSG_NREPLY
		       ? ccsg_reply_names[c->reply]
		       : "unknown";
}

static void size_arg(struct xbuf *b, const char *key, int64_t v)
{
	xb_str(b, key);
	if (v == CCSG_NONE)
		XB_LIT(b, "null");
	else
		xb_i64(b, v);
}

static void slice(struct chrome *ch, size_t i, int server, int32_t th,
		  int64_t s, int64_t e)
{
	const struct export_part *p = ch->p;
	const struct ccsg_trace *t = p->t;
	const struct ccsg_call *c = &p->calls[i];
	struct xbuf *b = ch->b;
	int32_t proc = server ? c->server_proc : c->client_proc;
	int32_t n = p->node[i];
	const char *out = outcome(t, c, server);

	xb_str(b, server ? "{\"ph\":\"X\",\"cat\":\"rpc.server\",\"name\":"
			 : "{\"ph\":\"X\",\"cat\":\"rpc.client\",\"name\":");
	if (ccsg_call_side_failed(c, server)) {
		/* the name says it: "FIG1_PROG::FOO [RPC_TIMEDOUT]" */
		char *q = n >= 0 ? ch->fn[n] : ch->lost;

		xb_put(b, q, strlen(q) - 1);
		XB_LIT(b, " [");
		xb_json_body(b, out);
		XB_LIT(b, "]\",\"cname\":\"terrible\"");
	} else {
		xb_str(b, n >= 0 ? ch->fn[n] : ch->lost);
	}
	where(ch, proc, th, s);
	XB_LIT(b, ",\"dur\":");
	xb_us(b, e >= s ? e - s : 0);
	XB_LIT(b, ",\"args\":{\"call_id\":");
	xb_i64(b, c->call_id);
	/* the client slice says it all, the server slice (whose name says
	 * the function) what its side saw: a million calls are a gigabyte */
	if (!server) {
		XB_LIT(b, ",\"chain\":\"");
		xb_hex(b, t->chains[c->chain].id, DB_CHAIN_LEN);
		XB_LIT(b, "\",\"program\":");
		xb_u64(b, c->prog);
		XB_LIT(b, ",\"version\":");
		xb_u64(b, c->vers);
		XB_LIT(b, ",\"procedure\":");
		xb_u64(b, c->proc);
	}
	size_arg(b, ",\"args_bytes\":",
		 server ? c->server_args_bytes : c->args_bytes);
	size_arg(b, ",\"results_bytes\":",
		 server ? c->server_results_bytes : c->results_bytes);
	XB_LIT(b, ",\"outcome\":\"");
	xb_json_body(b, out);
	if (!server)
		xb_str(b, c->failed ? "\",\"failed\":true"
				    : "\",\"failed\":false");
	else
		xb_ch(b, '"');
	XB_LIT(b, ",\"self_cpu_us\":");
	xb_us(b, p->self[i]);
	XB_LIT(b, "}},\n");
}

static void flow(struct chrome *ch, int64_t id, const char *name,
		 int32_t from_proc, int32_t from_th, int64_t from_ts,
		 int32_t to_proc, int32_t to_th, int64_t to_ts)
{
	struct xbuf *b = ch->b;

	XB_LIT(b, "{\"ph\":\"s\",\"cat\":\"rpc\",\"name\":\"");
	xb_str(b, name);
	XB_LIT(b, "\",\"id\":");
	xb_i64(b, id);
	where(ch, from_proc, from_th, from_ts);
	XB_LIT(b, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"rpc\",\"name\":\"");
	xb_str(b, name);
	XB_LIT(b, "\",\"id\":");
	xb_i64(b, id);
	where(ch, to_proc, to_th, to_ts);
	XB_LIT(b, "},\n");
}

/* A point inside [s, e]: 1 ns in from the given end when there is room,
 * so that the flow binds to this slice, not its neighbour. */
static int64_t inside(int64_t s, int64_t e, int at_end)
{
	if (e - s < 2)
		return at_end ? e : s;
	return at_end ? e - 1 : s + 1;
}

/* The events of ch->p's calls [from, to), in order. */
static void calls_range(struct chrome *ch, size_t from, size_t to)
{
	const struct export_ctx *x = ch->x;
	const struct ccsg_trace *t = x->t;

	for (size_t i = from; i < to; i++) {
		const struct ccsg_call *c = &ch->p->calls[i];
		int64_t c0, c1, s0, s1, ord = ch->p->ord0 + (int64_t)i;
		int client, server;
		int32_t cth, sth;

		export_call_times(x, c, &c0, &c1, &s0, &s1);
		/* a side without its start or end: where it was seen */
		if (c0 == CCSG_NONE)
			c0 = c1;
		if (c1 == CCSG_NONE)
			c1 = c0;
		if (s0 == CCSG_NONE)
			s0 = s1;
		if (s1 == CCSG_NONE)
			s1 = s0;
		/* a reply sent before the skeleton start's exit probe (an
		 * unknown procedure): an empty slice */
		if (s1 != CCSG_NONE && s1 < s0)
			s1 = s0;
		if (c1 != CCSG_NONE && c1 < c0)
			c1 = c0;
		client = c->client_proc && c0 != CCSG_NONE;
		server = c->server_proc && s0 != CCSG_NONE;
		cth = ccsg_trace_thread(t, c->client_proc, c->client_tid);
		sth = ccsg_trace_thread(t, c->server_proc, c->server_tid);
		if (client)
			slice(ch, i, 0, cth, c0, c1);
		if (server)
			slice(ch, i, 1, sth, s0, s1);
		if (!client || !server)
			continue;
		flow(ch, 2 * ord + 1, "call", c->client_proc, cth,
		     inside(c0, c1, 0), c->server_proc, sth, inside(s0, s1, 0));
		flow(ch, 2 * ord + 2, "reply", c->server_proc, sth,
		     inside(s0, s1, 1), c->client_proc, cth, inside(c0, c1, 1));
	}
}

/*
 * A large trace's calls are formatted by threads as they are read: the
 * reader copies them into a job of a batch of calls, formatter threads
 * each format a job at a time into memory, and a writer thread writes the
 * jobs in order (the output is the same bytes): a million calls are some
 * 900 MB of JSON, formatting them is a CPU's second, the kernel's copy of
 * them a third of one more, and a reading of the trace two more.  At most
 * PAR_AHEAD jobs are in flight.
 */
size_t export_chrome_par_batch = 8192;
size_t export_chrome_par_min = 4 * 8192;
#define PAR_AHEAD 8
#define PAR_THREADS 4

/* A job is free to fill, handed to the formatters, or formatted. */
enum { JOB_FREE, JOB_HANDED, JOB_DONE };

struct job {
	struct export_gather calls; /* copied from the parts */
	char *p;		    /* their events */
	size_t n, cap;
	int state, err;
};

struct pipe {
	const struct chrome *ch;
	FILE *f;
	pthread_mutex_t lock;
	pthread_cond_t cond;	   /* a job handed, formatted or written */
	struct job job[PAR_AHEAD]; /* job k in job[k % PAR_AHEAD] */
	size_t handed, taken, written;
	int filling; /* job[handed % PAR_AHEAD] has calls not handed */
	int ending;
	int comma; /* a ",\n" owed before the next events */
	int err;   /* a write failed (its errno), or the jobs were dropped */
	pthread_t th[PAR_THREADS], writer;
	int nth, has_writer;
};

static ssize_t job_write(void *cookie, const char *buf, size_t n)
{
	struct job *j = cookie;

	if (j->n + n > j->cap) {
		size_t cap = j->cap ? j->cap : 1 << 20;
		char *p;

		while (cap < j->n + n)
			cap *= 2;
		if (!(p = realloc(j->p, cap)))
			return -1;
		j->p = p;
		j->cap = cap;
	}
	memcpy(j->p + j->n, buf, n);
	j->n += n;
	return (ssize_t)n;
}

/* A job's calls into its memory (kept from job to job, so that its pages
 * are faulted in once). */
static int format_job(const struct chrome *proto, struct job *j)
{
	static const cookie_io_functions_t io = { .write = job_write };
	struct chrome ch = *proto;
	struct export_part p;
	FILE *m;
	int err;

	j->n = 0;
	if (!(m = fopencookie(j, "w", io)))
		return -1;
	setvbuf(m, NULL, _IONBF, 0); /* the xbuf is the buffer */
	if (!(ch.b = malloc(sizeof(*ch.b)))) {
		fclose(m);
		return -1;
	}
	export_gather_part(&j->calls, &p);
	ch.p = &p;
	xb_init(ch.b, m);
	calls_range(&ch, 0, p.n);
	xb_flush(ch.b);
	err = ch.b->err;
	free(ch.b);
	return fclose(m) || err ? -1 : 0;
}

static void *formatter(void *arg)
{
	struct pipe *pp = arg;

	pthread_mutex_lock(&pp->lock);
	for (;;) {
		struct job *j;

		if (pp->taken == pp->handed) {
			if (pp->ending)
				break;
			pthread_cond_wait(&pp->cond, &pp->lock);
			continue;
		}
		j = &pp->job[pp->taken++ % PAR_AHEAD];
		if (pp->err) { /* abandoned: its trace may be gone */
			j->err = -1;
			j->state = JOB_DONE;
			pthread_cond_broadcast(&pp->cond);
			continue;
		}
		pthread_mutex_unlock(&pp->lock);
		j->err = format_job(pp->ch, j);
		pthread_mutex_lock(&pp->lock);
		j->state = JOB_DONE;
		pthread_cond_broadcast(&pp->cond);
	}
	pthread_mutex_unlock(&pp->lock);
	return NULL;
}

/*
 * Straight to the file, in blocks of the buffer's size: one write of a
 * whole batch (8 MB) made the kernel's copy into the page cache five
 * times slower here (copy_folio_from_iter_atomic: 2.9 s a gigabyte).
 */
static int put_raw(FILE *f, const char *p, size_t n)
{
	while (n) {
		size_t k = n < XBUF_SIZE ? n : XBUF_SIZE;

		if (fwrite(p, 1, k, f) != k)
			return -1;
		p += k;
		n -= k;
	}
	return 0;
}

/* The jobs' events in order, each but the last's trailing ",\n" owed to
 * the next. */
static void *writer(void *arg)
{
	struct pipe *pp = arg;

	pthread_mutex_lock(&pp->lock);
	for (;;) {
		struct job *j = &pp->job[pp->written % PAR_AHEAD];
		int bad = pp->err || j->err;
		size_t n;

		if (pp->written == pp->handed || j->state != JOB_DONE) {
			if (pp->ending && pp->written == pp->handed)
				break;
			pthread_cond_wait(&pp->cond, &pp->lock);
			continue;
		}
		pthread_mutex_unlock(&pp->lock);
		n = j->n;
		if (n && !bad) {
			int comma = n >= 2 && !memcmp(j->p + n - 2, ",\n", 2);

			if ((pp->comma && put_raw(pp->f, ",\n", 2)) ||
			    put_raw(pp->f, j->p, n - (comma ? 2 : 0)))
				bad = errno ? errno : EIO; /* why */
			pp->comma = comma;
		}
		pthread_mutex_lock(&pp->lock);
		if (bad && !pp->err)
			pp->err = bad;
		export_gather_clear(&j->calls);
		j->state = JOB_FREE;
		pp->written++;
		pthread_cond_broadcast(&pp->cond);
	}
	pthread_mutex_unlock(&pp->lock);
	return NULL;
}

/* The threads, once the header is written: -1 when none could be had. */
static int pipe_start(struct pipe *pp, struct chrome *ch)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cpus > PAR_THREADS ? PAR_THREADS : cpus > 1 ? (int)cpus : 2;
	struct xbuf *b = ch->b;

	memset(pp, 0, sizeof(*pp));
	pp->ch = ch;
	pp->f = b->f;
	pthread_mutex_init(&pp->lock, NULL);
	pthread_cond_init(&pp->cond, NULL);
	/* the header's last ",\n" is owed to the first events, if any */
	if (b->n >= 2 && !memcmp(b->b + b->n - 2, ",\n", 2)) {
		b->n -= 2;
		pp->comma = 1;
	}
	xb_flush(b);
	xb_pipe_end(b); /* the jobs go straight to the file, after it */
	pp->has_writer = !pthread_create(&pp->writer, NULL, writer, pp);
	while (pp->has_writer && pp->nth < want &&
	       !pthread_create(&pp->th[pp->nth], NULL, formatter, pp))
		pp->nth++;
	return pp->has_writer && pp->nth ? 0 : -1;
}

/* Hand the job being filled to the formatters. */
static void pipe_hand(struct pipe *pp)
{
	pthread_mutex_lock(&pp->lock);
	pp->job[pp->handed % PAR_AHEAD].state = JOB_HANDED;
	pp->handed++;
	pp->filling = 0;
	pthread_cond_broadcast(&pp->cond);
	pthread_mutex_unlock(&pp->lock);
}

/* The job to fill next, once the writer is done with it. */
static struct job *pipe_next(struct pipe *pp)
{
	struct job *j = &pp->job[pp->handed % PAR_AHEAD];

	pthread_mutex_lock(&pp->lock);
	while (j->state != JOB_FREE)
		pthread_cond_wait(&pp->cond, &pp->lock);
	pthread_mutex_unlock(&pp->lock);
	return j;
}

/*
 * The last job handed, every job written, the threads gone, before the
 * pass's trace (the strings) is: the caller ends the list.  Abandoned
 * (a pass that failed), the jobs left are not formatted.
 */
static int pipe_end(struct pipe *pp, struct xbuf *b, int abandon)
{
	/* (the slot after the last job handed may still be in flight: only
	 * a job being filled is handed here) */
	if (pp->filling && !abandon)
		pipe_hand(pp);
	pthread_mutex_lock(&pp->lock);
	if (abandon && !pp->err)
		pp->err = 1;
	pp->ending = 1;
	pthread_cond_broadcast(&pp->cond);
	pthread_mutex_unlock(&pp->lock);
	for (int i = 0; i < pp->nth; i++)
		pthread_join(pp->th[i], NULL);
	if (pp->has_writer)
		pthread_join(pp->writer, NULL);
	for (int i = 0; i < PAR_AHEAD; i++) {
		export_gather_release(&pp->job[i].calls);
		free(pp->job[i].p);
	}
	pthread_cond_destroy(&pp->cond);
	pthread_mutex_destroy(&pp->lock);
	if (pp->err) {
		b->err = 1;
		if (pp->err > 1)
			errno = pp->err; /* the writer's, to say why */
	}
	return b->err ? -EIO : 0;
}

/* Which threads call and which serve. */
static int roles_part(void *arg, const struct export_part *p)
{
	struct chrome *ch = arg;
	const struct ccsg_trace *t = ch->x->t;

	for (size_t i = 0; i < p->n; i++) {
		const struct ccsg_call *c = &p->calls[i];
		int32_t a = ccsg_trace_thread(t, c->client_proc, c->client_tid),
			s = ccsg_trace_thread(t, c->server_proc, c->server_tid);

		if (a >= 0)
			ch->role[a] |= R_CALLS;
		if (s >= 0)
			ch->role[s] |= R_SERVES;
	}
	return 0;
}

/* A part's events: in order here, or copied into jobs of a batch of
 * calls for the formatter threads. */
static int write_part(void *arg, const struct export_part *p)
{
	struct chrome *ch = arg;
	struct pipe *pp = ch->pipe;
	int bad;

	if (pp && !p->n) { /* the end: every job out while its trace is */
		ch->pipe = NULL;
		return pipe_end(pp, ch->b, 0);
	}
	if (!pp) {
		ch->p = p;
		calls_range(ch, 0, p->n);
		ch->p = NULL;
		return ch->b->err ? -EIO : 0;
	}
	for (size_t from = 0; from < p->n;) {
		struct job *j = pipe_next(pp);
		size_t room = export_chrome_par_batch > j->calls.n
				      ? export_chrome_par_batch - j->calls.n
				      : 1;
		size_t to = p->n - from < room ? p->n : from + room;

		if (export_gather_add(&j->calls, p, from, to))
			return -ENOMEM;
		pp->filling = 1;
		if (j->calls.n >= export_chrome_par_batch)
			pipe_hand(pp);
		from = to;
		pthread_mutex_lock(&pp->lock);
		bad = pp->err;
		pthread_mutex_unlock(&pp->lock);
		if (bad)
			return -EIO;
	}
	return 0;
}

int export_chrome(FILE *f, struct export_ctx *x,
		  const struct export_source *src)
{
	const struct ccsg_trace *t = x->t;
	struct chrome ch = { .x = x };
	struct pipe pipe;
	size_t nn = 0;
	int ret = -ENOMEM;

	ch.b = malloc(sizeof(*ch.b));
	ch.role = calloc(t->nthreads + 1, 1);
	ch.lost = json_of(CCSG_LOST_NAME);
	if (!ch.b || !ch.role || !ch.lost)
		goto out;
	/* the clocks and roles (the graph folded, when the source's first
	 * pass folds it), the time's origin, then the events */
	if ((ret = export_align(x, src, roles_part, &ch)) ||
	    (ret = export_bounds(x, src)))
		goto out;
	ret = -ENOMEM;
	nn = x->g->nnodes;
	if (!(ch.fn = calloc(nn + 1, sizeof(char *))))
		goto out;
	for (size_t n = 0; n < nn; n++)
		if (!(ch.fn[n] = json_of(
			      x->g->nodes[n].name ? x->g->nodes[n].name : "?")))
			goto out;
	xb_init(ch.b, f);
	xb_pipe_start(ch.b); /* else written as it goes */
	metadata(&ch);
	names(&ch);
	threads(&ch);
	memset(&pipe, 0, sizeof(pipe));
	if (export_ncalls(x) >= export_chrome_par_min) {
		if (!pipe_start(&pipe, &ch)) {
			ch.pipe = &pipe;
		} else { /* threads short: in order, as a small trace */
			int comma = pipe.comma;

			pipe_end(&pipe, ch.b, 0);
			if (comma)
				XB_LIT(ch.b, ",\n");
		}
	}
	ret = src->pass(src, write_part, &ch);
	if (ch.pipe) /* the pass failed before its end */
		pipe_end(&pipe, ch.b, 1);
	/* no comma after the last event: it is still in the buffer (a put
	 * flushes before it appends) */
	if (ch.b->n >= 2 && !memcmp(ch.b->b + ch.b->n - 2, ",\n", 2))
		ch.b->n -= 2;
	xb_str(ch.b, "\n]}\n");
	xb_flush(ch.b);
	xb_pipe_end(ch.b);
	if (!ret)
		ret = ch.b->err ? -EIO : 0;
out:
	if (ch.fn)
		for (size_t n = 0; n < nn; n++)
			free(ch.fn[n]);
	free(ch.fn);
	free(ch.lost);
	free(ch.role);
	free(ch.b);
	return ret;
}
