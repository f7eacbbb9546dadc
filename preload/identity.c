#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "hex.h"
#include "identity.h"
#include "read-file.h"
#include "timespec.h"

uint64_t causal_clock_ns(int clock_id)
{
	struct timespec ts;

	if (clock_gettime(clock_id, &ts))
		return 0;
	return timespec_ns(&ts);
}

void causal_uuid_hex(const uint8_t *uuid, char *out)
{
	hex_encode(out, uuid, CAUSAL_UUID_LEN);
}

/*
 * Random version-4 UUID.  GRND_NONBLOCK: a program started early at boot
 * must not wait for the entropy pool because of us; the fallback mixes
 * clocks and ids, which is unique enough to tell processes apart.
 */
static void new_uuid(uint8_t *uuid, pid_t pid)
{
	if (getrandom(uuid, CAUSAL_UUID_LEN, GRND_NONBLOCK) != CAUSAL_UUID_LEN) {
		uint64_t a = causal_clock_ns(CLOCK_REALTIME);
		uint64_t b = causal_clock_ns(CLOCK_MONOTONIC) ^
			     ((uint64_t)pid << 32) ^ (uint64_t)(uintptr_t)uuid;

		memcpy(uuid, &a, 8);
		memcpy(uuid + 8, &b, 8);
	}
	uuid[6] = (uuid[6] & 0x0f) | 0x40;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
}

void causal_identity_init(struct causal_identity *id)
{
	struct utsname uts;
	ssize_t n;
	uint32_t i;

	id->pid = getpid();
	id->ppid = getppid();
	new_uuid(id->uuid, id->pid);
	if (uname(&uts) == 0)
		memcpy(id->hostname, uts.nodename, sizeof(id->hostname) - 1 <
		       sizeof(uts.nodename) ? sizeof(id->hostname) - 1 :
		       sizeof(uts.nodename));
	else
		strcpy(id->hostname, "unknown");
	id->hostname[sizeof(id->hostname) - 1] = '\0';

	n = readlink("/proc/self/exe", id->exe, sizeof(id->exe) - 1);
	id->exe[n > 0 ? n : 0] = '\0';

	/* NUL-separated: the length says where it ends */
	n = causal_file_read("/proc/self/cmdline", id->argv, sizeof(id->argv),
			     0);
	id->argv_len = n > 0 ? (uint32_t)n : 0;
	id->argc = 0;
	for (i = 0; i < id->argv_len; i++)
		if (id->argv[i] == '\0')
			id->argc++;
	if (id->argv_len && id->argv[id->argv_len - 1] != '\0')
		id->argc++; /* cut short: the last argument is partial */

	id->start_realtime_ns = causal_clock_ns(CLOCK_REALTIME);
	id->start_mono_ns = causal_clock_ns(CLOCK_MONOTONIC);
}
