#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "causal/log-format.h"
#include "log-file.h"

/* Keep our descriptor out of the low numbers programs expect to get. */
#define CAUSAL_FD_FLOOR 500

static int append_to_frame(void *data, const char *buf, size_t len)
{
	struct causal_log_file *lf = data;

	/* causal_log_file_reserve() made room for a whole record; a record
	 * larger than a frame is cut, and the frame flagged unreadable is
	 * better than memory damage */
	if (lf->frame_len + len > CAUSAL_FRAME_MAX)
		return -1;
	memcpy(lf->frame + lf->frame_len, buf, len);
	lf->frame_len += len;
	return 0;
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

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int move_fd_high(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, CAUSAL_FD_FLOOR);

	if (high < 0)
		return fd; /* a low rlimit: keep the one we have */
	close(fd);
	return high;
}

static int alloc_buffers(struct causal_log_file *lf)
{
	ZSTD_CCtx *cctx;

	lf->out_cap = ZSTD_compressBound(CAUSAL_FRAME_MAX);
	lf->frame = mmap(NULL, CAUSAL_FRAME_MAX + lf->out_cap,
			 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (lf->frame == MAP_FAILED) {
		lf->frame = NULL;
		return -ENOMEM;
	}
	lf->out = lf->frame + CAUSAL_FRAME_MAX;
	cctx = ZSTD_createCCtx();
	if (!cctx)
		return -ENOMEM;
	/* level 1: the writer must keep up with the probes; checksums let a
	 * reader tell a damaged frame from a good one */
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	lf->cctx = cctx;
	msgpack_packer_init(&lf->pk, lf, append_to_frame);
	return 0;
}

int causal_log_file_open(struct causal_log_file *lf, int dir_fd,
			 const char *dir, const char *hostname, pid_t pid,
			 const char *uuid_hex, const char **what)
{
	uint8_t magic[8 + CAUSAL_FILE_MAGIC_LEN + 4];
	uint32_t v;
	char name[400];
	struct stat st;
	int ret, fd;

	memset(lf, 0, sizeof(*lf));
	lf->fd = -1;
	*what = "create log file";
	causal_log_file_name(name, sizeof(name), hostname, pid, uuid_hex);
	if ((size_t)snprintf(lf->path, sizeof(lf->path), "%s/%s", dir, name) >=
	    sizeof(lf->path))
		return -ENAMETOOLONG;

	fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	fd = move_fd_high(fd);
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	lf->fd = fd;
	lf->dev = st.st_dev;
	lf->ino = st.st_ino;

	*what = "allocate log buffers";
	ret = alloc_buffers(lf);
	if (ret)
		return ret;

	/* zstd skippable frame: magic, size, then our magic and version */
	*what = "write log file";
	v = CAUSAL_SKIPPABLE_MAGIC;
	memcpy(magic, &v, 4); /* little-endian host, as zstd requires */
	v = CAUSAL_FILE_MAGIC_LEN + 4;
	memcpy(magic + 4, &v, 4);
	memcpy(magic + 8, CAUSAL_FILE_MAGIC, CAUSAL_FILE_MAGIC_LEN);
	v = CAUSAL_FORMAT_VERSION;
	memcpy(magic + 8 + CAUSAL_FILE_MAGIC_LEN, &v, 4);
	return write_all(fd, magic, sizeof(magic));
}

void causal_log_file_reserve(struct causal_log_file *lf, size_t bytes)
{
	if (lf->frame_len + bytes > CAUSAL_FRAME_MAX)
		causal_log_file_flush(lf);
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
	fd = open(lf->path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_dev != lf->dev || st.st_ino != lf->ino) {
		close(fd);
		return -ESTALE;
	}
	lf->fd = move_fd_high(fd);
	return 0;
}

int causal_log_file_flush(struct causal_log_file *lf)
{
	size_t n;
	int ret;

	if (!lf->frame_len)
		return 0;
	if (lf->failed)
		goto out;
	n = ZSTD_compress2(lf->cctx, lf->out, lf->out_cap, lf->frame,
			   lf->frame_len);
	if (ZSTD_isError(n)) {
		ret = -EIO;
		goto fail;
	}
	ret = check_fd(lf);
	if (!ret)
		ret = write_all(lf->fd, lf->out, n);
	if (ret)
		goto fail;
	lf->records_written += lf->frame_records;
out:
	lf->frame_len = 0;
	lf->frame_records = 0;
	return lf->failed ? -EIO : 0;
fail:
	lf->failed = 1;
	lf->frame_len = 0;
	lf->frame_records = 0;
	return ret;
}

void causal_log_file_release(struct causal_log_file *lf)
{
	if (lf->cctx)
		ZSTD_freeCCtx(lf->cctx);
	lf->cctx = NULL;
	if (lf->frame)
		munmap(lf->frame, CAUSAL_FRAME_MAX + lf->out_cap);
	lf->frame = lf->out = NULL;
}

void causal_log_file_close(struct causal_log_file *lf)
{
	if (lf->fd >= 0 && check_fd(lf) == 0)
		close(lf->fd);
	lf->fd = -1;
}
