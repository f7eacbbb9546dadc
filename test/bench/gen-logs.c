/*
 * gen-logs.c - write a synthetic directory of causal logs for the merge
 * benchmark: NPROCS processes with about RECORDS records each, a mix of
 * THREAD_START / THREAD_SPAWN / THREAD_END / DROPS, in frames of about
 * 64 KiB like the library's flushes.  Deterministic.
 *
 *	gen-logs DIR [NPROCS [RECORDS_PER_PROC]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../log-fixture.h"

#define FRAME_BYTES 65536

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : NULL;
	int nprocs = argc > 2 ? atoi(argv[2]) : 8;
	long per_proc = argc > 3 ? atol(argv[3]) : 250000;
	static const char *const args[] = { "server", "--port", "1234" };
	long total = 0;

	if (!dir || nprocs <= 0 || per_proc < 4) {
		fprintf(stderr, "usage: gen-logs DIR [NPROCS [RECORDS_PER_PROC]]\n");
		return 2;
	}
	mkdir(dir, 0777);
	for (int p = 0; p < nprocs; p++) {
		struct fixture_log fl;
		uint8_t uuid[16], chain[CAUSAL_CHAIN_ID_LEN] = { 0 };
		char path[4096], host[32];
		uint64_t mono = 1000000 + p, tid = 1;
		long n = 0;

		for (int i = 0; i < 16; i++)
			uuid[i] = (uint8_t)(p * 31 + i * 7 + 1);
		memcpy(chain, uuid, 16);
		snprintf(host, sizeof(host), "node%d", p % 3);
		snprintf(path, sizeof(path), "%s/%s.%d.%02x%02x.clog", dir, host,
			 1000 + p, uuid[0], uuid[1]);
		if (fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION)) {
			perror(path);
			return 1;
		}
		fixture_log_header(&fl, mono, uuid, host, 1000 + p, 1, "/usr/bin/server",
				   3, args, 1700000000000000000ull + p,
				   p ? NULL : NULL, 256, 100);
		fixture_log_thread_start(&fl, 1, ++mono, 0, 1000 + p, 0, 5, NULL, 0, 0);
		n = 2;
		while (n + 5 < per_proc) {
			uint64_t child = ++tid;

			chain[16] = (uint8_t)child;
			fixture_log_spawn(&fl, 1, mono += 13, child);
			fixture_log_thread_start(&fl, child, mono += 17, 1, 5000 + child,
						 child & 1, 100, chain, child, 7);
			if (child % 4 == 0) {
				fixture_log_drops(&fl, child, mono += 3, child % 100);
				n++;
			}
			fixture_log_thread_end(&fl, child, mono += 1000, 100 + child * 3,
					       CAUSAL_THREAD_RETURNED);
			n += 3;
			if (fl.sb.size >= FRAME_BYTES)
				fixture_log_flush(&fl);
		}
		fixture_log_thread_end(&fl, 1, mono += 5, 999, CAUSAL_THREAD_AT_EXIT);
		mono += 5;
		fixture_log_process_end(&fl, mono, 1700000000000000000ull + mono,
					CAUSAL_END_EXIT, 0, n + 2, 0);
		n += 2;
		if (fixture_log_close(&fl)) {
			fprintf(stderr, "gen-logs: cannot write '%s'\n", path);
			return 1;
		}
		total += n;
	}
	printf("%ld\n", total);
	return 0;
}
