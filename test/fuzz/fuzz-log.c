/*
 * fuzz-log.c - libFuzzer target for the log reader (tracedump/logread.c:
 * the file header in its skippable frame, the zstd frames and their
 * checksums, the resynchronisation after damage), the record decoder
 * (record_decode(), tracedump/log-record.c) and `tracedump dump` (text
 * and JSON) on the same bytes.  A log is input: none may crash a tool,
 * make it read past what it holds, or hang it.
 *
 * Input: a log file as it is when it starts with the skippable magic of
 * the file header (the seeds *.clog in test/fuzz/log-seeds/ are real
 * logs); anything else is the records themselves, msgpack, which the
 * target wraps into a log of one checksummed frame, so that mutations
 * reach the decoder instead of failing the checksum (the seeds *.records
 * are the real logs decompressed).
 *
 * Checked besides: the reader returns 0, -EINVAL or -EPROTO with a
 * consistent result (a status in range, a message when and only when
 * there is damage, one callback per record counted), and every record is
 * decoded again from a copy of exactly its own bytes, where each string
 * and byte string of the decoded record is read in full: a field that
 * reaches past its record fails under ASan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zstd.h>

#include "causal/log-format.h"
#include "dump.h"
#include "log-pair.h"
#include "log-record.h"
#include "logread.h"

#define FILE_HEADER_LEN 20

static volatile uint8_t sink;

/* Read n bytes at p, as a consumer of the decoded record would. */
static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t x = 0;

	if (!p && n)
		abort();
	for (size_t i = 0; i < n; i++)
		x ^= b[i];
	sink ^= x;
}

static void touch_str(struct record_str s)
{
	touch(s.ptr, s.len);
}

static void touch_bin(struct record_bin b)
{
	if (b.ptr)
		touch(b.ptr, b.len);
}

static void touch_strv(const msgpack_object *v)
{
	for (uint32_t i = 0; i < v->via.array.size; i++)
		touch(v->via.array.ptr[i].via.str.ptr,
		      v->via.array.ptr[i].via.str.size);
}

static void touch_counts(const struct record *r)
{
	uint64_t type, count;

	for (uint32_t i = 0; record_loss_pair(r, i, &type, &count); i++)
		sink ^= (uint8_t)(type ^ count);
}

static void see_addr(struct record_bin b)
{
	char text[RECORD_SOCKADDR_MAX];

	if (!b.ptr)
		return;
	record_sockaddr(text, b.ptr, b.len);
	if (strnlen(text, sizeof(text)) == sizeof(text))
		abort();
}

static void see_flags(void (*name)(char *, size_t, uint64_t, char), uint64_t v)
{
	char text[64];

	name(text, sizeof(text), v, '|');
	if (strnlen(text, sizeof(text)) == sizeof(text))
		abort();
}

/*
 * Every field of a record that decoded (records.def): each pointer read
 * to its length (TOUCH_<KIND>), each field turned to text as dump does
 * (SEE_<SHOW>).
 */
/* clang-format off */
#define TOUCH_U8(v)
#define TOUCH_U16(v)
#define TOUCH_U32(v)
#define TOUCH_U64(v)
#define TOUCH_I32(v)
#define TOUCH_I64(v)
#define TOUCH_EXIT_NS(v)
#define TOUCH_AUX(v)
#define TOUCH_AUX_I(v)
#define TOUCH_CHAIN(v) touch(v, CAUSAL_CHAIN_ID_LEN);
#define TOUCH_UUID(v) touch(v, CAUSAL_UUID_LEN);
#define TOUCH_UUID_NIL(v)                                                      \
	if (v)                                                                 \
		touch(v, CAUSAL_UUID_LEN);
#define TOUCH_STRZ(v) touch_str(v);
#define TOUCH_STRV(v) touch_strv(v);
#define TOUCH_COUNTS(v) touch_counts(r);
#define TOUCH_CTX(v)                                                           \
	if ((v).set)                                                           \
		touch((v).chain, CAUSAL_CHAIN_ID_LEN);
#define TOUCH_STR_AUX(v) touch_str(v);
#define TOUCH_STR_L8(v) touch_str(v);
#define TOUCH_STR_L16(v) touch_str(v);
#define TOUCH_BIN_AUX(v) touch_bin(v);
#define TOUCH_BIN_L8(v) touch_bin(v);
#define SEE_NUM(v, en)
#define SEE_ENUM(v, en) sink ^= !record_##en##_name(v);
#define SEE_FLAGS(v, en) see_flags(record_##en, v);
#define SEE_HEX(v, en)
#define SEE_STR(v, en)
#define SEE_ADDR(v, en) see_addr(v);
#define SEE_CTX(v, en)
#define SEE_RAW(v, en)
#define SEE_FRAMES(v, en)
#define SEE_BYTES(v, en)
#define TOUCH_FIELD(name, KIND, SHOW, en, dump)                                \
	TOUCH_##KIND(m->name) SEE_##SHOW(m->name, en)
#define TOUCH_PROBE_FIELD(name, KIND, SHOW, en, dump)                          \
	TOUCH_##KIND(m->p.name) SEE_##SHOW(m->p.name, en)
#define TOUCH_START_NONE
#define TOUCH_START_RPC_PROBE CAUSAL_FIELDS_RPC_PROBE(TOUCH_PROBE_FIELD)
#define TOUCH_CASE(num, UPPER, lower, member, GROUP, nreq)                     \
	case CAUSAL_REC_##UPPER: {                                             \
		const struct record_##lower *m = &r->member;                   \
									       \
		TOUCH_START_##GROUP                                            \
		CAUSAL_FIELDS_##UPPER(TOUCH_FIELD)                             \
		(void)m;                                                       \
		break;                                                         \
	}
/* clang-format on */

static void touch_record(const struct record *r)
{
	switch (r->type) {
		CAUSAL_RECORDS(TOUCH_CASE)
	}
}

/* The record decoded where the reader put it, then from its own bytes. */
static int check_record(void *arg, const struct logread_record *lr)
{
	uint64_t *seen = arg;
	struct record r, again;
	msgpack_zone zone;
	msgpack_object obj;
	size_t off = 0;
	char *copy;
	int rc, rc2;

	if (lr->seq != (*seen)++ || !lr->raw_len)
		abort();
	rc = record_decode(lr->obj, &r);
	if (rc != 0 && rc != -EINVAL)
		abort();
	if (r.type != lr->type || r.tid != lr->tid || r.mono_ns != lr->mono_ns)
		abort();

	copy = malloc(lr->raw_len);
	if (!copy || !msgpack_zone_init(&zone, 1024))
		abort();
	memcpy(copy, lr->raw, lr->raw_len);
	if (msgpack_unpack(copy, lr->raw_len, &off, &zone, &obj) !=
		    MSGPACK_UNPACK_SUCCESS ||
	    off != lr->raw_len)
		abort();
	/* a PAIR's start or end: the same record from its bytes */
	if (lr->part &&
	    log_pair_object(copy, lr->raw_len, lr->part, lr->next, &zone, &obj))
		abort();
	rc2 = record_decode(&obj, &again);
	if (rc2 != rc || again.type != r.type)
		abort();
	if (rc == 0)
		touch_record(&again);
	msgpack_zone_destroy(&zone);
	free(copy);
	return 0;
}

static void check_read(const uint8_t *log, size_t len)
{
	struct logread_result res;
	uint64_t seen = 0;
	int rc = logread_buffer(log, len, check_record, &seen, &res);
	size_t elen = strnlen(res.error, sizeof(res.error));

	if (rc != 0 && rc != -EINVAL && rc != -EPROTO)
		abort();
	if (elen == sizeof(res.error) || res.bytes != len)
		abort();
	if (rc == 0 && (res.status > LOGREAD_CORRUPT || seen != res.records ||
			(res.status == LOGREAD_OK) != !elen))
		abort();
	if (rc != 0 && !elen)
		abort();
}

/* The input as `tracedump dump` reads it: a file (a memfd), both formats. */
static void check_dump(const uint8_t *log, size_t len)
{
	static int fd = -1;
	static FILE *out;
	static char path[64];
	struct dump_stats stats;

	if (fd < 0) {
		fd = memfd_create("fuzz.clog", 0);
		out = fopen("/dev/null", "w");
		if (fd < 0 || !out)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) ||
	    (len && pwrite(fd, log, len, 0) != (ssize_t)len))
		abort();
	dump_path(out, path, DUMP_TEXT, &stats);
	dump_path(out, path, DUMP_JSON, &stats);
}

/* A log of one frame holding the records: the file header, then zstd. */
static uint8_t *wrap(const uint8_t *records, size_t n, size_t *len)
{
	static ZSTD_CCtx *cctx;
	size_t bound = ZSTD_compressBound(n), z;
	uint8_t *log = malloc(FILE_HEADER_LEN + bound);

	if (!cctx) {
		cctx = ZSTD_createCCtx();
		if (!cctx)
			abort();
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	}
	if (!log)
		abort();
	/* a skippable frame of 12 bytes: the magic, the version (LE) */
	memcpy(log, "\x50\x2A\x4D\x18\x0C\0\0\0", 8);
	memcpy(log + 8, CAUSAL_FILE_MAGIC, CAUSAL_FILE_MAGIC_LEN);
	memcpy(log + 16, (uint8_t[4]){ CAUSAL_FORMAT_VERSION }, 4);
	z = ZSTD_compress2(cctx, log + FILE_HEADER_LEN, bound, records, n);
	if (ZSTD_isError(z))
		abort();
	*len = FILE_HEADER_LEN + z;
	return log;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t skippable[4] = { 0x50, 0x2A, 0x4D, 0x18 };
	uint8_t *log = NULL;
	size_t len = size;

	if (size < 4 || memcmp(data, skippable, 4))
		log = wrap(data, size, &len);
	check_read(log ? log : data, len);
	check_dump(log ? log : data, len);
	free(log);
	return 0;
}
