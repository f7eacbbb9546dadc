#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "causal/log-format.h"
#include "log-file.h"

/*
 * The log's descriptor stays out of the program's numbers: at its
 * RLIMIT_NOFILE soft limit, where the program's open() never reaches,
 * when that is at most CAUSAL_FD_CEILING; at the ceiling when the limit
 * is higher (one number of a range above 1024 that the program would
 * reach only after 1024 files), since the kernel sizes a process's
 * descriptor table, and the copy every fork makes of it, by its highest
 * descriptor.
 */
#define CAUSAL_FD_CEILING 1024
/* numbers above the limit the library may take (the log, in a fork
 * child before the parent's copy is closed...) */
#define CAUSAL_FD_ROOM 16

/* A frame in the queue: this header, then len bytes of records. */
struct causal_frame {
	uint32_t len;
	uint32_t wrap;		/* 1: no frame, the queue goes on at its start */
	uint64_t records;
	uint32_t types[CAUSAL_TYPES];
};

#define FRAME_HDR sizeof(struct causal_frame)
/* what alloc_buffers() maps: the queue, a compressed frame, a segment's
 * HEADER and the HEADER compressed */
#define MAP_BYTES(out_cap)                                                     \
	(CAUSAL_QUEUE_BYTES + 2 * (out_cap) + CAUSAL_SEGMENT_HEADER_MAX)
#define QUEUE_MASK ((uint64_t)CAUSAL_QUEUE_BYTES - 1)

static int append_to_frame(void *data, const char *buf, size_t len)
{
	struct causal_log_file *lf = data;

	/* causal_log_file_room() made room for a whole record; a record
	 * larger than a frame is cut, and the frame flagged unreadable is
	 * better than memory damage */
	if (lf->frame_len + len > lf->frame_cap)
		return -1;
	memcpy(lf->frame + lf->frame_len, buf, len);
	lf->frame_len += len;
	return 0;
}

static int append_to_slot(void *data, const char *buf, size_t len)
{
	struct causal_log_file *lf = data;

	/* 4 bytes of the slot hold its length */
	if (lf->slot_len + len > CAUSAL_SLOT_SIZE - 4)
		return -1;
	memcpy(lf->slot + 4 + lf->slot_len, buf, len);
	lf->slot_len += len;
	return 0;
}

static int append_to_hdr(void *data, const char *buf, size_t len)
{
	struct causal_log_file *lf = data;

	if (lf->hdr_len + len > CAUSAL_SEGMENT_HEADER_MAX)
		return -1;
	memcpy(lf->hdr + lf->hdr_len, buf, len);
	lf->hdr_len += len;
	return 0;
}

/* The zstd skippable frame of the loss slot, from lf->slot. */
static void slot_frame(struct causal_log_file *lf, uint8_t *out)
{
	uint32_t v = CAUSAL_SLOT_MAGIC;

	memcpy(out, &v, 4); /* little-endian host, as zstd requires */
	v = CAUSAL_SLOT_SIZE;
	memcpy(out + 4, &v, 4);
	v = (uint32_t)lf->slot_len;
	memcpy(lf->slot, &v, 4);
	memcpy(out + 8, lf->slot, CAUSAL_SLOT_SIZE);
}

void causal_log_file_name(char *out, size_t size, const char *hostname,
			  pid_t pid, const char *uuid_hex)
{
	char host[128];
	size_t i;

	/* a hostname is not a safe file name component */
	for (i = 0; hostname[i] && i < sizeof(host) - 1; i++) {
		char c = hostname[i];

		host[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				  (c >= '0' && c <= '9') || c == '-' || c == '_'
			  ? c : '_';
	}
	host[i] = '\0';
	snprintf(out, size, "%s.%d.%s%s", i ? host : "host", (int)pid,
		 uuid_hex, CAUSAL_LOG_SUFFIX);
}

/* At offset off: the descriptor's own offset is never trusted. */
static int write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * fd at or above the soft limit: the limit is raised for the moment of
 * the dup (the descriptor stays valid once it is lowered again), the hard
 * one too if it must and may be (CAP_SYS_RESOURCE).  This runs at
 * start-up, in a fork child and when the log is reopened: another thread
 * of the program that reads or sets the limit in those microseconds
 * would see ours.  -1 when the limit cannot be raised.
 */
static int dup_above(int fd, const struct rlimit *rl)
{
	struct rlimit up = { .rlim_cur = rl->rlim_cur + CAUSAL_FD_ROOM };
	int high;

	up.rlim_max = rl->rlim_max > up.rlim_cur ? rl->rlim_max : up.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &up))
		return -1;
	high = fcntl(fd, F_DUPFD_CLOEXEC, (int)rl->rlim_cur);
	setrlimit(RLIMIT_NOFILE, rl);
	return high;
}

/* Move fd out of the program's numbers (CAUSAL_FD_CEILING); *in_range:
 * it could only go to the highest free number below the limit. */
static int place_fd(int fd, int *in_range)
{
	struct rlimit rl;
	int high = -1;

	*in_range = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return fd;
	if (rl.rlim_cur > CAUSAL_FD_CEILING)
		high = fcntl(fd, F_DUPFD_CLOEXEC, CAUSAL_FD_CEILING);
	else
		high = dup_above(fd, &rl);
	/* else as high as is free below the limit: the program loses one */
	for (int n = (int)rl.rlim_cur - 1, tries = 0;
	     high < 0 && n > fd && tries < CAUSAL_FD_ROOM; n--, tries++) {
		high = fcntl(fd, F_DUPFD_CLOEXEC, n);
		*in_range = high >= 0;
	}
	if (high < 0)
		return fd; /* nothing higher is free: keep the one we have */
	close(fd);
	return high;
}

static void open_frame(struct causal_log_file *lf);

/*
 * The buffers and the context of `lf` as they were before it was cleared
 * (NULL at start-up; in a fork child, the parent's copies, which the child
 * reuses rather than leaking them: the fork took the flusher's lock, so
 * the context is between two frames).
 */
static int alloc_buffers(struct causal_log_file *lf, uint8_t *queue,
			 ZSTD_CCtx *cctx)
{
	lf->out_cap = ZSTD_compressBound(CAUSAL_FRAME_MAX);
	if (!queue) {
		queue = mmap(NULL, MAP_BYTES(lf->out_cap),
			     PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (queue == MAP_FAILED)
			return -ENOMEM;
	}
	lf->queue = queue;
	lf->out = lf->queue + CAUSAL_QUEUE_BYTES;
	/* out_cap covers CAUSAL_FRAME_MAX > CAUSAL_SEGMENT_HEADER_MAX */
	lf->hdr = lf->out + 2 * lf->out_cap;
	open_frame(lf);
	if (cctx)
		ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
	else
		cctx = ZSTD_createCCtx();
	if (!cctx)
		return -ENOMEM;
	/* level -1 (zstd --fast=1): per record of a busy server, 15% less
	 * CPU than level 1 for a log 4% larger, 30% less than level 3 for
	 * one 15% larger (test/bench/writer-cost.c); checksums let a reader
	 * tell a damaged frame from a good one */
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel,
			       CAUSAL_ZSTD_LEVEL);
	/* a 4 KiB match table, not the level's 32 KiB: records repeat
	 * within a few hundred bytes, so it finds about as much (RPC and
	 * thread logs 1-3% smaller, one 1% larger) and stays in L1 beside
	 * the program: 13-21% faster (zstd -b, 64 KiB frames of 5 logs) */
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_hashLog, CAUSAL_ZSTD_HASH_LOG);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	lf->cctx = cctx;
	msgpack_packer_init(&lf->pk, lf, append_to_frame);
	msgpack_packer_init(&lf->slot_pk, lf, append_to_slot);
	msgpack_packer_init(&lf->hdr_pk, lf, append_to_hdr);
	return 0;
}

/*
 * Create lf->path afresh (O_EXCL, no symlink followed: dir_fd opens its
 * directory, or -1 for lf->path as it is) and write the file magic and
 * an empty loss slot.  0 or -errno; *what names the step.
 */
static int create_file(struct causal_log_file *lf, int dir_fd, const char *name,
		       const char **what)
{
	uint8_t magic[CAUSAL_SLOT_OFFSET + 8 + CAUSAL_SLOT_SIZE];
	uint32_t v;
	struct stat st;
	int ret, fd;

	*what = "create log file";
	fd = openat(dir_fd < 0 ? AT_FDCWD : dir_fd,
		    dir_fd < 0 ? lf->path : name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	fd = place_fd(fd, &lf->fd_in_range);
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	lf->fd = fd;
	lf->dev = st.st_dev;
	lf->ino = st.st_ino;

	/* zstd skippable frame: magic, size, then our magic and version */
	*what = "write log file";
	v = CAUSAL_SKIPPABLE_MAGIC;
	memcpy(magic, &v, 4); /* little-endian host, as zstd requires */
	v = CAUSAL_FILE_MAGIC_LEN + 4;
	memcpy(magic + 4, &v, 4);
	memcpy(magic + 8, CAUSAL_FILE_MAGIC, CAUSAL_FILE_MAGIC_LEN);
	v = CAUSAL_FORMAT_VERSION;
	memcpy(magic + 8 + CAUSAL_FILE_MAGIC_LEN, &v, 4);
	lf->slot_len = 0;
	memset(lf->slot, 0, sizeof(lf->slot));
	slot_frame(lf, magic + CAUSAL_SLOT_OFFSET); /* empty */
	lf->size = sizeof(magic);
	return write_all(fd, magic, sizeof(magic), 0);
}

static int open_file(struct causal_log_file *lf, int dir_fd, const char *dir,
		     const char *hostname, pid_t pid, const char *uuid_hex,
		     const char **what, uint8_t *queue, ZSTD_CCtx *cctx)
{
	char name[400];
	int ret;

	memset(lf, 0, sizeof(*lf));
	lf->queue = queue; /* kept for release() until alloc_buffers() */
	lf->cctx = cctx;
	lf->fd = -1;
	*what = "create log file";
	causal_log_file_name(name, sizeof(name), hostname, pid, uuid_hex);
	if ((size_t)snprintf(lf->path, sizeof(lf->path), "%s/%s", dir, name) >=
	    sizeof(lf->path))
		return -ENAMETOOLONG;

	ret = create_file(lf, dir_fd, name, what);
	if (ret) {
		if (lf->fd >= 0)
			/* a full disk: an empty log tells nobody anything */
			causal_log_file_remove(lf);
		return ret;
	}
	*what = "allocate log buffers";
	lf->queue = NULL;
	lf->cctx = NULL;
	return alloc_buffers(lf, queue, cctx);
}

int causal_log_file_open(struct causal_log_file *lf, int dir_fd,
			 const char *dir, const char *hostname, pid_t pid,
			 const char *uuid_hex, const char **what)
{
	return open_file(lf, dir_fd, dir, hostname, pid, uuid_hex, what, NULL,
			 NULL);
}

int causal_log_file_open_in_child(struct causal_log_file *lf, int dir_fd,
				  const char *dir, const char *hostname,
				  pid_t pid, const char *uuid_hex,
				  const char **what)
{
	return open_file(lf, dir_fd, dir, hostname, pid, uuid_hex, what,
			 lf->queue, lf->cctx);
}

/*
 * The traced program may have closed our descriptor, or dup2()ed its own
 * file onto its number: never write into a file that is not our log.
 */
static int check_fd(struct causal_log_file *lf)
{
	struct stat st;
	int fd;

	if (lf->fd >= 0 && fstat(lf->fd, &st) == 0 && st.st_dev == lf->dev &&
	    st.st_ino == lf->ino)
		return 0;
	/* O_NONBLOCK: a FIFO put in its place has no reader to wait for */
	fd = open(lf->path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_dev != lf->dev || st.st_ino != lf->ino) {
		close(fd);
		return -ESTALE;
	}
	lf->fd = place_fd(fd, &lf->fd_in_range);
	return 0;
}

/*
 * Filler: start the open frame at the queue's head, wrapping to the
 * queue's start when a whole frame no longer fits before its end.  Its
 * capacity is what the writer has left free (0: the queue is full).
 */
static void open_frame(struct causal_log_file *lf)
{
	uint64_t head = atomic_load_explicit(&lf->q_head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&lf->q_tail, memory_order_acquire);
	uint64_t off = head & QUEUE_MASK, to_end = CAUSAL_QUEUE_BYTES - off;
	uint64_t room = CAUSAL_QUEUE_BYTES - (head - tail);

	if (to_end < FRAME_HDR + CAUSAL_FRAME_MAX && room >= to_end) {
		/* a marker if it fits; the writer skips a shorter end too */
		if (to_end >= FRAME_HDR) {
			struct causal_frame *w = (void *)(lf->queue + off);

			w->len = 0;
			w->wrap = 1;
		}
		head += to_end;
		atomic_store_explicit(&lf->q_head, head, memory_order_release);
		room -= to_end;
		off = 0;
		to_end = CAUSAL_QUEUE_BYTES;
	}
	if (room > to_end)
		room = to_end;
	lf->frame = lf->queue + off + FRAME_HDR;
	lf->frame_cap = room > FRAME_HDR ? room - FRAME_HDR : 0;
	if (lf->frame_cap > CAUSAL_FRAME_MAX)
		lf->frame_cap = CAUSAL_FRAME_MAX;
}

static void frame_reset(struct causal_log_file *lf)
{
	lf->frame_no++;
	lf->frame_len = 0;
	lf->frame_records = 0;
	memset(lf->frame_types, 0, sizeof(lf->frame_types));
}

void causal_log_file_seal(struct causal_log_file *lf)
{
	if (lf->frame_len) {
		struct causal_frame *f = (void *)(lf->frame - FRAME_HDR);
		uint64_t head = atomic_load_explicit(&lf->q_head,
						     memory_order_relaxed);

		f->len = (uint32_t)lf->frame_len;
		f->wrap = 0;
		f->records = lf->frame_records;
		memcpy(f->types, lf->frame_types, sizeof(f->types));
		lf->records_sealed += lf->frame_records;
		/* release: the writer reads the frame only after the head */
		atomic_store_explicit(&lf->q_head,
				      head + ((FRAME_HDR + lf->frame_len + 7) &
					      ~(uint64_t)7),
				      memory_order_release);
		frame_reset(lf);
	}
	open_frame(lf);
}

int causal_log_file_room(struct causal_log_file *lf, size_t bytes)
{
	if (bytes > CAUSAL_FRAME_MAX)
		bytes = CAUSAL_FRAME_MAX; /* cut by append_to_frame() */
	if (lf->frame_len + bytes <= lf->frame_cap)
		return 0;
	causal_log_file_seal(lf);
	return bytes <= lf->frame_cap ? 0 : -ENOBUFS;
}

/* The frame will never be written: count its records as lost. */
static void lose_frame(struct causal_log_file *lf, const struct causal_frame *f)
{
	atomic_fetch_add_explicit(&lf->lost, f->records, memory_order_relaxed);
	for (unsigned t = 0; t < CAUSAL_TYPES; t++)
		if (f->types[t])
			atomic_fetch_add_explicit(&lf->lost_types[t],
						  f->types[t],
						  memory_order_relaxed);
}

/* Segment `number`'s closed name: lf->path with ".NNNNNN" before the
 * suffix. */
static int closed_path(const struct causal_log_file *lf, uint32_t number,
		       char *out, size_t size)
{
	size_t stem = strlen(lf->path) - strlen(CAUSAL_LOG_SUFFIX);

	return (size_t)snprintf(out, size, "%.*s.%06u%s", (int)stem, lf->path,
				number, CAUSAL_LOG_SUFFIX) >= size
		       ? -ENAMETOOLONG
		       : 0;
}

void causal_log_file_segment_name(char *out, size_t size, const char *hostname,
				  pid_t pid, const char *uuid_hex,
				  uint32_t number)
{
	char name[400];
	size_t stem;

	causal_log_file_name(name, sizeof(name), hostname, pid, uuid_hex);
	stem = strlen(name) - strlen(CAUSAL_LOG_SUFFIX);
	snprintf(out, size, "%.*s.%06u%s", (int)stem, name, number,
		 CAUSAL_LOG_SUFFIX);
}

void causal_log_file_segments(struct causal_log_file *lf, uint32_t segment_mb,
			      uint32_t max_mb, causal_segment_header_fn header)
{
	uint64_t seg = (uint64_t)segment_mb << 20, max = (uint64_t)max_mb << 20;

	if (!seg && max)
		seg = max / 4 > (1u << 20) ? max / 4 : max;
	if (!seg)
		return;
	if (max && seg > max)
		seg = max;
	/* no more closed segments under the cap than closed[] holds */
	if (max && max / seg > CAUSAL_SEGMENTS_KEPT - 1)
		seg = max / (CAUSAL_SEGMENTS_KEPT - 1) + 1;
	lf->seg_bytes = seg;
	lf->max_bytes = max;
	lf->segment_header = header;
	lf->segment = 1;
}

/* Only our file: the name may have been taken over since. */
static int is_ours(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;

	return lstat(path, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

/* The open segment goes under its closed name, and is remembered. */
static int close_open_segment(struct causal_log_file *lf)
{
	struct causal_closed_segment *c;
	char closed[sizeof(lf->path) + 16];
	int ret = closed_path(lf, lf->segment, closed, sizeof(closed));

	if (ret)
		return ret;
	if (lf->fd >= 0 && check_fd(lf) == 0)
		close(lf->fd);
	lf->fd = -1;
	if (!is_ours(lf->path, lf->dev, lf->ino))
		return -ESTALE;
	if (renameat2(AT_FDCWD, lf->path, AT_FDCWD, closed, RENAME_NOREPLACE))
		return -errno;
	if (lf->closed_n == CAUSAL_SEGMENTS_KEPT) {
		/* cannot happen under a cap (causal_log_file_segments()):
		 * without one, the oldest is only forgotten */
		lf->closed_bytes -= lf->closed[lf->closed_first].bytes;
		lf->closed_first =
			(lf->closed_first + 1) % CAUSAL_SEGMENTS_KEPT;
		lf->closed_n--;
	}
	c = &lf->closed[(lf->closed_first + lf->closed_n++) %
			CAUSAL_SEGMENTS_KEPT];
	*c = (struct causal_closed_segment){ lf->segment, lf->dev, lf->ino,
					     lf->size,
					     lf->records_written -
						     lf->seg_first_record };
	lf->closed_bytes += lf->size;
	return 0;
}

/* Under the cap: the oldest closed segments go while they and a whole
 * open one would pass it; what they held is counted. */
static void delete_oldest(struct causal_log_file *lf)
{
	while (lf->max_bytes && lf->closed_n &&
	       lf->closed_bytes + lf->seg_bytes > lf->max_bytes) {
		struct causal_closed_segment *c = &lf->closed[lf->closed_first];
		char path[sizeof(lf->path) + 16];

		if (closed_path(lf, c->number, path, sizeof(path)) == 0 &&
		    is_ours(path, c->dev, c->ino))
			unlink(path);
		/* gone either way (a reader may have taken it): counted, since
		 * it is no longer ours to keep */
		lf->deleted_segments++;
		lf->deleted_records += c->records;
		lf->deleted_bytes += c->bytes;
		lf->closed_bytes -= c->bytes;
		lf->closed_first =
			(lf->closed_first + 1) % CAUSAL_SEGMENTS_KEPT;
		lf->closed_n--;
	}
}

/*
 * Close the open segment and open the next, which starts with its HEADER
 * (compressed into the space after lf->out, which holds the frame about
 * to be written).  0 or -errno.
 */
static int rotate(struct causal_log_file *lf)
{
	const char *what;
	uint8_t *zout = lf->out + lf->out_cap;
	size_t n;
	int ret = close_open_segment(lf);

	if (ret)
		return ret;
	lf->segment++;
	delete_oldest(lf);
	ret = create_file(lf, -1, NULL, &what);
	if (ret)
		return ret;
	lf->seg_first_record = lf->records_written;
	lf->hdr_len = 0;
	lf->segment_header(lf, &lf->hdr_pk);
	n = ZSTD_compress2(lf->cctx, zout, lf->out_cap, lf->hdr, lf->hdr_len);
	if (ZSTD_isError(n))
		return -EIO;
	ret = write_all(lf->fd, zout, n, lf->size);
	if (ret)
		return ret;
	lf->size += n;
	lf->seg_start_size = lf->size;
	lf->records_written++;
	atomic_fetch_add_explicit(&lf->header_records, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&lf->segments_opened, 1,
				  memory_order_release);
	return 0;
}

void causal_log_file_close_segment(struct causal_log_file *lf)
{
	if (lf->seg_bytes && !atomic_load(&lf->failed) &&
	    close_open_segment(lf) == 0)
		return;
	causal_log_file_close(lf);
}

static void write_frame(struct causal_log_file *lf, const struct causal_frame *f)
{
	size_t n;
	int ret;

	if (atomic_load_explicit(&lf->failed, memory_order_relaxed)) {
		lose_frame(lf, f);
		return;
	}
	n = ZSTD_compress2(lf->cctx, lf->out, lf->out_cap, f + 1, f->len);
	if (ZSTD_isError(n)) {
		ret = -EIO;
		goto fail;
	}
	/* a segment holds what its HEADER was sent with, at least */
	if (lf->seg_bytes && !lf->no_rotate && lf->size > lf->seg_start_size &&
	    lf->size + n > lf->seg_bytes) {
		ret = rotate(lf);
		if (ret)
			goto fail;
	}
	ret = check_fd(lf);
	if (ret)
		goto fail;
	ret = write_all(lf->fd, lf->out, n, lf->size);
	if (ret) {
		/* a part may have gone in: cut it off, so that the file ends
		 * with a whole frame (and the space goes back) */
		int cut = ftruncate(lf->fd, (off_t)lf->size);

		(void)cut; /* if that fails too, a reader sees a cut frame */
		goto fail;
	}
	lf->size += n;
	lf->records_written += f->records;
	return;
fail:
	lf->error = -ret;
	atomic_store_explicit(&lf->failed, 1, memory_order_release);
	lose_frame(lf, f);
}

int causal_log_file_write_one(struct causal_log_file *lf)
{
	uint64_t tail = atomic_load_explicit(&lf->q_tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&lf->q_head, memory_order_acquire);

	while (tail != head) {
		uint64_t off = tail & QUEUE_MASK, to_end = CAUSAL_QUEUE_BYTES - off;
		const struct causal_frame *f = (const void *)(lf->queue + off);

		if (to_end < FRAME_HDR || f->wrap) {
			tail += to_end;
			atomic_store_explicit(&lf->q_tail, tail,
					      memory_order_release);
			continue;
		}
		write_frame(lf, f);
		/* release: the filler may reuse the bytes once written */
		atomic_store_explicit(&lf->q_tail,
				      tail + ((FRAME_HDR + f->len + 7) &
					      ~(uint64_t)7),
				      memory_order_release);
		return 1;
	}
	return 0;
}

void causal_log_file_reserve(struct causal_log_file *lf, size_t bytes)
{
	while (causal_log_file_room(lf, bytes) &&
	       causal_log_file_write_one(lf))
		;
}

int causal_log_file_flush(struct causal_log_file *lf)
{
	causal_log_file_seal(lf);
	while (causal_log_file_write_one(lf))
		;
	return atomic_load(&lf->failed) ? -lf->error : 0;
}

void causal_log_file_slot_begin(struct causal_log_file *lf)
{
	memset(lf->slot, 0, sizeof(lf->slot));
	lf->slot_len = 0;
}

int causal_log_file_slot_write(struct causal_log_file *lf)
{
	uint8_t buf[8 + CAUSAL_SLOT_SIZE];
	int ret = check_fd(lf);

	if (ret)
		return ret;
	slot_frame(lf, buf);
	return write_all(lf->fd, buf, sizeof(buf), CAUSAL_SLOT_OFFSET);
}

void causal_log_file_remove(struct causal_log_file *lf)
{
	struct stat st;

	/* only our file: the name may have been taken over since */
	if (lstat(lf->path, &st) == 0 && st.st_dev == lf->dev &&
	    st.st_ino == lf->ino)
		unlink(lf->path);
	if (lf->fd >= 0 && check_fd(lf) == 0)
		close(lf->fd);
	lf->fd = -1;
}

void causal_log_file_release(struct causal_log_file *lf)
{
	if (lf->cctx)
		ZSTD_freeCCtx(lf->cctx);
	lf->cctx = NULL;
	if (lf->queue)
		munmap(lf->queue, MAP_BYTES(lf->out_cap));
	lf->queue = lf->frame = lf->out = lf->hdr = NULL;
}

void causal_log_file_close(struct causal_log_file *lf)
{
	if (lf->fd >= 0 && check_fd(lf) == 0)
		close(lf->fd);
	lf->fd = -1;
}
