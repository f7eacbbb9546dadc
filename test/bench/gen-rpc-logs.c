/*
 * gen-rpc-logs.c - a synthetic directory of causal logs full of Sun RPC
 * calls, for the scale benchmark (bench-scale.sh): what libcausal.so
 * would write for CALLS calls made in nested chains between PROCS
 * processes on HOSTS hosts, THREADS threads each.  Deterministic.
 *
 *	gen-rpc-logs DIR CALLS [HOSTS [PROCS [THREADS]]]
 *	(defaults: 4 hosts, 8 processes, 4 threads per process)
 *
 * Every root call starts the same tree of 5 calls, made by a thread of
 * process c on the processes after it (c+1, c+2, ...):
 *
 *	client --1--> s1 --2--> s2 --3--> s3
 *	              s1 --4--> s4   (twice: calls 4 and 5)
 *
 * and every 10th tree s2's implementation spawns a thread (a thread
 * node under it in the CCSG).  Records follow include/causal/log-format.h
 * and the event numbering of shim-rpc: stub start e, skeleton start e+1,
 * the server's own events, skeleton end, stub end = skeleton end + 1; a
 * stub and its skeleton share nothing but (chain, event), as in a real
 * trace.  As with the shim, a thread keeps its chain from one root call
 * to the next (a client loop is one long chain), and a skeleton gives its
 * thread back the context it had.  A probe's start and end with nothing
 * in between on their thread (every stub, the leaves' skeletons) are one
 * PAIR record, as the library writes them.  Each CPU clock only moves forward:
 *the implementations burn 1000 + 100 * depth us of their thread's CPU, the
 *stubs 20 us.
 *
 * Prints the number of calls written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../log-fixture.h"

#define FRAME_BYTES 65536
#define MAX_PROCS 256
#define MAX_THREADS 64
#define CHAIN_CALLS 5
#define PROG 0x20000f01
#define VERS 1

struct proc {
	struct fixture_log fl;
	uint8_t uuid[CAUSAL_UUID_LEN];
	uint32_t next_chain;
	uint64_t next_fid, next_tid, records;
	uint64_t cpu[MAX_THREADS + 1]; /* per tid, the initial threads */
	/* each initial thread's own context, between the calls it serves */
	uint8_t chain[MAX_THREADS + 1][CAUSAL_CHAIN_ID_LEN];
	uint64_t event[MAX_THREADS + 1];
	int active[MAX_THREADS + 1];
	uint8_t addr[16];	       /* its TCP endpoint, a sockaddr_in */
	int site_seen[8], object_seen;
	int host;
};

static struct proc procs[MAX_PROCS];
static int nprocs, nthreads;
static uint64_t mono = 1000000000ull;
static uint32_t xid = 0x12345678;

static void sockaddr_in_bytes(uint8_t out[16], int host, int port)
{
	memset(out, 0, 16);
	out[0] = 2; /* AF_INET, little-endian sa_family_t */
	out[2] = (uint8_t)(port >> 8);
	out[3] = (uint8_t)port;
	out[4] = 10;
	out[5] = 0;
	out[6] = (uint8_t)host;
	out[7] = 1;
}

static void maybe_flush(struct proc *p)
{
	if (p->fl.sb.size >= FRAME_BYTES)
		fixture_log_flush(&p->fl);
}

static void burn(struct proc *p, uint64_t tid, uint64_t us)
{
	p->cpu[tid] += us * 1000;
	mono += us * 1000 + 1000;
}

static const char *const stub_names[] = {"", "foo_1", "times_1",
					 "what_to_say_1", "say_it_1"};

/*
 * One call from (client c, thread ct) to (server s, thread st) of
 * procedure proc, in chain at event *ev; the server's implementation then
 * makes the calls of the tree below node `node`.  *ev ends at the stub
 * end's event.
 */
static void call(int c, uint64_t ct, int s, uint64_t st, int node,
		 const uint8_t *chain, uint64_t *ev, long chain_no);

static void implementation(int s, uint64_t st, int node, const uint8_t *chain,
			   uint64_t *ev, uint64_t fid, long chain_no)
{
	struct proc *p = &procs[s];
	int s2 = (s + 1) % nprocs, s3 = (s + 2) % nprocs;

	burn(p, st, 500);
	if (node == 1) { /* s1: calls 2 (nested further) and 4, 5 */
		call(s, st, s2, 1 + (chain_no % nthreads), 2, chain, ev,
		     chain_no);
		call(s, st, s3, 1 + ((chain_no + 1) % nthreads), 4, chain,
		     ev, chain_no);
		call(s, st, s3, 1 + ((chain_no + 1) % nthreads), 4, chain,
		     ev, chain_no);
	} else if (node == 2) { /* s2: call 3, maybe a thread */
		call(s, st, s2, 1 + ((chain_no + 2) % nthreads), 3, chain, ev,
		     chain_no);
		if (chain_no % 10 == 0) {
			uint64_t tid = ++p->next_tid;

			fixture_log_spawn(&p->fl, st, mono += 100, tid);
			fixture_log_thread_start(&p->fl, tid, mono += 100, st,
						 100000 + tid, CAUSAL_MARKER_USER,
						 0, chain, *ev, fid);
			fixture_log_thread_end(&p->fl, tid, mono += 400000,
					       400000, CAUSAL_THREAD_RETURNED);
			p->records += 3;
		}
	}
	burn(p, st, 500 + 100 * node);
}

static void call(int c, uint64_t ct, int s, uint64_t st, int node,
		 const uint8_t *chain, uint64_t *ev, long chain_no)
{
	struct proc *cp = &procs[c], *sp = &procs[s];
	uint8_t caddr[16];
	struct fixture_rpc r, start;
	uint64_t cfid = ++cp->next_fid, sfid = ++sp->next_fid;
	int proc = node == 1 ? 1 : node == 2 ? 3 : node == 3 ? 2 : 4;
	uint32_t x = xid += 0x9e3779b9u;

	sockaddr_in_bytes(caddr, cp->host, 700 + (int)ct);
	if (node != 1)
		++*ev; /* inside a skeleton: the context moves on */
	if (!cp->site_seen[proc]) { /* the first call of a stub: its site */
		fixture_log_rpc_site(&cp->fl, ct, mono, proc, stub_names[proc],
				     "/usr/bin/figure1-server");
		cp->site_seen[proc] = 1;
		cp->records++;
	}
	/* stub start: CPU at entry (written with the end: below) */
	start = (struct fixture_rpc){ ct,    mono, mono + 300, cp->cpu[ct],
				      chain, *ev,  cfid };
	burn(cp, ct, 10);
	if (!sp->object_seen) {
		fixture_log_rpc_object(&sp->fl, st, mono, 1, PROG, VERS,
				       CAUSAL_TRANSPORT_TCP, sp->addr, 16,
				       "tcp");
		sp->object_seen = 1;
		sp->records++;
	}
	/* skeleton start: CPU at exit */
	burn(sp, st, 5);
	++*ev;
	r = (struct fixture_rpc){st, mono, mono + 300, sp->cpu[st], chain,
				 *ev, sfid};
	if (node >= 3) /* a leaf: nothing recorded till its end */
		fixture_log_pair_next(&sp->fl);
	fixture_log_skel_start(&sp->fl, &r, PROG, VERS, proc,
			       CAUSAL_TRANSPORT_TCP, caddr, 16, 1, x, 24,
			       CAUSAL_TAG_OK);
	implementation(s, st, node, chain, ev, sfid, chain_no);
	/* skeleton end: CPU at entry */
	++*ev;
	r = (struct fixture_rpc){st, mono, mono + 300, sp->cpu[st], chain,
				 *ev, sfid};
	fixture_log_skel_end(&sp->fl, &r, CAUSAL_REPLY_SUCCESS, 4);
	burn(sp, st, 5);
	/* stub end: CPU at exit */
	burn(cp, ct, 10);
	++*ev;
	r = (struct fixture_rpc){ct, mono, mono + 300, cp->cpu[ct], chain,
				 *ev, cfid};
	/* the client's thread recorded nothing in between: one record */
	fixture_log_pair_next(&cp->fl);
	fixture_log_stub_start(&cp->fl, &start, PROG, VERS, proc,
			       CAUSAL_TRANSPORT_TCP, sp->addr, 16, proc, 0,
			       CAUSAL_RPC_TAG_SENT);
	fixture_log_stub_end(&cp->fl, &r, 0, 24, 4, CAUSAL_TAG_OK);
	cp->records += 2;
	sp->records += 2;
	maybe_flush(cp);
	maybe_flush(sp);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 2 ? argv[1] : NULL;
	long calls = argc > 2 ? atol(argv[2]) : 0, chains;
	int hosts = argc > 3 ? atoi(argv[3]) : 4;
	static const char *const args[] = {"figure1-server", "-R", "A"};

	nprocs = argc > 4 ? atoi(argv[4]) : 8;
	nthreads = argc > 5 ? atoi(argv[5]) : 4;
	if (!dir || calls < CHAIN_CALLS || hosts < 1 || nprocs < 4 ||
	    nprocs > MAX_PROCS || nthreads < 1 || nthreads > MAX_THREADS) {
		fprintf(stderr, "usage: gen-rpc-logs DIR CALLS [HOSTS [PROCS "
				"(4..256) [THREADS (1..64)]]]\n");
		return 2;
	}
	mkdir(dir, 0777);
	for (int i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];
		char path[4096], host[32];

		for (int k = 0; k < CAUSAL_UUID_LEN; k++)
			p->uuid[k] = (uint8_t)(i * 37 + k * 11 + 3);
		p->host = i % hosts;
		sockaddr_in_bytes(p->addr, p->host, 2000 + i);
		snprintf(host, sizeof(host), "host%d", p->host);
		snprintf(path, sizeof(path), "%s/%s.%d.%02x%02x%02x.clog", dir,
			 host, 1000 + i, p->uuid[0], p->uuid[1], p->uuid[2]);
		if (fixture_log_open(&p->fl, path, CAUSAL_FORMAT_VERSION)) {
			perror(path);
			return 1;
		}
		fixture_log_header(&p->fl, mono, p->uuid, host, 1000 + i, 1,
				   "/usr/bin/figure1-server", 3, args,
				   1700000000000000000ull, NULL, 256, 100);
		fixture_log_thread_start(&p->fl, 1, mono + 1, 0, 1000 + i,
					 CAUSAL_MARKER_USER, 0, NULL, 0, 0);
		p->records = 2;
		for (int t = 2; t <= nthreads; t++) {
			fixture_log_spawn(&p->fl, 1, mono + t, t);
			fixture_log_thread_start(&p->fl, t, mono + t + 1, 1,
						 5000 + t, CAUSAL_MARKER_USER,
						 0, NULL, 0, 0);
			p->records += 2;
		}
		p->next_tid = nthreads;
	}

	chains = calls / CHAIN_CALLS;
	for (long n = 0; n < chains; n++) {
		int c = (int)(n % nprocs);
		uint64_t ct = 1 + (n / nprocs) % nthreads;
		struct proc *p = &procs[c];

		if (!p->active[ct]) { /* causal_ctx_next_event(): a new chain */
			uint32_t k = ++p->next_chain;

			memcpy(p->chain[ct], p->uuid, CAUSAL_UUID_LEN);
			p->chain[ct][16] = (uint8_t)(k >> 24);
			p->chain[ct][17] = (uint8_t)(k >> 16);
			p->chain[ct][18] = (uint8_t)(k >> 8);
			p->chain[ct][19] = (uint8_t)k;
			p->event[ct] = 0;
			p->active[ct] = 1;
		} else {
			p->event[ct]++;
		}
		/* the client thread's own work, then the root call */
		burn(p, ct, 200);
		call(c, ct, (c + 1) % nprocs, 1 + (n % nthreads), 1,
		     p->chain[ct], &p->event[ct], n);
	}

	for (int i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];

		for (int t = nthreads; t >= 1; t--)
			fixture_log_thread_end(&p->fl, t, mono += 10, p->cpu[t],
					       t == 1 ? CAUSAL_THREAD_AT_EXIT
						      : CAUSAL_THREAD_RETURNED);
		p->records += nthreads + 1;
		mono += 10;
		fixture_log_process_end(&p->fl, mono,
					1700000000000000000ull + mono,
					CAUSAL_END_EXIT, 0, p->records, 0);
		if (fixture_log_close(&p->fl)) {
			fprintf(stderr, "gen-rpc-logs: cannot write log %d\n", i);
			return 1;
		}
	}
	printf("%ld\n", chains * CHAIN_CALLS);
	return 0;
}
