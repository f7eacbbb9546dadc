#include <errno.h>
#include <string.h>

#include "encode.h"
#include "identity.h"

static void pack_str(msgpack_packer *pk, const char *s, size_t len)
{
	msgpack_pack_str(pk, len);
	msgpack_pack_str_body(pk, s, len);
}

static void pack_bin(msgpack_packer *pk, const void *p, size_t len)
{
	msgpack_pack_bin(pk, len);
	msgpack_pack_bin_body(pk, p, len);
}

/* The three elements every record starts with. */
static void pack_common(msgpack_packer *pk, size_t n, uint32_t type,
			uint32_t tid, uint64_t mono_ns)
{
	msgpack_pack_array(pk, n);
	msgpack_pack_uint32(pk, type);
	msgpack_pack_uint32(pk, tid);
	msgpack_pack_uint64(pk, mono_ns);
}

static void encode_thread_start(msgpack_packer *pk,
				const struct rec_thread_start *r)
{
	pack_common(pk, 8, CAUSAL_REC_THREAD_START, r->hdr.tid, r->hdr.mono_ns);
	msgpack_pack_uint32(pk, r->hdr.aux);
	msgpack_pack_uint32(pk, r->os_tid);
	msgpack_pack_uint8(pk, r->marker);
	msgpack_pack_uint64(pk, r->cpu_ns);
	if (!r->has_ctx) {
		msgpack_pack_nil(pk);
		return;
	}
	msgpack_pack_array(pk, 3);
	pack_bin(pk, r->chain, sizeof(r->chain));
	msgpack_pack_uint64(pk, r->event_no);
	msgpack_pack_uint64(pk, r->function_id);
}

static void pack_bin_or_nil(msgpack_packer *pk, const void *p, size_t len)
{
	if (len)
		pack_bin(pk, p, len);
	else
		msgpack_pack_nil(pk);
}

/* The eight elements every RPC probe record starts with. */
static void pack_probe(msgpack_packer *pk, size_t n,
		       const struct rec_rpc_probe *p)
{
	pack_common(pk, n, p->hdr.type, p->hdr.tid, p->hdr.mono_ns);
	pack_bin(pk, p->chain, sizeof(p->chain));
	msgpack_pack_uint64(pk, p->event_no);
	msgpack_pack_uint64(pk, p->function_id);
	msgpack_pack_uint64(pk, p->mono_exit_ns);
	msgpack_pack_uint64(pk, p->cpu_ns);
}

static int encode_rpc(msgpack_packer *pk, const struct causal_rec *rec)
{
	switch (rec->type) {
	case CAUSAL_REC_RPC_STUB_START: {
		const struct rec_rpc_stub_start *r = (const void *)rec;

		pack_probe(pk, 16, &r->p);
		msgpack_pack_uint32(pk, r->prog);
		msgpack_pack_uint32(pk, r->vers);
		msgpack_pack_uint32(pk, r->proc);
		msgpack_pack_uint8(pk, r->transport);
		pack_bin_or_nil(pk, r->peer, rec->aux);
		msgpack_pack_uint64(pk, r->site_id);
		msgpack_pack_uint32(pk, r->xid);
		msgpack_pack_uint8(pk, r->flags);
		return 0;
	}
	case CAUSAL_REC_RPC_STUB_END: {
		const struct rec_rpc_stub_end *r = (const void *)rec;

		pack_probe(pk, 13, &r->p);
		msgpack_pack_uint32(pk, r->status);
		msgpack_pack_uint32(pk, r->args_bytes);
		msgpack_pack_uint32(pk, r->results_bytes);
		msgpack_pack_uint32(pk, r->reply_tag);
		msgpack_pack_uint8(pk, r->tag_sent);
		return 0;
	}
	case CAUSAL_REC_RPC_SKEL_START: {
		const struct rec_rpc_skel_start *r = (const void *)rec;

		pack_probe(pk, 17, &r->p);
		msgpack_pack_uint32(pk, r->prog);
		msgpack_pack_uint32(pk, r->vers);
		msgpack_pack_uint32(pk, r->proc);
		msgpack_pack_uint8(pk, r->transport);
		pack_bin_or_nil(pk, r->peer, rec->aux);
		msgpack_pack_uint64(pk, r->object_id);
		msgpack_pack_uint32(pk, r->xid);
		msgpack_pack_uint32(pk, r->args_bytes);
		msgpack_pack_uint32(pk, r->tag);
		return 0;
	}
	case CAUSAL_REC_RPC_SKEL_END: {
		const struct rec_rpc_skel_end *r = (const void *)rec;

		pack_probe(pk, 10, &r->p);
		msgpack_pack_uint32(pk, r->reply);
		msgpack_pack_uint32(pk, r->results_bytes);
		return 0;
	}
	case CAUSAL_REC_RPC_SITE: {
		const struct rec_rpc_site *r = (const void *)rec;

		pack_common(pk, 6, rec->type, rec->tid, rec->mono_ns);
		msgpack_pack_uint64(pk, r->site_id);
		pack_str(pk, r->text, r->symbol_len);
		pack_str(pk, r->text + r->symbol_len, r->module_len);
		return 0;
	}
	case CAUSAL_REC_RPC_OBJECT: {
		const struct rec_rpc_object *r = (const void *)rec;

		pack_common(pk, 9, rec->type, rec->tid, rec->mono_ns);
		msgpack_pack_uint64(pk, r->object_id);
		msgpack_pack_uint32(pk, r->prog);
		msgpack_pack_uint32(pk, r->vers);
		msgpack_pack_uint8(pk, r->transport);
		pack_bin_or_nil(pk, r->bytes, r->address_len);
		pack_str(pk, (const char *)r->bytes + r->address_len,
			 r->netid_len);
		return 0;
	}
	}
	return -EINVAL;
}

int causal_encode_record(msgpack_packer *pk, const struct causal_rec *rec)
{
	if (rec->type >= CAUSAL_REC_RPC_FIRST &&
	    rec->type <= CAUSAL_REC_RPC_LAST)
		return encode_rpc(pk, rec);

	switch (rec->type) {
	case CAUSAL_REC_THREAD_START:
		encode_thread_start(pk, (const void *)rec);
		return 0;
	case CAUSAL_REC_THREAD_END: {
		const struct rec_thread_end *r = (const void *)rec;

		causal_encode_thread_end(pk, rec->tid, rec->mono_ns, r->cpu_ns,
					 rec->aux);
		return 0;
	}
	case CAUSAL_REC_THREAD_SPAWN:
	case CAUSAL_REC_EXEC_FAILED:
		/* child tid, errno: in aux */
		pack_common(pk, 4, rec->type, rec->tid, rec->mono_ns);
		msgpack_pack_uint32(pk, rec->aux);
		return 0;
	case CAUSAL_REC_FORK: {
		const struct rec_fork *r = (const void *)rec;

		pack_common(pk, 5, rec->type, rec->tid, rec->mono_ns);
		msgpack_pack_uint32(pk, rec->aux);	/* child pid */
		msgpack_pack_uint32(pk, r->how);
		return 0;
	}
	case CAUSAL_REC_EXEC: {
		const struct rec_exec *r = (const void *)rec;

		pack_common(pk, 4, rec->type, rec->tid, rec->mono_ns);
		pack_str(pk, r->path, rec->aux);
		return 0;
	}
	}
	return -EINVAL;
}

int causal_encode_header(msgpack_packer *pk, const struct causal_identity *id,
			 uint32_t buffer_kb, uint32_t flush_ms,
			 uint32_t cpu_clock)
{
	const char *arg = id->argv;
	uint32_t i;

	pack_common(pk, 16, CAUSAL_REC_HEADER, 0, id->start_mono_ns);
	msgpack_pack_uint32(pk, CAUSAL_FORMAT_VERSION);
	pack_bin(pk, id->uuid, sizeof(id->uuid));
	pack_str(pk, id->hostname, strlen(id->hostname));
	msgpack_pack_int32(pk, id->pid);
	msgpack_pack_int32(pk, id->ppid);
	pack_str(pk, id->exe, strlen(id->exe));
	msgpack_pack_array(pk, id->argc);
	for (i = 0; i < id->argc; i++) {
		size_t len = strnlen(arg, id->argv + id->argv_len - arg);

		pack_str(pk, arg, len);
		arg += len + 1;
	}
	msgpack_pack_uint64(pk, id->start_realtime_ns);
	msgpack_pack_uint64(pk, id->start_mono_ns);
	if (id->has_parent)
		pack_bin(pk, id->parent_uuid, sizeof(id->parent_uuid));
	else
		msgpack_pack_nil(pk);
	msgpack_pack_uint32(pk, buffer_kb);
	msgpack_pack_uint32(pk, flush_ms);
	msgpack_pack_uint32(pk, cpu_clock);
	return 0;
}

void causal_encode_drops(msgpack_packer *pk, uint32_t tid, uint64_t mono_ns,
			 uint64_t dropped_total)
{
	pack_common(pk, 4, CAUSAL_REC_DROPS, tid, mono_ns);
	msgpack_pack_uint64(pk, dropped_total);
}

void causal_encode_thread_end(msgpack_packer *pk, uint32_t tid,
			      uint64_t mono_ns, uint64_t cpu_ns, uint32_t how)
{
	pack_common(pk, 5, CAUSAL_REC_THREAD_END, tid, mono_ns);
	msgpack_pack_uint64(pk, cpu_ns);
	msgpack_pack_uint32(pk, how);
}

void causal_encode_process_end(msgpack_packer *pk, uint64_t mono_ns,
			       uint64_t realtime_ns, uint32_t reason,
			       int64_t detail, uint64_t records,
			       uint64_t dropped)
{
	pack_common(pk, 8, CAUSAL_REC_PROCESS_END, 0, mono_ns);
	msgpack_pack_uint64(pk, realtime_ns);
	msgpack_pack_uint32(pk, reason);
	msgpack_pack_int64(pk, detail);
	msgpack_pack_uint64(pk, records);
	msgpack_pack_uint64(pk, dropped);
}

void causal_encode_loss(msgpack_packer *pk, uint64_t mono_ns, int err,
			uint64_t lost, const uint64_t *by_type, unsigned types)
{
	unsigned t, n = 0;

	for (t = 0; t < types; t++)
		n += by_type[t] != 0;
	pack_common(pk, 6, CAUSAL_REC_LOSS, 0, mono_ns);
	msgpack_pack_int32(pk, err);
	msgpack_pack_uint64(pk, lost);
	msgpack_pack_array(pk, n);
	for (t = 0; t < types; t++) {
		if (!by_type[t])
			continue;
		msgpack_pack_array(pk, 2);
		msgpack_pack_uint32(pk, t);
		msgpack_pack_uint64(pk, by_type[t]);
	}
}
