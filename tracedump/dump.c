/*
 * dump.c - `tracedump dump`: decode raw logs to text or JSON lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dump.h"
#include "hex.h"
#include "json.h"
#include "logdir.h"
#include "logread.h"
#include "log-record.h"
#include "msgpack-json.h"
#include "usage.h"

struct dump_ctx {
	FILE *out;
	const char *name;	/* as shown on each line */
	enum dump_format fmt;
	struct dump_stats *stats;
};

/* The fields after [type, tid, mono_ns], for unknown or bad records. */
static void print_rest(FILE *out, const msgpack_object *o)
{
	putc('[', out);
	for (uint32_t i = 3; i < o->via.array.size; i++) {
		if (i > 3)
			putc(',', out);
		json_msgpack(out, &o->via.array.ptr[i]);
	}
	putc(']', out);
}

/* One field: text "name=value", JSON ,"name":value. */
static void key(const struct dump_ctx *c, const char *k)
{
	if (c->fmt == DUMP_JSON)
		fprintf(c->out, ",\"%s\":", k);
	else
		fprintf(c->out, " %s=", k);
}

static void u64(const struct dump_ctx *c, const char *k, uint64_t v)
{
	key(c, k);
	fprintf(c->out, "%" PRIu64, v);
}

static void i64(const struct dump_ctx *c, const char *k, int64_t v)
{
	key(c, k);
	fprintf(c->out, "%" PRId64, v);
}

static void str(const struct dump_ctx *c, const char *k, struct record_str s)
{
	key(c, k);
	json_string(c->out, s.ptr, s.len);
}

/* An enum value by name, or its number when out of range. */
static void name(const struct dump_ctx *c, const char *k, const char *n,
		 uint64_t v)
{
	key(c, k);
	if (!n)
		fprintf(c->out, "%" PRIu64, v);
	else if (c->fmt == DUMP_JSON)
		fprintf(c->out, "\"%s\"", n);
	else
		fputs(n, c->out);
}

static void hex(const struct dump_ctx *c, const char *k, const uint8_t *p,
		size_t n)
{
	char buf[2 * CAUSAL_CHAIN_ID_LEN + 1];

	key(c, k);
	if (!p) {
		fputs(c->fmt == DUMP_JSON ? "null" : "-", c->out);
		return;
	}
	hex_encode(buf, p, n);
	fprintf(c->out, c->fmt == DUMP_JSON ? "\"%s\"" : "%s", buf);
}

/* A raw sockaddr as its address text; nil as null / "-". */
static void addr(const struct dump_ctx *c, const char *k,
		 const struct record_bin *b)
{
	char buf[RECORD_SOCKADDR_MAX];
	bool plain = c->fmt == DUMP_TEXT;

	key(c, k);
	if (!b->ptr) {
		fputs(c->fmt == DUMP_JSON ? "null" : "-", c->out);
		return;
	}
	record_sockaddr(buf, b->ptr, b->len);
	/* Text stays unquoted unless a unix path would split the line. */
	for (const char *q = buf; *q && plain; q++)
		if ((unsigned char)*q <= ' ' || *q == '"' || *q == 0x7f)
			plain = false;
	if (plain)
		fputs(buf, c->out);
	else
		json_string(c->out, buf, strlen(buf));
}

/* Text "one_way|tag_sent" ("-" for none), JSON ["one_way","tag_sent"]. */
static void flags(const struct dump_ctx *c, const char *k, uint64_t v)
{
	char buf[128];

	key(c, k);
	if (c->fmt == DUMP_TEXT) {
		record_rpc_flags(buf, sizeof(buf), v, '|');
		fputs(buf[0] ? buf : "-", c->out);
		return;
	}
	record_rpc_flags(buf, sizeof(buf), v, ',');
	putc('[', c->out);
	for (char *tok = strtok(buf, ","), *first = tok; tok; tok = strtok(NULL, ","))
		fprintf(c->out, "%s\"%s\"", tok == first ? "" : ",", tok);
	putc(']', c->out);
}

/* The fields common to the four RPC probes. */
static void rpc_probe(const struct dump_ctx *c, const struct record_rpc *p)
{
	hex(c, "chain", p->chain, CAUSAL_CHAIN_ID_LEN);
	u64(c, "event", p->event);
	u64(c, "function", p->function);
	u64(c, "mono_exit_ns", p->mono_exit_ns);
	u64(c, "cpu_ns", p->cpu_ns);
}

static void print_rpc(const struct dump_ctx *c, const struct record *r)
{
	switch (r->type) {
	case CAUSAL_REC_RPC_STUB_START:
		rpc_probe(c, &r->stub_start.p);
		u64(c, "prog", r->stub_start.prog);
		u64(c, "vers", r->stub_start.vers);
		u64(c, "proc", r->stub_start.proc);
		name(c, "transport", record_transport_name(r->stub_start.transport),
		     r->stub_start.transport);
		addr(c, "peer", &r->stub_start.peer);
		u64(c, "site", r->stub_start.site_id);
		u64(c, "xid", r->stub_start.xid);
		flags(c, "flags", r->stub_start.flags);
		break;
	case CAUSAL_REC_RPC_STUB_END:
		rpc_probe(c, &r->stub_end.p);
		name(c, "status", record_clnt_stat_name(r->stub_end.status),
		     r->stub_end.status);
		u64(c, "args_bytes", r->stub_end.args_bytes);
		u64(c, "results_bytes", r->stub_end.results_bytes);
		name(c, "reply_tag", record_tag_status_name(r->stub_end.reply_tag),
		     r->stub_end.reply_tag);
		u64(c, "tag_sent", r->stub_end.tag_sent);
		break;
	case CAUSAL_REC_RPC_SKEL_START:
		rpc_probe(c, &r->skel_start.p);
		u64(c, "prog", r->skel_start.prog);
		u64(c, "vers", r->skel_start.vers);
		u64(c, "proc", r->skel_start.proc);
		name(c, "transport", record_transport_name(r->skel_start.transport),
		     r->skel_start.transport);
		addr(c, "peer", &r->skel_start.peer);
		u64(c, "object", r->skel_start.object_id);
		u64(c, "xid", r->skel_start.xid);
		u64(c, "args_bytes", r->skel_start.args_bytes);
		name(c, "tag", record_tag_status_name(r->skel_start.tag),
		     r->skel_start.tag);
		break;
	case CAUSAL_REC_RPC_SKEL_END:
		rpc_probe(c, &r->skel_end.p);
		name(c, "reply", record_reply_name(r->skel_end.reply),
		     r->skel_end.reply);
		u64(c, "results_bytes", r->skel_end.results_bytes);
		break;
	case CAUSAL_REC_RPC_SITE:
		u64(c, "site", r->rpc_site.site_id);
		str(c, "symbol", r->rpc_site.symbol);
		str(c, "module", r->rpc_site.module);
		break;
	case CAUSAL_REC_RPC_OBJECT:
		u64(c, "object", r->rpc_object.object_id);
		u64(c, "prog", r->rpc_object.prog);
		u64(c, "vers", r->rpc_object.vers);
		name(c, "transport", record_transport_name(r->rpc_object.transport),
		     r->rpc_object.transport);
		addr(c, "address", &r->rpc_object.address);
		str(c, "netid", r->rpc_object.netid);
		break;
	}
}

static void print_fields(const struct dump_ctx *c, const struct record *r)
{
	FILE *out = c->out;

	switch (r->type) {
	case CAUSAL_REC_HEADER:
		u64(c, "version", r->header.version);
		hex(c, "uuid", r->header.uuid, CAUSAL_UUID_LEN);
		str(c, "host", r->header.host);
		i64(c, "pid", r->header.pid);
		i64(c, "ppid", r->header.ppid);
		str(c, "exe", r->header.exe);
		key(c, "argv");
		json_msgpack(out, r->header.argv);
		u64(c, "start_realtime_ns", r->header.start_realtime_ns);
		u64(c, "start_mono_ns", r->header.start_mono_ns);
		hex(c, "parent_uuid", r->header.parent_uuid, CAUSAL_UUID_LEN);
		u64(c, "buffer_kb", r->header.buffer_kb);
		u64(c, "flush_ms", r->header.flush_ms);
		name(c, "cpu_clock", record_cpu_clock_name(r->header.cpu_clock),
		     r->header.cpu_clock);
		break;
	case CAUSAL_REC_THREAD_START: {
		const struct record_ctx *ctx = &r->thread_start.ctx;
		char chain[2 * CAUSAL_CHAIN_ID_LEN + 1];

		u64(c, "parent_tid", r->thread_start.parent_tid);
		u64(c, "os_tid", r->thread_start.os_tid);
		name(c, "marker", record_marker_name(r->thread_start.marker),
		     r->thread_start.marker);
		u64(c, "cpu_ns", r->thread_start.cpu_ns);
		key(c, "ctx");
		if (!ctx->set) {
			fputs(c->fmt == DUMP_JSON ? "null" : "-", out);
			break;
		}
		hex_encode(chain, ctx->chain, CAUSAL_CHAIN_ID_LEN);
		if (c->fmt == DUMP_JSON)
			fprintf(out, "{\"chain\":\"%s\",\"event\":%" PRIu64
				",\"function\":%" PRIu64 "}",
				chain, ctx->event, ctx->function);
		else
			fprintf(out, "%s/%" PRIu64 "/%" PRIu64, chain,
				ctx->event, ctx->function);
		break;
	}
	case CAUSAL_REC_THREAD_END:
		u64(c, "cpu_ns", r->thread_end.cpu_ns);
		name(c, "how", record_thread_end_name(r->thread_end.how),
		     r->thread_end.how);
		break;
	case CAUSAL_REC_DROPS:
		u64(c, "dropped", r->drops.dropped);
		break;
	case CAUSAL_REC_FORK:
		i64(c, "child_pid", r->fork.child_pid);
		name(c, "how", record_fork_how_name(r->fork.how), r->fork.how);
		break;
	case CAUSAL_REC_EXEC:
		str(c, "path", r->exec.path);
		break;
	case CAUSAL_REC_EXEC_FAILED:
		i64(c, "errno", r->exec_failed.err);
		break;
	case CAUSAL_REC_PROCESS_END:
		u64(c, "realtime_ns", r->process_end.realtime_ns);
		name(c, "reason", record_process_end_name(r->process_end.reason),
		     r->process_end.reason);
		i64(c, "detail", r->process_end.detail);
		u64(c, "records", r->process_end.records);
		u64(c, "dropped", r->process_end.dropped);
		break;
	case CAUSAL_REC_THREAD_SPAWN:
		u64(c, "child_tid", r->thread_spawn.child_tid);
		break;
	case CAUSAL_REC_LOSS:
		i64(c, "errno", r->loss.err);
		u64(c, "lost", r->loss.lost);
		key(c, "by_type");
		json_msgpack(out, r->loss.by_type);
		break;
	default:
		print_rpc(c, r);
		break;
	}
}

static int print_record(void *arg, const struct logread_record *lr)
{
	struct dump_ctx *c = arg;
	FILE *out = c->out;
	struct record r;
	const char *tname = record_type_name(lr->type, c->fmt == DUMP_JSON);
	bool bad = record_decode(lr->obj, &r) < 0;

	if (c->fmt == DUMP_JSON) {
		fputs("{\"file\":", out);
		json_string(out, c->name, strlen(c->name));
		if (tname)
			fprintf(out, ",\"type\":\"%s\"", tname);
		else
			fprintf(out, ",\"type\":\"unknown\",\"type_num\":%u", lr->type);
		fprintf(out, ",\"tid\":%" PRIu64 ",\"mono_ns\":%" PRIu64,
			lr->tid, lr->mono_ns);
	} else {
		fprintf(out, "%s: ", c->name);
		if (tname)
			fputs(tname, out);
		else
			fprintf(out, "TYPE_%u", lr->type);
		fprintf(out, " tid=%" PRIu64 " mono_ns=%" PRIu64,
			lr->tid, lr->mono_ns);
	}
	if (bad || !tname) {
		/* Show what is there rather than guess at its meaning. */
		if (bad)
			fputs(c->fmt == DUMP_JSON ? ",\"malformed\":true" : " malformed", out);
		key(c, "fields");
		print_rest(out, lr->obj);
	} else {
		print_fields(c, &r);
	}
	fputs(c->fmt == DUMP_JSON ? "}\n" : "\n", out);
	c->stats->records++;
	return 0;
}

static int dump_one(FILE *out, const char *path, const char *shown,
		    enum dump_format fmt, struct dump_stats *stats)
{
	struct dump_ctx c = { out, shown, fmt, stats };
	struct logread_result res;
	int rc;

	rc = logread_file(path, print_record, &c, &res);
	if (rc == -EINVAL) {
		stats->rejected++;
		return fail("'%s' is not a causal log (%s)", path, res.error);
	}
	if (rc == -EPROTO) {
		stats->rejected++;
		return fail("'%s': %s", path, res.error);
	}
	if (rc < 0) {
		stats->rejected++;
		return fail("cannot read '%s': %s", path, strerror(-rc));
	}
	stats->files++;
	if (res.status != LOGREAD_OK) {
		stats->damaged++;
		warning("'%s' is %s: %s", path,
			res.status == LOGREAD_TRUNCATED ? "truncated" : "corrupt",
			res.error);
	}
	if (res.bad_records)
		warning("'%s': %" PRIu64 " malformed records skipped", path,
			res.bad_records);
	return 0;
}

int dump_path(FILE *out, const char *path, enum dump_format fmt,
	      struct dump_stats *stats)
{
	struct logdir ld;
	struct stat st;
	char full[8192];
	int rc;

	memset(stats, 0, sizeof(*stats));
	if (stat(path, &st) < 0)
		return fail("cannot open '%s': %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (dump_one(out, path, path, fmt, stats) < 0)
			return -1;
		goto done;
	}
	rc = logdir_scan(path, &ld);
	if (rc < 0)
		return fail("cannot read directory '%s': %s", path, strerror(-rc));
	if (!ld.n) {
		logdir_release(&ld);
		return fail("no causal logs (*%s) in '%s'", CAUSAL_LOG_SUFFIX, path);
	}
	for (size_t i = 0; i < ld.n; i++) {
		snprintf(full, sizeof(full), "%s/%s", path, ld.names[i]);
		dump_one(out, full, ld.names[i], fmt, stats);
	}
	logdir_release(&ld);
done:
	if (fflush(out) != 0 || ferror(out))
		return fail("cannot write output: %s", strerror(errno));
	if (!stats->records)
		return fail("nothing could be read from '%s'", path);
	return 0;
}
