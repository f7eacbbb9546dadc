/*
 * hex.h - bytes as lowercase hex digits, the form the outputs give uuids
 * and chain ids in (the database: uuids; chain ids are BLOBs there).
 */
#ifndef CAUSAL_HEX_H
#define CAUSAL_HEX_H

#include <stddef.h>

/* The hex of n bytes at in into out: 2n digits and a NUL (2n + 1 bytes). */
void hex_encode(char *out, const void *in, size_t n);

#endif
