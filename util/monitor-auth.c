/*
 * monitor-auth.c - the key and the sealed lines of the monitoring
 * channel over TCP (include/causal/monitor-auth.h).  Built into
 * libcausal.so (hidden: the consumer thread) and causalctl.  No
 * allocation, no stdio: the traced process's rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/memops.h>

#include "causal/monitor-auth.h"
#include "causal/monitor-proto.h"

static const char label[] = "causal-mon 2";

static void say(char *why, size_t size, const char *a, const char *b)
{
	size_t n = strlen(a), m = b ? strlen(b) : 0;

	if (!size)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(why, a, n);
	if (m > size - 1 - n)
		m = size - 1 - n;
	if (b)
		memcpy(why + n, b, m);
	why[n + m] = '\0';
}

int causal_mon_key_load(const char *path, struct causal_mon_key *key, char *why,
			size_t size)
{
	uint8_t buf[CAUSAL_MON_KEY_MAX];
	struct stat st;
	size_t got = 0;
	int fd;

	/* never blocks on a FIFO, never follows a link planted there */
	fd = open(path,
		  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return say(why, size, "cannot open it: ", strerror(errno)), -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return say(why, size, "not a regular file", NULL), -1;
	}
	if (st.st_uid != geteuid()) {
		close(fd);
		return say(why, size, "owned by another user", NULL), -1;
	}
	if (st.st_mode & 077) {
		close(fd);
		return say(why, size,
			   "readable by others than its owner: chmod 600 it",
			   NULL),
		       -1;
	}
	if (st.st_size < CAUSAL_MON_KEY_MIN ||
	    st.st_size > CAUSAL_MON_KEY_MAX) {
		close(fd);
		return say(why, size,
			   "a key is 16 to 4096 bytes (head -c 32 "
			   "/dev/urandom makes one)",
			   NULL),
		       -1;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != (size_t)st.st_size) {
		explicit_bzero(buf, sizeof(buf));
		return say(why, size, "cannot read it whole", NULL), -1;
	}
	hmac_sha256_set_key(&key->hmac, got, buf);
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

static void hex(char *out, const uint8_t *in, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Exactly 2n lowercase hex digits -> n bytes; 0 or -1. */
static int unhex(uint8_t *out, const char *s, size_t n)
{
	for (size_t i = 0; i < 2 * n; i++) {
		int d = s[i] >= '0' && s[i] <= '9'   ? s[i] - '0'
			: s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
						     : -1;

		if (d < 0)
			return -1;
		if (i % 2)
			out[i / 2] = (uint8_t)(out[i / 2] << 4 | d);
		else
			out[i / 2] = (uint8_t)d;
	}
	return s[2 * n] ? -1 : 0;
}

static int fresh(uint8_t *nonce)
{
	ssize_t n;

	do
		n = getrandom(nonce, CAUSAL_MON_NONCE, 0);
	while (n < 0 && errno == EINTR);
	return n == CAUSAL_MON_NONCE ? 0 : -1;
}

/* The MAC of the line number `n` sent by the client (from 'c') or the
 * coordinator ('s'). */
static void mac(struct causal_mon_auth *a, char from, uint64_t n,
		const char *msg, size_t len, uint8_t out[SHA256_DIGEST_SIZE])
{
	uint8_t num[8];

	for (int i = 0; i < 8; i++)
		num[i] = (uint8_t)(n >> (56 - 8 * i));
	hmac_sha256_update(&a->key->hmac, sizeof(label) - 1,
			   (const uint8_t *)label);
	hmac_sha256_update(&a->key->hmac, 1, (const uint8_t *)&from);
	hmac_sha256_update(&a->key->hmac, sizeof(a->nonce), a->nonce[0]);
	hmac_sha256_update(&a->key->hmac, sizeof(num), num);
	hmac_sha256_update(&a->key->hmac, len, (const uint8_t *)msg);
	/* the digest resets the context to the key, ready for the next */
	hmac_sha256_digest(&a->key->hmac, SHA256_DIGEST_SIZE, out);
}

int causal_mon_seal(struct causal_mon_auth *a, const char *msg, char *out,
		    size_t size)
{
	uint8_t d[SHA256_DIGEST_SIZE];
	size_t len = strlen(msg);

	if (CAUSAL_MON_MAC_HEX + 1 + len + 2 > size)
		return -1;
	mac(a, a->server ? 's' : 'c', a->sealed++, msg, len, d);
	hex(out, d, sizeof(d));
	out[CAUSAL_MON_MAC_HEX] = ' ';
	memcpy(out + CAUSAL_MON_MAC_HEX + 1, msg, len);
	memcpy(out + CAUSAL_MON_MAC_HEX + 1 + len, "\n", 2);
	return 0;
}

char *causal_mon_open(struct causal_mon_auth *a, char *line)
{
	uint8_t got[SHA256_DIGEST_SIZE], want[SHA256_DIGEST_SIZE];
	char *msg = line + CAUSAL_MON_MAC_HEX + 1;

	if (strnlen(line, CAUSAL_MON_MAC_HEX + 1) < CAUSAL_MON_MAC_HEX + 1 ||
	    line[CAUSAL_MON_MAC_HEX] != ' ')
		return NULL;
	line[CAUSAL_MON_MAC_HEX] = '\0';
	if (unhex(got, line, sizeof(got)))
		return NULL;
	mac(a, a->server ? 'c' : 's', a->opened, msg, strlen(msg), want);
	if (!memeql_sec(got, want, sizeof(got)))
		return NULL;
	a->opened++;
	return msg;
}

int causal_mon_auth_client(struct causal_mon_auth *a,
			   struct causal_mon_key *key, char *line, size_t size)
{
	memset(a, 0, sizeof(*a));
	a->key = key;
	if (fresh(a->nonce[0]) || size < 8 + 2 * CAUSAL_MON_NONCE + 1)
		return -1;
	memcpy(line, "AUTH 2 ", 7);
	hex(line + 7, a->nonce[0], CAUSAL_MON_NONCE);
	return 0;
}

/* "2 NONCE": the version and a nonce in hex; 0 with it in nonce. */
static int take_nonce(char *rest, uint8_t *nonce)
{
	char *v = causal_mon_field(&rest), *n = causal_mon_field(&rest);

	if (!v || strcmp(v, "2") || !n || *rest)
		return -1;
	return unhex(nonce, n, CAUSAL_MON_NONCE);
}

int causal_mon_auth_server(struct causal_mon_auth *a,
			   struct causal_mon_key *key, char *rest, char *out,
			   size_t size)
{
	char line[8 + 2 * CAUSAL_MON_NONCE + 1];

	memset(a, 0, sizeof(*a));
	a->key = key;
	a->server = 1;
	if (take_nonce(rest, a->nonce[0]) || fresh(a->nonce[1]))
		return -1;
	memcpy(line, "AUTH 2 ", 7);
	hex(line + 7, a->nonce[1], CAUSAL_MON_NONCE);
	return causal_mon_seal(a, line, out, size);
}

int causal_mon_auth_check(struct causal_mon_auth *a, char *line)
{
	char copy[CAUSAL_MON_MAC_HEX + 1 + 8 + 2 * CAUSAL_MON_NONCE + 1], *rest,
		*kind, *msg;
	size_t len = strlen(line);

	/* the nonce the MAC covers is in the line: take it, then check */
	if (len >= sizeof(copy) || len < CAUSAL_MON_MAC_HEX + 1)
		return -1;
	memcpy(copy, line + CAUSAL_MON_MAC_HEX + 1, len - CAUSAL_MON_MAC_HEX);
	kind = causal_mon_kind(copy, &rest);
	if (!kind || strcmp(kind, "AUTH") || take_nonce(rest, a->nonce[1]))
		return -1;
	msg = causal_mon_open(a, line);
	return msg ? 0 : -1;
}
