/*
 * sites.c - call sites (sites.h): the probes' lock-free table of return
 * addresses, the names the writer gives them, and the writer's answers
 * to the consumer's questions about function names.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elf-syms.h"
#include "encode.h"
#include "internal.h"
#include "sites.h"
#include "slot-table.h"

#define SITES 1024	/* a power of two: slot i is site i + 1 */
#define SITE_PROBES 128 /* slots a probe looks at before it gives up */
#define SITE_TEXT 512	/* bytes of a symbol or a path recorded */

/* The probes': the return address of each site, claimed once. */
static _Atomic uint64_t site_ip[SITES];
/* a site was claimed since the writer last looked */
static _Atomic int sites_new;

/* The writer's, off the call path (a fork child's writer inherits it). */
static struct {
	char *symbol[SITES], *module[SITES];
	uint8_t named[SITES];
	uint8_t written[SITES]; /* in the log of the process written_by */
	pid_t written_by;
} w;

/* The consumer's question (causal_sites_find), one at a time. */
static struct {
	_Atomic uint32_t asked, answered; /* numbers of questions */
	_Atomic uint32_t bell;		  /* the consumer sleeps on it */
	char name[CAUSAL_SEL_NAME_MAX];
	size_t n;
	struct causal_addr_range found[CAUSAL_SEL_RANGES];
} ask;

__attribute__((constructor)) static void sites_touch(void)
{
	causal_slot_touch(site_ip, SITES);
}

uint64_t causal_site_of(uintptr_t ip)
{
	size_t start = (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 52);
	size_t i;
	int claimed;

	if (!ip)
		return 0;
	i = causal_slot_claim(site_ip, SITES, start, SITE_PROBES, ip, &claimed);
	if (i == CAUSAL_SLOT_NONE)
		return 0;
	if (claimed)
		atomic_store_explicit(&sites_new, 1, memory_order_release);
	return i + 1;
}

/* ---- the writer --------------------------------------------------------- */

static void name_site(size_t k, const char *symbol, const char *path, void *arg)
{
	const size_t *slot = arg;
	size_t i = slot[k];

	w.symbol[i] = strndup(symbol ? symbol : "", SITE_TEXT);
	w.module[i] = strndup(path ? path : "", SITE_TEXT);
	w.named[i] = 1; /* a failed strndup() leaves it unnamed in the log */
}

/*
 * Who names now: the writer each round, or the thread that finishes the
 * log at exit while the writer may be at it; one of them.  The writer
 * passes when the other is at it; the last naming waits for the writer's
 * to end (else the sites that round names were never written: a short
 * program's sites came out unnamed).  A fork child may inherit its
 * parent's writer in the middle (another process's id here): it takes
 * over.
 */
static _Atomic pid_t naming;

#define NAMING_WAIT_MS 2000 /* the last naming waits for the writer's */

static int naming_begin(int wait)
{
	const struct timespec ms = { 0, 1000000L };

	for (int waited = 0;; waited++) {
		pid_t me = causal_g.id.pid, seen = 0;

		if (atomic_compare_exchange_strong(&naming, &seen, me) ||
		    (seen != me &&
		     atomic_compare_exchange_strong(&naming, &seen, me)))
			return 1;
		if (!wait || waited >= NAMING_WAIT_MS)
			return 0;
		nanosleep(&ms, NULL);
	}
}

/* Name the sites not named yet (all: whether or not one is new). */
static void name_new_sites(int all)
{
	uint8_t in_hook = causal_self.in_hook;
	uintptr_t *ip;
	size_t *slot, n = 0;

	if (!atomic_exchange_explicit(&sites_new, 0, memory_order_acquire) &&
	    !all)
		return;
	if (!naming_begin(all)) {
		atomic_store_explicit(&sites_new, 1, memory_order_relaxed);
		return;
	}
	/* what we allocate is not the program's (heap.h) */
	causal_self.in_hook = 1;
	ip = malloc(SITES * sizeof(*ip));
	slot = malloc(SITES * sizeof(*slot));
	for (size_t i = 0; ip && slot && i < SITES; i++) {
		uintptr_t at =
			atomic_load_explicit(&site_ip[i], memory_order_relaxed);

		if (at && !w.named[i]) {
			/* the call is the instruction before its return */
			ip[n] = at - 1;
			slot[n++] = i;
		}
	}
	if (n)
		causal_elf_name_all(ip, n, name_site, slot);
	else if (!ip || !slot)
		atomic_store_explicit(&sites_new, 1, memory_order_relaxed);
	free(ip);
	free(slot);
	atomic_store(&naming, 0);
	causal_self.in_hook = in_hook;
}

/* The consumer's question, if one waits: found, answered, woken. */
static void answer(void)
{
	uint32_t q = atomic_load_explicit(&ask.asked, memory_order_acquire);
	struct causal_addr_range found[CAUSAL_SEL_RANGES];
	char name[CAUSAL_SEL_NAME_MAX];
	size_t n;

	if (q == atomic_load_explicit(&ask.answered, memory_order_relaxed))
		return;
	memcpy(name, ask.name, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	if (atomic_load_explicit(&ask.asked, memory_order_acquire) != q)
		return; /* asked again meanwhile: the next round answers */
	n = causal_elf_functions_named(name, found, CAUSAL_SEL_RANGES);
	memcpy(ask.found, found, sizeof(found));
	ask.n = n;
	atomic_store_explicit(&ask.answered, q, memory_order_release);
	causal_futex_wake(&ask.bell);
}

void causal_sites_name(void)
{
	answer();
	name_new_sites(0);
}

/* One site's record into the open frame: 1 done (or lost with the
 * log), 0 when the frame has no room for it this round. */
static int write_site(struct causal_log_file *lf, size_t i, int final)
{
	const char *sym = w.symbol[i] ? w.symbol[i] : "";
	const char *mod = w.module[i] ? w.module[i] : "";
	size_t slen = strnlen(sym, SITE_TEXT), mlen = strnlen(mod, SITE_TEXT);
	_Alignas(8) uint8_t buf[sizeof(struct rec_rpc_site) + 2 * SITE_TEXT];
	struct rec_rpc_site *r = (void *)buf;
	size_t need;

	memset(r, 0, sizeof(*r));
	r->hdr.type = CAUSAL_REC_RPC_SITE;
	r->hdr.size = (uint32_t)CAUSAL_REC_ALIGN(sizeof(*r) + slen + mlen);
	r->hdr.mono_ns = causal_now_ns();
	r->site_id = i + 1;
	r->symbol_len = (uint16_t)slen;
	r->module_len = (uint16_t)mlen;
	memcpy(r->tail, sym, slen);
	memcpy(r->tail + slen, mod, mlen);
	need = CAUSAL_ENCODED_MAX(r->hdr.size);
	if (atomic_load_explicit(&lf->failed, memory_order_relaxed)) {
		causal_log_file_lose(lf, CAUSAL_REC_RPC_SITE);
		return 1;
	}
	if (final)
		causal_log_file_reserve(lf, need);
	else if (causal_log_file_room(lf, need))
		return 0;
	if (causal_encode_record(&lf->pk, &r->hdr) == 0)
		causal_log_file_count(lf, CAUSAL_REC_RPC_SITE);
	return 1;
}

void causal_sites_write(struct causal_log_file *lf, enum causal_sites_when when)
{
	if (w.written_by != causal_g.id.pid) {
		/* a fork child: its log holds none of them yet, and a site
		 * the parent's writer was naming at the fork is not named */
		memset(w.written, 0, sizeof(w.written));
		w.written_by = causal_g.id.pid;
		atomic_store_explicit(&sites_new, 1, memory_order_relaxed);
	}
	if (when == CAUSAL_SITES_FINAL)
		name_new_sites(1);
	for (size_t i = 0; i < SITES; i++)
		if (w.named[i] && !w.written[i]) {
			if (!write_site(lf, i, when != CAUSAL_SITES_ROUND))
				return;
			w.written[i] = 1;
		}
}

/* ---- the consumer ------------------------------------------------------- */

size_t causal_sites_find(const char *name, struct causal_addr_range *out,
			 size_t max)
{
	uint32_t q = atomic_load_explicit(&ask.asked, memory_order_relaxed) + 1;
	uint64_t until = causal_now_ns() + 5000000000ull;
	struct timespec tick = { 0, 50 * 1000000L };
	size_t len = strnlen(name, sizeof(ask.name) - 1), n;

	memcpy(ask.name, name, len);
	ask.name[len] = '\0';
	atomic_store_explicit(&ask.asked, q, memory_order_release);
	causal_writer_wake();
	while (atomic_load_explicit(&ask.answered, memory_order_acquire) != q) {
		if (causal_now_ns() >= until)
			return 0;
		causal_futex_wait(&ask.bell, &tick);
	}
	n = ask.n;
	if (n > max)
		n = max;
	if (n > CAUSAL_SEL_RANGES)
		n = CAUSAL_SEL_RANGES;
	memcpy(out, ask.found, n * sizeof(*out));
	return n;
}
