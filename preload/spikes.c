/*
 * spikes.c - the monitor of sporadic bottlenecks (sampler.h; docs/tracing.md,
 * "Sporadic bottlenecks"): an infrastructure thread that measures the
 * policy's resources every period and, on a breach, writes the window of
 * samples around it, with the memory maps to symbolise them offline.
 *
 * The thread is ours: never traced, every signal blocked, in_hook set (so
 * the allocation wrappers pass its own calls straight through).  It
 * writes into a buffer of its own, tid 0, like the monitoring state's
 * records (monitor.c), and waits for room there rather than drop.
 *
 * Start-up, fork and the end come here (causal_spikes_*, lifecycle.c):
 * the policy, then the sampler (sampler.c), then this thread.  The
 * sampler never calls back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "read-file.h"
#include "sampler.h"

#define HISTORY 1024   /* measurements kept for sliding windows */
#define OPEN_MAX 16    /* windows waiting for their after-half */
#define EXEC_MAX 512   /* executable mappings, for off-CPU stacks */
#define TICK_OPEN_MS 5 /* the monitor's tick while a window is open */

struct snapshot {
	uint64_t mono, cpu;	       /* process CPU time */
	uint64_t off_blocked, off_all; /* threads' time off CPU, blocked */
};

struct per_thread { /* the last reading of a thread */
	uint32_t gen;
	int32_t os_tid;
	uint64_t mono, cpu;
};

static struct {
	struct causal_tbuf *tb;
	pthread_t thread;
	_Atomic int stop, done, running;
	struct snapshot hist[HISTORY];
	uint64_t nhist;
	uint64_t blocked_total, off_total; /* running sums of off-CPU ns */
	struct per_thread pt[CAUSAL_SAMPLED_THREADS];
	uint64_t last_breach[CAUSAL_POLICY_RULES_MAX];
	uint64_t open_end[OPEN_MAX]; /* sample idx each open window ends */
	unsigned nopen;
	uint64_t written; /* samples [0, written) are done */
	uint64_t lost;
	uint64_t maps_hash;
	uint32_t changes; /* the sampler's notes written */
	uintptr_t exec_lo[EXEC_MAX], exec_hi[EXEC_MAX];
	unsigned nexec;
	char buf[64 * 1024]; /* /proc reads */
} mon;

/* ---- writing records ----------------------------------------------------- */

static void pause_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Room for a record in the monitor's buffer: the writer drains it every
 * flush period, so wait for room (woken, 2 ms at a time, up to a second)
 * before giving the record up as dropped.
 */
static struct causal_rec *begin(uint16_t type, uint32_t size, uint64_t *pending)
{
	struct causal_rec *r;

	for (int i = 0; i < 500; i++) {
		r = causal_ring_reserve(&mon.tb->ring, size, pending);
		if (r) {
			r->type = type;
			r->reserved = 0;
			r->size = size;
			r->tid = 0;
			r->aux = 0;
			r->mono_ns = causal_now_ns();
			return r;
		}
		if (size > mon.tb->ring.capacity / 2)
			break;
		causal_writer_wake();
		pause_ms(2);
	}
	atomic_fetch_add_explicit(&mon.tb->dropped, 1, memory_order_relaxed);
	return NULL;
}

static void write_sample(uint64_t idx, const struct causal_sample *s)
{
	uint32_t bytes = (uint32_t)s->depth * 8;
	uint32_t size = (uint32_t)CAUSAL_REC_ALIGN(
		sizeof(struct rec_spike_sample) + bytes);
	struct rec_spike_sample *r;
	uint64_t pending;

	r = (void *)begin(CAUSAL_REC_SPIKE_SAMPLE, size, &pending);
	if (!r)
		return;
	r->hdr.mono_ns = s->mono_ns;
	r->hdr.aux = bytes;
	r->idx = idx;
	r->thread = s->tid;
	r->ip = s->ip;
	r->kind = s->kind;
	r->ctx.set = s->ctx_set;
	memcpy(r->ctx.chain, s->chain, sizeof(r->ctx.chain));
	r->ctx.event = s->event;
	r->ctx.function = s->function;
	memcpy(r->tail, s->stack, bytes); /* little-endian hosts */
	causal_record_commit(mon.tb, pending);
}

static void write_breach(const struct causal_policy_rule *rule, uint64_t mark,
			 uint64_t value, uint64_t now)
{
	const char *res = causal_policy_resource_name(rule->resource);
	size_t lres = strlen(res), ltext = strlen(rule->text);
	uint32_t size = (uint32_t)CAUSAL_REC_ALIGN(
		sizeof(struct rec_spike_breach) + lres + ltext);
	struct rec_spike_breach *r;
	uint64_t pending;

	r = (void *)begin(CAUSAL_REC_SPIKE_BREACH, size, &pending);
	if (!r)
		return;
	r->hdr.mono_ns = now;
	r->mark = mark;
	r->n = causal_sampler.policy.n;
	r->value = value;
	r->threshold = rule->threshold;
	r->window_ms = rule->window_ms;
	r->lost = mon.lost + atomic_load(&causal_sampler.failed);
	r->resource_len = (uint8_t)lres;
	r->rule_len = (uint8_t)ltext; /* < 128 */
	memcpy(r->tail, res, lres);
	memcpy(r->tail + lres, rule->text, ltext);
	causal_record_commit(mon.tb, pending);
}

/* How the process samples (SPIKE_SAMPLER), with the note of the last
 * change. */
static void write_sampler(const char *note)
{
	struct causal_sampler *s = &causal_sampler;
	size_t len = strlen(note);
	uint32_t size = (uint32_t)CAUSAL_REC_ALIGN(
		sizeof(struct rec_spike_sampler) + len);
	struct rec_spike_sampler *r;
	uint64_t pending, cpu = causal_sampler_cpu_ns();

	r = (void *)begin(CAUSAL_REC_SPIKE_SAMPLER, size, &pending);
	if (!r)
		return;
	r->source = (uint8_t)atomic_load(&s->source);
	r->signo = (uint8_t)atomic_load(&s->signo);
	r->rate_hz = s->policy.rate_hz;
	r->samples = atomic_load(&s->taken);
	r->cpu_ns = cpu;
	r->fallback = atomic_load(&s->fallback);
	r->lost = atomic_load(&s->lost);
	r->note_len = (uint8_t)len; /* < 160 */
	memcpy(r->tail, note, len);
	causal_record_commit(mon.tb, pending);
}

/* A change the sampler noted since the last look: its record. */
static void write_changes(void)
{
	uint32_t n = atomic_load_explicit(&causal_sampler.changes,
					  memory_order_acquire);
	char note[sizeof(causal_sampler.note)];
	sigset_t old;

	if (n == mon.changes)
		return;
	mon.changes = n;
	causal_sampler_lock(&old);
	memcpy(note, causal_sampler.note, sizeof(note));
	causal_sampler_unlock(&old);
	note[sizeof(note) - 1] = '\0';
	write_sampler(note);
}

/* ---- /proc ------------------------------------------------------------- */

/* The whole of a small /proc file into mon.buf, NUL-terminated. */
static ssize_t slurp(const char *path)
{
	int fd = causal_file_open(path); /* never a FIFO, never a link */
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (len + 1 < sizeof(mon.buf) &&
	       (n = read(fd, mon.buf + len, sizeof(mon.buf) - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	mon.buf[len] = '\0';
	return (ssize_t)len;
}

static uint64_t hex_at(const char **sp)
{
	return strtoull(*sp, (char **)sp, 16);
}

/*
 * Every file-backed mapping, as SPIKE_MAP records, when they changed
 * since the last time (or force); the executable ones are kept for the
 * off-CPU stack scan.  /proc/self/maps may be longer than mon.buf: then
 * the first 64 KiB, which hold the program and its libraries.
 */
static void write_maps(int force)
{
	uint64_t hash = 1469598103934665603ull;
	const char *p;
	int file = 0;

	if (slurp("/proc/self/maps") <= 0)
		return;
	/* the file-backed lines only: anonymous ones come and go */
	for (p = mon.buf; *p; p++) {
		if (*p == '\n')
			file = 0;
		else if (*p == '/')
			file = 1;
		if (file)
			hash = (hash ^ (uint8_t)*p) * 1099511628211ull;
	}
	if (!force && hash == mon.maps_hash)
		return;
	mon.maps_hash = hash;
	mon.nexec = 0;
	for (p = mon.buf; *p;) {
		const char *eol = strchr(p, '\n'), *path;
		uint64_t start, end, off;
		char perms[5] = "";

		if (!eol)
			eol = p + strlen(p);
		start = hex_at(&p);
		p++;
		end = hex_at(&p);
		p++;
		memcpy(perms, p, 4);
		p += 5;
		off = hex_at(&p);
		path = memchr(p, '/', (size_t)(eol - p));
		if (perms[2] == 'x' && mon.nexec < EXEC_MAX) {
			mon.exec_lo[mon.nexec] = start;
			mon.exec_hi[mon.nexec++] = end;
		}
		if (path) {
			size_t len = (size_t)(eol - path);
			uint32_t size = (uint32_t)CAUSAL_REC_ALIGN(
				sizeof(struct rec_spike_map) + len);
			struct rec_spike_map *r;
			uint64_t pending;

			r = (void *)begin(CAUSAL_REC_SPIKE_MAP, size, &pending);
			if (r) {
				r->start = start;
				r->end = end;
				r->offset = off;
				r->path_len = (uint16_t)len;
				memcpy(r->tail, path, len);
				causal_record_commit(mon.tb, pending);
			}
		}
		p = *eol ? eol + 1 : eol;
	}
}

/* The whole-run profile, one record per address, at the end. */
static void write_profile(void)
{
	uint64_t pending, over;

	for (unsigned i = 0; i < CAUSAL_PROFILE_SLOTS; i++) {
		struct causal_profile_slot *ps = &causal_profile[i];
		uint64_t ip = atomic_load(&ps->ip), n = atomic_load(&ps->count);
		struct rec_spike_profile *r;

		if (!ip || !n)
			continue;
		r = (void *)begin(CAUSAL_REC_SPIKE_PROFILE, sizeof(*r),
				  &pending);
		if (!r)
			continue;
		r->ip = ip;
		r->samples = n;
		causal_record_commit(mon.tb, pending);
	}
	over = atomic_load(&causal_sampler.profile_overflow);
	if (over) {
		struct rec_spike_profile *r = (void *)begin(
			CAUSAL_REC_SPIKE_PROFILE,
			sizeof(struct rec_spike_profile), &pending);

		if (r) {
			r->ip = 0;
			r->samples = over;
			causal_record_commit(mon.tb, pending);
		}
	}
}

/* ---- measuring --------------------------------------------------------- */

/* The thread's state letter in /proc (R running, S sleeping, ...). */
static char thread_state(int32_t os_tid)
{
	char path[64];
	const char *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)os_tid);
	if (slurp(path) <= 0 || !(p = strrchr(mon.buf, ')')) || !p[1])
		return '?';
	return p[2];
}

static int is_exec(uintptr_t a)
{
	for (unsigned i = 0; i < mon.nexec; i++)
		if (a >= mon.exec_lo[i] && a < mon.exec_hi[i])
			return 1;
	return 0;
}

/*
 * An off-CPU sample of a blocked thread: where it waits (the pc its
 * system call will return to, /proc/self/task/TID/syscall) and, as its
 * frame pointer is not to be had from outside, the words of its stack
 * from the sp there that point into executable mappings: a conservative
 * scan (it may show a stale return address), read with
 * process_vm_readv so that a stack unmapped meanwhile is an error, not a
 * fault.
 */
static void offcpu_sample(const struct causal_sampled_thread *st,
			  int32_t os_tid, uint64_t now)
{
	struct causal_sample s;
	uintptr_t words[1024];
	char path[64];
	const char *p;
	uint64_t sp, pc;
	struct iovec local, remote;
	ssize_t got;
	unsigned depth = causal_sampler.policy.depth;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)os_tid);
	if (slurp(path) <= 0 || !strncmp(mon.buf, "running", 7))
		return;
	p = mon.buf;
	for (int i = 0; i < 7 && *p; i++) { /* nr and six arguments */
		strtoull(p, (char **)&p, 0);
		while (*p == ' ')
			p++;
	}
	sp = strtoull(p, (char **)&p, 0);
	pc = strtoull(p, (char **)&p, 0);
	if (!pc || !sp)
		return;
	memset(&s, 0, sizeof(s));
	s.mono_ns = now;
	s.ip = pc;
	s.tid = st->tid;
	s.kind = CAUSAL_SAMPLE_OFFCPU;
	local.iov_base = words;
	local.iov_len = sizeof(words);
	if (st->top > sp && st->top - sp < local.iov_len)
		local.iov_len = st->top - sp;
	remote.iov_base = (void *)(uintptr_t)sp;
	remote.iov_len = local.iov_len;
	got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	for (ssize_t i = 0; got > 0 && i < got / 8 && s.depth < depth; i++)
		if (words[i] != pc && is_exec(words[i]))
			s.stack[s.depth++] = words[i];
	causal_sampler_put(&s);
}

/* Threads' time off CPU since the last tick: blocked, or all of it. */
static void measure_threads(uint64_t now, int offcpu)
{
	for (unsigned i = 0; i < CAUSAL_SAMPLED_THREADS; i++) {
		const struct causal_sampled_thread *st = &causal_sampled[i];
		int32_t os_tid =
			atomic_load_explicit(&st->os_tid, memory_order_acquire);
		uint32_t gen = atomic_load(&st->gen);
		struct per_thread *pt = &mon.pt[i];
		uint64_t cpu, wall, ran;
		char state;

		if (os_tid <= 0)
			continue;
		cpu = clock_ns(causal_thread_clock(os_tid));
		state = thread_state(os_tid);
		if (pt->gen != gen || pt->os_tid != os_tid || !pt->mono) {
			pt->gen = gen;
			pt->os_tid = os_tid;
			pt->mono = now;
			pt->cpu = cpu;
			continue;
		}
		wall = now - pt->mono;
		ran = cpu > pt->cpu ? cpu - pt->cpu : 0;
		pt->mono = now;
		pt->cpu = cpu;
		if (ran > wall)
			ran = wall;
		mon.off_total += wall;
		/* off CPU and not runnable: blocked; runnable: waiting */
		if (state == 'S' || state == 'D') {
			mon.blocked_total += wall - ran;
			if (offcpu)
				offcpu_sample(st, os_tid, now);
		}
	}
}

/* A resource's value now: hundredths of a percent, or bytes. */
static int value_of(const struct causal_policy_rule *rule, uint64_t now,
		    uint64_t *value)
{
	const struct snapshot *cur = &mon.hist[(mon.nhist - 1) % HISTORY];
	const struct snapshot *old = NULL;

	switch (rule->resource) {
	case CAUSAL_POLICY_RSS: {
		unsigned long long size, rss;

		if (slurp("/proc/self/statm") <= 0 ||
		    sscanf(mon.buf, "%llu %llu", &size, &rss) != 2)
			return -1;
		*value = rss * (uint64_t)sysconf(_SC_PAGESIZE);
		return 0;
	}
	case CAUSAL_POLICY_HEAP: {
		int64_t live = 0;

		if (!causal_heap_epoch())
			return -1;
		for (struct causal_tbuf *tb = causal_tbufs_first(); tb;
		     tb = tb->next_all) {
			const struct causal_heap_tls *h =
				atomic_load(&tb->heap);

			if (h)
				live += (int64_t)(h->alloc_bytes -
						  h->freed_bytes);
		}
		*value = live > 0 ? (uint64_t)live : 0;
		return 0;
	}
	default:
		break;
	}
	/* the oldest measurement at least the window old */
	for (uint64_t k = mon.nhist; k-- > 0 && mon.nhist - k <= HISTORY;) {
		const struct snapshot *s = &mon.hist[k % HISTORY];

		if (now - s->mono >= (uint64_t)rule->window_ms * 1000000) {
			old = s;
			break;
		}
	}
	if (!old || cur->mono <= old->mono)
		return -1; /* not a whole window yet */
	if (rule->resource == CAUSAL_POLICY_CPU) {
		*value =
			(cur->cpu - old->cpu) * 10000 / (cur->mono - old->mono);
		return 0;
	}
	if (cur->off_all == old->off_all)
		return -1;
	*value = (cur->off_blocked - old->off_blocked) * 10000 /
		 (cur->off_all - old->off_all);
	return 0;
}

/* ---- windows ----------------------------------------------------------- */

/* Write the samples [mon.written, to) still in the ring. */
static void write_samples(uint64_t to)
{
	struct causal_sample s;
	uint64_t head = atomic_load(&causal_sampler.head);

	if (to > head)
		to = head;
	if (head > causal_sampler.cap &&
	    mon.written < head - causal_sampler.cap) {
		mon.lost += head - causal_sampler.cap - mon.written;
		mon.written = head - causal_sampler.cap;
	}
	for (; mon.written < to; mon.written++) {
		int tries = 0;

		/* a handler may be writing the newest slot: a moment */
		while (causal_sampler_get(mon.written, &s) && tries++ < 2)
			pause_ms(1);
		if (tries > 2)
			mon.lost++;
		else
			write_sample(mon.written, &s);
	}
}

static void breach(const struct causal_policy_rule *rule, uint64_t value,
		   uint64_t now)
{
	uint64_t n = causal_sampler.policy.n;
	uint64_t mark = atomic_load(&causal_sampler.head);

	write_maps(0);
	write_breach(rule, mark, value, now);
	/* the before-half now, while the ring still has it */
	if (mon.written + n < mark)
		mon.written = mark - n;
	write_samples(mark);
	if (mon.nopen < OPEN_MAX)
		mon.open_end[mon.nopen++] = mark + n;
	else
		mon.open_end[OPEN_MAX - 1] = mark + n; /* extends the last */
}

static void check(uint64_t now)
{
	const struct causal_policy *p = &causal_sampler.policy;
	struct snapshot *s = &mon.hist[mon.nhist % HISTORY];
	int offcpu = 0;

	for (unsigned i = 0; i < p->nrules; i++)
		offcpu |= p->rule[i].resource == CAUSAL_POLICY_BLOCKED;
	causal_sampler_check_sources();
	write_changes();
	measure_threads(now, offcpu);
	s->mono = now;
	s->cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	s->off_blocked = mon.blocked_total;
	s->off_all = mon.off_total;
	mon.nhist++;
	for (unsigned i = 0; i < p->nrules; i++) {
		const struct causal_policy_rule *rule = &p->rule[i];
		uint64_t v;

		if (value_of(rule, now, &v) || v <= rule->threshold)
			continue;
		/* a breach that lasts: one window per holdoff */
		if (mon.last_breach[i] &&
		    now - mon.last_breach[i] <
			    (uint64_t)p->holdoff_ms * 1000000)
			continue;
		mon.last_breach[i] = now;
		breach(rule, v, now);
	}
}

/* Write what the open windows have so far; close those complete. */
static void follow(int all)
{
	uint64_t end = 0;
	unsigned k = 0;

	for (unsigned i = 0; i < mon.nopen; i++)
		end = mon.open_end[i] > end ? mon.open_end[i] : end;
	if (mon.nopen)
		write_samples(end);
	for (unsigned i = 0; i < mon.nopen; i++)
		if (!all && mon.open_end[i] > mon.written)
			mon.open_end[k++] = mon.open_end[i];
	mon.nopen = k;
}

static void *monitor_main(void *arg)
{
	uint64_t next = causal_now_ns(), period;

	(void)arg;
	causal_self.status = CAUSAL_THREAD_INFRA;
	causal_self.in_hook = 1;
	causal_self.ctx.marker = CAUSAL_MARKER_INFRA;
	prctl(PR_SET_NAME, "causal-spikes");
	period = (uint64_t)causal_sampler.policy.period_ms * 1000000;
	while (!atomic_load(&mon.stop)) {
		uint64_t now = causal_now_ns();

		if (now >= next) {
			check(now);
			next = now + period;
		}
		follow(0);
		pause_ms(mon.nopen ? TICK_OPEN_MS
				   : (unsigned)((next - now) / 1000000 + 1));
	}
	/* the end: what the open windows have, the maps, the profile, and
	 * how it sampled */
	follow(1);
	write_maps(1);
	write_profile();
	write_changes();
	write_sampler("end");
	atomic_store(&mon.done, 1);
	return NULL;
}

static int monitor_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	int ret;

	memset(&mon.pt, 0, sizeof(mon.pt));
	memset(&mon.last_breach, 0, sizeof(mon.last_breach));
	mon.nhist = mon.nopen = 0;
	mon.written = mon.lost = mon.maps_hash = 0;
	mon.changes = 0;
	mon.blocked_total = mon.off_total = 0;
	atomic_store(&mon.stop, 0);
	atomic_store(&mon.done, 0);
	mon.tb = causal_tbuf_acquire();
	if (!mon.tb)
		return -1;
	mon.tb->tid = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	ret = causal_real.pthread_create(&mon.thread, &attr, monitor_main,
					 NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	atomic_store(&mon.running, !ret);
	return ret ? -1 : 0;
}

static void monitor_stop(void)
{
	if (!atomic_exchange(&mon.running, 0))
		return;
	atomic_store(&mon.stop, 1);
	/* up to 2 s for the last windows and the profile */
	for (int i = 0; i < 2000 && !atomic_load(&mon.done); i++)
		pause_ms(1);
}

/* ---- start, end, fork: lifecycle.c's ------------------------------------- */

void causal_spikes_start(void)
{
	struct causal_sampler *s = &causal_sampler;
	char err[256];
	int ret = causal_policy_load(&s->policy, (causal_getenv_fn)getenv, err,
				     sizeof(err));

	if (ret == 0)
		return; /* no policy: nothing runs, nothing costs */
	if (ret < 0) {
		causal_say("causal: ", err, "; sampling stays off", NULL);
		return;
	}
	if (causal_sampler_map()) {
		causal_say("causal: policy: cannot map the sample ring; "
			   "sampling stays off",
			   NULL);
		s->ring = NULL;
		return;
	}
	if (causal_sampler_install()) { /* it said why */
		s->ring = NULL;
		return;
	}
	atomic_store(&s->on, 1);
	if (monitor_start()) {
		atomic_store(&s->on, 0);
		causal_say("causal: policy: cannot start the monitor; "
			   "sampling stays off",
			   NULL);
		s->ring = NULL;
	}
}

void causal_spikes_finish(void)
{
	if (!causal_sampler.ring)
		return;
	atomic_store(&causal_sampler.on, 0);
	monitor_stop();
}

void causal_spikes_after_fork(void)
{
	struct causal_sampler *s = &causal_sampler;

	if (!s->ring)
		return;
	causal_sampler_after_fork();
	if (monitor_start()) {
		atomic_store(&s->on, 0);
		s->ring = NULL;
	}
}
