/*
 * sampler.c - the CPU-time sampling profiler of sporadic bottlenecks
 * (sampler.h says how and why; docs/tracing.md, "Sporadic bottlenecks").
 *
 * Signal handler rules: errno saved and restored, no malloc, no stdio,
 * no lock; everything it touches is initial-exec TLS, the thread's slot,
 * or memory mapped once at start-up.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "internal.h"
#include "sampler-source.h"

/* Set by the loader: the main thread's stack top. */
extern void *__libc_stack_end;

#define sampler_self causal_sampler_tls

/* ---- the ring ------------------------------------------------------------ */

static struct causal_sample *claim(uint64_t *idx)
{
	struct causal_sampler *s = &causal_sampler;
	struct causal_sample *slot;

	*idx = atomic_fetch_add_explicit(&s->head, 1, memory_order_relaxed);
	slot = &s->ring[*idx % s->cap];
	/* a seqlock per slot: 0 while written, idx + 1 once complete */
	atomic_store_explicit(&slot->seq, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	return slot;
}

static void publish(struct causal_sample *slot, uint64_t idx)
{
	atomic_store_explicit(&slot->seq, idx + 1, memory_order_release);
}

void causal_sampler_put(const struct causal_sample *smp)
{
	uint64_t idx;
	struct causal_sample *slot = claim(&idx);

	memcpy((char *)slot + sizeof(slot->seq),
	       (const char *)smp + sizeof(smp->seq),
	       sizeof(*slot) - sizeof(slot->seq));
	publish(slot, idx);
}

int causal_sampler_get(uint64_t idx, struct causal_sample *out)
{
	const struct causal_sample *slot =
		&causal_sampler.ring[idx % causal_sampler.cap];
	uint64_t before =
		atomic_load_explicit(&slot->seq, memory_order_acquire);

	if (before != idx + 1)
		return -1;
	memcpy((char *)out + sizeof(out->seq),
	       (const char *)slot + sizeof(slot->seq),
	       sizeof(*out) - sizeof(out->seq));
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&slot->seq, memory_order_relaxed) != before)
		return -1;
	out->depth = out->depth > CAUSAL_POLICY_DEPTH_MAX
			     ? CAUSAL_POLICY_DEPTH_MAX
			     : out->depth;
	return 0;
}

/* ---- the whole-run profile: a counter per address ------------------------ */

static void count(uint64_t ip, uint64_t periods)
{
	uint64_t h = (ip * 0x9e3779b97f4a7c15ull) >> 50; /* 14 bits */
	unsigned i;

	for (i = 0; i < 64; i++) {
		struct causal_profile_slot *p =
			&causal_profile[(h + i) & (CAUSAL_PROFILE_SLOTS - 1)];
		uint64_t cur =
			atomic_load_explicit(&p->ip, memory_order_relaxed);

		if (!cur && atomic_compare_exchange_strong_explicit(
				    &p->ip, &cur, ip, memory_order_relaxed,
				    memory_order_relaxed))
			cur = ip;
		if (cur == ip) {
			atomic_fetch_add_explicit(&p->count, periods,
						  memory_order_relaxed);
			return;
		}
	}
	atomic_fetch_add_explicit(&causal_sampler.profile_overflow, periods,
				  memory_order_relaxed);
}

/* ---- the handler --------------------------------------------------------- */

/*
 * Walk the frame pointers from fp: each frame must lie above the last one
 * and below the stack's top, 8-aligned, so the walk only ever reads the
 * thread's own mapped stack; it stops (a truncated stack) at the first
 * frame that does not.
 */
static unsigned walk(uintptr_t fp, uintptr_t sp, uintptr_t top, uint64_t *stack,
		     unsigned max)
{
	unsigned n = 0;

	while (n < max && fp >= sp && fp <= top - 16 && !(fp & 7)) {
		const uintptr_t *frame = (const uintptr_t *)fp;
		uintptr_t next = frame[0], ret = frame[1];

		if (!ret)
			break;
		stack[n++] = ret;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

/* Take a sample of the interrupted context: the ring and the counters. */
static void take(const ucontext_t *uc, uint64_t periods)
{
	struct causal_thread *t = &causal_self;
	struct causal_sample *slot;
	uintptr_t ip = 0, sp = 0, fp = 0;
	uint64_t idx;

#if defined(__x86_64__)
	ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
#elif defined(__aarch64__)
	ip = (uintptr_t)uc->uc_mcontext.pc;
	sp = (uintptr_t)uc->uc_mcontext.sp;
	fp = (uintptr_t)uc->uc_mcontext.regs[29];
#else
	(void)uc;
#endif
	count(ip, periods);
	atomic_fetch_add_explicit(&causal_sampler.taken, 1,
				  memory_order_relaxed);
	slot = claim(&idx);
	slot->mono_ns = causal_now_ns();
	slot->ip = ip;
	slot->tid = t->tbuf->tid;
	slot->kind = CAUSAL_SAMPLE_CPU;
	slot->ctx_set = (uint8_t)causal_ctx_active(&t->ctx);
	memcpy(slot->chain, t->ctx.chain, sizeof(slot->chain));
	slot->event = t->ctx.event_no;
	slot->function = t->ctx.function_id;
	slot->depth = (uint8_t)walk(fp, sp, sampler_self.top, slot->stack,
				    causal_sampler.policy.depth);
	publish(slot, idx);
}

void causal_sampler_on_signal(int sig, siginfo_t *si, void *ucv)
{
	struct causal_sampled_thread *st = sampler_self.slot;
	int saved = errno, code = si->si_code;

	/* a signal a process sent (kill, sigqueue...): not ours */
	if (code != SI_TIMER && code != POLL_IN && code != POLL_HUP) {
		causal_sampler_foreign(sig, si, ucv);
		goto out;
	}
	if (!st)
		goto out; /* from a source gone with its thread's slot */
	atomic_store(&st->in_handler, 1);
	if (causal_source_sent(st, si)) {
		/*
		 * A POSIX CPU timer is checked on the kernel's tick: at 1 kHz
		 * on a 250 Hz kernel one signal stands for 4 periods, the 3
		 * it missed in si_overrun.  The counters count periods (CPU
		 * time), the ring signals.
		 */
		if (atomic_load_explicit(&causal_sampler.on,
					 memory_order_relaxed) &&
		    causal_self.tbuf)
			take(ucv, code == SI_TIMER && si->si_overrun > 0
					  ? 1 + (uint64_t)si->si_overrun
					  : 1);
		if (code != SI_TIMER)
			causal_source_sampled(st);
	}
	atomic_store(&st->in_handler, 0);
out:
	errno = saved;
}

/* ---- threads ------------------------------------------------------------- */

static struct causal_sampled_thread *register_thread(pid_t os_tid, uint32_t tid,
						     uintptr_t top)
{
	for (unsigned i = 0; i < CAUSAL_SAMPLED_THREADS; i++) {
		struct causal_sampled_thread *st = &causal_sampled[i];
		int32_t zero = 0;

		if (atomic_load_explicit(&st->os_tid, memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&st->os_tid, &zero, -1))
			continue;
		st->tid = tid;
		st->top = top;
		atomic_fetch_add(&st->gen, 1);
		atomic_store_explicit(&st->os_tid, os_tid,
				      memory_order_release);
		return st;
	}
	return NULL;
}

void causal_sampler_thread_begin(void)
{
	struct causal_sampler *s = &causal_sampler;
	struct causal_sampler_tls *me = &sampler_self;
	struct causal_tbuf *tb = causal_self.tbuf;
	struct causal_sampled_thread *st = NULL;
	uint64_t mask;
	sigset_t old;
	int sig;

	/* a fork child keeps the parent's TLS: its source is gone */
	me->slot = NULL;
	if (!s->ring || !tb || causal_self.ctx.marker != CAUSAL_MARKER_USER ||
	    !atomic_load(&s->on))
		return;
	/*
	 * The top of the frames the thread can have: the main thread's from
	 * the loader; glibc puts a thread's descriptor (pthread_self()) at
	 * the top of its stack block, its own or one the program gave, so
	 * everything between a frame and it is the same mapping.
	 */
	me->top = getpid() == gettid() ? (uintptr_t)__libc_stack_end
				       : (uintptr_t)pthread_self();
	mask = causal_sampler_own_mask();
	causal_sampler_lock(&old);
	if (atomic_load(&s->on))
		st = register_thread(gettid(), tb->tid, me->top);
	if (st) {
		sig = atomic_load(&s->signo);
		atomic_store(&st->blocked, mask);
		/* a thread that blocks the signal starts paused */
		if (causal_source_open(st, sig,
				       !!(mask & causal_sig_bit(sig)))) {
			atomic_store(&st->os_tid, 0);
			st = NULL;
		}
	}
	if (!st && atomic_load(&s->on))
		atomic_fetch_add(&s->lost, 1);
	me->slot = st;
	causal_sampler_unlock(&old);
}

void causal_sampler_thread_end(void)
{
	struct causal_sampled_thread *st = sampler_self.slot;
	sigset_t old;

	if (!st)
		return;
	causal_sampler_lock(&old);
	causal_source_close(st);
	sampler_self.slot = NULL;
	atomic_store_explicit(&st->os_tid, 0, memory_order_release);
	causal_sampler_unlock(&old);
}

uint64_t causal_sampler_cpu_ns(void)
{
	uint64_t ns = atomic_load(&causal_sampler.cpu_ns);
	struct timespec ts;
	sigset_t old;

	causal_sampler_lock(&old);
	for (unsigned i = 0; i < CAUSAL_SAMPLED_THREADS; i++) {
		const struct causal_sampled_thread *st = &causal_sampled[i];
		int32_t os_tid = atomic_load(&st->os_tid);

		if (os_tid > 0 && !atomic_load(&st->paused) &&
		    !clock_gettime(causal_thread_clock(os_tid), &ts) &&
		    timespec_ns(&ts) > st->cpu_from)
			ns += timespec_ns(&ts) - st->cpu_from;
	}
	causal_sampler_unlock(&old);
	return ns;
}

/* ---- start and fork (spikes.c calls them) -------------------------------- */

static void *map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int causal_sampler_map(void)
{
	struct causal_sampler *s = &causal_sampler;

	s->cap = 2 * (uint64_t)s->policy.n;
	s->ring = map(s->cap * sizeof(*s->ring));
	causal_profile = map(CAUSAL_PROFILE_SLOTS * sizeof(*causal_profile));
	return s->ring && causal_profile ? 0 : -1;
}

int causal_sampler_install(void)
{
	causal_real_resolve();
	if (!causal_real.sigaction || !causal_real.pthread_sigmask) {
		causal_say("causal: policy: no sigaction or pthread_sigmask to "
			   "be had; sampling stays off",
			   NULL);
		return -1;
	}
	atomic_store(&causal_sampler.source, causal_source_choose());
	return causal_sampler_signal_init(causal_sampler_on_signal);
}

void causal_sampler_after_fork(void)
{
	struct causal_sampler *s = &causal_sampler;

	causal_sampler_lock_after_fork();
	/* the parent's samples and threads are the parent's, and so are
	 * the events whose descriptors the child inherited */
	for (unsigned i = 0; i < CAUSAL_SAMPLED_THREADS; i++) {
		struct causal_sampled_thread *st = &causal_sampled[i];

		if (atomic_load(&st->os_tid) > 0 && causal_source_intact(st))
			close(atomic_load(&st->fd));
		atomic_store(&st->os_tid, 0);
	}
	atomic_store(&s->head, 0);
	memset(s->ring, 0, s->cap * sizeof(*s->ring));
	memset(causal_profile, 0,
	       CAUSAL_PROFILE_SLOTS * sizeof(*causal_profile));
	atomic_store(&s->profile_overflow, 0);
	atomic_store(&s->taken, 0);
	atomic_store(&s->cpu_ns, 0);
	atomic_store(&s->fallback, 0);
	atomic_store(&s->lost, 0);
	sampler_self.slot = NULL;
	causal_sampler_note("start", NULL);
}
