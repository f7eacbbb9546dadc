#include <string.h>

#include "tag.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

void causal_tag_encode(const struct causal_tag *tag,
		       uint8_t out[CAUSAL_TAG_LEN])
{
	put32(out, CAUSAL_TAG_MAGIC);
	put32(out + 4, (uint32_t)CAUSAL_TAG_VERSION << 16 | CAUSAL_TAG_LEN);
	put32(out + 8, tag->xid);
	put32(out + 12, tag->flags);
	memcpy(out + 16, tag->chain, CAUSAL_CHAIN_ID_LEN);
	put32(out + 36, (uint32_t)(tag->event_no >> 32));
	put32(out + 40, (uint32_t)tag->event_no);
	put32(out + 44, fnv1a(out, 44));
}

int causal_tag_decode(const uint8_t *buf, size_t len, uint32_t expect_xid,
		      struct causal_tag *tag)
{
	static const uint8_t zero[CAUSAL_CHAIN_ID_LEN];
	uint64_t event;

	if (len < CAUSAL_TAG_LEN || get32(buf) != CAUSAL_TAG_MAGIC)
		return CAUSAL_TAG_ABSENT;
	if (get32(buf + 4) != ((uint32_t)CAUSAL_TAG_VERSION << 16 |
			       CAUSAL_TAG_LEN) ||
	    get32(buf + 44) != fnv1a(buf, 44))
		return CAUSAL_TAG_MALFORMED;
	event = (uint64_t)get32(buf + 36) << 32 | get32(buf + 40);
	if (event >= CAUSAL_TAG_EVENT_MAX ||
	    !memcmp(buf + 16, zero, sizeof(zero)))
		return CAUSAL_TAG_MALFORMED;
	if (get32(buf + 8) != expect_xid)
		return CAUSAL_TAG_STALE;
	memcpy(tag->chain, buf + 16, CAUSAL_CHAIN_ID_LEN);
	tag->event_no = event;
	tag->xid = expect_xid;
	tag->flags = get32(buf + 12);
	return CAUSAL_TAG_OK;
}
