/*
 * check-util-json.c - util/json.h and util/hex.h: every string comes out
 * as valid JSON whatever its bytes, valid UTF-8 unchanged.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "json.h"

static char out[65536];

/* json_string() of the len bytes at s, into out. */
static const char *js(const char *s, size_t len)
{
	FILE *f = fmemopen(out, sizeof(out), "w");

	ck_assert_ptr_nonnull(f);
	json_string(f, s, len);
	ck_assert_int_eq(fclose(f), 0);
	return out;
}

#define JS(lit) js(lit, sizeof(lit) - 1)

START_TEST(test_escapes)
{
	ck_assert_str_eq(JS(""), "\"\"");
	/* an empty string may come as NULL (msgpack's empty str): no
	 * pointer arithmetic on it (UBSan, found by fuzz-log) */
	ck_assert_str_eq(js(NULL, 0), "\"\"");
	ck_assert_str_eq(JS("plain ascii ~"), "\"plain ascii ~\"");
	ck_assert_str_eq(JS("a\"b\\c/"), "\"a\\\"b\\\\c/\"");
	ck_assert_str_eq(JS("\n\t\r"), "\"\\n\\t\\r\"");
	ck_assert_str_eq(JS("\x01\x1f\x7f\b\f"),
			 "\"\\u0001\\u001f\\u007f\\u0008\\u000c\"");
	ck_assert_str_eq(JS("a\0b"), "\"a\\u0000b\""); /* len counts, not NUL */
}
END_TEST

START_TEST(test_valid_utf8_kept)
{
	/* 2, 3 and 4 bytes, the last code point, U+FFFD itself */
	ck_assert_str_eq(JS("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
			 "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	ck_assert_str_eq(JS("\xf4\x8f\xbf\xbf\xef\xbf\xbd\xc2\x80"),
			 "\"\xf4\x8f\xbf\xbf\xef\xbf\xbd\xc2\x80\"");
	ck_assert_str_eq(JS("\xed\x9f\xbf\xee\x80\x80"),
			 "\"\xed\x9f\xbf\xee\x80\x80\"");
}
END_TEST

/* Each byte that does not start a well-formed sequence: one U+FFFD. */
START_TEST(test_invalid_utf8_replaced)
{
	static const struct {
		const char *in;
		const char *out;
	} cases[] = {
	    {"\x80", "\\ufffd"}, /* lone continuation */
	    {"a\xbf!", "a\\ufffd!"},
	    {"\xc0\x80", "\\ufffd\\ufffd"}, /* overlong NUL */
	    {"\xc1\xbf", "\\ufffd\\ufffd"}, /* overlong */
	    {"\xe0\x80\x80", "\\ufffd\\ufffd\\ufffd"},
	    {"\xf0\x8f\xbf\xbf", "\\ufffd\\ufffd\\ufffd\\ufffd"},
	    {"\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"}, /* surrogate */
	    {"\xf4\x90\x80\x80",
	     "\\ufffd\\ufffd\\ufffd\\ufffd"}, /* > U+10FFFF */
	    {"\xf5\xff\xfe", "\\ufffd\\ufffd\\ufffd"},
	    {"\xe2\x82", "\\ufffd\\ufffd"},	 /* cut short at the end */
	    {"\xe2\x28\xa1", "\\ufffd(\\ufffd"}, /* broken in the middle */
	    {"\xc3\xa9\xc3", "\xc3\xa9\\ufffd"},
	};
	char want[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(want, sizeof(want), "\"%s\"", cases[i].out);
		ck_assert_str_eq(js(cases[i].in, strlen(cases[i].in)), want);
	}
}
END_TEST

/* A strict reader of what json_string() may write: well-formed UTF-8,
 * no raw control character, escapes from JSON's list; the bytes it
 * stands for into dec (U+FFFD and \u00XX as UTF-8).  0 if valid. */
static int json_decode(const char *s, char *dec, size_t *n)
{
	const unsigned char *p = (const unsigned char *)s;

	*n = 0;
	if (*p++ != '"')
		return -1;
	while (*p != '"') {
		if (!*p || *p < 0x20 || *p == 0x7f)
			return -1;
		if (*p == '\\') {
			unsigned v;

			p++;
			if (*p == 'n' || *p == 't' || *p == 'r' || *p == '"' ||
			    *p == '\\') {
				dec[(*n)++] = *p == 'n'	  ? '\n'
					      : *p == 't' ? '\t'
					      : *p == 'r' ? '\r'
							  : *p;
				p++;
				continue;
			}
			if (*p != 'u' ||
			    sscanf((const char *)p + 1, "%4x", &v) != 1)
				return -1;
			p += 5;
			if (v == 0xfffd) {
				memcpy(dec + *n, "\xef\xbf\xbd", 3);
				*n += 3;
			} else if (v < 0x20 || v == 0x7f) {
				dec[(*n)++] = (char)v;
			} else {
				return -1;
			}
			continue;
		}
		if (*p < 0x80) {
			dec[(*n)++] = (char)*p++;
			continue;
		}
		{
			int len = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
			uint32_t cp = *p & (0x7f >> len);

			if (*p < 0xc2 || *p > 0xf4)
				return -1;
			for (int i = 1; i < len; i++) {
				if ((p[i] & 0xc0) != 0x80)
					return -1;
				cp = cp << 6 | (p[i] & 0x3f);
			}
			if ((len == 3 && cp < 0x800) ||
			    (len == 4 && cp < 0x10000) ||
			    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
				return -1;
			memcpy(dec + *n, p, len);
			*n += len;
			p += len;
		}
	}
	return p[1] ? -1 : 0;
}

/* Random bytes, biased towards UTF-8 lead and continuation bytes: always
 * valid JSON, and strings without invalid UTF-8 come back unchanged. */
START_TEST(test_random_bytes_valid)
{
	uint64_t s = 88172645463325252ULL;
	char in[64], dec[sizeof(out)];
	int unchanged = 0;

	for (int round = 0; round < 20000; round++) {
		size_t len = round % 40, n;
		int has_bad;

		for (size_t i = 0; i < len; i++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			switch (s % 4) {
			case 0:
				in[i] = (char)(s >> 8);
				break;
			case 1:
				in[i] = (char)(0x80 | ((s >> 8) & 0x3f));
				break;
			case 2:
				in[i] = (char)(0xc0 | ((s >> 8) & 0x3f));
				break;
			default:
				in[i] = (char)(0x20 + (s >> 8) % 95);
				break;
			}
		}
		js(in, len);
		ck_assert_msg(!json_decode(out, dec, &n), "not valid JSON: %s",
			      out);
		has_bad = strstr(out, "\\ufffd") != NULL;
		if (!has_bad) {
			ck_assert_uint_eq(n, len);
			ck_assert(!memcmp(dec, in, len));
			unchanged++;
		}
	}
	ck_assert_int_gt(unchanged, 500); /* both kinds were tried */
}
END_TEST

START_TEST(test_cstr_and_hex)
{
	FILE *f = fmemopen(out, sizeof(out), "w");
	static const uint8_t bytes[40] = {0x00, 0x01, 0xab, 0xff, [39] = 0x5a};
	char hex[2 * sizeof(bytes) + 1];

	json_cstr(f, NULL);
	json_cstr(f, "\xff"
		     "a");
	json_hex(f, bytes, 4);
	json_hex(f, bytes, 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(out, "\"\"\"\\ufffda\"\"0001abff\"\"\"");

	hex_encode(hex, bytes, sizeof(bytes));
	ck_assert_uint_eq(strlen(hex), 80);
	ck_assert(!strncmp(hex, "0001abff0000", 12));
	ck_assert_str_eq(hex + 76, "005a");
	f = fmemopen(out, sizeof(out), "w");
	json_hex(f, bytes, sizeof(bytes)); /* more than one chunk */
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_eq(strlen(out), 82);
	ck_assert(!strncmp(out + 1, hex, 80));
	hex_encode(hex, bytes, 0);
	ck_assert_str_eq(hex, "");
}
END_TEST

Suite *util_json_suite(void)
{
	Suite *s = suite_create("util-json");
	TCase *tc = tcase_create("json");

	tcase_add_test(tc, test_escapes);
	tcase_add_test(tc, test_valid_utf8_kept);
	tcase_add_test(tc, test_invalid_utf8_replaced);
	tcase_add_test(tc, test_random_bytes_valid);
	tcase_add_test(tc, test_cstr_and_hex);
	suite_add_tcase(s, tc);
	return s;
}
