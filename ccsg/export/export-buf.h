/*
 * export-buf.h - the exports' output buffer: numbers and strings appended
 * without stdio's formatting (a million calls are some 10 million
 * numbers), written out in 64 KiB blocks: by the caller, or, once
 * xb_pipe_start() succeeded, by a writer thread while the caller formats
 * the next blocks (export-buf.c).
 */
#ifndef CCSG_EXPORT_BUF_H
#define CCSG_EXPORT_BUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "decimal.h"

#define XBUF_SIZE 65536

struct xb_pipe;

struct xbuf {
	FILE *f;
	size_t n;
	int err;	      /* a write failed */
	char *b;	      /* the block being filled: mem, or the pipe's */
	struct xb_pipe *pipe; /* the writer thread's, or NULL */
	char mem[XBUF_SIZE];
};

static inline void xb_init(struct xbuf *x, FILE *f)
{
	x->f = f;
	x->n = 0;
	x->err = 0;
	x->b = x->mem;
	x->pipe = NULL;
}

/*
 * Writes to x->f from a thread of their own from now on (a writer thread
 * and a few blocks in flight), so that the kernel's copy of a gigabyte
 * overlaps the formatting.  0, or -ENOMEM / -EAGAIN: x writes as before.
 */
int xb_pipe_start(struct xbuf *x);
/* Hand the full block to the writer thread; take an empty one. */
void xb_pipe_pass(struct xbuf *x);
/* Everything written (the last block too) and the thread gone. */
void xb_pipe_end(struct xbuf *x);

static inline void xb_flush(struct xbuf *x)
{
	if (x->pipe)
		xb_pipe_pass(x);
	else if (x->n && fwrite(x->b, 1, x->n, x->f) != x->n)
		x->err = 1;
	x->n = 0;
}

/* Whole in one block when it fits (the chrome export takes its last
 * ",\n" back from the block): a block is flushed before, not during. */
static inline void xb_put(struct xbuf *x, const char *s, size_t len)
{
	if (x->n + len > XBUF_SIZE)
		xb_flush(x);
	while (len > XBUF_SIZE) { /* longer than a block: block by block */
		memcpy(x->b, s, XBUF_SIZE);
		x->n = XBUF_SIZE;
		xb_flush(x);
		s += XBUF_SIZE;
		len -= XBUF_SIZE;
	}
	memcpy(x->b + x->n, s, len);
	x->n += len;
}

static inline void xb_str(struct xbuf *x, const char *s)
{
	xb_put(x, s, strlen(s));
}

/* A string literal: its length known at compile time. */
#define XB_LIT(x, lit) xb_put((x), "" lit, sizeof(lit) - 1)

static inline void xb_ch(struct xbuf *x, char c)
{
	if (x->n == XBUF_SIZE)
		xb_flush(x);
	x->b[x->n++] = c;
}

static inline void xb_u64(struct xbuf *x, uint64_t v)
{
	int n = decimal_u64_len(v);

	if (x->n + DECIMAL_U64_MAX > XBUF_SIZE)
		xb_flush(x);
	decimal_u64_before(x->b + x->n + n, v);
	x->n += (size_t)n;
}

static inline void xb_i64(struct xbuf *x, int64_t v)
{
	if (v < 0)
		xb_ch(x, '-');
	xb_u64(x, decimal_abs(v));
}

/* Nanoseconds as microseconds with three decimals: 1234567 -> 1234.567. */
static inline void xb_us(struct xbuf *x, int64_t ns)
{
	uint64_t a;
	char *p;

	if (ns < 0)
		xb_ch(x, '-');
	a = decimal_abs(ns);
	xb_u64(x, a / 1000);
	if (x->n + 4 > XBUF_SIZE)
		xb_flush(x);
	p = x->b + x->n;
	p[0] = '.';
	p[1] = (char)('0' + a / 100 % 10);
	p[2] = (char)('0' + a / 10 % 10);
	p[3] = (char)('0' + a % 10);
	x->n += 4;
}

static inline void xb_hex(struct xbuf *x, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *q;

	if (x->n + 2 * n > XBUF_SIZE) {
		xb_flush(x);
		if (2 * n > XBUF_SIZE) {
			x->err = 1;
			return;
		}
	}
	q = x->b + x->n;
	for (size_t i = 0; i < n; i++) {
		*q++ = digits[p[i] >> 4];
		*q++ = digits[p[i] & 15];
	}
	x->n += 2 * n;
}

/* A JSON string literal of s (util/json.h's rules). */
void xb_json(struct xbuf *x, const char *s);
/* The same without its quotes. */
void xb_json_body(struct xbuf *x, const char *s);

#endif
