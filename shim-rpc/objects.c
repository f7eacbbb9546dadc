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
#include "slot-table.h"

#define OBJECTS 1024	 /* a power of two */
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

__attribute__((constructor)) static void objects_touch(void)
{
	causal_slot_touch(object_hash, OBJECTS);
}

/* The id of the object of key, with its RPC_OBJECT record if this
 * thread is the first to see it; 0 when the table has no room left. */
static uint64_t object_id(struct causal_tbuf *tb, const struct object *key)
{
	uint64_t h = 1469598103934665603ull;
	const uint8_t *p = (const void *)key;
	size_t i;
	int claimed;

	for (i = 0; i < sizeof(*key); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	h = h ? h : 1;
	i = causal_slot_claim(object_hash, OBJECTS, (size_t)(h >> 32),
			      OBJECT_PROBES, h, &claimed);
	if (i == CAUSAL_SLOT_NONE)
		return 0;
	if (claimed)
		write_object(tb, i + 1, key);
	return i + 1;
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
