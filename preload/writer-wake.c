/*
 * writer-wake.c - waking the writer (writer-wake.h): the futex word it
 * sleeps on, and the CPU it is pinned to.
 *
 * The writer runs on the CPU of the thread that last woke it, or tried
 * to (a wake is pending): the waker pins it there, a system call made
 * only when that thread has moved to another CPU since.  There the
 * process is running, busy filling a ring; elsewhere the writer may wait
 * behind other programs for longer than the ring lasts, the scheduler
 * weighing a group of processes on each CPU by what it runs there.
 */
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "writer-wake.h"

static _Atomic uint32_t wake_word;  /* writer: rings to drain */
static _Atomic pid_t writer_os_tid; /* set once it runs */
static _Atomic int writer_cpu = -1; /* where it is pinned, -1: nowhere */
static cpu_set_t writer_cpus;	    /* what it was allowed at start */

static inline void futex_wait(_Atomic uint32_t *word, const struct timespec *t)
{
	if (atomic_load_explicit(word, memory_order_relaxed) == 0)
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, t, NULL, 0);
	atomic_store_explicit(word, 0, memory_order_relaxed);
}

static inline void futex_wake(_Atomic uint32_t *word)
{
	/* a load first: the probes come here on every commit past the
	 * threshold, and only the first after each round needs the
	 * exchange and the system call */
	if (atomic_load_explicit(word, memory_order_relaxed) == 0 &&
	    atomic_exchange_explicit(word, 1, memory_order_relaxed) == 0)
		syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void causal_futex_wait(_Atomic uint32_t *word, const struct timespec *t)
{
	futex_wait(word, t);
}

void causal_futex_wake(_Atomic uint32_t *word)
{
	futex_wake(word);
}

static void pin_writer(void)
{
	int cpu = sched_getcpu(); /* rseq or the vDSO: no system call */
	cpu_set_t one;
	pid_t tid;

	if (cpu == atomic_load_explicit(&writer_cpu, memory_order_relaxed))
		return;
	/* acquire: writer_cpus is set before the writer's tid */
	tid = atomic_load_explicit(&writer_os_tid, memory_order_acquire);
	if (!tid || cpu < 0 || cpu >= CPU_SETSIZE ||
	    !CPU_ISSET(cpu, &writer_cpus))
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(tid, sizeof(one), &one) == 0)
		atomic_store_explicit(&writer_cpu, cpu, memory_order_relaxed);
}

void causal_writer_wake(void)
{
	pin_writer();
	futex_wake(&wake_word);
}

void causal_writer_wait(const struct timespec *period)
{
	futex_wait(&wake_word, period);
}

void causal_writer_woken(void)
{
	atomic_store_explicit(&wake_word, 0, memory_order_relaxed);
}

void causal_writer_here(void)
{
	if (sched_getaffinity(0, sizeof(writer_cpus), &writer_cpus))
		CPU_ZERO(&writer_cpus);
	atomic_store_explicit(&writer_os_tid, gettid(), memory_order_release);
}

pid_t causal_writer_os_tid(void)
{
	return atomic_load(&writer_os_tid);
}

void causal_writer_wake_after_fork(void)
{
	atomic_store(&wake_word, 0);
	atomic_store(&writer_cpu, -1);
	atomic_store(&writer_os_tid, 0);
}
