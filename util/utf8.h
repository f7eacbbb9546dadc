/*
 * utf8.h - well-formed UTF-8 (Unicode's Table 3-7), for the outputs that
 * must be valid UTF-8 (JSON, XML, dot) whatever bytes a traced program
 * gave its names.
 */
#ifndef CAUSAL_UTF8_H
#define CAUSAL_UTF8_H

#include <stddef.h>

/* The replacement character U+FFFD, in UTF-8: one per byte that is not. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * Length of the well-formed UTF-8 sequence at s (left bytes available),
 * or 0 if none starts there (a stray continuation byte, a truncated,
 * overlong or surrogate sequence, a value past U+10FFFF).
 */
size_t utf8_seq_len(const unsigned char *s, size_t left);

#endif
