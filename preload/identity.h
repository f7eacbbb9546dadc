/*
 * identity.h - who this process is: the process part of Table 1 and of the
 * log header (process UUID, host, pid, parent, executable, argv, start).
 */
#ifndef CAUSAL_IDENTITY_H
#define CAUSAL_IDENTITY_H

#include <stdint.h>
#include <sys/types.h>

#include "causal/log-format.h"

#define CAUSAL_IDENTITY_ARGV_MAX 65536

struct causal_identity {
	uint8_t uuid[CAUSAL_UUID_LEN];
	uint8_t parent_uuid[CAUSAL_UUID_LEN];
	int has_parent;		/* created by fork() of a traced process */
	char hostname[256];
	pid_t pid, ppid;
	char exe[4096];
	/* argv as NUL-separated strings, possibly cut at ARGV_MAX */
	char argv[CAUSAL_IDENTITY_ARGV_MAX];
	uint32_t argv_len;
	uint32_t argc;
	uint64_t start_realtime_ns, start_mono_ns;
};

/* Fill a new identity for the running process (at start, or after fork). */
void causal_identity_init(struct causal_identity *id);

/* 32 lowercase hex digits and a NUL into out[33]. */
void causal_uuid_hex(const uint8_t *uuid, char *out);

uint64_t causal_clock_ns(int clock_id);

#endif
