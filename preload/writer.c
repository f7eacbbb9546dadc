/*
 * writer.c - the background writer: drains every thread's ring, encodes the
 * records as msgpack and writes them as one zstd frame per round.
 *
 * It is an infrastructure thread (never traced) with every signal blocked,
 * so the program's signals are never delivered to it.  All encoding goes
 * into the log file's preallocated frame buffer: nothing here allocates,
 * which lets the final flush run in a fatal-signal handler.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "encode.h"
#include "internal.h"

static pthread_mutex_t writer_mutex = PTHREAD_MUTEX_INITIALIZER;
static _Atomic pid_t writer_owner;	/* os tid holding writer_mutex */
static _Atomic uint32_t wake_word;
static pid_t writer_os_tid;

void causal_writer_wake(void)
{
	if (atomic_exchange_explicit(&wake_word, 1, memory_order_relaxed) == 0)
		syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
}

void causal_writer_lock(void)
{
	pthread_mutex_lock(&writer_mutex);
	atomic_store(&writer_owner, gettid());
}

void causal_writer_unlock(void)
{
	atomic_store(&writer_owner, 0);
	pthread_mutex_unlock(&writer_mutex);
}

/*
 * In a signal handler: the interrupted thread may hold the lock (then we
 * must not wait for ourselves), or the writer may be mid-round (then a
 * short wait lets it finish).
 */
static int writer_lock_from_signal(void)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	if (atomic_load(&writer_owner) == gettid())
		return -1;
	for (i = 0; i < 200; i++) {
		if (pthread_mutex_trylock(&writer_mutex) == 0) {
			atomic_store(&writer_owner, gettid());
			return 0;
		}
		nanosleep(&ms, NULL);
	}
	return -1;
}

static int encode_one(const struct causal_rec *rec, void *arg)
{
	struct causal_tbuf *tb = arg;
	struct causal_log_file *lf = &causal_g.log;

	causal_log_file_reserve(lf, CAUSAL_ENCODED_MAX(rec->size));
	if (causal_encode_record(&lf->pk, rec) == 0)
		lf->frame_records++;
	if (rec->type == CAUSAL_REC_THREAD_END && rec->tid == tb->tid)
		tb->end_written = 1;
	return 0;
}

/* Move every committed record of every thread into the frame buffer. */
static void drain_all(void)
{
	struct causal_log_file *lf = &causal_g.log;
	struct causal_tbuf *tb;

	for (tb = causal_tbufs_first(); tb; tb = tb->next_all) {
		/* state first: a DEAD buffer's records are all committed */
		int state = atomic_load_explicit(&tb->state,
						 memory_order_acquire);
		uint64_t dropped;

		if (state == CAUSAL_TBUF_FREE)
			continue;
		causal_ring_drain(&tb->ring, encode_one, tb);
		dropped = atomic_load_explicit(&tb->dropped,
					       memory_order_relaxed);
		if (dropped != tb->dropped_reported) {
			causal_log_file_reserve(lf, 64);
			causal_encode_drops(&lf->pk, tb->tid, causal_now_ns(),
					    dropped);
			lf->frame_records++;
			tb->dropped_reported = dropped;
		}
		if (state == CAUSAL_TBUF_DEAD && causal_ring_empty(&tb->ring))
			causal_tbuf_recycle(tb);
	}
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

/* Threads still running when the image ends get an AT_EXIT end record. */
static void end_live_threads(void)
{
	struct causal_log_file *lf = &causal_g.log;
	struct causal_tbuf *tb;

	for (tb = causal_tbufs_first(); tb; tb = tb->next_all) {
		if (atomic_load(&tb->state) != CAUSAL_TBUF_LIVE ||
		    tb->end_written || !tb->tid)
			continue;
		causal_log_file_reserve(lf, 64);
		causal_encode_thread_end(&lf->pk, tb->tid, causal_now_ns(),
					 cpu_of_thread(tb->os_tid),
					 CAUSAL_THREAD_AT_EXIT);
		lf->frame_records++;
		tb->end_written = 1;
	}
}

static void write_process_end(uint32_t reason, int64_t detail)
{
	struct causal_log_file *lf = &causal_g.log;
	uint64_t records = lf->records_written + lf->frame_records;

	causal_log_file_reserve(lf, 96);
	causal_encode_process_end(&lf->pk, causal_now_ns(),
				  causal_clock_ns(CLOCK_REALTIME), reason,
				  detail, records, dropped_total());
	lf->frame_records++;
}

int causal_writer_header(void)
{
	struct causal_log_file *lf = &causal_g.log;

	causal_encode_header(&lf->pk, &causal_g.id, causal_g.cfg.buffer_kb,
			     causal_g.cfg.flush_ms);
	lf->frame_records++;
	return causal_log_file_flush(lf);
}

static void *writer_main(void *arg)
{
	struct timespec period = {
		.tv_sec = causal_g.cfg.flush_ms / 1000,
		.tv_nsec = (long)(causal_g.cfg.flush_ms % 1000) * 1000000,
	};

	(void)arg;
	causal_self.status = CAUSAL_THREAD_INFRA;
	causal_self.in_hook = 1;
	causal_self.ctx.marker = CAUSAL_MARKER_INFRA;
	writer_os_tid = gettid();
	while (causal_running()) {
		if (atomic_load_explicit(&wake_word, memory_order_relaxed) == 0)
			syscall(SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, 0,
				&period, NULL, 0);
		atomic_store_explicit(&wake_word, 0, memory_order_relaxed);
		causal_writer_lock();
		if (causal_running() && getpid() == causal_g.id.pid) {
			drain_all();
			causal_log_file_flush(&causal_g.log);
		}
		causal_writer_unlock();
	}
	return NULL;
}

int causal_writer_start(void)
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
	ret = causal_real.pthread_create(&th, &attr, writer_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}

void causal_writer_after_fork(void)
{
	pthread_mutex_init(&writer_mutex, NULL);
	atomic_store(&writer_owner, 0);
	atomic_store(&wake_word, 0);
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
	memcpy(r->path, path, len);

	causal_writer_lock();
	drain_all();
	causal_log_file_reserve(lf, CAUSAL_ENCODED_MAX(r->hdr.size));
	causal_encode_record(&lf->pk, &r->hdr);
	lf->frame_records++;
	end_live_threads();
	write_process_end(CAUSAL_END_EXEC, 0);
	causal_log_file_flush(lf);
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
		if (gettid() == writer_os_tid || writer_lock_from_signal())
			return;
	} else {
		causal_writer_lock();
	}
	if (!causal_running()) {
		causal_writer_unlock();
		return;
	}
	atomic_store_explicit(&causal_g.state, CAUSAL_FINISHED,
			      memory_order_release);
	drain_all();
	end_live_threads();
	write_process_end(reason, detail);
	causal_log_file_flush(lf);
	causal_log_file_close(lf);
	causal_writer_unlock();
	causal_writer_wake(); /* let the writer see FINISHED and return */
}
