/*
 * objects.c - serving instances: the object identity of the CPU paper
 * (Section 2.2), here a (local endpoint, program, version, transport) of
 * this process.  Host and process come from the log itself.  Few objects
 * exist and they live long, so a small table under a lock is enough; each
 * thread remembers its last answer so the common case takes no lock.
 */
#include <sys/socket.h>

#include "internal.h"

#define OBJECTS 256

struct object {
	uint8_t addr[CAUSAL_SOCKADDR_MAX];
	uint32_t addr_len, prog, vers;
	int transport;
};

static struct object objects[OBJECTS];
static int nobjects;
static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;

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

uint64_t causal_rpc_object(struct causal_tbuf *tb, const SVCXPRT *xprt,
			   uint32_t prog, uint32_t vers, int transport)
{
	struct object key;
	uint64_t id = 0;
	int i;

	if (last.xprt == xprt && last.prog == prog && last.vers == vers &&
	    last.id)
		return last.id;
	/* zeroed whole, padding too (compared with memcmp), after the
	 * cache: not on every call */
	memset(&key, 0, sizeof(key));
	key.addr_len = causal_copy_addr(key.addr, xprt->xp_ltaddr.buf,
					xprt->xp_ltaddr.len);
	if (!key.addr_len && xprt->xp_fd >= 0) {
		/* accepted connections may not fill xp_ltaddr; once per
		 * transport, thanks to the cache above */
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		if (!getsockname(xprt->xp_fd, (struct sockaddr *)&ss, &len))
			key.addr_len = causal_copy_addr(key.addr, &ss, len);
	}
	key.prog = prog;
	key.vers = vers;
	key.transport = transport;

	causal_mutex_lock(&objects_lock);
	for (i = 0; i < nobjects; i++)
		if (!memcmp(&objects[i], &key, sizeof(key)))
			break;
	if (i < nobjects) {
		id = (uint64_t)i + 1;
	} else if (nobjects < OBJECTS) {
		objects[nobjects] = key;
		id = (uint64_t)++nobjects;
		write_object(tb, id, &key);
	}
	causal_mutex_unlock(&objects_lock);
	last.xprt = xprt;
	last.prog = prog;
	last.vers = vers;
	last.id = id;
	return id;
}
