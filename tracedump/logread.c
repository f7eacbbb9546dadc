/*
 * logread.c - the log reader engine: file header, zstd frames, msgpack
 * records.  See logread.h for the damage-handling contract.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include "causal/log-format.h"
#include "log-pair.h"
#include "pair-next.h"
#include "logread.h"

#define ZSTD_FRAME_MAGIC 0xFD2FB528u
#define SKIPPABLE_MASK 0xFFFFFFF0u
#define FILE_HEADER_LEN (8 + 12)

struct reader {
	const uint8_t *buf;
	size_t len;
	logread_fn fn;
	void *arg;
	struct logread_result *res;
	ZSTD_DCtx *dctx;
	uint8_t *out;
	size_t out_cap;
	msgpack_zone zone;
	struct pair_next pairs;		/* the frame's pairs, for NEXT ones */
	struct pair_next_values next;	/* the last NEXT pair's */
	uint64_t frame_no;		/* data frames attempted */
	size_t slot;			/* offset of the loss slot, 0: none */
};

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Keep the worst status; the message describes the first damage of it. */
static void damage(struct logread_result *res, enum logread_status st,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void damage(struct logread_result *res, enum logread_status st,
		   const char *fmt, ...)
{
	va_list ap;

	if (st < res->status)
		return;
	if (st == res->status && res->error[0])
		return;
	res->status = st;
	va_start(ap, fmt);
	vsnprintf(res->error, sizeof(res->error), fmt, ap);
	va_end(ap);
}

/*
 * Offset of the next zstd frame magic after from, or len.  A match inside
 * compressed data is possible (1 in 2^32 per byte); it merely yields one
 * more corrupt frame before the real one.
 */
static size_t resync(const struct reader *r, size_t from)
{
	static const uint8_t magic[4] = { 0x28, 0xB5, 0x2F, 0xFD };
	const uint8_t *p;

	if (from >= r->len)
		return r->len;
	p = memmem(r->buf + from, r->len - from, magic, sizeof(magic));
	return p ? (size_t)(p - r->buf) : r->len;
}

static int read_file_header(struct reader *r, size_t *pos)
{
	static const uint8_t expect[16] = {
		0x50, 0x2A, 0x4D, 0x18, 12, 0, 0, 0,
		'C', 'A', 'U', 'S', 'A', 'L', 'O', 'G',
	};
	struct logread_result *res = r->res;
	uint32_t size, version;

	if (r->len < FILE_HEADER_LEN) {
		/*
		 * A process killed right after creating its log leaves an
		 * empty or partial header: truncated, not foreign.
		 */
		size_t n = r->len < sizeof(expect) ? r->len : sizeof(expect);

		for (size_t i = 0; i < n; i++)
			if (i < 4 || i >= 8)
				if (r->buf[i] != expect[i])
					goto bad_magic;
		damage(res, LOGREAD_TRUNCATED, r->len ? "file header cut short"
						       : "empty file");
		*pos = r->len;
		return 0;
	}
	if (le32(r->buf) != CAUSAL_SKIPPABLE_MAGIC)
		goto bad_magic;
	size = le32(r->buf + 4);
	if (size < 12 || memcmp(r->buf + 8, CAUSAL_FILE_MAGIC, CAUSAL_FILE_MAGIC_LEN))
		goto bad_magic;
	version = le32(r->buf + 16);
	res->version = version;
	if (version == 0 || version > CAUSAL_FORMAT_VERSION) {
		snprintf(res->error, sizeof(res->error),
			 "format version %u is not supported (newest: %u)",
			 version, CAUSAL_FORMAT_VERSION);
		return -EPROTO;
	}
	if ((uint64_t)size + 8 > r->len) {
		damage(res, LOGREAD_TRUNCATED, "file header cut short");
		*pos = r->len;
		return 0;
	}
	*pos = (size_t)size + 8;
	return 0;

bad_magic:
	snprintf(res->error, sizeof(res->error), "bad magic");
	return -EINVAL;
}

static int check_common(const msgpack_object *o)
{
	const msgpack_object *a;

	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size < 3)
		return -1;
	a = o->via.array.ptr;
	if (a[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    a[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    a[2].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
	    a[0].via.u64 > 0xFFFFFFFFu)
		return -1;
	return 0;
}

/* Big-endian length field of w bytes at p[*i], bounds checked. */
static int be_len(const uint8_t *p, size_t n, size_t *i, unsigned w,
		  uint64_t *v)
{
	if (n - *i < w)
		return -1;
	*v = 0;
	while (w--)
		*v = *v << 8 | p[(*i)++];
	return 0;
}

/*
 * Do the arrays and maps of the msgpack object at p (n bytes) declare no
 * more elements, with those still to come, than there are bytes left?
 * msgpack_unpack() allocates the elements when it reads the count, so a
 * few hostile bytes declaring 2^32 of them made it allocate gigabytes;
 * every element takes a byte at least, so a well-formed object always
 * passes, and what is allocated stays a small multiple of the bytes.  Other
 * damage (a cut object, a bad type byte) is left to msgpack_unpack().
 * Returns -1 on a count too large, else 0.
 */
static int check_counts(const uint8_t *p, size_t n)
{
	uint64_t pending = 1, v; /* objects still to walk */
	size_t i = 0;

	while (pending-- && i < n) {
		uint8_t b = p[i++];
		uint64_t count = 0, skip = 0;

		/*
		 * The type byte (msgpack spec): fixint, nil, (never used),
		 * bool; fixmap, fixarray, fixstr; bin, ext (and its type
		 * byte), float, uint and int, fixext, str with 1 to 4 length
		 * bytes; array and map with 2 or 4 count bytes.
		 */
		if (b <= 0x7f || b >= 0xe0 || (b >= 0xc0 && b <= 0xc3))
			continue;
		if (b <= 0x8f)
			count = 2 * (b & 0x0f);
		else if (b <= 0x9f)
			count = b & 0x0f;
		else if (b <= 0xbf)
			skip = b & 0x1f;
		else if (b >= 0xc4 && b <= 0xc6) {
			if (be_len(p, n, &i, 1u << (b - 0xc4), &skip))
				return 0;
		} else if (b >= 0xc7 && b <= 0xc9) {
			if (be_len(p, n, &i, 1u << (b - 0xc7), &skip))
				return 0;
			skip++;
		} else if (b == 0xca || b == 0xcb)
			skip = b == 0xca ? 4 : 8;
		else if (b >= 0xcc && b <= 0xd3)
			skip = 1u << ((b - 0xcc) & 3);
		else if (b >= 0xd4 && b <= 0xd8)
			skip = 1 + (1u << (b - 0xd4));
		else if (b >= 0xd9 && b <= 0xdb) {
			if (be_len(p, n, &i, 1u << (b - 0xd9), &skip))
				return 0;
		} else {
			if (be_len(p, n, &i, b & 1 ? 4 : 2, &v))
				return 0;
			count = b >= 0xde ? 2 * v : v;
		}
		if (count + pending > n - i)
			return -1;
		if (skip > n - i)
			return 0;
		i += skip;
		pending += count;
	}
	return 0;
}

/*
 * A PAIR (format 3 to 5) as the two records it joins: the callers see the
 * same records from every format (their bytes: log-pair.h).
 */
static int deliver_pair(struct reader *r, const msgpack_object *pair,
			struct logread_record *rec)
{
	struct logread_result *res = r->res;
	msgpack_object part[2];
	int rc;

	if ((rc = log_pair_split(pair, &r->zone, &part[0], &part[1]))) {
		if (rc != -EINVAL)
			return rc;
		res->bad_records++;
		return 0;
	}
	for (unsigned i = 0; i < 2; i++) {
		rec->type = (unsigned)part[i].via.array.ptr[0].via.u64;
		rec->mono_ns = part[i].via.array.ptr[2].via.u64;
		rec->seq = res->records;
		rec->obj = &part[i];
		rec->part = i + 1;
		res->records++;
		if (r->fn && (rc = r->fn(r->arg, rec)))
			return rc;
	}
	return 0;
}

/* Returns 0, -EBADMSG for a corrupt frame, or the callback's stop value. */
static int read_records(struct reader *r, const uint8_t *data, size_t n,
			size_t at)
{
	struct logread_result *res = r->res;
	struct logread_record rec;
	size_t off = 0;

	rec.frame = r->frame_no;
	pair_next_frame(&r->pairs);
	while (off < n) {
		size_t start = off;
		msgpack_object obj;
		msgpack_unpack_return ret;
		int rc;

		/* One zone for the whole read: clearing it keeps its chunk. */
		msgpack_zone_clear(&r->zone);
		if (check_counts(data + off, n - off))
			ret = MSGPACK_UNPACK_PARSE_ERROR;
		else
			ret = msgpack_unpack((const char *)data, n, &off,
					     &r->zone, &obj);
		if (ret != MSGPACK_UNPACK_SUCCESS &&
		    ret != MSGPACK_UNPACK_EXTRA_BYTES) {
			damage(res, LOGREAD_CORRUPT,
			       "frame %llu at offset %zu: bad msgpack at byte %zu",
			       (unsigned long long)r->frame_no, at, start);
			return -EBADMSG;
		}
		if (off <= start) /* cannot happen, but never loop forever */
			return -EBADMSG;
		if (check_common(&obj)) {
			res->bad_records++;
			continue;
		}
		rec.type = (unsigned)obj.via.array.ptr[0].via.u64;
		rec.tid = obj.via.array.ptr[1].via.u64;
		rec.raw = data + start;
		rec.raw_len = off - start;
		rec.next = NULL;
		if (log_pair_type(rec.type)) {
			bool next;

			rc = pair_next_take(&r->pairs, &obj, &r->next, &next);
			if (rc == -EINVAL) {
				res->bad_records++;
				continue;
			}
			rec.next = next ? &r->next : NULL;
			if (rc || (rc = deliver_pair(r, &obj, &rec)))
				return rc;
			continue;
		}
		rec.mono_ns = obj.via.array.ptr[2].via.u64;
		rec.seq = res->records;
		rec.obj = &obj;
		rec.part = 0;
		res->records++;
		if (r->fn && (rc = r->fn(r->arg, &rec)))
			return rc;
	}
	return 0;
}

static int read_frame(struct reader *r, size_t pos, size_t csize)
{
	struct logread_result *res = r->res;
	const uint8_t *p = r->buf + pos;
	unsigned long long n;
	size_t got;

	n = ZSTD_getFrameContentSize(p, csize);
	if (n == ZSTD_CONTENTSIZE_ERROR) {
		damage(res, LOGREAD_CORRUPT, "frame %llu at offset %zu: bad frame header",
		       (unsigned long long)r->frame_no, pos);
		return -EBADMSG;
	}
	if (n == ZSTD_CONTENTSIZE_UNKNOWN || n > LOGREAD_MAX_FRAME) {
		damage(res, LOGREAD_CORRUPT, "frame %llu at offset %zu: %s",
		       (unsigned long long)r->frame_no, pos,
		       n == ZSTD_CONTENTSIZE_UNKNOWN ? "no content size"
						     : "content size too large");
		return -EBADMSG;
	}
	if (n > r->out_cap) {
		size_t cap = r->out_cap ? r->out_cap : 65536;
		uint8_t *out;

		while (cap < n)
			cap *= 2;
		out = realloc(r->out, cap);
		if (!out)
			return -ENOMEM;
		r->out = out;
		r->out_cap = cap;
	}
	got = ZSTD_decompressDCtx(r->dctx, r->out, n, p, csize);
	if (ZSTD_isError(got) || got != n) {
		damage(res, LOGREAD_CORRUPT, "frame %llu at offset %zu: %s",
		       (unsigned long long)r->frame_no, pos,
		       ZSTD_isError(got) ? ZSTD_getErrorName(got) : "size mismatch");
		return -EBADMSG;
	}
	return read_records(r, r->out, n, pos);
}

static int read_frames(struct reader *r, size_t pos)
{
	struct logread_result *res = r->res;

	while (pos < r->len) {
		const uint8_t *p = r->buf + pos;
		size_t left = r->len - pos, csize, next;
		int rc;

		if (left >= 8 && (le32(p) & SKIPPABLE_MASK) == CAUSAL_SKIPPABLE_MAGIC) {
			uint64_t sz = 8 + (uint64_t)le32(p + 4);

			if (sz > left) {
				damage(res, LOGREAD_TRUNCATED,
				       "skippable frame at offset %zu cut short", pos);
				break;
			}
			if (le32(p) == CAUSAL_SLOT_MAGIC && !r->slot)
				r->slot = pos;
			pos += sz;
			continue;
		}
		csize = ZSTD_findFrameCompressedSize(p, left);
		if (ZSTD_isError(csize)) {
			next = resync(r, pos + 1);
			/*
			 * Running past the end with no frame after it is the
			 * normal end of a killed process: truncated.
			 */
			if (next == r->len &&
			    (left < 4 || ZSTD_getErrorCode(csize) == ZSTD_error_srcSize_wrong)) {
				damage(res, LOGREAD_TRUNCATED,
				       "frame %llu at offset %zu cut short (%zu bytes)",
				       (unsigned long long)r->frame_no, pos, left);
				break;
			}
			damage(res, LOGREAD_CORRUPT, "frame %llu at offset %zu: %s",
			       (unsigned long long)r->frame_no, pos,
			       ZSTD_getErrorName(csize));
			res->bad_frames++;
			r->frame_no++;
			pos = next;
			continue;
		}
		rc = read_frame(r, pos, csize);
		r->frame_no++;
		if (rc == -EBADMSG) {
			res->bad_frames++;
			/* Rescan from inside: the size itself may be wrong. */
			pos = resync(r, pos + 1);
			continue;
		}
		if (rc)
			return rc;
		res->frames++;
		pos += csize;
	}
	return 0;
}

/*
 * The loss slot's records (log-format.h) come after every data frame's:
 * they are the last word of a log whose writes failed.
 */
static int read_slot(struct reader *r)
{
	const uint8_t *p = r->buf + r->slot;
	size_t size = le32(p + 4), n;
	int rc;

	if (size < 4)
		return 0;
	n = le32(p + 8);
	if (!n)
		return 0;
	if (n > size - 4) {
		damage(r->res, LOGREAD_CORRUPT,
		       "loss slot at offset %zu: length %zu past its end",
		       r->slot, n);
		return 0;
	}
	r->res->slot_records = r->res->records;
	rc = read_records(r, p + 12, n, r->slot);
	r->res->slot_records = r->res->records - r->res->slot_records;
	return rc == -EBADMSG ? 0 : rc;
}

int logread_buffer(const void *buf, size_t len, logread_fn fn, void *arg,
		   struct logread_result *res)
{
	struct reader r = {
		.buf = buf, .len = len, .fn = fn, .arg = arg, .res = res,
	};
	size_t pos;
	int rc;

	memset(res, 0, sizeof(*res));
	res->bytes = len;
	rc = read_file_header(&r, &pos);
	if (rc || pos >= len)
		return rc;
	r.dctx = ZSTD_createDCtx();
	if (!r.dctx || !msgpack_zone_init(&r.zone, 8192)) {
		ZSTD_freeDCtx(r.dctx);
		return -ENOMEM;
	}
	rc = read_frames(&r, pos);
	if (!rc && r.slot)
		rc = read_slot(&r);
	msgpack_zone_destroy(&r.zone);
	ZSTD_freeDCtx(r.dctx);
	pair_next_free(&r.pairs);
	free(r.out);
	return rc;
}

int logread_file(const char *path, logread_fn fn, void *arg,
		 struct logread_result *res)
{
	struct stat st;
	void *map = NULL;
	int fd, rc;

	memset(res, 0, sizeof(*res));
	/*
	 * Only a regular file is a log.  Opening anything else can block (a
	 * FIFO waits for a writer) or act (a tape rewinds, a tty becomes the
	 * controlling one): look before opening, then open without blocking
	 * and look again at what was opened.
	 */
	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode))
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	else
		fd = -2;
	if (fd == -1)
		return -errno;
	if (fd >= 0 && fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		snprintf(res->error, sizeof(res->error), "not a regular file");
		return -EINVAL;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			rc = -errno;
			close(fd);
			return rc;
		}
		madvise(map, st.st_size, MADV_SEQUENTIAL);
	}
	close(fd);
	rc = logread_buffer(map ? map : "", st.st_size, fn, arg, res);
	if (map)
		munmap(map, st.st_size);
	return rc;
}
