/*
 * keep.h - tail keep (docs/tracing.md, "Tail keep"): a chain head
 * sampling left out (sample.h) is still kept whole when it fails or one
 * of its calls takes longer than CAUSAL_KEEP_SLOWER_THAN.
 *
 * With tail keep on, the RPC probes of an unsampled chain record as a
 * sampled chain's do, and mark their records CAUSAL_REC_HELD.  The writer
 * moves a held record into this process's keep ring (keep-ring.c) instead
 * of the log, and writes it only once its chain is kept; it lets a
 * record go once it has been held CAUSAL_KEEP_WINDOW.  A chain is kept
 * here when a probe of this process finds it slow or failed, or when a
 * reply tag says a callee kept it (tag.h, CAUSAL_TAG_F_KEEP).
 *
 * With tail keep off (the default) nothing here runs: an unsampled call
 * records nothing, as head sampling alone does.
 */
#ifndef CAUSAL_KEEP_H
#define CAUSAL_KEEP_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

static inline int causal_keep_enabled(void)
{
	return causal_g.cfg.keep_slower_ns != 0;
}

/* Any thread: keep the chain (its held records here are written); with
 * a coordinator, the consumer thread announces it (keep-cast.c). */
void causal_keep_chain(const uint8_t chain[CAUSAL_CHAIN_ID_LEN]);

/* The consumer: keep a chain the coordinator says another process kept
 * (not announced again). */
void causal_keep_learn(const uint8_t chain[CAUSAL_CHAIN_ID_LEN]);

/* The consumer: a chain kept here and not announced yet, now taken as
 * announced; 1 with chain, 0 if none. */
int causal_keep_announce_next(uint8_t chain[CAUSAL_CHAIN_ID_LEN]);

/*
 * The consumer's part (keep-cast.c, docs/causalctl.md "The coordinator
 * protocol"), for a coordinator of protocol 3: the next KEEP message to
 * send into msg (size bytes), 1, or 0 when there is none (the chains
 * over CAUSAL_MON_KEEP_RATE are dropped, counted); and a KEPT's fields
 * taken: 0, or -1 if malformed.  Never on a program's thread.
 */
int causal_keepcast_next(uint64_t now_ns, char *msg, size_t size);
int causal_keepcast_take(char *rest);
/* The counts the KEEP record shows (cast, cast_dropped, learned). */
void causal_keepcast_counts(uint64_t *cast, uint64_t *dropped,
			    uint64_t *learned);

/*
 * Any thread: is a call of ns nanoseconds slow enough to keep its chain?
 * With `p99`, ns is counted in the process's histogram, and compared
 * with its 99th percentile so far (none is slow before 100 calls).
 */
int causal_keep_slow(uint64_t ns);

/* Writer: is the chain kept (as far as this process knows)? */
int causal_keep_kept(const uint8_t chain[CAUSAL_CHAIN_ID_LEN]);
/* Writer: the kept set's version, which changes when a chain is added. */
uint64_t causal_keep_version(void);
/* Writer: forget chains kept longer ago than twice the window, and
 * recompute the p99 from the histogram. */
void causal_keep_tidy(uint64_t now);

/*
 * Writer, for a record marked CAUSAL_REC_HELD: 1 if the ring took it (or
 * had to drop it: counted), 0 if its chain is kept already (encode it
 * now, as any record).
 */
int causal_keep_hold(const struct causal_rec *rec);

/*
 * Writer, each round after draining: the held records of chains kept
 * since go to the log, those held longer than the window go away, and
 * the counts go into a KEEP record when they changed (at most once a
 * second).  final (exit, exec): every kept one is written, the others let
 * go, and the counts written.
 */
void causal_keep_round(struct causal_log_file *lf, int final);

/* In a fork child: the parent's held records and counts are not its. */
void causal_keep_after_fork(void);

#endif
