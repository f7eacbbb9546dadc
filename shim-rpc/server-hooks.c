/*
 * server-hooks.c - the skeleton side: skeleton start and skeleton end around
 * the user's implementation of each request a server dispatches.
 *
 * Every server transport passes through xprt_register once its xp_ops is
 * set; we point xp_ops at a copy whose operations are ours.  libtirpc then
 * drives a request as: xp_recv (the request arrives) -> the program's
 * dispatch routine -> xp_getargs (its return is skeleton start) -> the
 * user's implementation -> xp_reply (its entry is skeleton end, error
 * replies included) -> xp_stat (dispatch returned: skeleton end for
 * procedures that sent no reply).  Dispatch runs on the thread that runs
 * svc_run / svc_getreq*, so the request being served lives in TLS, as a
 * small stack: an implementation may itself serve requests.
 *
 * What goes on the wire is the program's, byte for byte: the tag is
 * appended only to a tagged request's reply, and the results are sized
 * while libtirpc encodes them (xdr-size.h), so the skeleton end, read at
 * xp_reply's entry, is written once the reply is out.
 *
 * A fork() inside a skeleton (Debian's ypserv forks in YPPROC_ALL and its
 * child streams the map) gives the child the open call with the forking
 * thread's TLS: its context, xid and skeleton start.  The child's reply
 * ends the call (RPC_SKEL_END fork "child"); the parent's dispatch then
 * returns without one, and says so ("handed": no reply sent there).
 */
#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>

#include "internal.h"
#include "values.h"
#include "keep.h"

struct wrapped_xp_ops {
	struct xp_ops ops;		/* first: what transports point at */
	const struct xp_ops *orig;
	int transport_kind;		/* 1 datagram, 0 stream, -1 raw */
};

#define XP_WRAPPERS 16

static struct wrapped_xp_ops wrappers[XP_WRAPPERS];
static int nwrappers;
static pthread_mutex_t wrappers_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*real_xprt_register)(SVCXPRT *);
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

enum serving_state { SERVING_RECEIVED, SERVING_STARTED, SERVING_ENDED };

struct serving {
	const SVCXPRT *xprt;
	const struct wrapped_xp_ops *w;
	uint32_t xid, prog, vers, proc;
	int state;			/* enum serving_state */
	int tag;			/* enum causal_tag_status */
	uint8_t forked;			/* fork() inside the skeleton */
	uint8_t inherited;		/* this process is that fork's child */
	uint32_t types;			/* recorded with (monitor.h); 0 in
					 * a chain not sampled */
	uint64_t fid;
	uint64_t held;			/* tail keep: when it started, or 0 */
	struct causal_ctx saved;	/* the thread's context before */
};

#define SERVING_DEPTH 8

static CAUSAL_TLS int serving_depth;
static CAUSAL_TLS struct serving serving[SERVING_DEPTH];

/*
 * fork() on a thread serving a request: the atfork handlers run on the
 * forking thread, whose stack this TLS is; each side learns what the
 * fork made of its open skeletons.  The child's thread starts with a
 * context of its own, as any new thread does (context.h); the context
 * of the call it inherited, as it was at the fork, is kept for the end
 * of that call, the first of its skeletons to end there.
 */
static CAUSAL_TLS struct causal_ctx fork_ctx;
static CAUSAL_TLS int fork_ctx_pending;

static void forked_while_serving(int child)
{
	for (int i = 0; i < serving_depth; i++) {
		if (serving[i].state != SERVING_STARTED)
			continue;
		if (child) {
			serving[i].inherited = 1;
			fork_ctx_pending = 1;
		} else {
			serving[i].forked = 1;
		}
	}
}

static void fork_prepare(void)
{
	fork_ctx = causal_self.ctx;
}

static void fork_parent(void)
{
	forked_while_serving(0);
}

static void fork_child(void)
{
	fork_ctx_pending = 0;
	forked_while_serving(1);
}

static void resolve(void)
{
	real_xprt_register = dlsym(RTLD_NEXT, "xprt_register");
	/* before the first request can be served */
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static const struct wrapped_xp_ops *wrapper_of(const struct xp_ops *ops)
{
	const struct wrapped_xp_ops *w = (const void *)ops;

	if (w >= wrappers && w < wrappers + XP_WRAPPERS)
		return w;
	return NULL;
}

static struct serving *serving_top(const SVCXPRT *xprt)
{
	struct serving *s;

	if (!serving_depth)
		return NULL;
	s = &serving[serving_depth - 1];
	return s->xprt == xprt ? s : NULL;
}

static int transport_of(const struct serving *s)
{
	if (s->w->transport_kind < 0)
		return CAUSAL_TRANSPORT_RAW;
	return causal_rpc_transport(s->xprt->xp_ltaddr.buf,
				    s->xprt->xp_ltaddr.len,
				    s->w->transport_kind == 1);
}

/* ---- the two probes ----------------------------------------------------- */

/* The clocks a probe of these types reads at its entry (0: not read). */
static void read_clocks(uint32_t types, uint64_t *mono, uint64_t *cpu)
{
	*mono = 0;
	*cpu = 0;
	if (types & (CAUSAL_MON_LATENCY | CAUSAL_MON_CPU))
		*mono = causal_now_ns();
	if (types & CAUSAL_MON_CPU)
		*cpu = causal_probe_cpu_ns(*mono);
}

/*
 * What the skeleton of s is monitored with: what the caller's stub was
 * (the tag's types: causal overriding), else the process's own decision
 * for its component; and the call the serving thread is in, if any.
 */
static uint32_t skeleton_types(const struct serving *s,
			       const struct causal_tag *tag, int tag_status)
{
	uint32_t types = causal_self.ctx.mon;

	if (tag_status == CAUSAL_TAG_OK && (tag->flags & CAUSAL_TAG_F_MON))
		return types | (tag->flags & CAUSAL_TAG_F_MON_TYPES);
	return types | causal_mon_call(s->prog, s->proc, NULL);
}

/* The chain a skeleton joins, and whether it is recorded. */
struct chain_in {
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	uint64_t event_no;
	uint8_t unsampled;
};

/*
 * The caller's chain, sampled as its root decided (the tag's bit,
 * whatever this process's CAUSAL_SAMPLE); from a caller that sends no
 * tag (untraced), a chain that starts here, decided here.  Known before
 * the skeleton reads its clocks: an unsampled one reads none.
 */
static void chain_in_of(const struct causal_tag *tag, int tag_status,
			struct chain_in *c)
{
	if (tag_status == CAUSAL_TAG_OK) {
		memcpy(c->chain, tag->chain, CAUSAL_CHAIN_ID_LEN);
		c->event_no = tag->event_no + 1;
		c->unsampled = !!(tag->flags & CAUSAL_TAG_F_UNSAMPLED);
	} else {
		causal_rpc_new_chain(c->chain, &c->unsampled);
		c->event_no = 0;
	}
}

/* cpu: the thread's CPU clock if already read with no user code since
 * (a skeleton with nothing inside), else 0 to read it at the exit.
 * types: skeleton_types(); entry is 0 unless latency or cpu is on and
 * the chain is sampled. */
static void skeleton_start(struct serving *s, const struct chain_in *c,
			   int tag_status, uint32_t args_bytes, uint64_t entry,
			   uint64_t cpu, uint32_t types)
{
	struct causal_ctx *ctx = &causal_self.ctx;
	const struct netbuf *peer = &s->xprt->xp_rtaddr;
	struct causal_tbuf *tb = causal_thread_current();
	struct rec_rpc_skel_start *r;
	uint32_t len = peer->buf && peer->len <= CAUSAL_SOCKADDR_MAX
			       ? peer->len : 0;
	uint64_t pending, object, exit_ns = 0;
	int transport = transport_of(s);

	s->saved = *ctx;
	s->tag = tag_status;
	s->held = causal_rpc_held(c->unsampled) ? causal_now_ns() : 0;
	s->types = c->unsampled && !s->held ? 0 : types;
	s->fid = causal_rpc_next_function_id();
	s->state = SERVING_STARTED;
	memcpy(ctx->chain, c->chain, CAUSAL_CHAIN_ID_LEN);
	ctx->event_no = c->event_no;
	ctx->unsampled = c->unsampled;
	ctx->keep = 0;
	ctx->function_id = s->fid;
	/* the calls it makes and the threads it spawns are monitored too
	 * (and its calls, in its chain, sampled as it is) */
	ctx->mon = (uint8_t)types;
	types = s->types;
	if (!tb || !CAUSAL_MON_RECORD(types))
		goto out;
	if (!(types & CAUSAL_MON_SEMANTICS))
		len = 0;
	/* before reserving ours: a new object writes a record of its own */
	object = causal_rpc_object(tb, s->xprt, s->prog, s->vers, transport);
	r = (void *)causal_record_begin_at(
		tb, CAUSAL_REC_RPC_SKEL_START,
		(uint32_t)CAUSAL_REC_ALIGN(sizeof(*r) + len), &pending,
		types & CAUSAL_MON_LATENCY ? entry : 0);
	if (!r)
		goto out;
	causal_probe_fill(&r->p, ctx->chain, ctx->event_no, s->fid);
	r->prog = s->prog;
	r->vers = s->vers;
	r->proc = s->proc;
	r->xid = s->xid;
	r->transport = (uint8_t)transport;
	r->tag = types & CAUSAL_MON_SEMANTICS ? (uint8_t)tag_status : 0;
	r->args_bytes = args_bytes;
	r->object_id = object;
	r->mon_off = (uint8_t)(CAUSAL_MON_PROBES & ~types);
	r->p.hdr.aux = causal_copy_addr(r->tail, peer->buf, len);
	CAUSAL_HEAP_FILL_IF(r, types & CAUSAL_MON_MEMORY);
	if (types & (CAUSAL_MON_LATENCY | CAUSAL_MON_CPU))
		exit_ns = causal_now_ns();
	r->p.mono_exit_ns = types & CAUSAL_MON_LATENCY ? exit_ns : 0;
	/* Equation 1 starts the implementation's CPU at the probe's exit */
	r->p.cpu_ns = !(types & CAUSAL_MON_CPU) ? 0
		      : cpu			? cpu
						: causal_probe_cpu_ns(exit_ns);
	causal_record_commit(tb, pending);
out:
	causal_totals_skel_start(s->prog, s->vers, s->proc, c->unsampled);
	/* white: the user's implementation runs from here */
	ctx->marker = CAUSAL_MARKER_USER;
}

/* The heap counters of a probe (records.def, CAUSAL_FIELDS_HEAP). */
struct heap_at {
	uint32_t heap_epoch;
	uint64_t alloc_bytes, freed_bytes, allocs, frees;
};

/* A skeleton end as read at the probe's entry, written later. */
struct skel_end {
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	uint64_t event, fid;
	uint64_t entry, cpu; /* the clocks at the entry (0: off) */
	uint64_t exit_ns;    /* the probe's exit, 0: when written */
	uint32_t types;
	uint8_t held; /* CAUSAL_REC_HELD (tail keep), or 0 */
	struct heap_at heap;
};

/*
 * Skeleton end, at the probe's entry: its event, and what it reads there;
 * the thread gets its context back.
 */
static void skeleton_end_begin(struct serving *s, uint64_t entry, uint64_t cpu,
			       struct skel_end *e)
{
	struct causal_ctx *ctx = &causal_self.ctx;

	if (s->inherited && fork_ctx_pending) {
		*ctx = fork_ctx;
		fork_ctx_pending = 0;
	}
	memcpy(e->chain, ctx->chain, CAUSAL_CHAIN_ID_LEN);
	e->event = ++ctx->event_no;
	e->fid = s->fid;
	e->entry = entry;
	e->cpu = cpu;
	e->exit_ns = 0;
	e->types = s->types;
	e->held = ctx->unsampled ? CAUSAL_REC_HELD : 0;
	CAUSAL_HEAP_FILL_IF(&e->heap, s->types & CAUSAL_MON_MEMORY);
	*ctx = s->saved;
	s->state = SERVING_ENDED;
}

/* fork: enum causal_skel_fork. */
static void skeleton_end_write(const struct skel_end *e, int reply,
			       uint32_t results, int fork)
{
	struct causal_tbuf *tb = causal_thread_current();
	uint32_t types = e->types;
	struct rec_rpc_skel_end *r;
	uint64_t pending;
	int sem = !!(types & CAUSAL_MON_SEMANTICS);

	if (!tb || !CAUSAL_MON_RECORD(types))
		return;
	r = (void *)causal_record_begin_at(
		tb, CAUSAL_REC_RPC_SKEL_END, sizeof(*r), &pending,
		types & CAUSAL_MON_LATENCY ? e->entry : 0);
	if (!r)
		return;
	causal_probe_fill(&r->p, e->chain, e->event, e->fid);
	r->p.hdr.reserved = e->held; /* the thread's context is back */
	r->reply = sem ? (uint32_t)reply : 0;
	r->results_bytes = sem ? results : 0;
	r->fork = (uint8_t)fork;
	r->mon_off = (uint8_t)(CAUSAL_MON_PROBES & ~types);
	r->heap_epoch = e->heap.heap_epoch;
	r->alloc_bytes = e->heap.alloc_bytes;
	r->freed_bytes = e->heap.freed_bytes;
	r->allocs = e->heap.allocs;
	r->frees = e->heap.frees;
	/* read at the probe's entry */
	r->p.cpu_ns = types & CAUSAL_MON_CPU ? e->cpu : 0;
	r->p.mono_exit_ns = !(types & CAUSAL_MON_LATENCY) ? 0
			    : e->exit_ns		  ? e->exit_ns
							  : causal_now_ns();
	causal_record_commit(tb, pending);
}

/* ---- the transport operations ------------------------------------------ */

struct args_state {
	xdrproc_t xargs;
	void *argsp;
	uint32_t xid;
	uint32_t bytes;			/* the arguments took, decoded */
	int fd;				/* the connection, to peek at */
	int status;			/* enum causal_tag_status */
	struct causal_tag tag;
	struct causal_values *vals; /* values.h: NULL when not taken */
};

/* libtirpc calls these through xdrproc_t, a variadic type: cast there */
static bool_t args_and_tag(XDR *xdrs, void *p)
{
	struct args_state *as = p;

	if (as->xargs &&
	    !causal_values_run(xdrs, as->xargs, as->argsp, &as->bytes, as->vals,
			       CAUSAL_VALUES_SKEL_ARGS))
		return FALSE;
	if (xdrs->x_op == XDR_DECODE)
		as->status = causal_xdr_get_tag(xdrs, as->xid, as->fd,
						&as->tag);
	return TRUE;
}

/* An error reply: the tag, if any, is somewhere after the header. */
static bool_t scan_for_tag(XDR *xdrs, void *p)
{
	struct args_state *as = p;

	if (xdrs->x_op == XDR_DECODE)
		as->status = causal_xdr_scan_tag(xdrs, as->xid, as->fd,
						 &as->tag);
	return TRUE;
}

struct results_state {
	xdrproc_t xres;
	void *resp;
	uint32_t bytes; /* the results took, encoded */
	int tagged;	/* the tag follows them */
	struct causal_tag tag;
	struct causal_values *vals; /* values.h: NULL when not taken */
};

static bool_t results_and_tag(XDR *xdrs, void *p)
{
	struct results_state *rs = p;

	if (!causal_values_run(xdrs, rs->xres, rs->resp, &rs->bytes, rs->vals,
			       CAUSAL_VALUES_SKEL_RESULTS))
		return FALSE;
	if (rs->tagged && xdrs->x_op == XDR_ENCODE) {
		if (!causal_xdr_is_mem(xdrs))
			rs->tag.xid = 0; /* see xdr-tag.c */
		causal_xdr_put_tag(xdrs, &rs->tag);
	}
	return TRUE;
}

/*
 * The dispatch of s, the top request, is over: a skeleton still open
 * sent no reply.  Its fork child's, if it forked, may still come; and in
 * that child the call is the parent's to end.  s leaves the stack.
 */
static void serving_close(struct serving *s)
{
	if (s->state == SERVING_STARTED && causal_running()) {
		struct skel_end e;
		uint64_t now, cpu;

		read_clocks(s->types, &now, &cpu);

		causal_self.in_hook = 1;
		if (s->inherited) {
			causal_self.ctx = s->saved;
			s->state = SERVING_ENDED;
			fork_ctx_pending = 0;
			causal_totals_skel_end(0, 0);
		} else {
			skeleton_end_begin(s, now, cpu, &e);
			causal_totals_skel_end(0, 1);
			skeleton_end_write(&e, CAUSAL_REPLY_NONE, 0,
					   s->forked ? CAUSAL_SKEL_FORK_HANDED
						     : CAUSAL_SKEL_FORK_NONE);
		}
		causal_self.in_hook = 0;
	}
	serving_depth--;
}

static bool_t traced_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	const struct wrapped_xp_ops *w = wrapper_of(xprt->xp_ops);
	bool_t ok = w->orig->xp_recv(xprt, msg);
	struct serving *s;

	if (!ok || msg->rm_direction != CALL || causal_self.in_hook ||
	    !causal_running())
		return ok;
	/* requests served to the end are done with */
	while (serving_depth &&
	       serving[serving_depth - 1].state == SERVING_ENDED)
		serving_depth--;
	/* a request of this transport whose dispatch never reached xp_stat
	 * (libtirpc skips it when the connection went away in dispatch) */
	s = serving_top(xprt);
	if (s)
		serving_close(s);
	if (serving_depth == SERVING_DEPTH)
		return ok; /* nested too deep: not traced */
	s = &serving[serving_depth++];
	s->xprt = xprt;
	s->w = w;
	s->xid = msg->rm_xid;
	s->prog = (uint32_t)msg->rm_call.cb_prog;
	s->vers = (uint32_t)msg->rm_call.cb_vers;
	s->proc = (uint32_t)msg->rm_call.cb_proc;
	s->state = SERVING_RECEIVED;
	s->tag = CAUSAL_TAG_ABSENT;
	s->forked = 0;
	s->inherited = 0;
	return ok;
}

static bool_t traced_getargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	const struct wrapped_xp_ops *w = wrapper_of(xprt->xp_ops);
	struct serving *s = serving_top(xprt);
	struct args_state as;
	struct causal_values vals;
	struct chain_in c;
	uint64_t entry = 0;
	uint32_t types;
	bool_t ok;

	if (!s || s->state != SERVING_RECEIVED || causal_self.in_hook ||
	    !causal_running())
		return w->orig->xp_getargs(xprt, xargs, argsp);
	memset(&as, 0, sizeof(as));
	as.xargs = xargs;
	as.argsp = argsp;
	as.xid = s->xid;
	as.fd = xprt->xp_fd;
	as.status = CAUSAL_TAG_ABSENT;
	/* copied before the chain is known, written once it is recorded */
	if (causal_values_wanted(CAUSAL_MON_ALL, s->prog, s->proc, NULL)) {
		causal_values_init(&vals, 0);
		as.vals = &vals;
	}
	ok = w->orig->xp_getargs(xprt, (xdrproc_t)args_and_tag, &as);
	if (!ok)
		return ok; /* an error reply follows: skeleton at xp_reply */
	chain_in_of(&as.tag, as.status, &c);
	types = skeleton_types(s, &as.tag, as.status);
	if ((!c.unsampled || causal_keep_enabled()) &&
	    types & (CAUSAL_MON_LATENCY | CAUSAL_MON_CPU))
		entry = causal_now_ns();
	causal_self.in_hook = 1;
	skeleton_start(s, &c, as.status,
		       types & CAUSAL_MON_SEMANTICS ? as.bytes : 0, entry, 0,
		       types);
	if (as.vals && CAUSAL_MON_RECORD(s->types)) {
		vals.fid = s->fid;
		causal_values_flush(&vals);
	}
	causal_self.in_hook = 0;
	return ok;
}

static int reply_kind(const struct rpc_msg *msg)
{
	if (msg->rm_reply.rp_stat != MSG_ACCEPTED)
		return CAUSAL_REPLY_DENIED;
	switch (msg->acpted_rply.ar_stat) {
	case SUCCESS:
		return CAUSAL_REPLY_SUCCESS;
	case PROG_UNAVAIL:
		return CAUSAL_REPLY_PROG_UNAVAIL;
	case PROG_MISMATCH:
		return CAUSAL_REPLY_PROG_MISMATCH;
	case PROC_UNAVAIL:
		return CAUSAL_REPLY_PROC_UNAVAIL;
	case GARBAGE_ARGS:
		return CAUSAL_REPLY_GARBAGE_ARGS;
	default:
		return CAUSAL_REPLY_SYSTEM_ERR;
	}
}

/*
 * A reply to a request that reached no getargs: the null procedure, whose
 * tag follows the call header directly, or an error reply before any
 * argument.  Its skeleton starts here (no user code runs in between: one
 * CPU read serves the start and the end).
 */
static void start_at_reply(SVCXPRT *xprt, struct serving *s, int reply,
			   uint64_t *entry, uint64_t *cpu)
{
	const struct wrapped_xp_ops *w = s->w;
	struct args_state as = { .xid = s->xid,
				 .fd = xprt->xp_fd,
				 .status = CAUSAL_TAG_ABSENT };
	struct chain_in c;
	uint32_t types;

	if (s->proc == NULLPROC && reply == CAUSAL_REPLY_SUCCESS)
		w->orig->xp_getargs(xprt, (xdrproc_t)args_and_tag, &as);
	else if (reply != CAUSAL_REPLY_SUCCESS)
		w->orig->xp_getargs(xprt, (xdrproc_t)scan_for_tag, &as);
	chain_in_of(&as.tag, as.status, &c);
	types = skeleton_types(s, &as.tag, as.status);
	read_clocks(c.unsampled && !causal_keep_enabled() ? 0 : types, entry,
		    cpu);
	skeleton_start(s, &c, as.status, 0, *entry, *cpu, types);
}

static bool_t traced_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	const struct wrapped_xp_ops *w = wrapper_of(xprt->xp_ops);
	struct serving *s = serving_top(xprt);
	struct results_state rs;
	struct causal_values vals;
	struct skel_end e;
	xdrproc_t proc = NULL;
	void *where = NULL;
	uint64_t entry = 0, cpu = 0;
	uint32_t keep = 0;
	int reply, fork, sized, saved_errno;
	bool_t ok;

	if (!s || s->state == SERVING_ENDED || causal_self.in_hook ||
	    !causal_running())
		return w->orig->xp_reply(xprt, msg);
	/* skeleton end, at the probe's entry (a skeleton not started yet
	 * learns its types from the tag first: no user code runs there) */
	if (s->state == SERVING_STARTED)
		read_clocks(s->types, &entry, &cpu);
	causal_self.in_hook = 1;
	reply = reply_kind(msg);
	if (reply == CAUSAL_REPLY_SUCCESS) {
		proc = msg->acpted_rply.ar_results.proc;
		where = msg->acpted_rply.ar_results.where;
	}
	if (s->state == SERVING_RECEIVED)
		start_at_reply(xprt, s, reply, &entry, &cpu);
	memset(&rs, 0, sizeof(rs));
	rs.tagged = s->tag == CAUSAL_TAG_OK;
	fork = s->inherited ? CAUSAL_SKEL_FORK_CHILD : CAUSAL_SKEL_FORK_NONE;
	if (s->held)
		keep = causal_rpc_keep_skel(&causal_self.ctx,
					    causal_now_ns() - s->held, reply);
	skeleton_end_begin(s, entry, cpu, &e);
	causal_totals_skel_end(reply != CAUSAL_REPLY_SUCCESS,
			       fork != CAUSAL_SKEL_FORK_CHILD);
	/* the results are sized as they are encoded; the reply carries the
	 * skeleton end's event back to the stub, only to a traced caller,
	 * and never in place of NULL results */
	sized = proc && (e.types & CAUSAL_MON_SEMANTICS);
	if (proc && causal_values_wanted(e.types, s->prog, s->proc, NULL)) {
		causal_values_init(&vals, e.fid);
		rs.vals = &vals;
	}
	if (proc && (rs.tagged || sized || rs.vals)) {
		rs.xres = proc;
		rs.resp = where;
		memcpy(rs.tag.chain, e.chain, CAUSAL_CHAIN_ID_LEN);
		rs.tag.event_no = e.event;
		rs.tag.xid = s->xid;
		rs.tag.flags = keep;
		msg->acpted_rply.ar_results.proc = (xdrproc_t)results_and_tag;
		msg->acpted_rply.ar_results.where = (void *)&rs;
	}
	if (e.types & CAUSAL_MON_LATENCY)
		e.exit_ns = causal_now_ns();
	causal_self.in_hook = 0;
	ok = w->orig->xp_reply(xprt, msg);
	saved_errno = errno;
	if (rs.xres) {
		msg->acpted_rply.ar_results.proc = proc;
		msg->acpted_rply.ar_results.where = where;
	}
	causal_self.in_hook = 1;
	causal_values_flush(rs.vals);
	skeleton_end_write(&e, reply, rs.bytes, fork);
	causal_self.in_hook = 0;
	errno = saved_errno;
	return ok;
}

static enum xprt_stat traced_stat(SVCXPRT *xprt)
{
	const struct wrapped_xp_ops *w = wrapper_of(xprt->xp_ops);
	struct serving *s = serving_top(xprt);

	/* dispatch returned, with a reply or without */
	if (s && !causal_self.in_hook)
		serving_close(s);
	return w->orig->xp_stat(xprt);
}

/* ---- registration ------------------------------------------------------- */

static int kind_of_fd(int fd)
{
	int type;
	socklen_t len = sizeof(type);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len))
		return -1;
	return type == SOCK_DGRAM ? 1 : 0;
}

CAUSAL_EXPORT void xprt_register(SVCXPRT *xprt)
{
	const struct xp_ops *orig;
	int i;

	pthread_once(&real_once, resolve);
	causal_ensure_init();
	if (!real_xprt_register)
		return;
	real_xprt_register(xprt);
	if (!xprt || !xprt->xp_ops || !causal_running() ||
	    wrapper_of(xprt->xp_ops))
		return;
	orig = xprt->xp_ops;
	causal_mutex_lock(&wrappers_lock);
	for (i = 0; i < nwrappers && wrappers[i].orig != orig; i++)
		;
	if (i == nwrappers && nwrappers < XP_WRAPPERS) {
		wrappers[i].ops = *orig;
		wrappers[i].ops.xp_recv = traced_recv;
		wrappers[i].ops.xp_getargs = traced_getargs;
		wrappers[i].ops.xp_reply = traced_reply;
		wrappers[i].ops.xp_stat = traced_stat;
		wrappers[i].orig = orig;
		/* one ops table per transport kind: its first socket says */
		wrappers[i].transport_kind = kind_of_fd(xprt->xp_fd);
		nwrappers++;
	}
	causal_mutex_unlock(&wrappers_lock);
	if (i < XP_WRAPPERS)
		xprt->xp_ops = &wrappers[i].ops;
}
