/*
 * log-record.h - decode one log record (a msgpack array, see log-format.h)
 * into a typed struct, and name record types and enum values.
 *
 * Strings and byte strings point into the msgpack object, so a struct
 * record lives no longer than the logread callback that produced it.
 */
#ifndef CAUSAL_TRACEDUMP_LOG_RECORD_H
#define CAUSAL_TRACEDUMP_LOG_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "causal/log-format.h"

struct record_str {
	const char *ptr;
	size_t len;
};

struct record_ctx {
	bool set;			/* false when the record had nil */
	const uint8_t *chain;		/* CAUSAL_CHAIN_ID_LEN bytes */
	uint64_t event;
	uint64_t function;
};

/* A raw struct sockaddr (bin), or nil: ptr NULL. */
struct record_bin {
	const uint8_t *ptr;
	size_t len;
};

/*
 * The decoded form of each record type, generated from records.def: a
 * member of struct record's union per type (r->stub_start), named in
 * records.def's R() line, holding its fields by their names there, in
 * the type each KIND decodes to.
 */
/* clang-format off */
#define RECORD_T_U8 uint64_t
#define RECORD_T_U16 uint64_t
#define RECORD_T_U32 uint64_t
#define RECORD_T_U64 uint64_t
#define RECORD_T_I32 int64_t
#define RECORD_T_I64 int64_t
#define RECORD_T_EXIT_NS uint64_t
#define RECORD_T_AUX uint64_t
#define RECORD_T_AUX_I int64_t
#define RECORD_T_CHAIN const uint8_t *	    /* CAUSAL_CHAIN_ID_LEN bytes */
#define RECORD_T_UUID const uint8_t *	    /* CAUSAL_UUID_LEN bytes */
#define RECORD_T_UUID_NIL const uint8_t *  /* the same, NULL if nil */
#define RECORD_T_STRZ struct record_str
#define RECORD_T_STRV const msgpack_object * /* array of str */
/* array of [type, count] pairs, checked: see record_loss_pair() */
#define RECORD_T_COUNTS const msgpack_object *
#define RECORD_T_CTX struct record_ctx
#define RECORD_T_STR_AUX struct record_str
#define RECORD_T_STR_L8 struct record_str
#define RECORD_T_STR_L16 struct record_str
#define RECORD_T_BIN_AUX struct record_bin
#define RECORD_T_BIN_L8 struct record_bin

#define RECORD_MEMBER(name, KIND, SHOW, en, dump) RECORD_T_##KIND name;
/* clang-format on */

/* The fields common to the four RPC probes (records.def, RPC_PROBE). */
struct record_rpc {
	CAUSAL_FIELDS_RPC_PROBE(RECORD_MEMBER)
};

/* clang-format off */
#define RECORD_START_NONE
#define RECORD_START_RPC_PROBE struct record_rpc p;
#define RECORD_TYPE_MEMBER(num, UPPER, lower, member, GROUP, nreq)             \
	struct record_##lower {                                                \
		RECORD_START_##GROUP                                           \
		CAUSAL_FIELDS_##UPPER(RECORD_MEMBER)                           \
	} member;
/* clang-format on */

struct record {
	unsigned type;
	uint64_t tid;
	uint64_t mono_ns;
	union {
		CAUSAL_RECORDS(RECORD_TYPE_MEMBER)
	};
};

/*
 * Decode o into r.  Returns 0, or -EINVAL when a field has the wrong type
 * or is missing.  Unknown types decode to their common fields only
 * (record_known() tells them apart); extra trailing fields are ignored.
 */
int record_decode(const msgpack_object *o, struct record *r);

bool record_known(unsigned type);

/* "THREAD_START" / "thread_start"; NULL for an unknown type. */
const char *record_type_name(unsigned type, bool lower);

/*
 * The names of enum values (enums.def): record_<stem>_name(), NULL for a
 * value the enum lacks: record_transport_name(CAUSAL_TRANSPORT_TCP) is
 * "tcp", record_clnt_stat_name(RPC_TIMEDOUT) "RPC_TIMEDOUT".
 */
/* clang-format off */
#define RECORD_NAME_DECL(ctype, stem, KIND)                                    \
	const char *record_##stem##_name(uint64_t value);
CAUSAL_ENUMS(RECORD_NAME_DECL)
/* clang-format on */

/* Pair i of a LOSS record's by_type: false past the last. */
bool record_loss_pair(const struct record *r, uint32_t i, uint64_t *type,
		      uint64_t *count);

/* The probe kind of an RPC probe type ("stub_start"...), else NULL. */
const char *record_rpc_kind(unsigned type);

/*
 * Flags (enums.def, FLAGS) as "one_way|tag_sent" (unknown bits as hex,
 * "0x10"; no flag: ""), sep between names: record_<stem>().  out needs
 * 64 bytes.
 */
/* clang-format off */
#define RECORD_FLAGS_DECL_ENUM(stem)
#define RECORD_FLAGS_DECL_EXTERN(stem)
#define RECORD_FLAGS_DECL_FLAGS(stem)                                          \
	void record_##stem(char *out, size_t size, uint64_t flags, char sep);
#define RECORD_FLAGS_DECL(ctype, stem, KIND) RECORD_FLAGS_DECL_##KIND(stem)
CAUSAL_ENUMS(RECORD_FLAGS_DECL)
/* clang-format on */

/*
 * A raw struct sockaddr as text: "127.0.0.1:2049", "[::1]:111",
 * "unix:/path" ("unix:@name" for an abstract socket, "unix:" unnamed).
 * Anything else is "af<family>:<hex>", or "bad:<hex>" when too short
 * for its family.  out needs RECORD_SOCKADDR_MAX bytes; returns out.
 */
#define RECORD_SOCKADDR_MAX 320
char *record_sockaddr(char *out, const uint8_t *p, size_t len);

#endif
