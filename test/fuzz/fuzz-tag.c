/*
 * fuzz-tag.c - libFuzzer target for the causality tag decoder, which
 * parses bytes from the network (fuzz-tag-stream.c takes them off the
 * streams).  Any input must decode to a status without a crash or a read
 * past its end, and a tag that decodes must encode back to the same
 * bytes (but its version and checksum when it is a version 1 tag, which
 * this one reads and writes as version 2).  The decoder never says
 * 'incomplete': it has the bytes or not.
 */
#include <stdlib.h>
#include <string.h>

#include "tag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct causal_tag tag;
	uint8_t copy[CAUSAL_TAG_LEN], again[CAUSAL_TAG_LEN];
	uint32_t xid = size >= 12 ? (uint32_t)data[8] << 24 |
					    (uint32_t)data[9] << 16 |
					    (uint32_t)data[10] << 8 | data[11]
				  : 0;
	int st = causal_tag_decode(data, size, xid, &tag);

	if (st < CAUSAL_TAG_OK || st > CAUSAL_TAG_STALE)
		abort();
	if (st == CAUSAL_TAG_OK) {
		memcpy(copy, data, CAUSAL_TAG_LEN);
		causal_tag_encode(&tag, again);
		if (copy[5] == 1) { /* version 1 */
			memcpy(copy + 4, again + 4, 4);
			memcpy(copy + 44, again + 44, 4);
		}
		if (memcmp(copy, again, CAUSAL_TAG_LEN))
			abort();
		if (tag.event_no >= CAUSAL_TAG_EVENT_MAX)
			abort();
	}
	return 0;
}
