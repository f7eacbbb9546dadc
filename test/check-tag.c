/*
 * check-tag.c - the causality tag carried with each RPC call and reply:
 * its codec (tag.c), and reading it off XDR streams (xdr-tag.c) by the
 * rule of xdr-tag.h: only bytes already received, never a wait.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log-record.h"
#include "tag.h"
#include "xdr-tag.h"

static struct causal_tag sample(void)
{
	struct causal_tag t;

	memset(&t, 0, sizeof(t));
	memset(t.chain, 0xab, sizeof(t.chain));
	t.chain[19] = 7;
	t.event_no = 12345;
	t.xid = 0xdeadbeef;
	return t;
}

START_TEST(round_trip)
{
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];

	causal_tag_encode(&in, buf);
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_OK);
	ck_assert_int_eq(memcmp(out.chain, in.chain, sizeof(in.chain)), 0);
	ck_assert_uint_eq(out.event_no, 12345);
	ck_assert_uint_eq(out.xid, 0xdeadbeef);
	/* big-endian on the wire, as XDR is */
	ck_assert_uint_eq(buf[0], 'C');
	ck_assert_uint_eq(buf[8], 0xde);
}
END_TEST

/*
 * The monitoring types ride in the flags (causal overriding): a tag of
 * this version carries them, one from an older libcausal (flags 0) still
 * decodes, without them; the checksum covers them.
 */
START_TEST(monitoring_types_in_flags)
{
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];

	in.flags = CAUSAL_TAG_F_MON | 0x5; /* semantics, cpu */
	causal_tag_encode(&in, buf);
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_OK);
	ck_assert_uint_eq(out.flags & CAUSAL_TAG_F_MON, CAUSAL_TAG_F_MON);
	ck_assert_uint_eq(out.flags & CAUSAL_TAG_F_MON_TYPES, 0x5);
	buf[15] ^= 0x2; /* a type flipped on the way */
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_MALFORMED);
	in.flags = 0;
	causal_tag_encode(&in, buf);
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_OK);
	ck_assert_uint_eq(out.flags & CAUSAL_TAG_F_MON, 0);
}
END_TEST

START_TEST(untagged_bytes_are_absent)
{
	uint8_t zeros[CAUSAL_TAG_LEN] = { 0 };
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];

	ck_assert_int_eq(causal_tag_decode(zeros, sizeof(zeros), 0, &out),
			 CAUSAL_TAG_ABSENT);
	causal_tag_encode(&in, buf);
	/* a message cut short holds no tag */
	ck_assert_int_eq(causal_tag_decode(buf, CAUSAL_TAG_LEN - 1, in.xid,
					   &out),
			 CAUSAL_TAG_ABSENT);
	ck_assert_int_eq(causal_tag_decode(buf, 0, in.xid, &out),
			 CAUSAL_TAG_ABSENT);
}
END_TEST

START_TEST(every_flipped_byte_is_caught)
{
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];
	size_t i;

	causal_tag_encode(&in, buf);
	for (i = 0; i < CAUSAL_TAG_LEN; i++) {
		uint8_t bad[CAUSAL_TAG_LEN];
		int st;

		memcpy(bad, buf, sizeof(bad));
		bad[i] ^= 0x10;
		st = causal_tag_decode(bad, sizeof(bad), in.xid, &out);
		/* damage to the magic makes it no tag; anywhere else the
		 * checksum refuses it; never is it taken as valid */
		ck_assert_msg(st == (i < 4 ? CAUSAL_TAG_ABSENT
					   : CAUSAL_TAG_MALFORMED),
			      "byte %zu: status %d", i, st);
	}
}
END_TEST

/*
 * A version 1 tag (an older libcausal: FNV-1a checksum) still decodes,
 * and is refused once damaged; this version's tags are version 2, whose
 * checksum is not FNV-1a; a version this one does not know is refused.
 */
START_TEST(version_1_tags_still_read)
{
	struct causal_tag a = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN], bad[CAUSAL_TAG_LEN];

	for (int i = 0; i < 12; i++) {
		uint32_t h = 2166136261u;

		a.event_no = (uint64_t)i * 1000003;
		a.chain[0] = (uint8_t)i;
		causal_tag_encode(&a, buf);
		ck_assert_uint_eq(buf[4] << 8 | buf[5], 2);
		for (int k = 0; k < 44; k++) {
			h ^= buf[k];
			h *= 16777619u;
		}
		ck_assert_msg(((uint32_t)buf[44] << 24 |
			       (uint32_t)buf[45] << 16 |
			       (uint32_t)buf[46] << 8 | buf[47]) != h,
			      "version 2 tag %d checksummed as version 1", i);
		/* the same tag as version 1 writes it */
		buf[5] = 1;
		h = 2166136261u;
		for (int k = 0; k < 44; k++) {
			h ^= buf[k];
			h *= 16777619u;
		}
		buf[44] = (uint8_t)(h >> 24);
		buf[45] = (uint8_t)(h >> 16);
		buf[46] = (uint8_t)(h >> 8);
		buf[47] = (uint8_t)h;
		ck_assert_int_eq(
			causal_tag_decode(buf, sizeof(buf), a.xid, &out),
			CAUSAL_TAG_OK);
		ck_assert_uint_eq(out.event_no, a.event_no);
		ck_assert_uint_eq(out.chain[0], (uint8_t)i);
		memcpy(bad, buf, sizeof(bad));
		bad[16 + i] ^= 0x01;
		ck_assert_int_eq(
			causal_tag_decode(bad, sizeof(bad), a.xid, &out),
			CAUSAL_TAG_MALFORMED);
		/* a version 3 is not read as either */
		memcpy(bad, buf, sizeof(bad));
		bad[5] = 3;
		ck_assert_int_eq(
			causal_tag_decode(bad, sizeof(bad), a.xid, &out),
			CAUSAL_TAG_MALFORMED);
	}
}
END_TEST

START_TEST(stale_xid_is_refused)
{
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];

	causal_tag_encode(&in, buf);
	/* a tag left in a reused UDP buffer by an earlier call */
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid + 1, &out),
			 CAUSAL_TAG_STALE);
}
END_TEST

START_TEST(hostile_values_are_refused)
{
	struct causal_tag in = sample(), out;
	uint8_t buf[CAUSAL_TAG_LEN];

	in.event_no = CAUSAL_TAG_EVENT_MAX;
	causal_tag_encode(&in, buf);
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_MALFORMED);
	in = sample();
	memset(in.chain, 0, sizeof(in.chain)); /* no chain at all */
	causal_tag_encode(&in, buf);
	ck_assert_int_eq(causal_tag_decode(buf, sizeof(buf), in.xid, &out),
			 CAUSAL_TAG_MALFORMED);
}
END_TEST

/* ---- causal_rec_ready(): the decision on a record stream ------------- */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

START_TEST(rec_ready_in_one_fragment)
{
	uint8_t b[64] = {0};

	/* 48 bytes left of the fragment, all buffered or all in the socket */
	ck_assert_int_eq(causal_rec_ready(48, 1, b, 48, NULL, 0, 48),
			 CAUSAL_XDR_READ);
	ck_assert_int_eq(causal_rec_ready(100, 0, NULL, 0, b, 48, 48),
			 CAUSAL_XDR_READ);
	ck_assert_int_eq(causal_rec_ready(48, 1, b, 20, b, 28, 48),
			 CAUSAL_XDR_READ);
	/* announced, not (all) received */
	ck_assert_int_eq(causal_rec_ready(48, 1, b, 47, NULL, 0, 48),
			 CAUSAL_XDR_NOT_YET);
	ck_assert_int_eq(causal_rec_ready(0x7ffffff0, 1, NULL, 0, NULL, 0,
					  48),
			 CAUSAL_XDR_NOT_YET);
	/* the record ends first: whatever else was received */
	ck_assert_int_eq(causal_rec_ready(20, 1, b, 64, NULL, 0, 48),
			 CAUSAL_XDR_END);
	ck_assert_int_eq(causal_rec_ready(0, 1, b, 64, NULL, 0, 48),
			 CAUSAL_XDR_END);
	ck_assert_int_eq(causal_rec_ready(-1, 0, b, 64, NULL, 0, 48),
			 CAUSAL_XDR_END);
}
END_TEST

START_TEST(rec_ready_across_fragments)
{
	uint8_t b[512] = {0}, s[512] = {0};
	size_t n = 0;

	/* 20 bytes left, then a 28-byte last fragment */
	put32(b + 20, 0x80000000u | 28);
	ck_assert_int_eq(causal_rec_ready(20, 0, b, 52, NULL, 0, 48),
			 CAUSAL_XDR_READ);
	ck_assert_int_eq(causal_rec_ready(20, 0, b, 51, NULL, 0, 48),
			 CAUSAL_XDR_NOT_YET);
	/* the header split between buffer and socket */
	ck_assert_int_eq(causal_rec_ready(20, 0, b, 22, b + 22, 30, 48),
			 CAUSAL_XDR_READ);
	ck_assert_int_eq(causal_rec_ready(20, 0, b, 22, NULL, 0, 48),
			 CAUSAL_XDR_NOT_YET);
	/* a last fragment too short: the record ends */
	put32(b + 20, 0x80000000u | 27);
	ck_assert_int_eq(causal_rec_ready(20, 0, b, 200, NULL, 0, 48),
			 CAUSAL_XDR_END);
	/* a header of 0 is refused by libtirpc: its read fails */
	put32(b + 20, 0);
	ck_assert_int_eq(causal_rec_ready(20, 0, b, 200, NULL, 0, 48),
			 CAUSAL_XDR_END);
	/* an empty last fragment */
	put32(b + 20, 0x80000000u);
	ck_assert_int_eq(causal_rec_ready(20, 0, b, 200, NULL, 0, 48),
			 CAUSAL_XDR_END);
	/* the worst case: 48 fragments of one byte, all in the socket */
	for (int i = 0; i < 48; i++) {
		put32(s + n, (i == 47 ? 0x80000000u : 0) | 1);
		n += 5;
	}
	ck_assert_uint_eq(n, CAUSAL_REC_PEEK_MAX);
	ck_assert_int_eq(causal_rec_ready(0, 0, NULL, 0, s, n, 48),
			 CAUSAL_XDR_READ);
	ck_assert_int_eq(causal_rec_ready(0, 0, NULL, 0, s, n - 1, 48),
			 CAUSAL_XDR_NOT_YET);
}
END_TEST

/* ---- reading tags off real streams ------------------------------------ */

/* A record stream on one end of a socket pair, as svc_vc reads it, but
 * never waiting: a read that would wait is noted and fails. */
struct rec_source {
	int sv[2];
	int would_wait;
	XDR x;
};

static int source_read(void *h, void *buf, int len)
{
	struct rec_source *rs = h;
	ssize_t n = read(rs->sv[0], buf, (size_t)len);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		rs->would_wait = 1;
	return n > 0 ? (int)n : -1;
}

static int source_write(void *h, void *buf, int len)
{
	(void)h;
	(void)buf;
	return len;
}

static void source_open(struct rec_source *rs, u_int recvsize)
{
	memset(rs, 0, sizeof(*rs));
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, rs->sv), 0);
	ck_assert_int_ne(fcntl(rs->sv[0], F_SETFL, O_NONBLOCK), -1);
	xdrrec_create(&rs->x, 0, recvsize, rs, source_read, source_write);
	rs->x.x_op = XDR_DECODE;
}

static void source_send(struct rec_source *rs, const uint8_t *p, size_t n)
{
	ck_assert_int_eq(write(rs->sv[1], p, n), (ssize_t)n);
}

static void source_close(struct rec_source *rs)
{
	XDR_DESTROY(&rs->x);
	close(rs->sv[0]);
	close(rs->sv[1]);
}

/* A call header's worth of arguments: 40 bytes. */
#define ARGS_LEN 40

START_TEST(stream_tag_all_received)
{
	struct causal_tag in = sample(), out;
	struct rec_source rs;
	uint8_t rec[256], args[ARGS_LEN];

	in.xid = 0;
	source_open(&rs, 0);
	put32(rec, 0x80000000u | (ARGS_LEN + CAUSAL_TAG_LEN));
	memset(rec + 4, 7, ARGS_LEN);
	causal_tag_encode(&in, rec + 4 + ARGS_LEN);
	source_send(&rs, rec, 4 + ARGS_LEN + CAUSAL_TAG_LEN);
	ck_assert(xdrrec_skiprecord(&rs.x));
	ck_assert(xdr_opaque(&rs.x, (char *)args, ARGS_LEN));
	ck_assert_int_eq(causal_xdr_get_tag(&rs.x, 1234, rs.sv[0], &out),
			 CAUSAL_TAG_OK);
	ck_assert_uint_eq(out.event_no, in.event_no);
	ck_assert(!rs.would_wait);
	source_close(&rs);
}
END_TEST

/* A call's arguments, then a last fragment announced with only `sent`
 * bytes of the tag; the arguments decoded. */
static void source_stalled(struct rec_source *rs, const uint8_t *tag,
			   size_t sent)
{
	uint8_t rec[256], args[ARGS_LEN];

	source_open(rs, 0);
	put32(rec, ARGS_LEN); /* not the last fragment */
	memset(rec + 4, 7, ARGS_LEN);
	put32(rec + 4 + ARGS_LEN, 0x80000000u | CAUSAL_TAG_LEN);
	memcpy(rec + 8 + ARGS_LEN, tag, sent);
	source_send(rs, rec, 8 + ARGS_LEN + sent);
	ck_assert(xdrrec_skiprecord(&rs->x));
	ck_assert(xdr_opaque(&rs->x, (char *)args, ARGS_LEN));
}

/*
 * The stall: a call, then a last fragment announced and not sent, or
 * only partly.  The tag is incomplete at once, nothing of the stream is
 * consumed: once the rest arrives the same tag reads whole.  The error
 * path's scan stops there too.
 */
START_TEST(stream_tag_announced_not_sent)
{
	struct causal_tag in = sample(), out;
	uint8_t tag[CAUSAL_TAG_LEN];

	in.xid = 0;
	causal_tag_encode(&in, tag);
	for (size_t sent = 0; sent < CAUSAL_TAG_LEN; sent += 20) {
		struct rec_source rs;

		source_stalled(&rs, tag, sent);
		ck_assert_int_eq(causal_xdr_get_tag(&rs.x, 0, rs.sv[0], &out),
				 CAUSAL_TAG_INCOMPLETE);
		ck_assert_msg(!rs.would_wait, "sent %zu: a read waited", sent);
		source_send(&rs, tag + sent, CAUSAL_TAG_LEN - sent);
		ck_assert_int_eq(causal_xdr_get_tag(&rs.x, 0, rs.sv[0], &out),
				 CAUSAL_TAG_OK);
		ck_assert_uint_eq(out.event_no, in.event_no);
		source_close(&rs);

		source_stalled(&rs, tag, sent);
		ck_assert_int_eq(causal_xdr_scan_tag(&rs.x, 0, rs.sv[0], &out),
				 CAUSAL_TAG_INCOMPLETE);
		ck_assert_msg(!rs.would_wait, "sent %zu: a read waited", sent);
		source_close(&rs);
	}
}
END_TEST

/* Past libtirpc's buffer (100 bytes, its least), in the socket: read
 * when the connection is given, incomplete when only the buffer is. */
START_TEST(stream_tag_in_socket)
{
	struct causal_tag in = sample(), out;
	uint8_t rec[256], args[ARGS_LEN];

	in.xid = 0;
	for (int fd_given = 0; fd_given < 2; fd_given++) {
		struct rec_source rs;

		source_open(&rs, 100);
		/* 96 bytes of arguments: the buffer holds them and the
		 * header, the tag waits in the socket */
		put32(rec, 0x80000000u | (96 + CAUSAL_TAG_LEN));
		memset(rec + 4, 7, 96);
		causal_tag_encode(&in, rec + 100);
		source_send(&rs, rec, 100 + CAUSAL_TAG_LEN);
		ck_assert(xdrrec_skiprecord(&rs.x));
		for (int i = 0; i < 96; i += ARGS_LEN / 2)
			ck_assert(xdr_opaque(&rs.x, (char *)args,
					     i + ARGS_LEN / 2 > 96
						     ? (u_int)(96 - i)
						     : ARGS_LEN / 2));
		ck_assert_int_eq(causal_xdr_get_tag(&rs.x, 0,
						    fd_given ? rs.sv[0] : -1,
						    &out),
				 fd_given ? CAUSAL_TAG_OK
					  : CAUSAL_TAG_INCOMPLETE);
		ck_assert(!rs.would_wait);
		source_close(&rs);
	}
}
END_TEST

/* No tag after the arguments: absent, whatever follows the record. */
START_TEST(stream_untagged)
{
	struct causal_tag out;
	struct rec_source rs;
	uint8_t rec[256], args[ARGS_LEN];

	source_open(&rs, 0);
	put32(rec, 0x80000000u | ARGS_LEN);
	memset(rec + 4, 7, ARGS_LEN);
	/* the next record, with something like a tag in it */
	put32(rec + 4 + ARGS_LEN, 0x80000000u | 100);
	memset(rec + 8 + ARGS_LEN, 0x43, 100);
	source_send(&rs, rec, 108 + ARGS_LEN);
	ck_assert(xdrrec_skiprecord(&rs.x));
	ck_assert(xdr_opaque(&rs.x, (char *)args, ARGS_LEN));
	ck_assert_int_eq(causal_xdr_get_tag(&rs.x, 0, rs.sv[0], &out),
			 CAUSAL_TAG_ABSENT);
	ck_assert_int_eq(causal_xdr_scan_tag(&rs.x, 0, rs.sv[0], &out),
			 CAUSAL_TAG_ABSENT);
	ck_assert(!rs.would_wait);
	source_close(&rs);
}
END_TEST

/* The error path's scan finds a tag after undecodable bytes. */
START_TEST(stream_scan_finds_tag)
{
	struct causal_tag in = sample(), out;
	struct rec_source rs;
	uint8_t rec[256];

	in.xid = 0;
	source_open(&rs, 0);
	put32(rec, 0x80000000u | (64 + CAUSAL_TAG_LEN));
	memset(rec + 4, 0x99, 64);
	causal_tag_encode(&in, rec + 68);
	source_send(&rs, rec, 68 + CAUSAL_TAG_LEN);
	ck_assert(xdrrec_skiprecord(&rs.x));
	ck_assert_int_eq(causal_xdr_scan_tag(&rs.x, 0, rs.sv[0], &out),
			 CAUSAL_TAG_OK);
	ck_assert_uint_eq(out.event_no, in.event_no);
	source_close(&rs);
}
END_TEST

/* A datagram holds all it has: a tag is read or absent, never waited
 * for, and bound to the xid. */
START_TEST(datagram_tag)
{
	struct causal_tag in = sample(), out;
	uint8_t dg[ARGS_LEN + CAUSAL_TAG_LEN], args[ARGS_LEN];
	XDR x;

	memset(dg, 7, ARGS_LEN);
	causal_tag_encode(&in, dg + ARGS_LEN);
	xdrmem_create(&x, (char *)dg, sizeof(dg), XDR_DECODE);
	ck_assert(xdr_opaque(&x, (char *)args, ARGS_LEN));
	ck_assert_int_eq(causal_xdr_get_tag(&x, in.xid, -1, &out),
			 CAUSAL_TAG_OK);
	xdrmem_create(&x, (char *)dg, sizeof(dg), XDR_DECODE);
	ck_assert(xdr_opaque(&x, (char *)args, ARGS_LEN));
	ck_assert_int_eq(causal_xdr_get_tag(&x, in.xid + 1, -1, &out),
			 CAUSAL_TAG_STALE);
	xdrmem_create(&x, (char *)dg, sizeof(dg) - 1, XDR_DECODE);
	ck_assert(xdr_opaque(&x, (char *)args, ARGS_LEN));
	ck_assert_int_eq(causal_xdr_get_tag(&x, in.xid, -1, &out),
			 CAUSAL_TAG_ABSENT);
	ck_assert_uint_eq(XDR_GETPOS(&x), ARGS_LEN); /* nothing consumed */
}
END_TEST

START_TEST(status_names)
{
	ck_assert_str_eq(record_tag_status_name(CAUSAL_TAG_INCOMPLETE),
			 "incomplete");
	ck_assert_ptr_null(record_tag_status_name(CAUSAL_TAG_INCOMPLETE + 1));
}
END_TEST

Suite *tag_suite(void)
{
	Suite *s = suite_create("tag");
	TCase *tc = tcase_create("codec");

	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, monitoring_types_in_flags);
	tcase_add_test(tc, untagged_bytes_are_absent);
	tcase_add_test(tc, every_flipped_byte_is_caught);
	tcase_add_test(tc, version_1_tags_still_read);
	tcase_add_test(tc, stale_xid_is_refused);
	tcase_add_test(tc, hostile_values_are_refused);
	suite_add_tcase(s, tc);
	tc = tcase_create("stream");
	tcase_add_test(tc, rec_ready_in_one_fragment);
	tcase_add_test(tc, rec_ready_across_fragments);
	tcase_add_test(tc, stream_tag_all_received);
	tcase_add_test(tc, stream_tag_announced_not_sent);
	tcase_add_test(tc, stream_tag_in_socket);
	tcase_add_test(tc, stream_untagged);
	tcase_add_test(tc, stream_scan_finds_tag);
	tcase_add_test(tc, datagram_tag);
	tcase_add_test(tc, status_names);
	suite_add_tcase(s, tc);
	return s;
}
