/*
 * writer-cost.c - what the background writer spends per record: msgpack
 * encoding (preload/encode.c) and zstd compression plus write
 * (preload/log-file.c) of the records a serving thread makes, one
 * RPC_SKEL_START and one RPC_SKEL_END per call, at several zstd levels.
 *
 *   writer-cost [CALLS [LEVEL...]]     (default 200000; levels -5 -3 -1 1 3)
 *
 * Prints, per level, the writer's CPU per record (its thread CPU clock
 * around encode + compress + write into a file under /tmp, the median of
 * 7 runs, levels in turn) and the log bytes per record; and the CPU of encoding alone.
 * The level the library uses is marked.
 */
#include <fcntl.h>
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

static uint64_t rnd_state = 88172645463325252ull;

static uint32_t rnd(void) /* xorshift64: the noise real clocks have */
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)rnd_state;
}

/*
 * A serving thread's records, as demo-server's under 16 client threads
 * of 2 processes: calls in no order between the clients, each client's
 * chain counting its events and its xids, times and CPU with the jitter
 * of real clocks (what bounds how well zstd does).
 */
static uint8_t *make_records(uint64_t calls, size_t *len)
{
	size_t per = CAUSAL_REC_ALIGN(sizeof(struct rec_rpc_skel_start) +
				      sizeof(struct sockaddr_in)) +
		     sizeof(struct rec_rpc_skel_end);
	uint8_t *buf = calloc(calls, per), *p = buf;
	uint64_t now = 1000000000000ull, cpu = 5000000, fn = 1;
	uint64_t events[16] = { 0 };
	uint32_t xids[16], ports[16];
	struct sockaddr_in sin = { .sin_family = AF_INET };

	for (int c = 0; c < 16; c++) {
		xids[c] = rnd();
		ports[c] = 32768 + rnd() % 28000;
	}
	for (uint64_t i = 0; i < calls; i++) {
		struct rec_rpc_skel_start *s = (void *)p;
		struct rec_rpc_skel_end *e;
		uint32_t client = rnd() % 16;

		s->p.hdr.type = CAUSAL_REC_RPC_SKEL_START;
		s->p.hdr.size = (uint32_t)CAUSAL_REC_ALIGN(sizeof(*s) + sizeof(sin));
		s->p.hdr.tid = 1;
		s->p.hdr.aux = sizeof(sin);
		s->p.hdr.mono_ns = now;
		/* 16 bytes of its process's uuid, 4 of a counter */
		memset(s->p.chain, 0x40 + client / 8, 16);
		s->p.chain[19] = (uint8_t)client;
		events[client] += 4;
		s->p.event = events[client] - 2;
		s->p.function = fn;
		s->p.mono_exit_ns = now + 600 + rnd() % 2000;
		s->p.cpu_ns = cpu + rnd() % 500;
		s->prog = 0x20000c5a;
		s->vers = 1;
		s->proc = 1;
		s->xid = xids[client]++;
		s->object_id = 1;
		s->args_bytes = 4 + 48;
		s->transport = CAUSAL_TRANSPORT_TCP;
		sin.sin_port = htons((uint16_t)ports[client]);
		sin.sin_addr.s_addr = htonl(0x7f000001);
		memcpy(s->tail, &sin, sizeof(sin));
		p += s->p.hdr.size;
		now += 3000 + rnd() % 6000;
		cpu += 2000 + rnd() % 3000;

		e = (void *)p;
		e->p.hdr.type = CAUSAL_REC_RPC_SKEL_END;
		e->p.hdr.size = sizeof(*e);
		e->p.hdr.tid = 1;
		e->p.hdr.mono_ns = now;
		memcpy(e->p.chain, s->p.chain, sizeof(e->p.chain));
		e->p.event = s->p.event + 1;
		e->p.function = fn++;
		e->p.mono_exit_ns = now + 400 + rnd() % 1500;
		e->p.cpu_ns = cpu + rnd() % 500;
		e->results_bytes = 4 + 48;
		p += e->p.hdr.size;
		now += 8000 + rnd() % 30000;
		cpu += 6000 + rnd() % 8000;
	}
	*len = (size_t)(p - buf);
	return buf;
}

/*
 * Encode every record into lf's frames, sealed at CAUSAL_FRAME_MIN bytes
 * as the library's writer does under load; compress and write them, or
 * (flush 0) drop them.
 */
static void run(struct causal_log_file *lf, const uint8_t *recs, size_t len,
		int flush)
{
	for (size_t off = 0; off < len;) {
		const struct causal_rec *r = (const void *)(recs + off);

		if (lf->frame_len >= CAUSAL_FRAME_MIN) {
			if (flush) {
				causal_log_file_flush(lf);
			} else {
				lf->frame_len = 0;
				lf->frame_records = 0;
			}
		}
		causal_log_file_room(lf, CAUSAL_ENCODED_MAX(r->size));
		causal_encode_record(&lf->pk, r);
		causal_log_file_count(lf, r->type);
		off += r->size;
	}
	if (flush)
		causal_log_file_flush(lf);
	lf->frame_len = 0;
	lf->frame_records = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define RUNS 7 /* the median of: the machine is shared */

int main(int argc, char **argv)
{
	uint64_t calls = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
	static const int def_levels[] = { -5, -3, -1, 1, 3 };
	int nlevels = argc > 2 ? argc - 2 : 5, levels[16];
	uint64_t ns[16][RUNS], bytes[16], enc[16 * RUNS];
	char dir[] = "/tmp/causal-writer-cost-XXXXXX";
	struct causal_log_file lf;
	const char *what;
	uint64_t n = 2 * calls, t0, t1;
	int dir_fd;
	size_t len;
	uint8_t *recs = make_records(calls, &len);

	if (nlevels > 16)
		nlevels = 16;
	for (int i = 0; i < nlevels; i++)
		levels[i] = argc > 2 ? atoi(argv[2 + i]) : def_levels[i];
	if (!calls || !mkdtemp(dir)) {
		fprintf(stderr, "usage: writer-cost [CALLS [LEVEL...]]\n");
		return 2;
	}
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		fprintf(stderr, "writer-cost: cannot open '%s'\n", dir);
		return 1;
	}
	/* the levels in turn, RUNS times: drift of a shared machine falls
	 * on all of them alike */
	for (int k = 0; k < RUNS; k++) {
		for (int i = 0; i < nlevels; i++) {
			char uuid[33];
			struct stat st;

			snprintf(uuid, sizeof(uuid), "%032x", i * RUNS + k);
			if (causal_log_file_open(&lf, dir_fd, dir, "bench", 1,
						 uuid, &what)) {
				fprintf(stderr, "writer-cost: cannot %s in '%s'\n",
					what, dir);
				return 1;
			}
			t0 = cpu_ns();
			run(&lf, recs, len, 0);
			enc[k * nlevels + i] = cpu_ns() - t0;
			ZSTD_CCtx_setParameter(lf.cctx, ZSTD_c_compressionLevel,
					       levels[i]);
			t0 = cpu_ns();
			run(&lf, recs, len, 1);
			t1 = cpu_ns();
			ns[i][k] = t1 - t0;
			causal_log_file_close(&lf);
			causal_log_file_release(&lf);
			if (stat(lf.path, &st) || lf.failed) {
				fprintf(stderr, "writer-cost: writing '%s' failed\n",
					lf.path);
				return 1;
			}
			bytes[i] = (uint64_t)st.st_size;
			unlink(lf.path);
		}
	}
	qsort(enc, (size_t)RUNS * nlevels, sizeof(enc[0]), cmp_u64);
	printf("encode alone: %.0f ns per record (%zu ring bytes per call)\n",
	       (double)enc[RUNS * nlevels / 2] / (double)n, len / calls);
	for (int i = 0; i < nlevels; i++) {
		qsort(ns[i], RUNS, sizeof(ns[i][0]), cmp_u64);
		printf("zstd level %2d: %4.0f ns per record (encode + compress "
		       "+ write), %5.1f log bytes per record%s\n", levels[i],
		       (double)ns[i][RUNS / 2] / (double)n,
		       (double)bytes[i] / (double)n,
		       levels[i] == CAUSAL_ZSTD_LEVEL ? "  <- the library's" : "");
	}
	close(dir_fd);
	rmdir(dir);
	free(recs);
	return 0;
}
