/*
 * msgpack-walk.c - msgpack headers read by their type byte (the msgpack
 * specification): fixint, nil, (never used), bool; fixmap, fixarray,
 * fixstr; bin, ext (and its type byte), float, uint and int, fixext, str
 * with 1 to 4 length bytes; array and map with 2 or 4 count bytes.
 */
#include "msgpack-walk.h"

/* Big-endian length field of w bytes at p[*i], bounds checked. */
static int be_len(const uint8_t *p, size_t n, size_t *i, unsigned w,
		  uint64_t *v)
{
	if (n - *i < w)
		return -1;
	*v = 0;
	while (w--)
		*v = *v << 8 | p[(*i)++];
	return 0;
}

int msgpack_walk_head(const uint8_t *p, size_t n, size_t *i, uint64_t *count,
		      uint64_t *body)
{
	uint8_t b;

	if (*i >= n)
		return -1;
	b = p[(*i)++];
	*count = *body = 0;
	if (b <= 0x7f || b >= 0xe0 || (b >= 0xc0 && b <= 0xc3))
		return 0;
	if (b <= 0x8f)
		*count = 2 * (b & 0x0f);
	else if (b <= 0x9f)
		*count = b & 0x0f;
	else if (b <= 0xbf)
		*body = b & 0x1f;
	else if (b >= 0xc4 && b <= 0xc6)
		return be_len(p, n, i, 1u << (b - 0xc4), body);
	else if (b >= 0xc7 && b <= 0xc9) {
		if (be_len(p, n, i, 1u << (b - 0xc7), body))
			return -1;
		++*body;
	} else if (b == 0xca || b == 0xcb)
		*body = b == 0xca ? 4 : 8;
	else if (b >= 0xcc && b <= 0xd3)
		*body = 1u << ((b - 0xcc) & 3);
	else if (b >= 0xd4 && b <= 0xd8)
		*body = 1 + (1u << (b - 0xd4));
	else if (b >= 0xd9 && b <= 0xdb)
		return be_len(p, n, i, 1u << (b - 0xd9), body);
	else {
		if (be_len(p, n, i, b & 1 ? 4 : 2, count))
			return -1;
		if (b >= 0xde)
			*count *= 2;
	}
	return 0;
}

size_t msgpack_walk_len(const uint8_t *p, size_t n)
{
	uint64_t pending = 1, count, body;
	size_t i = 0;

	while (pending--) {
		if (msgpack_walk_head(p, n, &i, &count, &body) ||
		    body > n - i || count > n - i) /* a byte each at least */
			return 0;
		i += body;
		pending += count;
	}
	return i;
}
