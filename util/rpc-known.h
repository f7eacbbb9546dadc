/*
 * rpc-known.h - the names of the programs libtirpc itself calls, and of
 * their procedures, as their protocols fix them: rpcbind (program 100000:
 * the portmapper's version 2 and rpcbind's 3 and 4, RFC 1833) and
 * keyserv (100029, key_prot.x).  Shipped, so that a call made inside
 * libtirpc (an address look-up of clnt_create, a key of auth_des) is
 * named `rpcbind::GETADDR` with no .x file given (ccsg/names.h).
 */
#ifndef CAUSAL_RPC_KNOWN_H
#define CAUSAL_RPC_KNOWN_H

#include <stdint.h>

/* The program's name ("rpcbind"), NULL when it is none of them. */
const char *rpc_known_program(uint32_t prog);

/* The procedure's name in that version ("GETADDR"), NULL when unknown. */
const char *rpc_known_procedure(uint32_t prog, uint32_t vers, uint32_t proc);

#endif
