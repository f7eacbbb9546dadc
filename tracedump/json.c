/*
 * json.c - JSON string escaping and msgpack-to-JSON conversion.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "json.h"

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
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
	size_t i = 0;

	putc('"', out);
	while (i < len) {
		unsigned char c = p[i];
		size_t n;

		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
			i++;
		} else if (c < 0x20 || c == 0x7F) {
			switch (c) {
			case '\n': fputs("\\n", out); break;
			case '\t': fputs("\\t", out); break;
			case '\r': fputs("\\r", out); break;
			default: fprintf(out, "\\u%04x", c); break;
			}
			i++;
		} else if ((n = utf8_len(p + i, len - i)) == 0) {
			fputs("\\ufffd", out);
			i++;
		} else {
			fwrite(p + i, 1, n, out);
			i += n;
		}
	}
	putc('"', out);
}

static void json_hex(FILE *out, const char *p, size_t n)
{
	putc('"', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x", (unsigned char)p[i]);
	putc('"', out);
}

void json_msgpack(FILE *out, const msgpack_object *o)
{
	switch (o->type) {
	case MSGPACK_OBJECT_NIL:
		fputs("null", out);
		break;
	case MSGPACK_OBJECT_BOOLEAN:
		fputs(o->via.boolean ? "true" : "false", out);
		break;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		fprintf(out, "%" PRIu64, o->via.u64);
		break;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		fprintf(out, "%" PRId64, o->via.i64);
		break;
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		if (isfinite(o->via.f64))
			fprintf(out, "%.17g", o->via.f64);
		else
			fputs("null", out);
		break;
	case MSGPACK_OBJECT_STR:
		json_string(out, o->via.str.ptr, o->via.str.size);
		break;
	case MSGPACK_OBJECT_BIN:
		json_hex(out, o->via.bin.ptr, o->via.bin.size);
		break;
	case MSGPACK_OBJECT_EXT:
		json_hex(out, o->via.ext.ptr, o->via.ext.size);
		break;
	case MSGPACK_OBJECT_ARRAY:
		putc('[', out);
		for (uint32_t i = 0; i < o->via.array.size; i++) {
			if (i)
				putc(',', out);
			json_msgpack(out, &o->via.array.ptr[i]);
		}
		putc(']', out);
		break;
	case MSGPACK_OBJECT_MAP: {
		bool keys_str = true;

		for (uint32_t i = 0; i < o->via.map.size; i++)
			if (o->via.map.ptr[i].key.type != MSGPACK_OBJECT_STR)
				keys_str = false;
		putc(keys_str ? '{' : '[', out);
		for (uint32_t i = 0; i < o->via.map.size; i++) {
			const msgpack_object_kv *kv = &o->via.map.ptr[i];

			if (i)
				putc(',', out);
			if (!keys_str)
				putc('[', out);
			json_msgpack(out, &kv->key);
			putc(keys_str ? ':' : ',', out);
			json_msgpack(out, &kv->val);
			if (!keys_str)
				putc(']', out);
		}
		putc(keys_str ? '}' : ']', out);
		break;
	}
	default:
		fputs("null", out);
		break;
	}
}
