/*
 * sampler-source.c - a thread's source of samples (sampler-source.h).
 *
 * A perf event signals its thread at every overflow, and real-time
 * signals queue: a thread that does not take them (inside a long system
 * call, say) could pile them up until the user's RLIMIT_SIGPENDING is
 * spent, and then the kernel sends SIGIO instead (fs/fcntl.c,
 * send_sigio_to_task), which would reach the program.  So the event runs
 * with a limit (PERF_EVENT_IOC_REFRESH, as async profilers do): it
 * disables itself after LIMIT overflows, and the handler gives it STEP
 * more every STEP samples it takes.  overflows left + signals pending +
 * samples since the last refresh = LIMIT at all times, so at most LIMIT
 * signals are ever pending for a thread, and the event stops only when
 * more than LIMIT - STEP are.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "sampler-source.h"

#define LIMIT 16
#define STEP 8

/* The events' descriptors: the highest eighth of the numbers below
 * min(soft limit, FD_TOP); none under a limit of FD_LIMIT_MIN. */
#define FD_TOP 2048
#define FD_LIMIT_MIN 256

static uint64_t period_ns(void)
{
	return 1000000000ull / causal_sampler.policy.rate_hz;
}

static uint64_t thread_cpu(const struct causal_sampled_thread *st)
{
	struct timespec ts;
	clockid_t clock = causal_thread_clock(atomic_load(&st->os_tid));

	return clock_gettime(clock, &ts) ? 0 : timespec_ns(&ts);
}

/* ---- perf events --------------------------------------------------------- */

/* A cpu-clock event on the calling thread, disabled (-1 and errno). */
static int perf_open(int user_only)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = period_ns();
	a.disabled = 1;
	a.exclude_kernel = (uint64_t)user_only;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

int causal_source_choose(void)
{
	int fd;

	if (causal_sampler.policy.timer_only)
		return CAUSAL_SAMPLER_TIMER;
	/* the kernel's time too where allowed (perf_event_paranoid <= 1,
	 * CAP_PERFMON), else the thread's user time (paranoid 2) */
	fd = perf_open(0);
	if (fd >= 0) {
		close(fd);
		return CAUSAL_SAMPLER_PERF;
	}
	fd = perf_open(1);
	if (fd >= 0) {
		close(fd);
		return CAUSAL_SAMPLER_PERF_USER;
	}
	return CAUSAL_SAMPLER_TIMER;
}

/* fd moved above the program's range (sampler-source.h), or -1. */
static int place_high(int fd)
{
	struct rlimit rl;
	long hi = FD_TOP;
	int high = -1;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)hi)
		hi = (long)rl.rlim_cur;
	if (hi >= FD_LIMIT_MIN)
		high = fcntl(fd, F_DUPFD_CLOEXEC, (int)(hi - hi / 8));
	close(fd);
	if (high >= hi) {
		close(high);
		high = -1;
	}
	return high;
}

static int perf_source(struct causal_sampled_thread *st, int kind, int signo,
		       int paused)
{
	struct f_owner_ex owner = { F_OWNER_TID, atomic_load(&st->os_tid) };
	int fd = perf_open(kind == CAUSAL_SAMPLER_PERF_USER);

	if (fd < 0 || (fd = place_high(fd)) < 0)
		return -1;
	/* signal and owner before O_ASYNC: never a plain SIGIO */
	if (fcntl(fd, F_SETSIG, signo) || fcntl(fd, F_SETOWN_EX, &owner) ||
	    fcntl(fd, F_SETFL, O_ASYNC) ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &st->perf_id)) {
		close(fd);
		return -1;
	}
	st->source = (uint8_t)kind;
	atomic_store(&st->fd, fd);
	if (paused) /* the first resume gives the whole limit */
		atomic_store(&st->since_refresh, LIMIT);
	else if (ioctl(fd, PERF_EVENT_IOC_REFRESH, LIMIT)) {
		atomic_store(&st->fd, -1);
		close(fd);
		return -1;
	}
	return 0;
}

int causal_source_intact(const struct causal_sampled_thread *st)
{
	int fd = atomic_load(&st->fd);
	uint64_t id = 0;

	return fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0 &&
	       id == st->perf_id;
}

void causal_source_sampled(struct causal_sampled_thread *st)
{
	uint32_t n = atomic_fetch_add(&st->since_refresh, 1) + 1;

	if (n < STEP || atomic_load(&st->paused))
		return;
	n = atomic_exchange(&st->since_refresh, 0);
	if (n)
		ioctl(atomic_load(&st->fd), PERF_EVENT_IOC_REFRESH, (int)n);
}

/* ---- POSIX timers on the thread's CPU clock ------------------------------ */

static void timer_arm(int id, int on)
{
	uint64_t ns = on ? period_ns() : 0;
	struct itimerspec its;

	its.it_interval.tv_sec = (time_t)(ns / 1000000000ull);
	its.it_interval.tv_nsec = (long)(ns % 1000000000ull);
	its.it_value = its.it_interval;
	syscall(SYS_timer_settime, id, 0, &its, NULL);
}

/* A timer for st's thread sending signo; from any thread of the process. */
static int timer_source(struct causal_sampled_thread *st, int signo, int paused)
{
	int32_t os_tid = atomic_load(&st->os_tid);
	struct sigevent sev;
	int id, old;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = signo;
	sev._sigev_un._tid = os_tid;
	if (syscall(SYS_timer_create, causal_thread_clock(os_tid), &sev, &id))
		return -1;
	st->source = CAUSAL_SAMPLER_TIMER;
	/* the handler knows the new one before it fires */
	old = atomic_exchange(&st->timer, id);
	if (!paused)
		timer_arm(id, 1);
	if (old >= 0)
		syscall(SYS_timer_delete, old);
	return 0;
}

/* ---- either ----------------------------------------------------------------
 */

int causal_source_open(struct causal_sampled_thread *st, int signo, int paused)
{
	int kind = atomic_load(&causal_sampler.source);

	atomic_store(&st->fd, -1);
	atomic_store(&st->timer, -1);
	atomic_store(&st->since_refresh, 0);
	atomic_store(&st->paused, (uint8_t)paused);
	st->cpu_from = thread_cpu(st);
	if (kind == CAUSAL_SAMPLER_PERF || kind == CAUSAL_SAMPLER_PERF_USER) {
		if (perf_source(st, kind, signo, paused) == 0)
			return 0;
		atomic_fetch_add(&causal_sampler.fallback, 1);
	}
	return timer_source(st, signo, paused);
}

int causal_source_sent(const struct causal_sampled_thread *st,
		       const siginfo_t *si)
{
	if (si->si_code == SI_TIMER)
		return si->si_timerid == atomic_load(&st->timer);
	return (si->si_code == POLL_IN || si->si_code == POLL_HUP) &&
	       si->si_fd == atomic_load(&st->fd);
}

void causal_source_pause(struct causal_sampled_thread *st)
{
	int timer = atomic_load(&st->timer);

	if (atomic_exchange(&st->paused, 1))
		return;
	/* a handler that read paused 0 refreshes the event: let it end
	 * first (another thread's; the caller's own cannot be running) */
	for (int i = 0; i < 10000 && atomic_load(&st->in_handler); i++)
		sched_yield();
	if (causal_source_intact(st))
		ioctl(atomic_load(&st->fd), PERF_EVENT_IOC_DISABLE, 0);
	if (timer >= 0)
		timer_arm(timer, 0);
	atomic_fetch_add(&causal_sampler.cpu_ns, thread_cpu(st) - st->cpu_from);
}

void causal_source_resume(struct causal_sampled_thread *st)
{
	int timer = atomic_load(&st->timer);

	if (!atomic_load(&st->paused))
		return;
	st->cpu_from = thread_cpu(st);
	if (causal_source_intact(st)) {
		uint32_t n = atomic_exchange(&st->since_refresh, 0);
		int fd = atomic_load(&st->fd);

		if (n)
			ioctl(fd, PERF_EVENT_IOC_REFRESH, (int)n);
		else
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	if (timer >= 0)
		timer_arm(timer, 1);
	atomic_store(&st->paused, 0);
}

int causal_source_retarget(struct causal_sampled_thread *st, int signo)
{
	if (atomic_load(&st->timer) >= 0)
		return timer_source(st, signo, atomic_load(&st->paused));
	if (causal_source_intact(st) &&
	    fcntl(atomic_load(&st->fd), F_SETSIG, signo) == 0)
		return 0;
	/* the program closed the event's descriptor: a timer goes on */
	atomic_store(&st->fd, -1);
	atomic_fetch_add(&causal_sampler.fallback, 1);
	return timer_source(st, signo, atomic_load(&st->paused));
}

void causal_source_close(struct causal_sampled_thread *st)
{
	int timer, fd;

	causal_source_pause(st);
	fd = atomic_load(&st->fd);
	if (fd >= 0 && causal_source_intact(st))
		close(fd);
	atomic_store(&st->fd, -1);
	timer = atomic_exchange(&st->timer, -1);
	if (timer >= 0)
		syscall(SYS_timer_delete, timer);
	st->source = CAUSAL_SAMPLER_OFF;
}
