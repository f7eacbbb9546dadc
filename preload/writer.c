/*
 * writer.c - the background writer: drains every thread's ring and encodes
 * the records as msgpack into frames; a second thread, the flusher,
 * compresses each frame with zstd and writes it (log-file.h: the queue).
 *
 * Both are infrastructure threads (never traced) with every signal
 * blocked, so the program's signals are never delivered to them.  All
 * encoding goes into the log file's preallocated frame queue: nothing here
 * allocates, which lets the final flush run in a fatal-signal handler.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include "encode.h"
#include "keep.h"
#include "totals.h"
#include "heap.h"
#include "internal.h"
#include "own-files.h"
#include "short-slice.h"
#include "sites.h"
#include "writer-wake.h"

/*
 * Two threads: the writer drains the rings into encoded frames (under
 * writer_mutex), the flusher compresses and writes them (under
 * flush_mutex).  The exit, exec and fork paths take both, in that order.
 */
static pthread_mutex_t writer_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t flush_mutex = PTHREAD_MUTEX_INITIALIZER;
static _Atomic pid_t lock_owner;	/* os tid holding both */
static _Atomic uint32_t flush_word;	/* flusher: frames to write */
static _Atomic uint32_t room_word;	/* writer: the queue has room again */
static _Atomic int starved;		/* the writer waits for room */
static pid_t flusher_os_tid;

void causal_writer_lock(void)
{
	causal_mutex_lock(&writer_mutex);
	causal_mutex_lock(&flush_mutex);
	atomic_store(&lock_owner, gettid());
}

void causal_writer_unlock(void)
{
	atomic_store(&lock_owner, 0);
	causal_mutex_unlock(&flush_mutex);
	causal_mutex_unlock(&writer_mutex);
}

/*
 * In a signal handler: the interrupted thread may hold the locks (then we
 * must not wait for ourselves), or the threads may be mid-round (then a
 * short wait lets them finish).
 */
static int writer_lock_from_signal(void)
{
	struct timespec ms = { 0, 1000000 };
	int i, have = 0;

	if (atomic_load(&lock_owner) == gettid())
		return -1;
	for (i = 0; i < 200; i++) {
		if (!have)
			have = causal_mutex_trylock(&writer_mutex) == 0;
		if (have && causal_mutex_trylock(&flush_mutex) == 0) {
			atomic_store(&lock_owner, gettid());
			return 0;
		}
		nanosleep(&ms, NULL);
	}
	if (have)
		causal_mutex_unlock(&writer_mutex);
	return -1;
}

/*
 * Draining: each ring gives back its space as its records are encoded
 * (ring.c) into frames the flusher takes from there, and one thread's
 * backlog is taken CAUSAL_DRAIN_QUANTUM bytes at a time, in turn with the
 * others, so that it never holds their rings.
 */
#define CAUSAL_DRAIN_QUANTUM (64u << 10)
#define CAUSAL_DRAIN_PASSES 64	/* then let exit, fork and exec in */

static int queue_full;	/* encode_one() stopped: no room for frames */
/* each thread's last pair in the open frame (encode.h): under the writer
 * lock, as the frame is */
static struct causal_pair_memo pair_memo;

/*
 * A probe's start and its end, next in the ring, as one PAIR record
 * (records.def): a quarter fewer bytes to encode and compress.  0 when
 * they are not the two ends of one probe.
 */
static int encode_pair(struct causal_log_file *lf,
		       const struct causal_rec *start,
		       const struct causal_rec *end)
{
	if (causal_encode_pair(&lf->pk, start, end, &pair_memo, lf->frame_no))
		return 0;
	causal_log_file_count(lf, start->type);
	causal_log_file_count(lf, end->type);
	return CAUSAL_RING_TAKE_TWO;
}

static int encode_one(const struct causal_rec *rec,
		      const struct causal_rec *next, void *arg)
{
	struct causal_tbuf *tb = arg;
	struct causal_log_file *lf = &causal_g.log;
	int failed = atomic_load_explicit(&lf->failed, memory_order_relaxed);
	size_t need = CAUSAL_ENCODED_MAX(rec->size) +
		      (next ? CAUSAL_ENCODED_MAX(next->size) : 0);

	if (!failed && causal_log_file_room(lf, need)) {
		queue_full = 1;
		return 1;
	}
	/* tail keep: an unsampled chain's record waits for its chain */
	if (rec->reserved & CAUSAL_REC_HELD && causal_keep_hold(rec))
		return 0;
	if (next && next->reserved & CAUSAL_REC_HELD)
		next = NULL;
	if (!failed && next && encode_pair(lf, rec, next))
		return CAUSAL_RING_TAKE_TWO;
	if (rec->type == CAUSAL_REC_THREAD_END && rec->tid == tb->tid)
		tb->end_written = 1;
	if (failed) {
		/* the log takes nothing more: count, do not encode */
		causal_log_file_lose(lf, rec->type);
		return 0;
	}
	if (causal_encode_record(&lf->pk, rec) == 0)
		causal_log_file_count(lf, rec->type);
	return 0;
}

/*
 * Up to `budget` bytes of tb's ring: 1 if it stopped on the budget, 0 if
 * the ring is drained, -1 if the queue is full.  final: we hold the
 * flusher off, and write frames ourselves to make room.
 */
static int drain_ring(struct causal_tbuf *tb, uint64_t budget, int final)
{
	struct causal_ring *ring = &tb->ring;
	uint64_t start = atomic_load_explicit(&ring->tail, memory_order_relaxed);
	uint64_t done = 0;

	for (;;) {
		queue_full = 0;
		causal_ring_drain_some(ring, budget - done, encode_one, tb);
		done = atomic_load_explicit(&ring->tail, memory_order_relaxed) -
		       start;
		if (!queue_full)
			return done >= budget;
		if (!final || !causal_log_file_write_one(&causal_g.log))
			return -1;
	}
}

static void report_drops(struct causal_tbuf *tb, int final)
{
	struct causal_log_file *lf = &causal_g.log;
	uint64_t dropped = atomic_load_explicit(&tb->dropped,
						memory_order_relaxed);

	if (dropped == tb->dropped_reported)
		return;
	if (final)
		causal_log_file_reserve(lf, 64);
	else if (causal_log_file_room(lf, 64))
		return; /* the next round will */
	causal_encode_drops(&lf->pk, tb->tid, causal_now_ns(), dropped);
	causal_log_file_count(lf, CAUSAL_REC_DROPS);
	tb->dropped_reported = dropped;
}

/*
 * Move the committed records of every thread into frames.  final (exit,
 * exec): everything, in one pass.  Otherwise in turns of a quantum per
 * ring, for a bounded number of passes.  Returns 1 if records were left
 * in the rings, -1 if the queue is full, else 0.
 */
static int drain_all(int final)
{
	uint64_t budget = final ? UINT64_MAX : CAUSAL_DRAIN_QUANTUM;
	struct causal_tbuf *tb;
	int pass = 0, again, r;

	do {
		again = 0;
		for (tb = causal_tbufs_first(); tb; tb = tb->next_all) {
			/* state first: a DEAD buffer's records are all
			 * committed */
			int state = atomic_load_explicit(&tb->state,
							 memory_order_acquire);

			if (state == CAUSAL_TBUF_FREE)
				continue;
			r = drain_ring(tb, budget, final);
			if (r < 0)
				return -1;
			again |= r;
			report_drops(tb, final);
			if (causal_totals_report(tb, final) < 0)
				continue; /* totals.h: not yet recycled */
			if (state == CAUSAL_TBUF_DEAD &&
			    causal_ring_empty(&tb->ring))
				causal_tbuf_recycle(tb);
		}
	} while (again && ++pass < CAUSAL_DRAIN_PASSES);
	return again;
}

static uint64_t dropped_total(void)
{
	struct causal_tbuf *tb;
	uint64_t n = causal_tbufs_dropped_elsewhere();

	for (tb = causal_tbufs_first(); tb; tb = tb->next_all)
		if (atomic_load(&tb->state) != CAUSAL_TBUF_FREE)
			n += atomic_load(&tb->dropped);
	return n;
}

static uint64_t cpu_of_thread(pid_t os_tid)
{
	/* the kernel's per-thread CPU clock id (what pthread_getcpuclockid
	 * builds), usable while the thread runs; 0 if it is gone */
	clockid_t clk = (clockid_t)((~(unsigned)os_tid) << 3) | 6;

	if (os_tid == gettid())
		return causal_thread_cpu_ns();
	return causal_clock_ns(clk);
}

/*
 * The heap counters of a thread still running, read from its TLS (which
 * it registered in its buffer): with process_vm_readv(), which answers
 * EFAULT rather than fault should the thread have ended and its stack
 * gone in the meantime.  0, or -1 when they cannot be read.
 */
static int heap_of_thread(const struct causal_tbuf *tb,
			  struct causal_heap_tls *out)
{
	struct causal_heap_tls *h =
		atomic_load_explicit(&tb->heap, memory_order_acquire);
	struct iovec local = { out, sizeof(*out) }, remote = { h, sizeof(*h) };

	if (!h)
		return -1;
	if (tb->os_tid == gettid()) {
		*out = *h;
		return 0;
	}
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) ==
			       (ssize_t)sizeof(*out)
		       ? 0
		       : -1;
}

/* Threads still running when the image ends get an AT_EXIT end record. */
static void end_live_threads(void)
{
	struct causal_log_file *lf = &causal_g.log;
	struct causal_heap_tls heap;
	struct causal_tbuf *tb;
	uint32_t epoch = causal_heap_epoch();

	for (tb = causal_tbufs_first(); tb; tb = tb->next_all) {
		int have_heap;

		if (atomic_load(&tb->state) != CAUSAL_TBUF_LIVE ||
		    tb->end_written || !tb->tid)
			continue;
		have_heap = epoch && !heap_of_thread(tb, &heap);
		causal_log_file_reserve(lf, 128);
		causal_encode_thread_end(
			&lf->pk, tb->tid, causal_now_ns(),
			tb->cpu_at_start ? cpu_of_thread(tb->os_tid) : 0,
			CAUSAL_THREAD_AT_EXIT, have_heap ? &heap : NULL, epoch,
			tb->cpu_at_start ? 0 : CAUSAL_MON_CPU);
		causal_log_file_count(lf, CAUSAL_REC_THREAD_END);
		tb->end_written = 1;
	}
}

/* The PROCESS_END of this process, kept for the loss slot. */
static struct {
	uint64_t mono_ns, realtime_ns, dropped, heap_peak;
	uint32_t reason, heap_epoch;
	int64_t detail;
} proc_end;

static void write_process_end(uint32_t reason, int64_t detail)
{
	struct causal_log_file *lf = &causal_g.log;
	uint64_t records;

	/* the last segment takes the rest: no HEADER is written after the
	 * count below (the segments' HEADERs are in it) */
	lf->no_rotate = 1;
	records = lf->records_sealed + lf->frame_records +
		  atomic_load(&lf->header_records);
	proc_end.mono_ns = causal_now_ns();
	proc_end.realtime_ns = causal_clock_ns(CLOCK_REALTIME);
	proc_end.reason = reason;
	proc_end.detail = detail;
	proc_end.dropped = dropped_total();
	proc_end.heap_epoch = causal_heap_epoch();
	proc_end.heap_peak = causal_heap_process_peak();
	causal_log_file_reserve(lf, 128);
	causal_encode_process_end(&lf->pk, proc_end.mono_ns,
				  proc_end.realtime_ns, reason, detail, records,
				  proc_end.dropped, proc_end.heap_epoch,
				  proc_end.heap_peak);
	causal_log_file_count(lf, CAUSAL_REC_PROCESS_END);
}

/*
 * A write failed (a full disk, most often): the data frames stop there.
 * Say so once, and put what was lost (and the process end, once known)
 * in the loss slot, which is rewritten in place and so needs no space.
 */
static int loss_said, end_in_slot;
static uint64_t loss_in_slot;	/* lf->lost the slot shows, + 1 */

static void write_loss(int ended)
{
	struct causal_log_file *lf = &causal_g.log;
	uint64_t by_type[CAUSAL_TYPES], lost;
	const char *why;

	if (!atomic_load_explicit(&lf->failed, memory_order_acquire))
		return;
	if (ended && !end_in_slot) {
		/* its frame failed, so it was counted lost: it is in the slot
		 * instead (or replaces one there, which is lost then) */
		atomic_fetch_sub(&lf->lost, 1);
		atomic_fetch_sub(&lf->lost_types[CAUSAL_REC_PROCESS_END], 1);
	}
	end_in_slot |= ended;
	lost = atomic_load(&lf->lost);
	if (!ended && loss_in_slot == lost + 1)
		return;
	if (!loss_said) {
		why = strerrordesc_np(lf->error);
		causal_say("causal: cannot write log '", lf->path, "': ",
			   why ? why : "error",
			   "; the rest of the trace is counted as lost", NULL);
		loss_said = 1;
	}
	for (unsigned t = 0; t < CAUSAL_TYPES; t++)
		by_type[t] = atomic_load_explicit(&lf->lost_types[t],
						  memory_order_relaxed);
	causal_log_file_slot_begin(lf);
	causal_encode_loss(&lf->slot_pk, causal_now_ns(), lf->error, lost,
			   by_type, CAUSAL_TYPES);
	if (end_in_slot)
		causal_encode_process_end(&lf->slot_pk, proc_end.mono_ns,
					  proc_end.realtime_ns, proc_end.reason,
					  proc_end.detail, lf->records_written,
					  proc_end.dropped, proc_end.heap_epoch,
					  proc_end.heap_peak);
	if (causal_log_file_slot_write(lf) == 0)
		loss_in_slot = lost + 1;
}

/* The HEADER of a log's segment (log-file.h): by the flusher, or by the
 * writer for the first. */
static void segment_header(struct causal_log_file *lf, msgpack_packer *pk)
{
	struct causal_segment_note seg = { lf->segment, lf->deleted_segments,
					   lf->deleted_records,
					   lf->deleted_bytes };

	causal_encode_segment_header(
		pk, &causal_g.id, causal_g.cfg.buffer_kb, causal_g.cfg.flush_ms,
		causal_cpu_clock.slots ? CAUSAL_CPU_CLOCK_BPF
				       : CAUSAL_CPU_CLOCK_SYSCALL,
		~causal_g.cfg.sample, &seg);
}

int causal_writer_header(void)
{
	struct causal_log_file *lf = &causal_g.log;
	int ret;

	causal_log_file_segments(lf, causal_g.cfg.log_segment_mb,
				 causal_g.cfg.log_max_mb, segment_header);
	segment_header(lf, &lf->pk);
	causal_log_file_count(lf, CAUSAL_REC_HEADER);
	ret = causal_log_file_flush(lf);
	if (ret)
		/* a full disk from the start: no log rather than an empty one */
		causal_log_file_remove(lf);
	lf->seg_start_size = lf->size;
	return ret;
}

/*
 * The exact totals (totals.c) are rewritten in each new segment: their hook,
 * when linked in, is told on the writer thread (under the writer lock)
 * once the segment's HEADER is written.
 */
void causal_segment_opened(void) __attribute__((weak));

static void tell_segment_opened(struct causal_log_file *lf, uint32_t *seen)
{
	uint32_t now = atomic_load_explicit(&lf->segments_opened,
					    memory_order_acquire);

	if (now == *seen)
		return;
	*seen = now;
	if (causal_segment_opened)
		causal_segment_opened();
}

static void infra_thread(const char *name)
{
	causal_self.status = CAUSAL_THREAD_INFRA;
	causal_self.in_hook = 1;
	causal_self.ctx.marker = CAUSAL_MARKER_INFRA;
	/* ps -L, top -H and the benchmarks tell it from the program's */
	prctl(PR_SET_NAME, name);
}

static void *writer_main(void *arg)
{
	struct causal_log_file *lf = &causal_g.log;
	struct timespec period = {
		.tv_sec = causal_g.cfg.flush_ms / 1000,
		.tv_nsec = (long)(causal_g.cfg.flush_ms % 1000) * 1000000,
	};
	uint64_t period_ns = (uint64_t)causal_g.cfg.flush_ms * 1000000;
	uint64_t frame_since = 0;	/* when the open frame got records */
	uint32_t segments_seen = 0;
	int busy = 0, full = 0;

	(void)arg;
	infra_thread("causal-writer");
	causal_own_files(-1); /* it writes no file */
	causal_ask_short_slice();
	causal_writer_here();
	while (causal_running()) {
		uint64_t head;

		/* woken by the flusher (room), or by the probes */
		if (full)
			causal_futex_wait(&room_word, &period);
		else if (!busy)
			causal_writer_wait(&period);
		causal_writer_woken();
		causal_sites_name(); /* reads files: not under the lock */
		causal_mutex_lock(&writer_mutex);
		if (!causal_running() || getpid() != causal_g.id.pid) {
			causal_mutex_unlock(&writer_mutex);
			break;
		}
		tell_segment_opened(lf, &segments_seen);
		head = atomic_load_explicit(&lf->q_head, memory_order_relaxed);
		busy = drain_all(0);
		causal_keep_round(lf, 0);
		causal_sites_write(lf, CAUSAL_SITES_ROUND);
		full = busy < 0;
		if (full)
			atomic_store(&starved, 1);
		/*
		 * A frame goes to the flusher once it is worth a zstd frame
		 * and a write of its own, or has waited a period: a killed
		 * process loses about a period of records at most.
		 */
		if (!lf->frame_len)
			frame_since = 0;
		else if (!frame_since)
			frame_since = causal_now_ns();
		if (lf->frame_len >= CAUSAL_FRAME_MIN || full ||
		    (frame_since &&
		     causal_now_ns() - frame_since >= period_ns)) {
			causal_log_file_seal(lf);
			frame_since = 0;
		}
		if (atomic_load_explicit(&lf->q_head, memory_order_relaxed) !=
			    head ||
		    full || atomic_load(&lf->failed))
			causal_futex_wake(&flush_word);
		causal_mutex_unlock(&writer_mutex);
		busy = busy > 0;
	}
	return NULL;
}

static void *flusher_main(void *arg)
{
	struct causal_log_file *lf = &causal_g.log;
	struct timespec period = {
		.tv_sec = causal_g.cfg.flush_ms / 1000,
		.tv_nsec = (long)(causal_g.cfg.flush_ms % 1000) * 1000000,
	};

	(void)arg;
	infra_thread("causal-flusher");
	causal_mutex_lock(&flush_mutex);
	causal_own_files(lf->fd); /* the log's: check_fd() reopens it */
	causal_mutex_unlock(&flush_mutex);
	flusher_os_tid = gettid();
	while (causal_running()) {
		causal_futex_wait(&flush_word, &period);
		causal_mutex_lock(&flush_mutex);
		if (!causal_running() || getpid() != causal_g.id.pid) {
			causal_mutex_unlock(&flush_mutex);
			break;
		}
		while (causal_log_file_write_one(lf))
			if (atomic_exchange(&starved, 0))
				causal_futex_wake(&room_word);
		write_loss(0);
		causal_mutex_unlock(&flush_mutex);
	}
	return NULL;
}

static int start_thread(void *(*fn)(void *))
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	ret = causal_real.pthread_create(&th, &attr, fn, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}

int causal_writer_start(void)
{
	int ret = start_thread(flusher_main);

	return ret ? ret : start_thread(writer_main);
}

void causal_writer_after_fork(void)
{
	loss_said = 0;
	end_in_slot = 0;
	loss_in_slot = 0;
	/* a new log: no pair of the parent's frame to step from */
	memset(&pair_memo, 0, sizeof(pair_memo));
	causal_keep_after_fork();
	pthread_mutex_init(&writer_mutex, NULL);
	pthread_mutex_init(&flush_mutex, NULL);
	atomic_store(&lock_owner, 0);
	causal_writer_wake_after_fork();
	atomic_store(&flush_word, 0);
	atomic_store(&room_word, 0);
	atomic_store(&starved, 0);
}

void causal_writer_before_exec(const char *path)
{
	struct causal_log_file *lf = &causal_g.log;
	size_t len = strnlen(path, CAUSAL_MAX_PATH_IN_RECORD);
	uint8_t buf[sizeof(struct rec_exec) + CAUSAL_MAX_PATH_IN_RECORD + 8];
	struct rec_exec *r = (void *)buf;
	struct causal_tbuf *tb;

	/* a vfork child shares the parent's memory: touch nothing */
	if (!causal_running() || getpid() != causal_g.id.pid)
		return;
	tb = causal_thread_current();
	r->hdr.type = CAUSAL_REC_EXEC;
	r->hdr.size = (uint32_t)CAUSAL_REC_ALIGN(sizeof(*r) + len);
	r->hdr.tid = tb ? tb->tid : 0;
	r->hdr.aux = (uint32_t)len;
	r->hdr.mono_ns = causal_now_ns();
	memcpy(r->tail, path, len);

	causal_writer_lock();
	drain_all(1);
	causal_keep_round(lf, 1);
	causal_sites_write(lf, CAUSAL_SITES_FINAL);
	causal_log_file_reserve(lf, CAUSAL_ENCODED_MAX(r->hdr.size));
	if (causal_encode_record(&lf->pk, &r->hdr) == 0)
		causal_log_file_count(lf, CAUSAL_REC_EXEC);
	end_live_threads();
	write_process_end(CAUSAL_END_EXEC, 0);
	causal_log_file_flush(lf);
	write_loss(1);
	/* should the exec fail, the log goes on, and rotates */
	lf->no_rotate = 0;
	causal_writer_unlock();
}

void causal_writer_finish(uint32_t reason, int64_t detail, int from_signal)
{
	struct causal_log_file *lf = &causal_g.log;

	/* a vfork child, or one made by _Fork() without fork handlers, shares
	 * or copies the parent's state: it must not write the parent's log */
	if (!causal_running() || getpid() != causal_g.id.pid)
		return;
	if (from_signal) {
		if (gettid() == causal_writer_os_tid() ||
		    gettid() == flusher_os_tid || writer_lock_from_signal())
			return;
	} else {
		causal_writer_lock();
	}
	if (!causal_running()) {
		causal_writer_unlock();
		return;
	}
	atomic_store_explicit(&causal_run.state, CAUSAL_FINISHED,
			      memory_order_release);
	drain_all(1);
	causal_keep_round(lf, 1);
	causal_sites_write(lf, from_signal ? CAUSAL_SITES_SIGNAL
					   : CAUSAL_SITES_FINAL);
	end_live_threads();
	write_process_end(reason, detail);
	causal_log_file_flush(lf);
	write_loss(1);
	causal_log_file_close_segment(lf);
	causal_writer_unlock();
	/* let the threads see FINISHED and return */
	causal_writer_wake();
	causal_futex_wake(&flush_word);
}
