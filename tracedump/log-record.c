/*
 * log-record.c - typed decoding of log records.  Every field is checked
 * against its msgpack type, because logs are input, not trusted memory.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include "hex.h"
#include "log-record.h"

static const char *const type_names[][2] = {
	[CAUSAL_REC_HEADER] = { "HEADER", "header" },
	[CAUSAL_REC_THREAD_START] = { "THREAD_START", "thread_start" },
	[CAUSAL_REC_THREAD_END] = { "THREAD_END", "thread_end" },
	[CAUSAL_REC_DROPS] = { "DROPS", "drops" },
	[CAUSAL_REC_FORK] = { "FORK", "fork" },
	[CAUSAL_REC_EXEC] = { "EXEC", "exec" },
	[CAUSAL_REC_EXEC_FAILED] = { "EXEC_FAILED", "exec_failed" },
	[CAUSAL_REC_PROCESS_END] = { "PROCESS_END", "process_end" },
	[CAUSAL_REC_THREAD_SPAWN] = { "THREAD_SPAWN", "thread_spawn" },
	[CAUSAL_REC_LOSS] = { "LOSS", "loss" },
	[CAUSAL_REC_RPC_STUB_START] = { "RPC_STUB_START", "rpc_stub_start" },
	[CAUSAL_REC_RPC_STUB_END] = { "RPC_STUB_END", "rpc_stub_end" },
	[CAUSAL_REC_RPC_SKEL_START] = { "RPC_SKEL_START", "rpc_skel_start" },
	[CAUSAL_REC_RPC_SKEL_END] = { "RPC_SKEL_END", "rpc_skel_end" },
	[CAUSAL_REC_RPC_SITE] = { "RPC_SITE", "rpc_site" },
	[CAUSAL_REC_RPC_OBJECT] = { "RPC_OBJECT", "rpc_object" },
};

#define N_TYPES (sizeof(type_names) / sizeof(type_names[0]))

bool record_known(unsigned type)
{
	return type < N_TYPES && type_names[type][0];
}

const char *record_type_name(unsigned type, bool lower)
{
	return record_known(type) ? type_names[type][lower] : NULL;
}

const char *record_marker_name(uint64_t marker)
{
	static const char *const names[] = { "user", "infra" };

	return marker < 2 ? names[marker] : NULL;
}

const char *record_thread_end_name(uint64_t how)
{
	static const char *const names[] = {
		"returned", "exited", "cancelled", "at_exit",
	};

	return how < 4 ? names[how] : NULL;
}

const char *record_process_end_name(uint64_t reason)
{
	static const char *const names[] = { "exit", "signal", "exec", "_exit" };

	return reason < 4 ? names[reason] : NULL;
}

const char *record_cpu_clock_name(uint64_t clock)
{
	static const char *const names[] = { "syscall", "bpf" };

	return clock < 2 ? names[clock] : NULL;
}

const char *record_fork_how_name(uint64_t how)
{
	static const char *const names[] = {
		"fork", "vfork", "posix_spawn", "posix_spawnp",
	};

	return how < 4 ? names[how] : NULL;
}

const char *record_transport_name(uint64_t transport)
{
	static const char *const names[] = {
		"unknown", "tcp", "udp", "unix", "raw",
	};

	return transport < 5 ? names[transport] : NULL;
}

/*
 * enum clnt_stat of <rpc/clnt_stat.h> (libtirpc), by value, so that the
 * tool needs no libtirpc.  The values are fixed by the ONC RPC API.
 */
const char *record_clnt_stat_name(uint64_t status)
{
	static const char *const names[] = {
		"RPC_SUCCESS", "RPC_CANTENCODEARGS", "RPC_CANTDECODERES",
		"RPC_CANTSEND", "RPC_CANTRECV", "RPC_TIMEDOUT",
		"RPC_VERSMISMATCH", "RPC_AUTHERROR", "RPC_PROGUNAVAIL",
		"RPC_PROGVERSMISMATCH", "RPC_PROCUNAVAIL", "RPC_CANTDECODEARGS",
		"RPC_SYSTEMERROR", "RPC_UNKNOWNHOST", "RPC_RPCBFAILURE",
		"RPC_PROGNOTREGISTERED", "RPC_FAILED", "RPC_UNKNOWNPROTO",
		"RPC_INTR", "RPC_UNKNOWNADDR", "RPC_TLIERROR",
		"RPC_NOBROADCAST", "RPC_N2AXLATEFAILURE", "RPC_UDERROR",
		"RPC_INPROGRESS", "RPC_STALERACHANDLE", "RPC_CANTCONNECT",
		"RPC_XPRTFAILED", "RPC_CANTCREATESTREAM",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : NULL;
}

const char *record_tag_status_name(uint64_t tag)
{
	static const char *const names[] = { "ok", "absent", "malformed",
					     "stale", "incomplete" };

	return tag < sizeof(names) / sizeof(names[0]) ? names[tag] : NULL;
}

const char *record_reply_name(uint64_t reply)
{
	static const char *const names[] = {
		"success", "none", "prog_unavail", "prog_mismatch",
		"proc_unavail", "garbage_args", "system_err", "denied",
	};

	return reply < 8 ? names[reply] : NULL;
}

const char *record_rpc_kind(unsigned type)
{
	switch (type) {
	case CAUSAL_REC_RPC_STUB_START: return "stub_start";
	case CAUSAL_REC_RPC_STUB_END: return "stub_end";
	case CAUSAL_REC_RPC_SKEL_START: return "skel_start";
	case CAUSAL_REC_RPC_SKEL_END: return "skel_end";
	}
	return NULL;
}

void record_rpc_flags(char *out, size_t size, uint64_t flags, char sep)
{
	static const char *const names[] = {
		"one_way", "tag_sent", "broadcast", "batched",
	};
	const char s[2] = { sep, '\0' };
	size_t n = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < 4; i++) {
		if (!(flags & (1u << i)))
			continue;
		n += snprintf(out + n, n < size ? size - n : 0, "%s%s",
			      n ? s : "", names[i]);
	}
	flags &= ~(uint64_t)15;
	if (flags)
		snprintf(out + n, n < size ? size - n : 0, "%s0x%llx",
			 n ? s : "", (unsigned long long)flags);
}

/*
 * sa_family is in the writer's byte order (the raw struct): the tools are
 * assumed to run on the same architecture as the traced hosts.
 */
char *record_sockaddr(char *out, const uint8_t *p, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	sa_family_t fam;
	size_t n;

	if (len < sizeof(fam))
		goto bad;
	memcpy(&fam, p, sizeof(fam));
	switch (fam) {
	case AF_INET: {
		struct sockaddr_in in;

		if (len < sizeof(in))
			goto bad;
		memcpy(&in, p, sizeof(in));
		inet_ntop(AF_INET, &in.sin_addr, ip, sizeof(ip));
		snprintf(out, RECORD_SOCKADDR_MAX, "%s:%u", ip, ntohs(in.sin_port));
		return out;
	}
	case AF_INET6: {
		struct sockaddr_in6 in6;

		if (len < sizeof(in6))
			goto bad;
		memcpy(&in6, p, sizeof(in6));
		inet_ntop(AF_INET6, &in6.sin6_addr, ip, sizeof(ip));
		snprintf(out, RECORD_SOCKADDR_MAX, "[%s]:%u", ip, ntohs(in6.sin6_port));
		return out;
	}
	case AF_UNIX: {
		size_t off = offsetof(struct sockaddr_un, sun_path);
		const char *path = (const char *)p + off;

		n = len > off ? len - off : 0;
		if (n > sizeof(((struct sockaddr_un *)0)->sun_path))
			goto bad;
		if (n && !path[0]) {
			/* Abstract: the name is every byte after the NUL. */
			n--;
			path++;
			snprintf(out, RECORD_SOCKADDR_MAX, "unix:@%.*s", (int)n, path);
			return out;
		}
		snprintf(out, RECORD_SOCKADDR_MAX, "unix:%.*s",
			 (int)strnlen(path, n), path);
		return out;
	}
	}
	n = snprintf(out, RECORD_SOCKADDR_MAX, "af%u:", (unsigned)fam);
	p += sizeof(fam);
	len -= sizeof(fam);
	goto hex;
bad:
	n = snprintf(out, RECORD_SOCKADDR_MAX, "bad:");
hex:
	/* Long enough for any real sockaddr (128 bytes); cut beyond. */
	if (len > (RECORD_SOCKADDR_MAX - n - 1) / 2)
		len = (RECORD_SOCKADDR_MAX - n - 1) / 2;
	hex_encode(out + n, p, len);
	return out;
}

/* A cursor over the type-specific fields; any mismatch sets bad. */
struct fields {
	const msgpack_object *a;
	uint32_t n, i;
	bool bad;
};

static const msgpack_object *next(struct fields *f)
{
	if (f->i >= f->n) {
		f->bad = true;
		return NULL;
	}
	return &f->a[f->i++];
}

static uint64_t get_u64(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (!o || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER) {
		f->bad = true;
		return 0;
	}
	return o->via.u64;
}

/* A field appended later in the format: old logs end before it. */
static uint64_t get_u64_or(struct fields *f, uint64_t absent)
{
	return f->i < f->n ? get_u64(f) : absent;
}

static int64_t get_i64(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return o->via.i64;
	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
	    o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	f->bad = true;
	return 0;
}

static struct record_str get_str(struct fields *f)
{
	const msgpack_object *o = next(f);
	struct record_str s = { "", 0 };

	if (!o || o->type != MSGPACK_OBJECT_STR) {
		f->bad = true;
		return s;
	}
	s.ptr = o->via.str.ptr;
	s.len = o->via.str.size;
	return s;
}

/* A bin of exactly n bytes, or nil when nil_ok. */
static const uint8_t *get_bin(struct fields *f, uint32_t n, bool nil_ok)
{
	const msgpack_object *o = next(f);

	if (o && nil_ok && o->type == MSGPACK_OBJECT_NIL)
		return NULL;
	if (!o || o->type != MSGPACK_OBJECT_BIN || o->via.bin.size != n) {
		f->bad = true;
		return NULL;
	}
	return (const uint8_t *)o->via.bin.ptr;
}

/* A bin of any length, or nil (ptr NULL). */
static struct record_bin get_any_bin(struct fields *f)
{
	const msgpack_object *o = next(f);
	struct record_bin b = { NULL, 0 };

	if (o && o->type == MSGPACK_OBJECT_NIL)
		return b;
	if (!o || o->type != MSGPACK_OBJECT_BIN) {
		f->bad = true;
		return b;
	}
	b.ptr = (const uint8_t *)o->via.bin.ptr;
	b.len = o->via.bin.size;
	return b;
}

static void get_rpc(struct fields *f, struct record_rpc *p)
{
	p->chain = get_bin(f, CAUSAL_CHAIN_ID_LEN, false);
	p->event = get_u64(f);
	p->function = get_u64(f);
	p->mono_exit_ns = get_u64(f);
	p->cpu_ns = get_u64(f);
}

static const msgpack_object *get_str_array(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (!o || o->type != MSGPACK_OBJECT_ARRAY) {
		f->bad = true;
		return NULL;
	}
	for (uint32_t i = 0; i < o->via.array.size; i++)
		if (o->via.array.ptr[i].type != MSGPACK_OBJECT_STR)
			f->bad = true;
	return o;
}

/* LOSS's array of [type, count] pairs, each two unsigned integers. */
static const msgpack_object *get_pairs(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (!o || o->type != MSGPACK_OBJECT_ARRAY) {
		f->bad = true;
		return NULL;
	}
	for (uint32_t i = 0; i < o->via.array.size; i++) {
		const msgpack_object *p = &o->via.array.ptr[i];

		if (p->type != MSGPACK_OBJECT_ARRAY || p->via.array.size != 2 ||
		    p->via.array.ptr[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
		    p->via.array.ptr[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
			f->bad = true;
	}
	return o;
}

bool record_loss_pair(const struct record *r, uint32_t i, uint64_t *type,
		      uint64_t *count)
{
	const msgpack_object *o = r->loss.by_type;

	if (r->type != CAUSAL_REC_LOSS || !o || i >= o->via.array.size)
		return false;
	*type = o->via.array.ptr[i].via.array.ptr[0].via.u64;
	*count = o->via.array.ptr[i].via.array.ptr[1].via.u64;
	return true;
}

static void get_ctx(struct fields *f, struct record_ctx *ctx)
{
	const msgpack_object *o = next(f);
	struct fields sub;

	memset(ctx, 0, sizeof(*ctx));
	if (!o || o->type == MSGPACK_OBJECT_NIL)
		return;	/* a missing ctx is already flagged by next() */
	if (o->type != MSGPACK_OBJECT_ARRAY) {
		f->bad = true;
		return;
	}
	sub = (struct fields){ o->via.array.ptr, o->via.array.size, 0, false };
	ctx->chain = get_bin(&sub, CAUSAL_CHAIN_ID_LEN, false);
	ctx->event = get_u64(&sub);
	ctx->function = get_u64(&sub);
	ctx->set = !sub.bad;
	if (sub.bad)
		f->bad = true;
}

int record_decode(const msgpack_object *o, struct record *r)
{
	struct fields f;

	memset(r, 0, sizeof(*r));
	if (o->type != MSGPACK_OBJECT_ARRAY)
		return -EINVAL;
	f = (struct fields){ o->via.array.ptr, o->via.array.size, 0, false };
	r->type = (unsigned)get_u64(&f);
	r->tid = get_u64(&f);
	r->mono_ns = get_u64(&f);
	if (f.bad)
		return -EINVAL;

	switch (r->type) {
	case CAUSAL_REC_HEADER:
		r->header.version = get_u64(&f);
		r->header.uuid = get_bin(&f, CAUSAL_UUID_LEN, false);
		r->header.host = get_str(&f);
		r->header.pid = get_i64(&f);
		r->header.ppid = get_i64(&f);
		r->header.exe = get_str(&f);
		r->header.argv = get_str_array(&f);
		r->header.start_realtime_ns = get_u64(&f);
		r->header.start_mono_ns = get_u64(&f);
		r->header.parent_uuid = get_bin(&f, CAUSAL_UUID_LEN, true);
		r->header.buffer_kb = get_u64(&f);
		r->header.flush_ms = get_u64(&f);
		r->header.cpu_clock = get_u64_or(&f, CAUSAL_CPU_CLOCK_SYSCALL);
		break;
	case CAUSAL_REC_THREAD_START:
		r->thread_start.parent_tid = get_u64(&f);
		r->thread_start.os_tid = get_u64(&f);
		r->thread_start.marker = get_u64(&f);
		r->thread_start.cpu_ns = get_u64(&f);
		get_ctx(&f, &r->thread_start.ctx);
		break;
	case CAUSAL_REC_THREAD_END:
		r->thread_end.cpu_ns = get_u64(&f);
		r->thread_end.how = get_u64(&f);
		break;
	case CAUSAL_REC_DROPS:
		r->drops.dropped = get_u64(&f);
		break;
	case CAUSAL_REC_FORK:
		r->fork.child_pid = get_i64(&f);
		r->fork.how = get_u64_or(&f, CAUSAL_FORK_FORK);
		break;
	case CAUSAL_REC_EXEC:
		r->exec.path = get_str(&f);
		break;
	case CAUSAL_REC_EXEC_FAILED:
		r->exec_failed.err = get_i64(&f);
		break;
	case CAUSAL_REC_PROCESS_END:
		r->process_end.realtime_ns = get_u64(&f);
		r->process_end.reason = get_u64(&f);
		r->process_end.detail = get_i64(&f);
		r->process_end.records = get_u64(&f);
		r->process_end.dropped = get_u64(&f);
		break;
	case CAUSAL_REC_THREAD_SPAWN:
		r->thread_spawn.child_tid = get_u64(&f);
		break;
	case CAUSAL_REC_LOSS:
		r->loss.err = get_i64(&f);
		r->loss.lost = get_u64(&f);
		r->loss.by_type = get_pairs(&f);
		break;
	case CAUSAL_REC_RPC_STUB_START:
		get_rpc(&f, &r->stub_start.p);
		r->stub_start.prog = get_u64(&f);
		r->stub_start.vers = get_u64(&f);
		r->stub_start.proc = get_u64(&f);
		r->stub_start.transport = get_u64(&f);
		r->stub_start.peer = get_any_bin(&f);
		r->stub_start.site_id = get_u64(&f);
		r->stub_start.xid = get_u64(&f);
		r->stub_start.flags = get_u64(&f);
		break;
	case CAUSAL_REC_RPC_STUB_END:
		get_rpc(&f, &r->stub_end.p);
		r->stub_end.status = get_u64(&f);
		r->stub_end.args_bytes = get_u64(&f);
		r->stub_end.results_bytes = get_u64(&f);
		r->stub_end.reply_tag = get_u64(&f);
		r->stub_end.tag_sent = get_u64(&f);
		break;
	case CAUSAL_REC_RPC_SKEL_START:
		get_rpc(&f, &r->skel_start.p);
		r->skel_start.prog = get_u64(&f);
		r->skel_start.vers = get_u64(&f);
		r->skel_start.proc = get_u64(&f);
		r->skel_start.transport = get_u64(&f);
		r->skel_start.peer = get_any_bin(&f);
		r->skel_start.object_id = get_u64(&f);
		r->skel_start.xid = get_u64(&f);
		r->skel_start.args_bytes = get_u64(&f);
		r->skel_start.tag = get_u64(&f);
		break;
	case CAUSAL_REC_RPC_SKEL_END:
		get_rpc(&f, &r->skel_end.p);
		r->skel_end.reply = get_u64(&f);
		r->skel_end.results_bytes = get_u64(&f);
		break;
	case CAUSAL_REC_RPC_SITE:
		r->rpc_site.site_id = get_u64(&f);
		r->rpc_site.symbol = get_str(&f);
		r->rpc_site.module = get_str(&f);
		break;
	case CAUSAL_REC_RPC_OBJECT:
		r->rpc_object.object_id = get_u64(&f);
		r->rpc_object.prog = get_u64(&f);
		r->rpc_object.vers = get_u64(&f);
		r->rpc_object.transport = get_u64(&f);
		r->rpc_object.address = get_any_bin(&f);
		r->rpc_object.netid = get_str(&f);
		break;
	default:
		break;
	}
	return f.bad ? -EINVAL : 0;
}
