/*
 * log-file.h - one log file per process: created safely, written as zstd
 * frames that each decode on their own (see log-format.h).
 *
 * The frame buffer and the compression context are allocated once, so that
 * writing a frame allocates nothing: the final flush may run in a signal
 * handler or in a child just after fork.
 */
#ifndef CAUSAL_LOG_FILE_H
#define CAUSAL_LOG_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <msgpack.h>

#include "causal/log-format.h"

#define CAUSAL_FRAME_MAX (1u << 20) /* uncompressed bytes per frame */
#define CAUSAL_ZSTD_LEVEL 1	    /* see log-file.c */

#define CAUSAL_TYPES 64	/* record types counted apart (log-format.h) */

struct causal_log_file {
	int fd;
	dev_t dev;		/* to notice the program closing or */
	ino_t ino;		/* reusing our descriptor */
	char path[1200];
	int failed;		/* a write failed: stop writing */
	int error;		/* its errno */
	uint64_t size;		/* bytes of the file: where frames go */
	uint8_t *frame;		/* uncompressed msgpack records */
	size_t frame_len;
	uint64_t frame_records;
	uint32_t frame_types[CAUSAL_TYPES];	/* its records by type */
	uint8_t *out;		/* compressed frame */
	size_t out_cap;
	void *cctx;		/* ZSTD_CCtx */
	msgpack_packer pk;	/* appends to frame */
	uint64_t records_written;
	uint64_t lost;		/* records never written: the write failed */
	uint64_t lost_types[CAUSAL_TYPES];
	/* the loss slot's records (log-format.h), composed by slot_pk */
	uint8_t slot[CAUSAL_SLOT_SIZE];
	size_t slot_len;
	msgpack_packer slot_pk;
};

/*
 * Create DIR (mode 0700) if missing and a new log file in it (mode 0600,
 * O_EXCL, no symlink followed), named HOST.PID.UUID.clog, and write the
 * file magic.  Returns 0 or -errno; *what names the step that failed.
 */
int causal_log_file_open(struct causal_log_file *lf, const char *dir,
			 const char *hostname, pid_t pid, const char *uuid_hex,
			 const char **what);

/* Ensure room for `bytes` more in the current frame, flushing it if not. */
void causal_log_file_reserve(struct causal_log_file *lf, size_t bytes);

/* A record of this type was just encoded into the frame. */
static inline void causal_log_file_count(struct causal_log_file *lf,
					 unsigned type)
{
	lf->frame_records++;
	lf->frame_types[type < CAUSAL_TYPES ? type : 0]++;
}

/* A record of this type will never be written (the log failed). */
static inline void causal_log_file_lose(struct causal_log_file *lf,
					unsigned type)
{
	lf->lost++;
	lf->lost_types[type < CAUSAL_TYPES ? type : 0]++;
}

/*
 * Compress and write the current frame if it holds anything; 0 or -errno.
 * The first write that fails (ENOSPC, EDQUOT, EIO...) sets failed and
 * error, cuts the file back to its last whole frame and counts the
 * frame's records as lost; every later frame is counted lost unwritten.
 */
int causal_log_file_flush(struct causal_log_file *lf);

/*
 * The loss slot: empty it, let the caller encode records into slot_pk,
 * then write it over the slot of the file, in place (no new disk space
 * is needed, so it works on a full disk).  0 or -errno.
 */
void causal_log_file_slot_begin(struct causal_log_file *lf);
int causal_log_file_slot_write(struct causal_log_file *lf);

/* Close and delete the file (nothing worth keeping could be written). */
void causal_log_file_remove(struct causal_log_file *lf);

void causal_log_file_close(struct causal_log_file *lf);

/* Free the buffers and the compression context.  The library keeps them
 * for the life of the process (a fork child reuses them). */
void causal_log_file_release(struct causal_log_file *lf);

/* The file name a process gets, into out (size >= 400). */
void causal_log_file_name(char *out, size_t size, const char *hostname,
			  pid_t pid, const char *uuid_hex);

#endif
