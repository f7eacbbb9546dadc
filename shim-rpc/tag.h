/*
 * tag.h - the causality tag carried with each Sun RPC call and reply.
 *
 * The tag travels after the encoded arguments (in the same TCP record or
 * UDP datagram) and after the encoded results of the reply.  A peer that
 * does not know it never reads it: libtirpc skips the rest of a record or
 * datagram.  It is read from the network, so decoding treats it as hostile:
 * fixed length, magic, version, length, checksum, and the call's xid, so a
 * stale tag left in a reused UDP buffer is never taken for this call's.
 *
 * Wire layout, big-endian, CAUSAL_TAG_LEN bytes:
 *   magic u32 | version u16 | length u16 | xid u32 | flags u32 (below:
 *   bit 31 monitoring types, bit 30 unsampled, bit 29 keep, bits 3..0
 *   the types) |
 *   chain[20] | event_no u64 | check u32 (of the 44 bytes before: tag.c)
 *
 * Version 2 differs from 1 only by its checksum (a multiply per 8 bytes
 * instead of FNV-1a's per byte); a version 1 tag from an older libcausal
 * is still read.
 */
#ifndef CAUSAL_TAG_H
#define CAUSAL_TAG_H

#include <stddef.h>
#include <stdint.h>

#include "causal/log-format.h"

#define CAUSAL_TAG_MAGIC 0x43534c54u /* "CSLT" */
#define CAUSAL_TAG_VERSION 2
#define CAUSAL_TAG_LEN 48
/* Event numbers beyond this are refused: no chain gets near it, and it
 * keeps a hostile value from wrapping the counters it feeds. */
#define CAUSAL_TAG_EVENT_MAX (1ull << 48)

struct causal_tag {
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	uint64_t event_no;
	uint32_t xid;
	uint32_t flags; /* CAUSAL_TAG_F_*; unknown bits kept */
};

/*
 * flags of a call's tag: with CAUSAL_TAG_F_MON, its low bits are the
 * monitoring types (monitor.h, CAUSAL_MON_*) the caller's stub was
 * monitored with, which the callee's skeleton takes (causal overriding).
 * Without it (a tag from an older libcausal: flags 0), the callee
 * decides alone.  Replies carry 0 but CAUSAL_TAG_F_KEEP.
 */
#define CAUSAL_TAG_F_MON 0x80000000u
#define CAUSAL_TAG_F_MON_TYPES 0xfu
/*
 * The call's chain is not sampled (head sampling, sample.h): the callee
 * records nothing of it, whatever its own rate, and passes the bit on to
 * the calls it makes.  Clear in every tag of an older libcausal, which
 * recorded every chain: such a chain is recorded, as it always was.
 */
#define CAUSAL_TAG_F_UNSAMPLED 0x40000000u
/*
 * In a reply's tag: the callee (or one of its callees) keeps this
 * unsampled chain (tail keep, preload/keep.h), so the caller keeps it
 * too.  Never set by an older libcausal, nor without tail keep.
 */
#define CAUSAL_TAG_F_KEEP 0x20000000u

void causal_tag_encode(const struct causal_tag *tag,
		       uint8_t out[CAUSAL_TAG_LEN]);

/*
 * Decode len bytes (fewer than CAUSAL_TAG_LEN: absent).  Returns enum
 * causal_tag_status: OK (tag filled), ABSENT (not a tag at all: no magic),
 * MALFORMED (magic but anything else wrong), STALE (valid, other xid).
 */
int causal_tag_decode(const uint8_t *buf, size_t len, uint32_t expect_xid,
		      struct causal_tag *tag);

#endif
