/*
 * rpc-known.c - the well-known programs' names (rpc-known.h), from their
 * protocols: rpcb_prot.x (RPCBPROC_*, PMAPPROC_* of version 2) and
 * key_prot.x (KEY_*), each name without its protocol's prefix.
 */
#include <stddef.h>

#include "rpc-known.h"

#define MAX_PROCS 13

static const struct known_version {
	uint32_t prog, vers;
	const char *procs[MAX_PROCS]; /* by procedure number */
} versions[] = {
	{ 100000, 2, { "NULL", "SET", "UNSET", "GETPORT", "DUMP", "CALLIT" } },
	{ 100000,
	  3,
	  { "NULL", "SET", "UNSET", "GETADDR", "DUMP", "CALLIT", "GETTIME",
	    "UADDR2TADDR", "TADDR2UADDR" } },
	{ 100000,
	  4,
	  { "NULL", "SET", "UNSET", "GETADDR", "DUMP", "BCAST", "GETTIME",
	    "UADDR2TADDR", "TADDR2UADDR", "GETVERSADDR", "INDIRECT",
	    "GETADDRLIST", "GETSTAT" } },
	{ 100029,
	  1,
	  { "NULL", "SET", "ENCRYPT", "DECRYPT", "GEN", "GETCRED" } },
	{ 100029,
	  2,
	  { "NULL", "SET", "ENCRYPT", "DECRYPT", "GEN", "GETCRED", "ENCRYPT_PK",
	    "DECRYPT_PK", "NET_PUT", "NET_GET", "GET_CONV" } },
};

const char *rpc_known_program(uint32_t prog)
{
	switch (prog) {
	case 100000:
		return "rpcbind";
	case 100029:
		return "keyserv";
	}
	return NULL;
}

const char *rpc_known_procedure(uint32_t prog, uint32_t vers, uint32_t proc)
{
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i].prog == prog && versions[i].vers == vers)
			return proc < MAX_PROCS ? versions[i].procs[proc]
						: NULL;
	return NULL;
}
