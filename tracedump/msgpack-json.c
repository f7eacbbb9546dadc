/*
 * msgpack-json.c - msgpack objects as JSON (the strings through
 * util/json.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "json.h"
#include "msgpack-json.h"

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
