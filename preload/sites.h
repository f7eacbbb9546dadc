/*
 * sites.h - the call sites of RPC calls: numbered on the call path by
 * their return address, named off it by the writer thread.
 *
 * A client stub's probe knows where the stub returns to (the return
 * address of our cl_call): each distinct one is a call site.  The probe
 * only numbers it, in a lock-free table: no symbol is looked up, no
 * file read, nothing allocated, no system call, no lock, so the first
 * call of a site costs what the others do.  The writer thread, each
 * round, names the sites seen since (the function holding the address
 * and its file, from the ELF symbol tables: elf-syms.h) and writes an
 * RPC_SITE record for each, tid 0, into the process's log; a fork
 * child's log gets the sites it inherited again.
 *
 * Selections by function name (monitor-rules.h) need no site's name:
 * the consumer thread asks the writer where the functions of that name
 * lie, before it puts the selection in force, and the probes compare
 * their return address with that.
 */
#ifndef CAUSAL_SITES_H
#define CAUSAL_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "monitor-rules.h" /* struct causal_addr_range */

/* ---- the probes -------------------------------------------------------- */

/* The id of the call site returning to ip (1..); 0 when ip is 0 or the
 * table has no room left. */
uint64_t causal_site_of(uintptr_t ip);

/* ---- the writer thread (writer.c) ---------------------------------------- */

/*
 * Each round, before the writer takes its lock: name the sites seen
 * since the last round, and answer the consumer's question (below).
 * Reads files and allocates: never from a signal handler.
 */
void causal_sites_name(void);

enum causal_sites_when {
	CAUSAL_SITES_ROUND,  /* a round: what fits in the open frame */
	CAUSAL_SITES_FINAL,  /* exit, exec: name the last ones first */
	CAUSAL_SITES_SIGNAL, /* the last flush, in a signal handler */
};

/*
 * Under the writer lock: an RPC_SITE record into the open frame of
 * `lf` for each named site this process's log does not hold yet.  A
 * site first called within a round of a fatal signal stays unnamed (its
 * calls have no site_symbol).
 */
struct causal_log_file;
void causal_sites_write(struct causal_log_file *lf,
			enum causal_sites_when when);

/* ---- the consumer thread (monitor.c) --------------------------------------
 */

/*
 * Where the functions named `name` lie (causal_elf_functions_named()),
 * into out (at most max): the writer thread, which alone opens files,
 * finds them; this waits for its answer, up to 5 s.  How many were
 * found (0 also when the writer did not answer).
 */
size_t causal_sites_find(const char *name, struct causal_addr_range *out,
			 size_t max);

#endif
