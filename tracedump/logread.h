/*
 * logread.h - read one causal log file (see include/causal/log-format.h).
 *
 * The reader checks the file header (skippable frame, magic, version),
 * decompresses the data frames one by one and hands every record to a
 * callback.  It never exits and never prints: damage is described in
 * struct logread_result so that each tool (tracedump dump / merge, ccsg)
 * can report it its own way.
 *
 * Damage handling, so that a log cut short by SIGKILL or a flipped bit
 * loses as little as possible:
 *  - a final frame that runs past the end of the file is "truncated";
 *    every complete frame before it is read;
 *  - a frame that fails to decode (bad header, bad checksum, bad msgpack)
 *    is "corrupt"; the reader resynchronises on the next zstd frame magic
 *    and goes on;
 *  - a record whose common prefix [type, tid, mono_ns] has the wrong
 *    shape is counted in bad_records and skipped.
 *
 * The records of the loss slot (log-format.h), if it holds any, are
 * delivered after those of every data frame.
 */
#ifndef CAUSAL_LOGREAD_H
#define CAUSAL_LOGREAD_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "pair-next.h"

/* Hostile input must not make us allocate without bound. */
#define LOGREAD_MAX_FRAME (256u << 20)

struct logread_record {
	unsigned type;			/* enum causal_record_type, or unknown */
	uint64_t tid;
	uint64_t mono_ns;
	uint64_t seq;			/* 0-based among records delivered */
	uint64_t frame;			/* 0-based data frame index */
	const msgpack_object *obj;	/* the whole record (an array) */
	const void *raw;		/* the record's msgpack bytes, */
	size_t raw_len;
	/* or, from a PAIR (format 3 to 5): 1 for its start, 2 for its end,
	 * and raw is the PAIR's bytes (log_pair_object() gives the part):
	 * the part's own bytes would take packing, which few callers need */
	unsigned part;
	/* a NEXT pair's (format 5: pair-next.h): raw is its bytes, whose
	 * steps these values replace (log_pair_object()); else NULL */
	const struct pair_next_values *next;
};

enum logread_status {
	LOGREAD_OK = 0,
	LOGREAD_TRUNCATED,
	LOGREAD_CORRUPT,
};

struct logread_result {
	uint64_t bytes;			/* file size */
	uint32_t version;		/* format version from the file header */
	uint64_t frames;		/* data frames decoded */
	uint64_t bad_frames;		/* corrupt frames skipped */
	uint64_t records;		/* records delivered */
	uint64_t bad_records;		/* records of the wrong shape, skipped */
	uint64_t slot_records;		/* of records: from the loss slot */
	enum logread_status status;	/* worst damage seen */
	char error[256];		/* first damage seen, "" when ok */
};

/*
 * Called for each record in file order.  The record and its bytes are
 * valid only during the call.  A non-zero return stops the read and is
 * returned by logread_file().
 */
typedef int (*logread_fn)(void *arg, const struct logread_record *rec);

/*
 * Read the log at path.  Returns 0 when the file is a causal log (even a
 * damaged one: see res->status), or:
 *   -ENOENT etc.  the file cannot be opened or read (errno value);
 *   -EINVAL       not a causal log (bad magic, or not a regular file:
 *                 a FIFO or a device is never opened); res->error says why;
 *   -EPROTO       format version newer than CAUSAL_FORMAT_VERSION;
 *   the callback's return value when it stopped the read.
 * An empty file, or one cut inside its file header, is a causal log with
 * status LOGREAD_TRUNCATED and no records.
 */
int logread_file(const char *path, logread_fn fn, void *arg,
		 struct logread_result *res);

/* The same on a buffer (the file's whole content). */
int logread_buffer(const void *buf, size_t len, logread_fn fn, void *arg,
		   struct logread_result *res);

#endif
