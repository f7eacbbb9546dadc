/*
 * elf-syms.h - the functions of the files mapped into this process, by
 * address or by name, from their ELF symbol tables (libelf).
 *
 * For the writer thread only (sites.h), never a probe: it reads
 * /proc/self/maps and the files themselves, allocates, and takes its
 * time (a millisecond or so a file).  The writer keeps a file table of
 * its own (own-files.h), so the descriptors opened here are never the
 * program's.  No loader lock is taken (dladdr, dl_iterate_phdr): the
 * maps say where each file lies, the file's program headers which of
 * its addresses that is.
 */
#ifndef CAUSAL_ELF_SYMS_H
#define CAUSAL_ELF_SYMS_H

#include <stddef.h>
#include <stdint.h>

#include "monitor-rules.h" /* struct causal_addr_range */

/*
 * Name each of the n addresses: fn(i, symbol, path, arg) once for
 * addr[i], in any order; symbol is the function holding it (from
 * .symtab, else .dynsym; the one whose [value, value + size) covers it,
 * "" when none does: never the nearest one before), path the file
 * mapped there; both NULL when it lies in no mapped file.  The maps are
 * read once, each file once.
 */
typedef void (*causal_elf_name_fn)(size_t i, const char *symbol,
				   const char *path, void *arg);
void causal_elf_name_all(const uintptr_t *addr, size_t n, causal_elf_name_fn fn,
			 void *arg);

/*
 * The function holding addr: its symbol (from .symtab, else .dynsym;
 * the one whose [value, value + size) covers addr, "" when none does:
 * never the nearest one before) and the path of the file mapped there.
 * 0, or -1 when addr lies in no mapped file.
 */
int causal_elf_function_at(uintptr_t addr, char *symbol, size_t symbol_size,
			   char *path, size_t path_size);

/*
 * The functions of every mapped file named `name` in any case, or
 * name_N (rpcgen's client stub of version N): where each lies in this
 * process, into out (the first max).  How many there are.
 */
size_t causal_elf_functions_named(const char *name,
				  struct causal_addr_range *out, size_t max);

/* The length of a stub's function name: "say_it_1" -> 6 ("say_it"). */
size_t causal_stub_name_len(const char *symbol);

#endif
