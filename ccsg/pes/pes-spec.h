/*
 * pes-spec.h - the steps of `ccsg pes` written as text (pes-spec.c):
 * clipping, filtering and aggregation as --clip, --filter and
 * --aggregate give them, parsed and applied to a sequence (pes.h), and
 * the numbers those and the other options are written with.
 *
 *   clip       time:T0:T1 | event:E0:E1
 *   filter     time:FRACTION | event:K | frequency:F0:F1[:SHARE]
 *   aggregate  rules:FILE | static:RULE | sequence:RULE | parallel:RULE
 *              | undo, a RULE being "STATE... -> AGGREGATE" (parallel:
 *              two states, from and to)
 *
 * Each returns 0, or a negative errno after one line through fail()
 * that names the option and the spec ("bad --clip 'x': expected
 * time:T0:T1 or event:E0:E1"): -EINVAL for a malformed spec, or the
 * transformation's own error (pes.h), the sequence then as it was.
 */
#ifndef CCSG_PES_SPEC_H
#define CCSG_PES_SPEC_H

#include <stdint.h>

#include "pes.h"

int pes_clip_spec(struct pes *p, const char *spec);
int pes_filter_spec(struct pes *p, const char *spec);
int pes_aggregate_spec(struct pes *p, const char *spec);

/* The numbers of the specs and options, the whole string each (no
 * message): 0, or -EINVAL. */
int pes_parse_u64(const char *s, uint64_t *v);		    /* no sign */
int pes_parse_double(const char *s, double *v);		    /* not NaN */
int pes_parse_range(const char *s, int64_t *a, int64_t *b); /* "A:B" */

#endif
