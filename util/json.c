/*
 * json.c - JSON string literals (json.h).
 */
#include <stdint.h>
#include <string.h>

#include "hex.h"
#include "json.h"
#include "utf8.h"

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
		if (c >= 0x80 && (n = utf8_seq_len(p + i, len - i))) {
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

void json_cstrs(FILE *out, char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", out);
		json_cstr(out, v[i]);
	}
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
