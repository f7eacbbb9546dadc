/*
 * log-record.c - typed decoding of log records.  Every field is checked
 * against its msgpack type, because logs are input, not trusted memory.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include "hex.h"
#include "log-record.h"

/* clang-format off */
#define TYPE_NAMES(num, UPPER, lower, member, GROUP, nreq)                     \
	[num] = { #UPPER, #lower },

static const char *const type_names[][2] = { CAUSAL_RECORDS(TYPE_NAMES) };
/* clang-format on */

#define N_TYPES (sizeof(type_names) / sizeof(type_names[0]))

bool record_known(unsigned type)
{
	return type < N_TYPES && type_names[type][0];
}

const char *record_type_name(unsigned type, bool lower)
{
	return record_known(type) ? type_names[type][lower] : NULL;
}

/* record_<stem>_name() of every enum of enums.def: a switch by value. */
/* clang-format off */
#define NAME_CASE(constant, value, name)                                       \
	case value:                                                            \
		return name;
#define NAME_FUNC(ctype, stem, KIND)                                           \
	const char *record_##stem##_name(uint64_t value)                       \
	{                                                                      \
		switch (value) {                                               \
			CAUSAL_VALUES_##stem(NAME_CASE)                        \
		}                                                              \
		return NULL;                                                   \
	}
CAUSAL_ENUMS(NAME_FUNC)
/* clang-format on */

struct flag_name {
	uint64_t bit;
	const char *name;
};

static void flags_text(char *out, size_t size, uint64_t flags, char sep,
		       const struct flag_name *names, size_t n_names)
{
	const char s[2] = { sep, '\0' };
	uint64_t known = 0;
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n_names; i++) {
		known |= names[i].bit;
		if (!(flags & names[i].bit))
			continue;
		n += snprintf(out + n, n < size ? size - n : 0, "%s%s",
			      n ? s : "", names[i].name);
	}
	flags &= ~known;
	if (flags)
		snprintf(out + n, n < size ? size - n : 0, "%s0x%llx",
			 n ? s : "", (unsigned long long)flags);
}

/* record_<stem>() of the FLAGS of enums.def. */
/* clang-format off */
#define FLAG_NAME(constant, value, name) { value, name },
#define FLAGS_FUNC_ENUM(stem)
#define FLAGS_FUNC_EXTERN(stem)
#define FLAGS_FUNC_FLAGS(stem)                                                 \
	void record_##stem(char *out, size_t size, uint64_t flags, char sep)   \
	{                                                                      \
		static const struct flag_name names[] = {                      \
			CAUSAL_VALUES_##stem(FLAG_NAME)                        \
		};                                                             \
									       \
		flags_text(out, size, flags, sep, names,                       \
			   sizeof(names) / sizeof(names[0]));                  \
	}
#define FLAGS_FUNC(ctype, stem, KIND) FLAGS_FUNC_##KIND(stem)
CAUSAL_ENUMS(FLAGS_FUNC)
/* clang-format on */

/* The probe kind: the member of the types of the group RPC_PROBE. */
/* clang-format off */
#define RPC_KIND_NONE(UPPER, member)
#define RPC_KIND_RPC_PROBE(UPPER, member)                                      \
	case CAUSAL_REC_##UPPER:                                               \
		return #member;
#define RPC_KIND(num, UPPER, lower, member, GROUP, nreq)                       \
	RPC_KIND_##GROUP(UPPER, member)
/* clang-format on */

const char *record_rpc_kind(unsigned type)
{
	switch (type) {
		CAUSAL_RECORDS(RPC_KIND)
	}
	return NULL;
}

/*
 * sa_family is in the writer's byte order (the raw struct): the tools are
 * assumed to run on the same architecture as the traced hosts.
 */
char *record_sockaddr(char *out, const uint8_t *p, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	sa_family_t fam;
	size_t n;

	if (len < sizeof(fam))
		goto bad;
	memcpy(&fam, p, sizeof(fam));
	switch (fam) {
	case AF_INET: {
		struct sockaddr_in in;

		if (len < sizeof(in))
			goto bad;
		memcpy(&in, p, sizeof(in));
		inet_ntop(AF_INET, &in.sin_addr, ip, sizeof(ip));
		snprintf(out, RECORD_SOCKADDR_MAX, "%s:%u", ip, ntohs(in.sin_port));
		return out;
	}
	case AF_INET6: {
		struct sockaddr_in6 in6;

		if (len < sizeof(in6))
			goto bad;
		memcpy(&in6, p, sizeof(in6));
		inet_ntop(AF_INET6, &in6.sin6_addr, ip, sizeof(ip));
		snprintf(out, RECORD_SOCKADDR_MAX, "[%s]:%u", ip, ntohs(in6.sin6_port));
		return out;
	}
	case AF_UNIX: {
		size_t off = offsetof(struct sockaddr_un, sun_path);
		const char *path = (const char *)p + off;

		n = len > off ? len - off : 0;
		if (n > sizeof(((struct sockaddr_un *)0)->sun_path))
			goto bad;
		if (n && !path[0]) {
			/* Abstract: the name is every byte after the NUL. */
			n--;
			path++;
			snprintf(out, RECORD_SOCKADDR_MAX, "unix:@%.*s", (int)n, path);
			return out;
		}
		snprintf(out, RECORD_SOCKADDR_MAX, "unix:%.*s",
			 (int)strnlen(path, n), path);
		return out;
	}
	}
	n = snprintf(out, RECORD_SOCKADDR_MAX, "af%u:", (unsigned)fam);
	p += sizeof(fam);
	len -= sizeof(fam);
	goto hex;
bad:
	n = snprintf(out, RECORD_SOCKADDR_MAX, "bad:");
hex:
	/* Long enough for any real sockaddr (128 bytes); cut beyond. */
	if (len > (RECORD_SOCKADDR_MAX - n - 1) / 2)
		len = (RECORD_SOCKADDR_MAX - n - 1) / 2;
	hex_encode(out + n, p, len);
	return out;
}

/* A cursor over the type-specific fields; any mismatch sets bad. */
struct fields {
	const msgpack_object *a;
	uint32_t n, i;
	bool bad;
	uint64_t mono_ns; /* the record's, for EXIT_NS */
};

static const msgpack_object *next(struct fields *f)
{
	if (f->i >= f->n) {
		f->bad = true;
		return NULL;
	}
	return &f->a[f->i++];
}

static uint64_t get_u64(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (!o || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER) {
		f->bad = true;
		return 0;
	}
	return o->via.u64;
}

static int64_t get_i64(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return o->via.i64;
	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
	    o->via.u64 <= INT64_MAX)
		return (int64_t)o->via.u64;
	f->bad = true;
	return 0;
}

/* EXIT_NS (records.def): n < 0 is -(value - mono_ns) - 1, else the value. */
static uint64_t get_exit_ns(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
		return f->mono_ns + (uint64_t)(-(o->via.i64 + 1));
	if (o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
		return o->via.u64;
	f->bad = true;
	return 0;
}

static struct record_str get_str(struct fields *f)
{
	const msgpack_object *o = next(f);
	struct record_str s = { "", 0 };

	if (!o || o->type != MSGPACK_OBJECT_STR) {
		f->bad = true;
		return s;
	}
	s.ptr = o->via.str.ptr;
	s.len = o->via.str.size;
	return s;
}

/* A bin of exactly n bytes, or nil when nil_ok. */
static const uint8_t *get_bin(struct fields *f, uint32_t n, bool nil_ok)
{
	const msgpack_object *o = next(f);

	if (o && nil_ok && o->type == MSGPACK_OBJECT_NIL)
		return NULL;
	if (!o || o->type != MSGPACK_OBJECT_BIN || o->via.bin.size != n) {
		f->bad = true;
		return NULL;
	}
	return (const uint8_t *)o->via.bin.ptr;
}

/* A bin of any length, or nil (ptr NULL). */
static struct record_bin get_any_bin(struct fields *f)
{
	const msgpack_object *o = next(f);
	struct record_bin b = { NULL, 0 };

	if (o && o->type == MSGPACK_OBJECT_NIL)
		return b;
	if (!o || o->type != MSGPACK_OBJECT_BIN) {
		f->bad = true;
		return b;
	}
	b.ptr = (const uint8_t *)o->via.bin.ptr;
	b.len = o->via.bin.size;
	return b;
}

static const msgpack_object *get_str_array(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (!o || o->type != MSGPACK_OBJECT_ARRAY) {
		f->bad = true;
		return NULL;
	}
	for (uint32_t i = 0; i < o->via.array.size; i++)
		if (o->via.array.ptr[i].type != MSGPACK_OBJECT_STR)
			f->bad = true;
	return o;
}

/* LOSS's array of [type, count] pairs, each two unsigned integers. */
static const msgpack_object *get_pairs(struct fields *f)
{
	const msgpack_object *o = next(f);

	if (!o || o->type != MSGPACK_OBJECT_ARRAY) {
		f->bad = true;
		return NULL;
	}
	for (uint32_t i = 0; i < o->via.array.size; i++) {
		const msgpack_object *p = &o->via.array.ptr[i];

		if (p->type != MSGPACK_OBJECT_ARRAY || p->via.array.size != 2 ||
		    p->via.array.ptr[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
		    p->via.array.ptr[1].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
			f->bad = true;
	}
	return o;
}

bool record_loss_pair(const struct record *r, uint32_t i, uint64_t *type,
		      uint64_t *count)
{
	const msgpack_object *o = r->loss.by_type;

	if (r->type != CAUSAL_REC_LOSS || !o || i >= o->via.array.size)
		return false;
	*type = o->via.array.ptr[i].via.array.ptr[0].via.u64;
	*count = o->via.array.ptr[i].via.array.ptr[1].via.u64;
	return true;
}

static struct record_ctx get_ctx(struct fields *f)
{
	const msgpack_object *o = next(f);
	struct record_ctx ctx = { 0 };
	struct fields sub;

	if (!o || o->type == MSGPACK_OBJECT_NIL)
		return ctx; /* a missing ctx is already flagged by next() */
	if (o->type != MSGPACK_OBJECT_ARRAY) {
		f->bad = true;
		return ctx;
	}
	sub = (struct fields){ .a = o->via.array.ptr, .n = o->via.array.size };
	ctx.chain = get_bin(&sub, CAUSAL_CHAIN_ID_LEN, false);
	ctx.event = get_u64(&sub);
	ctx.function = get_u64(&sub);
	ctx.set = !sub.bad;
	if (sub.bad)
		f->bad = true;
	return ctx;
}

/* Each KIND of records.def, checked as log-format.h says. */
/* clang-format off */
#define GET_U8(f) get_u64(f)
#define GET_U16(f) get_u64(f)
#define GET_U32(f) get_u64(f)
#define GET_U64(f) get_u64(f)
#define GET_I32(f) get_i64(f)
#define GET_I64(f) get_i64(f)
#define GET_EXIT_NS(f) get_exit_ns(f)
#define GET_AUX(f) get_u64(f)
#define GET_AUX_I(f) get_i64(f)
#define GET_CHAIN(f) get_bin(f, CAUSAL_CHAIN_ID_LEN, false)
#define GET_UUID(f) get_bin(f, CAUSAL_UUID_LEN, false)
#define GET_UUID_NIL(f) get_bin(f, CAUSAL_UUID_LEN, true)
#define GET_STRZ(f) get_str(f)
#define GET_STRV(f) get_str_array(f)
#define GET_COUNTS(f) get_pairs(f)
#define GET_CTX(f) get_ctx(f)
#define GET_STR_AUX(f) get_str(f)
#define GET_STR_L8(f) get_str(f)
#define GET_STR_L16(f) get_str(f)
#define GET_BIN_AUX(f) get_any_bin(f)
#define GET_BIN_L8(f) get_any_bin(f)
/* clang-format on */

/*
 * decode_<lower>(): the fields of a type in order.  Past its req (nreq)
 * own fields, a record that ends is complete: the fields appended later
 * read as 0 (k is a constant at each field, so the test costs nothing).
 */
/* clang-format off */
#define DEC_FIELD(name, KIND, SHOW, en, dump)                                  \
	if (++k > req && f->i >= f->n)                                         \
		return;                                                        \
	m->name = GET_##KIND(f);
#define DEC_PROBE_FIELD(name, KIND, SHOW, en, dump) m->p.name = GET_##KIND(f);
#define DEC_START_NONE
#define DEC_START_RPC_PROBE CAUSAL_FIELDS_RPC_PROBE(DEC_PROBE_FIELD)
#define DEC_FUNC(num, UPPER, lower, member, GROUP, nreq)                       \
	static void decode_##lower(struct fields *f, struct record_##lower *m) \
	{                                                                      \
		const unsigned req = nreq;                                     \
		unsigned k = 0;                                                \
									       \
		DEC_START_##GROUP                                              \
		CAUSAL_FIELDS_##UPPER(DEC_FIELD)                               \
		(void)k, (void)req;                                            \
	}
CAUSAL_RECORDS(DEC_FUNC)

#define DEC_CASE(num, UPPER, lower, member, GROUP, nreq)                       \
	case CAUSAL_REC_##UPPER:                                               \
		decode_##lower(&f, &r->member);                                \
		break;
/* clang-format on */

int record_decode(const msgpack_object *o, struct record *r)
{
	struct fields f;

	memset(r, 0, sizeof(*r));
	if (o->type != MSGPACK_OBJECT_ARRAY)
		return -EINVAL;
	f = (struct fields){ .a = o->via.array.ptr, .n = o->via.array.size };
	r->type = (unsigned)get_u64(&f);
	r->tid = get_u64(&f);
	r->mono_ns = get_u64(&f);
	f.mono_ns = r->mono_ns;
	if (f.bad)
		return -EINVAL;

	switch (r->type) {
		CAUSAL_RECORDS(DEC_CASE)
	default:
		break;
	}
	return f.bad ? -EINVAL : 0;
}
