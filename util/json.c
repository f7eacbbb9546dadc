/*
 * json.c - JSON string literals (json.h).
 */
#include <stdint.h>
#include <string.h>

#include "hex.h"
#include "json.h"

/*
 * Length of the well-formed UTF-8 sequence at s (Unicode's Table 3-7),
 * or 0 if it is not one.
 */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	/* Overlong forms, surrogates and values past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return n;
}

void json_string(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, done = 0; /* p[done .. i) is still to copy */

	putc('"', out);
	while (i < len) {
		unsigned char c = p[i];
		size_t n;

		/* what stays as it is goes out in runs, one fwrite each */
		if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80 && (n = utf8_len(p + i, len - i))) {
			i += n;
			continue;
		}
		if (i > done)
			fwrite(p + done, 1, i - done, out);
		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
		} else if (c < 0x20 || c == 0x7F) {
			switch (c) {
			case '\n':
				fputs("\\n", out);
				break;
			case '\t':
				fputs("\\t", out);
				break;
			case '\r':
				fputs("\\r", out);
				break;
			default:
				fprintf(out, "\\u%04x", c);
				break;
			}
		} else {
			fputs("\\ufffd", out); /* not UTF-8: one per byte */
		}
		done = ++i;
	}
	if (i > done) /* p may be NULL when len is 0 */
		fwrite(p + done, 1, i - done, out);
	putc('"', out);
}

void json_cstr(FILE *out, const char *s)
{
	json_string(out, s ? s : "", s ? strlen(s) : 0);
}

void json_hex(FILE *out, const void *p, size_t n)
{
	const unsigned char *b = p;
	char buf[2 * 32 + 1];

	putc('"', out);
	for (size_t i = 0; i < n; i += 32) {
		size_t k = n - i < 32 ? n - i : 32;

		hex_encode(buf, b + i, k);
		fwrite(buf, 1, 2 * k, out);
	}
	putc('"', out);
}
