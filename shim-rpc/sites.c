/*
 * sites.c - which client stub a call came from.
 *
 * rpcgen names its client stubs after the procedure (say_it_1), and the
 * stub is what calls cl_call: the return address of our cl_call wrapper
 * lies in it.  Each distinct return address is a call site, resolved once
 * with libunwind (which reads the ELF symbol table, so no -rdynamic is
 * needed) and written as an RPC_SITE record; later calls find the site in
 * a lock-free table.
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "internal.h"

#define SITES 4096 /* a power of two; more sites than this share id 0 */

static _Atomic uintptr_t site_ip[SITES];
static _Atomic uint64_t next_site = 1;
static uint64_t site_id[SITES];
static _Atomic int site_ready[SITES];
/* the function the stub calls, say_it of say_it_1 (selections by name) */
static char site_fname[SITES][CAUSAL_SEL_NAME_MAX];

/* "say_it_1" -> "say_it": the rpcgen stub's name without its version. */
static void function_name(const char *symbol, char *out, size_t size)
{
	size_t len = strlen(symbol), end = len;

	while (end && symbol[end - 1] >= '0' && symbol[end - 1] <= '9')
		end--;
	if (end && end < len && symbol[end - 1] == '_')
		len = end - 1;
	if (len >= size)
		len = 0; /* too long to be selected by name */
	memcpy(out, symbol, len);
	out[len] = '\0';
}

/*
 * This runs inside the call, below the stub: walk up the live stack to the
 * frame executing at ip and ask libunwind its procedure's name.  (libunwind
 * 1.6 has no by-address lookup.)  Once per site, so the cost is no matter.
 */
static void stub_symbol(uintptr_t ip, char *out, size_t size)
{
	unw_context_t uc;
	unw_cursor_t cursor;
	unw_word_t frame_ip, off;
	int depth;

	if (unw_getcontext(&uc) || unw_init_local(&cursor, &uc))
		return;
	for (depth = 0; depth < 16 && unw_step(&cursor) > 0; depth++) {
		if (unw_get_reg(&cursor, UNW_REG_IP, &frame_ip))
			return;
		if (frame_ip == ip) {
			if (unw_get_proc_name(&cursor, out, size, &off))
				out[0] = '\0';
			return;
		}
	}
}

static void write_site(struct causal_tbuf *tb, size_t i, uint64_t id,
		       uintptr_t ip)
{
	char symbol[256], module[256];
	Dl_info info;
	size_t slen, mlen;
	uint64_t pending;
	struct rec_rpc_site *r;

	symbol[0] = '\0';
	stub_symbol(ip, symbol, sizeof(symbol));
	function_name(symbol, site_fname[i], sizeof(site_fname[i]));
	module[0] = '\0';
	if (dladdr((void *)ip, &info) && info.dli_fname)
		snprintf(module, sizeof(module), "%s", info.dli_fname);
	slen = strlen(symbol);
	mlen = strlen(module);
	r = (void *)causal_record_begin(
		tb, CAUSAL_REC_RPC_SITE,
		(uint32_t)CAUSAL_REC_ALIGN(sizeof(*r) + slen + mlen), &pending);
	if (!r)
		return;
	r->site_id = id;
	r->symbol_len = (uint16_t)slen;
	r->module_len = (uint16_t)mlen;
	memcpy(r->tail, symbol, slen);
	memcpy(r->tail + slen, module, mlen);
	causal_record_commit(tb, pending);
}

/*
 * Another thread claimed this site and is naming it (its first call):
 * wait for it, a few microseconds once per site and thread, rather than
 * record this call without its stub.  Bounded, should that thread stall.
 */
static int wait_named(size_t i)
{
	int n;

	for (n = 0; n < 100000; n++) {
		if (atomic_load_explicit(&site_ready[i], memory_order_acquire))
			return 1;
		sched_yield();
	}
	return 0;
}

/* The slot of the site at ip, named; SITES when none. */
static size_t site_slot(struct causal_tbuf *tb, uintptr_t ip)
{
	size_t i, n;

	if (!ip)
		return SITES;
	i = (size_t)((ip >> 4) * 0x9e3779b97f4a7c15ull) & (SITES - 1);
	for (n = 0; n < SITES; n++, i = (i + 1) & (SITES - 1)) {
		uintptr_t seen = atomic_load_explicit(&site_ip[i],
						      memory_order_acquire);

		if (seen == ip)
			return wait_named(i) ? i : SITES;
		if (seen)
			continue;
		if (!atomic_compare_exchange_strong(&site_ip[i], &seen, ip)) {
			if (seen == ip)
				return wait_named(i) ? i : SITES;
			continue;
		}
		site_id[i] = atomic_fetch_add(&next_site, 1);
		write_site(tb, i, site_id[i], ip);
		atomic_store_explicit(&site_ready[i], 1, memory_order_release);
		return i;
	}
	return SITES;
}

uint64_t causal_rpc_site(struct causal_tbuf *tb, uintptr_t ip)
{
	size_t i = site_slot(tb, ip);

	return i < SITES ? site_id[i] : 0;
}

const char *causal_rpc_site_function(struct causal_tbuf *tb, uintptr_t ip)
{
	size_t i = site_slot(tb, ip);

	return i < SITES && site_fname[i][0] ? site_fname[i] : NULL;
}
