/*
 * objects.c - serving instances: the object identity of the CPU paper
 * (Section 2.2), here a (local endpoint, program, version, transport) of
 * this process.  Host and process come from the log itself.  A probe
 * finds an object's id in a lock-free table of key hashes (slot i is
 * object i + 1), so no skeleton waits for another thread; each thread
 * remembers its last answer, so the common case hashes nothing.
 */
#include <sys/socket.h>

#include "internal.h"

#define OBJECTS 1024	  /* a power of two */
#define OBJECT_PROBES 64 /* slots a probe looks at before it gives up */

struct object {
	uint8_t addr[CAUSAL_SOCKADDR_MAX];
	uint32_t addr_len, prog, vers;
	int transport;
};

/* Each object's key hash, never 0, claimed once.  Two keys of one hash
 * (1 in 2^64 a pair) would share an id. */
static _Atomic uint64_t object_hash[OBJECTS];

struct last_object {
	const SVCXPRT *xprt;
	uint32_t prog, vers;
	uint64_t id;
};

static CAUSAL_TLS struct last_object last;

/*
 * The netid, from what we know rather than xp_netid: transports made by
 * svcudp_create / svctcp_create may leave that pointer uninitialised.
 */
static const char *netid_of(const struct object *o)
{
	sa_family_t family = AF_UNSPEC;
	int v6;

	if (o->addr_len >= sizeof(family))
		memcpy(&family, o->addr, sizeof(family));
	v6 = family == AF_INET6;
	switch (o->transport) {
	case CAUSAL_TRANSPORT_TCP:
		return v6 ? "tcp6" : "tcp";
	case CAUSAL_TRANSPORT_UDP:
		return v6 ? "udp6" : "udp";
	case CAUSAL_TRANSPORT_UNIX:
		return "local";
	case CAUSAL_TRANSPORT_RAW:
		return "raw";
	}
	return "";
}

static void write_object(struct causal_tbuf *tb, uint64_t id,
			 const struct object *o)
{
	const char *netid = netid_of(o);
	size_t nlen = strlen(netid);
	uint64_t pending;
	struct rec_rpc_object *r = (void *)causal_record_begin(
		tb, CAUSAL_REC_RPC_OBJECT,
		(uint32_t)CAUSAL_REC_ALIGN(sizeof(*r) + o->addr_len + nlen),
		&pending);

	if (!r)
		return;
	r->object_id = id;
	r->prog = o->prog;
	r->vers = o->vers;
	r->transport = (uint8_t)o->transport;
	r->address_len = (uint8_t)o->addr_len;
	r->netid_len = (uint8_t)nlen;
	memcpy(r->tail, o->addr, o->addr_len);
	memcpy(r->tail + o->addr_len, netid, nlen);
	causal_record_commit(tb, pending);
}

/* At load: each page of the table written once, so that an object's
 * first call never takes the fault of the first write to its page. */
__attribute__((constructor)) static void objects_touch(void)
{
	for (size_t i = 0; i < OBJECTS; i += 4096 / sizeof(object_hash[0]))
		atomic_fetch_or_explicit(&object_hash[i], 0,
					 memory_order_relaxed);
}

/* The id of the object of key, with its RPC_OBJECT record if this
 * thread is the first to see it; 0 when the table has no room left. */
static uint64_t object_id(struct causal_tbuf *tb, const struct object *key)
{
	uint64_t h = 1469598103934665603ull;
	const uint8_t *p = (const void *)key;
	size_t i;

	for (i = 0; i < sizeof(*key); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	h = h ? h : 1;
	i = (size_t)(h >> 32) & (OBJECTS - 1);
	for (int n = 0; n < OBJECT_PROBES; n++, i = (i + 1) & (OBJECTS - 1)) {
		uint64_t seen = atomic_load_explicit(&object_hash[i],
						     memory_order_relaxed);

		if (seen == h)
			return i + 1;
		if (seen)
			continue;
		if (atomic_compare_exchange_strong_explicit(
			    &object_hash[i], &seen, h, memory_order_relaxed,
			    memory_order_relaxed)) {
			write_object(tb, i + 1, key);
			return i + 1;
		}
		if (seen == h)
			return i + 1;
	}
	return 0;
}

uint64_t causal_rpc_object(struct causal_tbuf *tb, const SVCXPRT *xprt,
			   uint32_t prog, uint32_t vers, int transport)
{
	struct object key;
	uint64_t id;

	if (last.xprt == xprt && last.prog == prog && last.vers == vers &&
	    last.id)
		return last.id;
	/* zeroed whole, padding too (hashed byte by byte), after the
	 * cache: not on every call */
	memset(&key, 0, sizeof(key));
	key.addr_len = causal_copy_addr(key.addr, xprt->xp_ltaddr.buf,
					xprt->xp_ltaddr.len);
	if (!key.addr_len && xprt->xp_fd >= 0 &&
	    transport != CAUSAL_TRANSPORT_RAW) {
		/* libtirpc leaves xp_ltaddr empty on the connections it
		 * accepts: one system call per connection, its first call
		 * (the cache above); only xprt_register could ask sooner.
		 * (svc_raw's xp_fd is no socket: FD_SETSIZE.) */
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		if (!getsockname(xprt->xp_fd, (struct sockaddr *)&ss, &len))
			key.addr_len = causal_copy_addr(key.addr, &ss, len);
	}
	key.prog = prog;
	key.vers = vers;
	key.transport = transport;
	id = object_id(tb, &key);
	last.xprt = xprt;
	last.prog = prog;
	last.vers = vers;
	last.id = id;
	return id;
}
