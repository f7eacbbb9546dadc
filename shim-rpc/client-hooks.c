/*
 * client-hooks.c - the stub side: stub start and stub end around every call
 * made through a CLIENT handle.
 *
 * Every client path of libtirpc (clnt_create and its variants, clnt_tp /
 * clnt_tli, clnttcp / clntudp / clntunix, rpc_call / callrpc, the rpcbind
 * look-ups) ends in clnt_vc_create, clnt_dg_create or clnt_raw_create; we
 * wrap those three and point the handle's cl_ops at a copy of the original
 * table whose cl_call is ours (see struct traced_client).  The arguments
 * and results are encoded by libtirpc as usual;
 * our xdr procedures wrap the caller's to append the tag after the
 * arguments and read the reply's tag after the results.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "values.h"

enum client_kind { CLIENT_VC, CLIENT_DG, CLIENT_RAW };

/*
 * Each traced handle gets its own operation table, with what the stub
 * probes need to know of it: asking libtirpc per call (cl_control) costs
 * two sigprocmask() system calls a question.  cl_control and cl_destroy
 * are wrapped too, to follow changes and to free this.
 */
/* What a stub start records of the server it calls. */
struct stub_target {
	uint32_t prog, vers;
	int transport;			/* enum causal_rpc_transport */
	uint32_t peer_len;
	uint8_t peer[CAUSAL_SOCKADDR_MAX];
};

struct traced_client {
	struct clnt_ops ops;		/* first: what the handle points at */
	const struct clnt_ops *orig;
	int kind;			/* enum client_kind */
	int fd;				/* the connection (VC), else -1 */
	struct stub_target target;	/* kept up to date by cl_control */
};

/* The peer, and the transport that follows from it and the kind. */
static void set_peer(struct traced_client *tc, const struct netbuf *nb)
{
	struct stub_target *t = &tc->target;

	t->peer_len = nb ? causal_copy_addr(t->peer, nb->buf, nb->len) : 0;
	t->transport = tc->kind == CLIENT_RAW
			       ? CAUSAL_TRANSPORT_RAW
			       : causal_rpc_transport(t->peer, t->peer_len,
						      tc->kind == CLIENT_DG);
}

static struct traced_client *traced_of(CLIENT *cl)
{
	return (struct traced_client *)(void *)cl->cl_ops;
}

static struct {
	CLIENT *(*clnt_vc_create)(const int, const struct netbuf *,
				  const rpcprog_t, const rpcvers_t, u_int,
				  u_int);
	CLIENT *(*clnt_dg_create)(const int, const struct netbuf *,
				  const rpcprog_t, const rpcvers_t,
				  const u_int, const u_int);
	CLIENT *(*clnt_raw_create)(rpcprog_t, rpcvers_t);
	enum clnt_stat (*rpc_broadcast_exp)(const rpcprog_t, const rpcvers_t,
					    const rpcproc_t, const xdrproc_t,
					    caddr_t, const xdrproc_t, caddr_t,
					    const resultproc_t, const int,
					    const int, const char *);
} real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
	real.clnt_vc_create = dlsym(RTLD_NEXT, "clnt_vc_create");
	real.clnt_dg_create = dlsym(RTLD_NEXT, "clnt_dg_create");
	real.clnt_raw_create = dlsym(RTLD_NEXT, "clnt_raw_create");
	real.rpc_broadcast_exp = dlsym(RTLD_NEXT, "rpc_broadcast_exp");
}

/* ---- one call ---------------------------------------------------------- */

/* Passed to libtirpc in place of the caller's args / results pointer. */
struct call_state {
	xdrproc_t xargs, xres;
	void *argsp, *resp;
	struct causal_tag tag;		/* sent with the arguments */
	struct causal_tag reply;	/* read after the results */
	int reply_status;		/* enum causal_tag_status */
	int tag_sent;			/* the tag fitted after the args */
	int fd;				/* to peek at for the reply's tag */
	/* what the arguments and results took, counted as libtirpc encoded
	 * and decoded them (xdr-size.h: never a pass of ours) */
	uint32_t args_bytes, results_bytes;
	struct causal_values *vals; /* values.h: NULL when not taken */
};

/* libtirpc calls these through xdrproc_t, a variadic type: cast there */
static bool_t args_with_tag(XDR *xdrs, void *p)
{
	struct call_state *st = p;

	if (!causal_values_run(xdrs, st->xargs, st->argsp, &st->args_bytes,
			       st->vals, CAUSAL_VALUES_STUB_ARGS))
		return FALSE;
	causal_values_flush(st->vals); /* the results reuse its buffer */
	if (xdrs->x_op == XDR_ENCODE) {
		st->tag.xid = causal_xdr_call_xid(xdrs);
		st->tag_sent = causal_xdr_put_tag(xdrs, &st->tag);
	}
	return TRUE;
}

/* A broadcast's arguments: sized as they are encoded, untagged. */
static bool_t args_sized(XDR *xdrs, void *p)
{
	struct call_state *st = p;

	return causal_xdr_run(xdrs, st->xargs, st->argsp, &st->args_bytes);
}

static bool_t results_with_tag(XDR *xdrs, void *p)
{
	struct call_state *st = p;

	if (!causal_values_run(xdrs, st->xres, st->resp, &st->results_bytes,
			       st->vals, CAUSAL_VALUES_STUB_RESULTS))
		return FALSE;
	causal_values_flush(st->vals);
	if (xdrs->x_op == XDR_DECODE)
		st->reply_status = causal_xdr_get_tag(xdrs, st->tag.xid,
						      st->fd, &st->reply);
	return TRUE;
}

/*
 * cpu0: the thread's CPU clock at the probe's entry (Equation 1).  types:
 * what the call is monitored with (monitor.h); the caller writes no
 * record when it has no type on (CAUSAL_MON_RECORD), and reads no clock
 * of a type that is off (entry and cpu0 are then 0).  Returns the
 * monotonic clock read at its exit (0: none), for the exact totals.
 */
static uint64_t stub_start(struct causal_tbuf *tb, const struct stub_target *t,
			   rpcproc_t proc, uint64_t entry, uint64_t cpu0,
			   uint64_t event, uint64_t fid, uint8_t flags,
			   uintptr_t ip, uint32_t types)
{
	int sem = !!(types & CAUSAL_MON_SEMANTICS);
	uint32_t peer_len = sem ? t->peer_len : 0;
	struct rec_rpc_stub_start *r;
	uint64_t pending, site, exit_ns;

	/* numbered here, named by the writer (sites.h) */
	site = sem ? causal_site_of(ip) : 0;
	r = (void *)causal_record_begin_at(
		tb, CAUSAL_REC_RPC_STUB_START,
		(uint32_t)CAUSAL_REC_ALIGN(sizeof(*r) + peer_len), &pending,
		types & CAUSAL_MON_LATENCY ? entry : 0);
	if (!r)
		return 0;
	causal_probe_fill(&r->p, causal_self.ctx.chain, event, fid);
	r->prog = t->prog;
	r->vers = t->vers;
	r->proc = (uint32_t)proc;
	r->xid = 0; /* known once encoded: the server side records it */
	r->transport = (uint8_t)t->transport;
	r->flags = flags;
	r->p.hdr.aux = causal_copy_addr(r->tail, t->peer, peer_len);
	r->site_id = site;
	r->mon_off = (uint8_t)(CAUSAL_MON_PROBES & ~types);
	CAUSAL_HEAP_FILL_IF(r, types & CAUSAL_MON_MEMORY);
	r->p.cpu_ns = cpu0;
	exit_ns = types & CAUSAL_MON_LATENCY ? causal_now_ns() : 0;
	r->p.mono_exit_ns = exit_ns;
	causal_record_commit(tb, pending);
	return exit_ns;
}

/* Returns the CPU clock read at its exit (0: none), for the totals. */
static uint64_t stub_end(struct causal_tbuf *tb, enum clnt_stat status,
			 const struct call_state *st, uint64_t entry,
			 uint64_t event, uint64_t fid, uint32_t args_bytes,
			 uint32_t results_bytes, uint32_t types)
{
	int sem = !!(types & CAUSAL_MON_SEMANTICS);
	struct rec_rpc_stub_end *r;
	uint64_t pending, exit_ns = 0, cpu;

	r = (void *)causal_record_begin_at(
		tb, CAUSAL_REC_RPC_STUB_END, sizeof(*r), &pending,
		types & CAUSAL_MON_LATENCY ? entry : 0);
	if (!r)
		return 0;
	causal_probe_fill(&r->p, causal_self.ctx.chain, event, fid);
	r->status = sem ? (uint32_t)status : 0;
	r->reply_tag = sem ? (uint32_t)st->reply_status : 0;
	r->tag_sent = sem ? (uint8_t)st->tag_sent : 0;
	r->args_bytes = args_bytes;
	r->results_bytes = results_bytes;
	r->mon_off = (uint8_t)(CAUSAL_MON_PROBES & ~types);
	CAUSAL_HEAP_FILL_IF(r, types & CAUSAL_MON_MEMORY);
	/* Equation 1 takes the stub's CPU up to its very end */
	if (types & (CAUSAL_MON_LATENCY | CAUSAL_MON_CPU))
		exit_ns = causal_now_ns();
	r->p.mono_exit_ns = types & CAUSAL_MON_LATENCY ? exit_ns : 0;
	cpu = types & CAUSAL_MON_CPU ? causal_probe_cpu_ns(exit_ns) : 0;
	r->p.cpu_ns = cpu;
	causal_record_commit(tb, pending);
	return cpu;
}

/*
 * An error reply (no such program or procedure, undecodable arguments...)
 * has no results to carry the tag back, yet a traced server gave the call
 * a skeleton start and end.  Leave room for those two events, so the stub
 * end still follows them; from an untraced server the chain just has a gap.
 */
static int server_answered_error(enum clnt_stat status)
{
	switch (status) {
	case RPC_VERSMISMATCH:
	case RPC_AUTHERROR:
	case RPC_PROGUNAVAIL:
	case RPC_PROGVERSMISMATCH:
	case RPC_PROCUNAVAIL:
	case RPC_CANTDECODEARGS:
	case RPC_SYSTEMERROR:
		return 1;
	default:
		return 0;
	}
}

/*
 * A tagged request whose reply brought back no readable tag: the server
 * may be traced and have numbered events of the chain (its skeleton, its
 * own calls) that the client cannot know of, from a timed-out call still
 * running to a one-way call.  The stub end jumps over them
 * (CAUSAL_RPC_EVENT_SKIP), so the client's next events never reuse the
 * server's numbers.  A successful reply without a tag comes from an
 * untraced server (a traced one tags every reply to a tagged request that
 * has results), which numbered nothing.
 */
static int reply_may_hide_events(enum clnt_stat status,
				 const struct call_state *st)
{
	if (!st->tag_sent || st->reply_status == CAUSAL_TAG_OK)
		return 0;
	return status != RPC_SUCCESS || st->reply_status != CAUSAL_TAG_ABSENT;
}

static enum clnt_stat traced_call(CLIENT *cl, rpcproc_t proc, xdrproc_t xargs,
				  void *argsp, xdrproc_t xres, void *resp,
				  struct timeval timeout)
{
	const struct traced_client *tc = traced_of(cl);
	uintptr_t ip = (uintptr_t)__builtin_return_address(0);
	struct causal_ctx *ctx = &causal_self.ctx;
	struct call_state st;
	struct causal_values vals;
	struct causal_totals_stub tot;
	struct causal_tbuf *tb;
	enum clnt_stat status;
	uint64_t entry = 0, fid, start_event, end_event, cpu0 = 0, held = 0;
	uint64_t sent = 0, cpu_exit = 0;
	uint32_t types, rec;
	uint8_t flags = 0, marker;
	int saved_errno = errno;

	if (causal_self.in_hook || !causal_running() ||
	    !(tb = causal_thread_current()))
		return tc->orig->cl_call(cl, proc, xargs, argsp, xres, resp,
					 timeout);

	/* what this call is monitored with: the enclosing call's types
	 * (causal overriding) and the process's for its component (by
	 * the function that made the call, for a selection by name) */
	types = ctx->mon | causal_mon_call(tc->target.prog, (uint32_t)proc,
					   (const void *)ip);
	/* what it records: nothing in a chain head sampling left out
	 * (decided where the chain starts, which may be here) */
	if (!causal_ctx_active(ctx))
		causal_ctx_open_chain(ctx);
	rec = ctx->unsampled ? 0 : types;
	if (causal_rpc_holds(ctx)) { /* tail keep: recorded, held, timed */
		rec = types;
		held = causal_now_ns();
	}
	/* ---- stub start: CPU at the probe's entry ---- */
	if (rec & (CAUSAL_MON_LATENCY | CAUSAL_MON_CPU)) {
		entry = causal_now_ns();
		if (rec & CAUSAL_MON_CPU)
			cpu0 = causal_probe_cpu_ns(entry);
	}
	causal_totals_stub_start(&tot, ctx->unsampled, cpu0);
	causal_self.in_hook = 1;
	memset(&st, 0, sizeof(st));
	st.xargs = xargs;
	st.argsp = argsp;
	st.xres = xres;
	st.resp = resp;
	st.reply_status = CAUSAL_TAG_ABSENT;
	st.fd = tc->fd;
	start_event = causal_ctx_next_event(ctx);
	fid = causal_rpc_next_function_id();
	if (causal_values_wanted(rec, tc->target.prog, (uint32_t)proc,
				 (const void *)ip)) {
		causal_values_init(&vals, fid);
		st.vals = &vals;
	}
	if (!timeout.tv_sec && !timeout.tv_usec)
		flags |= CAUSAL_RPC_ONE_WAY;
	if (!xres)
		flags |= CAUSAL_RPC_BATCHED;
	memcpy(st.tag.chain, ctx->chain, CAUSAL_CHAIN_ID_LEN);
	st.tag.event_no = start_event;
	/* the callee is monitored as this stub is (causal overriding),
	 * and samples the chain as its root did */
	st.tag.flags = CAUSAL_TAG_F_MON | (types & CAUSAL_TAG_F_MON_TYPES) |
		       (ctx->unsampled ? CAUSAL_TAG_F_UNSAMPLED : 0);
	if (CAUSAL_MON_RECORD(rec))
		sent = stub_start(tb, &tc->target, proc, entry, cpu0,
				  start_event, fid, flags, ip, rec);
	marker = ctx->marker;
	ctx->marker = CAUSAL_MARKER_INFRA; /* black inside the stub */
	causal_self.in_hook = 0;
	errno = saved_errno;
	causal_totals_stub_sent(&tot, sent);

	/* never replace a NULL xargs or xres: NULL means batching */
	status = tc->orig->cl_call(cl, proc,
				   xargs ? (xdrproc_t)args_with_tag : NULL,
				   xargs ? (void *)&st : argsp,
				   xres ? (xdrproc_t)results_with_tag : NULL,
				   xres ? (void *)&st : resp, timeout);

	/* ---- stub end ---- */
	saved_errno = errno;
	entry = rec & CAUSAL_MON_LATENCY ? causal_now_ns() : 0;
	causal_totals_stub_back(&tot, entry);
	causal_self.in_hook = 1;
	ctx->marker = marker;
	if (st.reply_status == CAUSAL_TAG_OK &&
	    !memcmp(st.reply.chain, ctx->chain, CAUSAL_CHAIN_ID_LEN) &&
	    st.reply.event_no > ctx->event_no)
		ctx->event_no = st.reply.event_no; /* the server's last event */
	else if (server_answered_error(status))
		ctx->event_no += 2; /* see server_answered_error() */
	else if (reply_may_hide_events(status, &st))
		ctx->event_no += CAUSAL_RPC_EVENT_SKIP - 1;
	end_event = causal_ctx_next_event(ctx);
	if (held)
		causal_rpc_keep_stub(ctx, causal_now_ns() - held,
				     status != RPC_SUCCESS &&
					     !(flags & CAUSAL_RPC_ONE_WAY),
				     &st.reply, st.reply_status);
	if (CAUSAL_MON_RECORD(rec))
		cpu_exit = stub_end(
			tb, status, &st, entry, end_event, fid,
			rec & CAUSAL_MON_SEMANTICS ? st.args_bytes : 0,
			status == RPC_SUCCESS && rec & CAUSAL_MON_SEMANTICS
				? st.results_bytes
				: 0,
			rec);
	causal_totals_stub_end(&tot, cpu_exit, tc->target.prog, tc->target.vers,
			       (uint32_t)proc, status != RPC_SUCCESS);
	causal_self.in_hook = 0;
	errno = saved_errno;
	return status;
}

/* ---- handle creation --------------------------------------------------- */

static bool_t traced_control(CLIENT *cl, u_int request, void *info)
{
	struct traced_client *tc = traced_of(cl);
	bool_t ok = tc->orig->cl_control(cl, request, info);

	if (!ok || !info)
		return ok;
	switch (request) {
	case CLSET_PROG:
		tc->target.prog = *(uint32_t *)info;
		break;
	case CLSET_VERS:
		tc->target.vers = *(uint32_t *)info;
		break;
	case CLSET_SVC_ADDR:
		set_peer(tc, info);
		break;
	}
	return ok;
}

static void traced_destroy(CLIENT *cl)
{
	struct traced_client *tc = traced_of(cl);

	/* the handle goes back to libtirpc's own table, then away */
	cl->cl_ops = (struct clnt_ops *)tc->orig;
	CLNT_DESTROY(cl);
	causal_own_free(tc);
}

static void wrap_client(CLIENT *cl, int kind, int fd, uint32_t prog,
			uint32_t vers, const struct netbuf *peer)
{
	struct traced_client *tc;

	if (!cl || !causal_running() || cl->cl_ops->cl_call == traced_call)
		return;
	/* handles are made rarely: the program's allocator is fine here,
	 * uncounted in the program's heap (heap.h) */
	tc = causal_own_calloc(1, sizeof(*tc));
	if (!tc)
		return; /* the handle works, untraced */
	tc->ops = *cl->cl_ops;
	tc->ops.cl_call = traced_call;
	tc->ops.cl_control = traced_control;
	tc->ops.cl_destroy = traced_destroy;
	tc->orig = cl->cl_ops;
	tc->kind = kind;
	tc->fd = fd;
	tc->target.prog = prog;
	tc->target.vers = vers;
	set_peer(tc, peer);
	cl->cl_ops = &tc->ops;
}

/*
 * Every creation wrapper starts so: resolve, initialise, and answer a
 * missing real function with the API's own error (rpc_createerr, ENOSYS).
 */
#define CREATION_PROLOGUE(fn)                                     \
	do {                                                      \
		pthread_once(&real_once, resolve);                \
		causal_ensure_init();                             \
		if (!real.fn) {                                   \
			rpc_createerr.cf_stat = RPC_SYSTEMERROR;  \
			rpc_createerr.cf_error.re_errno = ENOSYS; \
			return NULL;                              \
		}                                                 \
	} while (0)

CAUSAL_EXPORT CLIENT *clnt_vc_create(const int fd, const struct netbuf *raddr,
				     const rpcprog_t prog,
				     const rpcvers_t vers, u_int sendsz,
				     u_int recvsz)
{
	CLIENT *cl;

	CREATION_PROLOGUE(clnt_vc_create);
	cl = real.clnt_vc_create(fd, raddr, prog, vers, sendsz, recvsz);
	wrap_client(cl, CLIENT_VC, fd, (uint32_t)prog, (uint32_t)vers, raddr);
	return cl;
}

CAUSAL_EXPORT CLIENT *clnt_dg_create(const int fd, const struct netbuf *raddr,
				     const rpcprog_t prog,
				     const rpcvers_t vers, const u_int sendsz,
				     const u_int recvsz)
{
	CLIENT *cl;

	CREATION_PROLOGUE(clnt_dg_create);
	cl = real.clnt_dg_create(fd, raddr, prog, vers, sendsz, recvsz);
	wrap_client(cl, CLIENT_DG, -1, (uint32_t)prog, (uint32_t)vers, raddr);
	return cl;
}

CAUSAL_EXPORT CLIENT *clnt_raw_create(rpcprog_t prog, rpcvers_t vers)
{
	CLIENT *cl;

	CREATION_PROLOGUE(clnt_raw_create);
	cl = real.clnt_raw_create(prog, vers);
	wrap_client(cl, CLIENT_RAW, -1, (uint32_t)prog, (uint32_t)vers, NULL);
	return cl;
}

/*
 * Broadcast makes no CLIENT: record it as one call with both stub probes
 * and no tag (the replies come from many servers, each its own skeleton).
 */
CAUSAL_EXPORT enum clnt_stat
rpc_broadcast_exp(const rpcprog_t prog, const rpcvers_t vers,
		  const rpcproc_t proc, const xdrproc_t xargs, caddr_t argsp,
		  const xdrproc_t xres, caddr_t resp,
		  const resultproc_t eachresult, const int inittime,
		  const int waittime, const char *nettype)
{
	struct causal_ctx *ctx = &causal_self.ctx;
	struct call_state st = { .reply_status = CAUSAL_TAG_ABSENT,
				  .fd = -1 };
	struct stub_target target = {
		.prog = (uint32_t)prog,
		.vers = (uint32_t)vers,
		.transport = CAUSAL_TRANSPORT_UDP,
	};
	struct causal_tbuf *tb;
	enum clnt_stat status;
	uint64_t entry = 0, cpu0 = 0, fid, event;
	uint32_t types;

	pthread_once(&real_once, resolve);
	causal_ensure_init();
	if (!real.rpc_broadcast_exp)
		return RPC_SYSTEMERROR;
	if (causal_self.in_hook || !causal_running() ||
	    !(tb = causal_thread_current()))
		return real.rpc_broadcast_exp(prog, vers, proc, xargs, argsp,
					      xres, resp, eachresult, inittime,
					      waittime, nettype);
	types = ctx->mon | causal_mon_call((uint32_t)prog, (uint32_t)proc,
					   __builtin_return_address(0));
	if (!causal_ctx_active(ctx))
		causal_ctx_open_chain(ctx);
	if (ctx->unsampled)
		types = 0; /* head sampling: see traced_call() */
	if (types & (CAUSAL_MON_LATENCY | CAUSAL_MON_CPU)) {
		entry = causal_now_ns();
		if (types & CAUSAL_MON_CPU)
			cpu0 = causal_probe_cpu_ns(entry);
	}
	causal_self.in_hook = 1;
	event = causal_ctx_next_event(ctx);
	fid = causal_rpc_next_function_id();
	if (CAUSAL_MON_RECORD(types))
		stub_start(tb, &target, proc, entry, cpu0, event, fid,
			   CAUSAL_RPC_BROADCAST,
			   (uintptr_t)__builtin_return_address(0), types);
	causal_self.in_hook = 0;
	st.xargs = xargs;
	st.argsp = argsp;
	status = real.rpc_broadcast_exp(
		prog, vers, proc, xargs ? (xdrproc_t)args_sized : NULL,
		xargs ? (void *)&st : argsp, xres, resp, eachresult, inittime,
		waittime, nettype);
	causal_self.in_hook = 1;
	event = causal_ctx_next_event(ctx);
	if (CAUSAL_MON_RECORD(types))
		stub_end(tb, status, &st,
			 types & CAUSAL_MON_LATENCY ? causal_now_ns() : 0,
			 event, fid,
			 types & CAUSAL_MON_SEMANTICS ? st.args_bytes : 0, 0,
			 types);
	causal_self.in_hook = 0;
	return status;
}
