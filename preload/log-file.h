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

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <msgpack.h>

#include "causal/log-format.h"

#define CAUSAL_FRAME_MAX (256u << 10)	/* uncompressed bytes per frame */
/* sealed when this full, at least: zstd compresses 192 KiB frames 7-9%
 * faster than 64 KiB ones (zstd -b, RPC and thread logs) */
#define CAUSAL_FRAME_MIN (192u << 10)
#define CAUSAL_QUEUE_BYTES (4u << 20)	/* frames waiting to be written */
#define CAUSAL_ZSTD_LEVEL -1		/* see log-file.c */
#define CAUSAL_ZSTD_HASH_LOG 10		/* see log-file.c */
#define CAUSAL_TYPES 64		/* record types counted apart (log-format.h) */
/* closed segments a log remembers (to delete the oldest under the cap);
 * causal_log_file_segments() sizes segments so that no more are needed */
#define CAUSAL_SEGMENTS_KEPT 4096
/* a segment's HEADER, encoded (identity.h: argv and exe at most) */
#define CAUSAL_SEGMENT_HEADER_MAX (80u << 10)

struct causal_log_file;
/* Encode the HEADER of the segment lf opens into pk (writer.c). */
typedef void (*causal_segment_header_fn)(struct causal_log_file *lf,
					 msgpack_packer *pk);

/* A closed segment not deleted yet. */
struct causal_closed_segment {
	uint32_t number;
	dev_t dev;
	ino_t ino;
	uint64_t bytes, records;
};

/*
 * Frames go through a queue (CAUSAL_QUEUE_BYTES) between two parties: the
 * filler encodes records into the open frame and seals it (the library's
 * writer thread, under its lock); the writer compresses and writes sealed
 * frames, oldest first (the flusher thread, or the final flush with the
 * flusher held off).  So a write that waits on the disk, or a compression
 * cut short by the scheduler, never stops the rings from being drained.
 * Single-threaded use (tests, start-up) plays both parties.
 */
struct causal_log_file {
	int fd; /* out of the program's numbers (log-file.c) */
	/* 1: the limit could not be raised, fd took the program's highest
	 * number (the caller says so) */
	int fd_in_range;
	dev_t dev;		/* to notice the program closing or */
	ino_t ino;		/* reusing our descriptor */
	char path[1200];
	_Atomic int failed;	/* a write failed: stop writing */
	int error;		/* its errno, set before failed */
	uint64_t size;		/* bytes of the file: where frames go */
	uint8_t *queue;
	_Atomic uint64_t q_head;	/* bytes sealed (filler) */
	_Atomic uint64_t q_tail;	/* bytes written or lost (writer) */
	/* filler: the open frame */
	uint8_t *frame;
	size_t frame_len, frame_cap;
	uint64_t frame_records;
	uint32_t frame_types[CAUSAL_TYPES];	/* its records by type */
	uint64_t records_sealed;
	/* the open frame's number, one more at each seal: what a record
	 * refers to in the frame it is in stays in that frame (format 5's
	 * NEXT pairs) */
	uint64_t frame_no;
	msgpack_packer pk;	/* appends to the open frame */
	/* writer */
	uint8_t *out;		/* compressed frame */
	size_t out_cap;
	void *cctx;		/* ZSTD_CCtx */
	uint64_t records_written;
	/* records never written (a write failed), by either party */
	_Atomic uint64_t lost;
	_Atomic uint64_t lost_types[CAUSAL_TYPES];
	/* writer: the loss slot's records (log-format.h), by slot_pk */
	uint8_t slot[CAUSAL_SLOT_SIZE];
	size_t slot_len;
	msgpack_packer slot_pk;
	/*
	 * Segments (docs/tracing.md "Log files"), all the writer's but
	 * segments_opened and header_records: with seg_bytes 0 the log is
	 * one file, as before.  The open segment is path (HOST.PID.UUID.clog);
	 * at seg_bytes it is renamed HOST.PID.UUID.NNNNNN.clog (its number)
	 * and a new one opened, which starts with a HEADER (segment_header);
	 * then the oldest closed ones are deleted while the closed ones and
	 * a whole open one would pass max_bytes (0: no cap).
	 */
	uint64_t seg_bytes, max_bytes;
	causal_segment_header_fn segment_header;
	uint32_t segment;	   /* the open one's number, from 1 */
	uint64_t seg_start_size;   /* its size after its HEADER */
	uint64_t seg_first_record; /* records_written when it opened */
	int no_rotate;		   /* the final flush: the last segment */
	struct causal_closed_segment closed[CAUSAL_SEGMENTS_KEPT];
	unsigned closed_first, closed_n;
	uint64_t closed_bytes;
	uint64_t deleted_segments, deleted_records, deleted_bytes;
	_Atomic uint32_t segments_opened; /* for the writer thread */
	_Atomic uint64_t header_records;  /* HEADERs the writer wrote */
	uint8_t *hdr;			  /* a HEADER, encoded */
	size_t hdr_len;
	msgpack_packer hdr_pk;
};

/*
 * Create a new log file (mode 0600, O_EXCL, no symlink followed), named
 * HOST.PID.UUID.clog, in the directory dir_fd opens (log-dir.h checked
 * it; dir is its absolute path, for reopening), and write the file magic.
 * Returns 0 or -errno; *what names the step that failed.
 */
int causal_log_file_open(struct causal_log_file *lf, int dir_fd,
			 const char *dir, const char *hostname, pid_t pid,
			 const char *uuid_hex, const char **what);

/* The same in a fork child, whose lf holds the parent's log: its buffers
 * and compression context are reused, not allocated again and leaked. */
int causal_log_file_open_in_child(struct causal_log_file *lf, int dir_fd,
				  const char *dir, const char *hostname,
				  pid_t pid, const char *uuid_hex,
				  const char **what);

/*
 * Filler: room for a record of up to `bytes` encoded bytes in the open
 * frame, sealing it for a new one if need be.  0, or -ENOBUFS when the
 * queue is full (then nothing was written: wait for the writer).
 */
int causal_log_file_room(struct causal_log_file *lf, size_t bytes);

/* Filler: the open frame, if it holds anything, goes to the writer. */
void causal_log_file_seal(struct causal_log_file *lf);

/* Writer: compress and write the oldest sealed frame (or count it lost
 * once the log failed).  1 if there was one, 0 if none is waiting. */
int causal_log_file_write_one(struct causal_log_file *lf);

/* Writer: are sealed frames waiting? */
static inline int causal_log_file_pending(struct causal_log_file *lf)
{
	return atomic_load_explicit(&lf->q_head, memory_order_acquire) !=
	       atomic_load_explicit(&lf->q_tail, memory_order_relaxed);
}

/* Both parties at once: room(), writing sealed frames while it lacks. */
void causal_log_file_reserve(struct causal_log_file *lf, size_t bytes);

/* A record of this type was just encoded into the open frame. */
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
	atomic_fetch_add_explicit(&lf->lost, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&lf->lost_types[type < CAUSAL_TYPES ? type
								       : 0],
				  1, memory_order_relaxed);
}

/*
 * Both parties at once: seal the open frame and write every sealed one;
 * 0 or -errno.  The first write that fails (ENOSPC, EDQUOT, EIO...) sets
 * failed and error, cuts the file back to its last whole frame and counts
 * the frame's records as lost; every later frame is counted lost
 * unwritten.
 */
int causal_log_file_flush(struct causal_log_file *lf);

/*
 * The loss slot: empty it, let the caller encode records into slot_pk,
 * then write it over the slot of the file, in place (no new disk space
 * is needed, so it works on a full disk).  0 or -errno.
 */
void causal_log_file_slot_begin(struct causal_log_file *lf);
int causal_log_file_slot_write(struct causal_log_file *lf);

/*
 * Turn rotation on (segment_mb > 0; max_mb 0: no cap): the open file
 * becomes segment 1.  The segment size is cut to max_mb and raised so
 * that at most CAUSAL_SEGMENTS_KEPT closed segments fit under the cap.
 * header encodes each new segment's HEADER.  Before any frame is written.
 */
void causal_log_file_segments(struct causal_log_file *lf, uint32_t segment_mb,
			      uint32_t max_mb, causal_segment_header_fn header);

/* The name segment `number` of a process's log takes once closed, into
 * out (size >= 400). */
void causal_log_file_segment_name(char *out, size_t size, const char *hostname,
				  pid_t pid, const char *uuid_hex,
				  uint32_t number);

/* Close the log; a rotated one's open segment is renamed as closed, so
 * that `tracedump merge --follow` takes it. */
void causal_log_file_close_segment(struct causal_log_file *lf);

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
