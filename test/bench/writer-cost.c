/*
 * writer-cost.c - what the background writer spends per record: msgpack
 * encoding (preload/encode.c) and zstd compression plus write
 * (preload/log-file.c) of the records a serving thread makes, one
 * RPC_SKEL_START and one RPC_SKEL_END per call, at several zstd levels.
 *
 *   writer-cost [CALLS [LEVEL...]]     (default 200000; levels -5 -3 -1 1 3)
 *
 * Prints, per level, the writer's CPU per record (its thread CPU clock
 * around encode + compress + write into a file under /tmp) and the log
 * bytes per record; and the CPU of encoding alone.  The level the library
 * uses is marked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netinet/in.h>
#include <zstd.h>

#include "encode.h"
#include "log-file.h"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A serving thread's records: 64 client chains, calls interleaved. */
static uint8_t *make_records(uint64_t calls, size_t *len)
{
	size_t per = CAUSAL_REC_ALIGN(sizeof(struct rec_rpc_skel_start) +
				      sizeof(struct sockaddr_in)) +
		     sizeof(struct rec_rpc_skel_end);
	uint8_t *buf = calloc(calls, per), *p = buf;
	uint64_t now = 1000000000000ull, cpu = 5000000, fn = 1;
	struct sockaddr_in sin = { .sin_family = AF_INET };

	for (uint64_t i = 0; i < calls; i++) {
		struct rec_rpc_skel_start *s = (void *)p;
		struct rec_rpc_skel_end *e;
		uint32_t client = (uint32_t)(i % 64);

		s->p.hdr.type = CAUSAL_REC_RPC_SKEL_START;
		s->p.hdr.size = (uint32_t)CAUSAL_REC_ALIGN(sizeof(*s) + sizeof(sin));
		s->p.hdr.tid = 1;
		s->p.hdr.aux = sizeof(sin);
		s->p.hdr.mono_ns = now;
		memset(s->p.chain, 0x40 + client % 4, 16); /* 4 client processes */
		s->p.chain[19] = (uint8_t)client;
		s->p.event_no = 1 + 2 * (i / 64);
		s->p.function_id = fn;
		s->p.mono_exit_ns = now + 900 + i % 300;
		s->p.cpu_ns = cpu;
		s->prog = 0x20000c5a;
		s->vers = 1;
		s->proc = 1;
		s->xid = (uint32_t)(0x5a5a0000 + i);
		s->object_id = 1;
		s->args_bytes = 4 + 48;
		s->transport = CAUSAL_TRANSPORT_TCP;
		sin.sin_port = htons((uint16_t)(40000 + client));
		sin.sin_addr.s_addr = htonl(0x7f000001);
		memcpy(s->peer, &sin, sizeof(sin));
		p += s->p.hdr.size;
		now += 2500 + i % 700;
		cpu += 2000 + i % 500;

		e = (void *)p;
		e->p.hdr.type = CAUSAL_REC_RPC_SKEL_END;
		e->p.hdr.size = sizeof(*e);
		e->p.hdr.tid = 1;
		e->p.hdr.mono_ns = now;
		memcpy(e->p.chain, s->p.chain, sizeof(e->p.chain));
		e->p.event_no = s->p.event_no + 1;
		e->p.function_id = fn++;
		e->p.mono_exit_ns = now + 700 + i % 200;
		e->p.cpu_ns = cpu;
		e->results_bytes = 4 + 48;
		p += e->p.hdr.size;
		now += 15000 + i % 5000;
		cpu += 9000 + i % 3000;
	}
	*len = (size_t)(p - buf);
	return buf;
}

/* Encode every record into lf's frame; flush (compress, write) or not. */
static void run(struct causal_log_file *lf, const uint8_t *recs, size_t len,
		int flush)
{
	for (size_t off = 0; off < len;) {
		const struct causal_rec *r = (const void *)(recs + off);

		if (lf->frame_len + CAUSAL_ENCODED_MAX(r->size) > CAUSAL_FRAME_MAX) {
			if (flush)
				causal_log_file_flush(lf);
			lf->frame_len = 0;
			lf->frame_records = 0;
		}
		causal_encode_record(&lf->pk, r);
		lf->frame_records++;
		off += r->size;
	}
	if (flush)
		causal_log_file_flush(lf);
	lf->frame_len = 0;
}

int main(int argc, char **argv)
{
	uint64_t calls = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
	static const int def_levels[] = { -5, -3, -1, 1, 3 };
	int nlevels = argc > 2 ? argc - 2 : 5;
	char dir[] = "/tmp/causal-writer-cost-XXXXXX";
	struct causal_log_file lf;
	const char *what;
	uint64_t n = 2 * calls, t0, t1;
	size_t len;
	uint8_t *recs = make_records(calls, &len);

	if (!calls || !mkdtemp(dir)) {
		fprintf(stderr, "usage: writer-cost [CALLS [LEVEL...]]\n");
		return 2;
	}
	for (int i = 0; i < nlevels; i++) {
		int level = argc > 2 ? atoi(argv[2 + i]) : def_levels[i];
		char uuid[33];
		struct stat st;

		snprintf(uuid, sizeof(uuid), "%032x", i);
		if (causal_log_file_open(&lf, dir, "bench", 1, uuid, &what)) {
			fprintf(stderr, "writer-cost: cannot %s in '%s'\n", what, dir);
			return 1;
		}
		if (i == 0) {
			run(&lf, recs, len, 0); /* warm up: page faults */
			t0 = cpu_ns();
			run(&lf, recs, len, 0);
			t1 = cpu_ns();
			printf("encode alone: %.0f ns per record (%zu ring bytes "
			       "per call)\n", (double)(t1 - t0) / (double)n,
			       len / calls);
		}
		ZSTD_CCtx_setParameter(lf.cctx, ZSTD_c_compressionLevel, level);
		t0 = cpu_ns();
		run(&lf, recs, len, 1);
		t1 = cpu_ns();
		causal_log_file_close(&lf);
		causal_log_file_release(&lf);
		if (stat(lf.path, &st) || lf.failed) {
			fprintf(stderr, "writer-cost: writing '%s' failed\n", lf.path);
			return 1;
		}
		printf("zstd level %2d: %4.0f ns per record (encode + compress "
		       "+ write), %5.1f log bytes per record%s\n", level,
		       (double)(t1 - t0) / (double)n, (double)st.st_size / (double)n,
		       level == CAUSAL_ZSTD_LEVEL ? "  <- the library's" : "");
		unlink(lf.path);
	}
	rmdir(dir);
	free(recs);
	return 0;
}
