/*
 * rowbinary.h - ClickHouse's RowBinary format, the rows of an INSERT and
 * of a SELECT ... FORMAT RowBinary: each row its columns in order, each
 * value in its type's binary form, no separators:
 *
 *	Int64, UInt64, UInt32, UInt8	little-endian, fixed width
 *	String				LEB128 length, then the bytes
 *	Nullable(T)			one byte, 1 = NULL (nothing follows),
 *					0 = a T follows
 *
 * A writer appends to a growing buffer (rb_buf); a reader takes values
 * from [p, end) and says when a row is cut short, so that a streamed
 * answer can be parsed as it comes, row by row.
 */
#ifndef CAUSAL_ROWBINARY_H
#define CAUSAL_ROWBINARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct rb_buf {
	unsigned char *p;
	size_t len, cap;
	bool oom; /* an append failed: the buffer is incomplete */
};

static inline void rb_release(struct rb_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static inline void rb_put(struct rb_buf *b, const void *v, size_t n)
{
	if (!n)
		return; /* nothing, and an empty buffer has no memory to copy to
			 */
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		unsigned char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static inline void rb_put_u8(struct rb_buf *b, uint8_t v)
{
	rb_put(b, &v, 1);
}

/* x86-64 and every host ClickHouse runs on are little-endian. */
static inline void rb_put_u64(struct rb_buf *b, uint64_t v)
{
	rb_put(b, &v, 8);
}

static inline void rb_put_u32(struct rb_buf *b, uint32_t v)
{
	rb_put(b, &v, 4);
}

static inline void rb_put_string(struct rb_buf *b, const void *s, size_t n)
{
	size_t v = n;

	do {
		rb_put_u8(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v);
	rb_put(b, s, n);
}

struct rb_reader {
	const unsigned char *p, *end;
};

/* Each returns 0, or -1 when the value is cut short (nothing taken). */
static inline int rb_get(struct rb_reader *r, void *v, size_t n)
{
	if ((size_t)(r->end - r->p) < n)
		return -1;
	memcpy(v, r->p, n);
	r->p += n;
	return 0;
}

static inline int rb_get_u8(struct rb_reader *r, uint8_t *v)
{
	return rb_get(r, v, 1);
}

static inline int rb_get_u64(struct rb_reader *r, uint64_t *v)
{
	return rb_get(r, v, 8);
}

static inline int rb_get_u32(struct rb_reader *r, uint32_t *v)
{
	return rb_get(r, v, 4);
}

/* A String: *s points into the input, *n bytes long. */
static inline int rb_get_string(struct rb_reader *r, const unsigned char **s,
				size_t *n)
{
	const unsigned char *p = r->p;
	uint64_t len = 0;

	for (int shift = 0;; shift += 7) {
		if (p == r->end || shift > 63)
			return -1;
		len |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80))
			break;
	}
	if ((uint64_t)(r->end - p) < len)
		return -1;
	*s = p;
	*n = (size_t)len;
	r->p = p + len;
	return 0;
}

#endif
