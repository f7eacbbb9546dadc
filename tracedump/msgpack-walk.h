/*
 * msgpack-walk.h - msgpack bytes walked without decoding them: an
 * object's header (how many objects it holds, how many bytes of body
 * follow), the length of a whole object.  For the checks before
 * msgpack_unpack() (logread.c) and the byte offsets of a pair's elements
 * (pair-next.c).
 */
#ifndef CAUSAL_MSGPACK_WALK_H
#define CAUSAL_MSGPACK_WALK_H

#include <stddef.h>
#include <stdint.h>

/*
 * The header of the object at p[*i] (p is n bytes long): *i past it,
 * *count the objects it holds (an array's elements, a map's keys and
 * values), *body the bytes after the header that are its own (a string's
 * or bin's bytes, an integer's).  The type byte 0xc1, never used, passes
 * as an object of one byte.  0, or -1 when the header is cut.
 */
int msgpack_walk_head(const uint8_t *p, size_t n, size_t *i, uint64_t *count,
		      uint64_t *body);

/* The bytes of the object at p (n bytes), what it holds included; 0 when
 * it is cut. */
size_t msgpack_walk_len(const uint8_t *p, size_t n);

#endif
