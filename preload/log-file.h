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

#define CAUSAL_FRAME_MAX (1u << 20) /* uncompressed bytes per frame */

struct causal_log_file {
	int fd;
	dev_t dev;		/* to notice the program closing or */
	ino_t ino;		/* reusing our descriptor */
	char path[1200];
	int failed;		/* a write failed: stop writing */
	uint8_t *frame;		/* uncompressed msgpack records */
	size_t frame_len;
	uint64_t frame_records;
	uint8_t *out;		/* compressed frame */
	size_t out_cap;
	void *cctx;		/* ZSTD_CCtx */
	msgpack_packer pk;	/* appends to frame */
	uint64_t records_written;
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

/* Ensure room for `bytes` more in the current frame, flushing it if not. */
void causal_log_file_reserve(struct causal_log_file *lf, size_t bytes);

/* Compress and write the current frame if it holds anything; 0 or -errno. */
int causal_log_file_flush(struct causal_log_file *lf);

void causal_log_file_close(struct causal_log_file *lf);

/* Free the buffers and the compression context.  The library keeps them
 * for the life of the process (a fork child reuses them). */
void causal_log_file_release(struct causal_log_file *lf);

/* The file name a process gets, into out (size >= 400). */
void causal_log_file_name(char *out, size_t size, const char *hostname,
			  pid_t pid, const char *uuid_hex);

#endif
