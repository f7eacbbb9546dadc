/*
 * check-cpu-clock.c - the bpf clock's reader (preload/cpu-clock.h) against
 * a fake mapped array laid out as include/causal/bpf-clock.h says and
 * written as bpf/bpf-clock.bpf.c writes it; and the opening of a clock
 * that is not there.  The real clock is tested end to end
 * (check-e2e-bpf-clock.c).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "causal/bpf-clock.h"

/* A switch-in of another thread into the slot being read, between the
 * reader's loads and its check, this many times. */
static int rewrites;
static void rewrite_slot(struct causal_bpf_clock_slot *s);
#define CAUSAL_CPU_CLOCK_TEST_HOOK(slot)                                       \
	do {                                                                   \
		if (rewrites > 0) {                                            \
			rewrites--;                                            \
			rewrite_slot((struct causal_bpf_clock_slot *)(slot));  \
		}                                                              \
	} while (0)

#include "cpu-clock.h"
#include "test-tmpdir.h"

#define NSLOTS 64u
#define NS 4026531836u /* the initial pid namespace's inode */

static struct causal_bpf_clock_slot map[1 + NSLOTS];
static struct causal_cpu_clock clk;

static struct causal_bpf_clock_head *head(void)
{
	return (struct causal_bpf_clock_head *)(void *)map;
}

static void setup(void)
{
	memset(map, 0, sizeof(map));
	head()->magic = CAUSAL_BPF_CLOCK_MAGIC;
	head()->version = CAUSAL_BPF_CLOCK_VERSION;
	head()->nslots = NSLOTS;
	head()->state = CAUSAL_BPF_CLOCK_LIVE;
	clk = (struct causal_cpu_clock){ map, NSLOTS - 1, NS, 0 };
}

static struct causal_bpf_clock_slot *slot_of(uint32_t ns, uint32_t tid)
{
	return &map[causal_bpf_clock_index(ns, tid, NSLOTS - 1)];
}

/* What the program does at a switch-in (bpf-clock.bpf.c). */
static void switch_in(uint32_t ns, uint32_t tid, uint64_t cpu, uint64_t at)
{
	struct causal_bpf_clock_slot *s = slot_of(ns, tid);

	__atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
	s->tid = tid;
	s->ns = ns;
	s->cpu_at_in = cpu;
	s->in_at = at;
	__atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
}

/* The thread itself switched in again (preempted during the read). */
static void rewrite_slot(struct causal_bpf_clock_slot *s)
{
	switch_in(s->ns, s->tid, s->cpu_at_in + 1000, s->in_at + 5000);
}

START_TEST(read_is_cpu_at_switch_in_plus_time_since)
{
	uint64_t cpu = 0;

	switch_in(NS, 1234, 5000000, 1000000000);
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 1234, 1000030000, &cpu),
			 CAUSAL_CPU_READ_OK);
	ck_assert_uint_eq(cpu, 5030000);
	/* at the switch-in itself */
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 1234, 1000000000, &cpu),
			 CAUSAL_CPU_READ_OK);
	ck_assert_uint_eq(cpu, 5000000);
}
END_TEST

/* Long after the switch-in, time stolen from the virtual CPU since may
 * count: the system call is read instead. */
START_TEST(read_long_after_switch_in_is_stale)
{
	uint64_t at = 1000000000, cpu = 42;

	switch_in(NS, 1234, 5000000, at);
	ck_assert_int_eq(causal_cpu_clock_read(
				 &clk, 1234, at + CAUSAL_CPU_MAX_AGE_NS, &cpu),
			 CAUSAL_CPU_READ_OK);
	ck_assert_uint_eq(cpu, 5000000 + CAUSAL_CPU_MAX_AGE_NS);
	cpu = 42;
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 1234,
					       at + CAUSAL_CPU_MAX_AGE_NS + 1,
					       &cpu),
			 CAUSAL_CPU_READ_STALE);
	ck_assert_uint_eq(cpu, 42);
}
END_TEST

/* now read before a switch-out and in: the CPU at that switch-in, never
 * less than the thread had at now, never a wrapped difference */
START_TEST(read_switched_in_after_now_is_cpu_at_switch_in)
{
	uint64_t cpu = 0;

	switch_in(NS, 77, 9000, 2000000);
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 77, 1999000, &cpu),
			 CAUSAL_CPU_READ_OK);
	ck_assert_uint_eq(cpu, 9000);
}
END_TEST

START_TEST(no_slot_yet_is_not_mine)
{
	uint64_t cpu = 42;

	ck_assert_int_eq(causal_cpu_clock_read(&clk, 1234, 5, &cpu),
			 CAUSAL_CPU_READ_NOT_MINE);
	ck_assert_uint_eq(cpu, 42);
}
END_TEST

/* Thread ids equal modulo the slots share a slot: the one switched in
 * last has it, the other reads the system call. */
START_TEST(another_thread_in_the_slot_is_not_mine)
{
	uint32_t a = 1000, b = 1000 + NSLOTS;
	uint64_t cpu = 0;

	ck_assert_ptr_eq(slot_of(NS, a), slot_of(NS, b));
	switch_in(NS, a, 100, 1000);
	switch_in(NS, b, 200, 2000);
	ck_assert_int_eq(causal_cpu_clock_read(&clk, a, 3000, &cpu),
			 CAUSAL_CPU_READ_NOT_MINE);
	ck_assert_int_eq(causal_cpu_clock_read(&clk, b, 3000, &cpu),
			 CAUSAL_CPU_READ_OK);
	ck_assert_uint_eq(cpu, 1200);
}
END_TEST

/* The same thread id in another pid namespace is another thread. */
START_TEST(same_tid_of_another_namespace_is_not_mine)
{
	uint64_t cpu = 0;
	struct causal_bpf_clock_slot *s = slot_of(NS, 5);

	switch_in(NS, 5, 100, 1000);
	s->ns = NS + 1; /* as if written by that namespace's thread 5 */
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 5, 3000, &cpu),
			 CAUSAL_CPU_READ_NOT_MINE);
}
END_TEST

/* seq odd: a program on another CPU is writing the slot. */
START_TEST(slot_being_written_is_busy)
{
	struct causal_bpf_clock_slot *s = slot_of(NS, 9);
	uint64_t cpu = 42;

	switch_in(NS, 9, 100, 1000);
	s->seq++;
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 9, 3000, &cpu),
			 CAUSAL_CPU_READ_BUSY);
	ck_assert_uint_eq(cpu, 42);
	s->seq++;
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 9, 3000, &cpu),
			 CAUSAL_CPU_READ_OK);
}
END_TEST

/* A switch-in between the reads and the check: read again, and take the
 * new switch-in's values, never a mix of the two. */
START_TEST(slot_rewritten_during_the_read_is_read_again)
{
	uint64_t cpu = 0;

	switch_in(NS, 9, 100000, 1000000);
	rewrites = 1;
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 9, 1020000, &cpu),
			 CAUSAL_CPU_READ_OK);
	ck_assert_int_eq(rewrites, 0);
	/* 101000 at 1005000, not 100000 at 1000000 */
	ck_assert_uint_eq(cpu, 101000 + 15000);
	/* rewritten at every try: given up, the system call is read */
	cpu = 42;
	rewrites = CAUSAL_CPU_READ_TRIES;
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 9, 1020000, &cpu),
			 CAUSAL_CPU_READ_BUSY);
	ck_assert_uint_eq(cpu, 42);
}
END_TEST

/* Once stopped (the program is about to be detached), or before it is
 * live, no slot is taken, however good it looks. */
START_TEST(stopped_clock_is_never_read)
{
	uint64_t cpu = 42;

	switch_in(NS, 9, 100, 1000);
	head()->state = CAUSAL_BPF_CLOCK_STOPPED;
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 9, 3000, &cpu),
			 CAUSAL_CPU_READ_STOPPED);
	head()->state = CAUSAL_BPF_CLOCK_LOADING;
	ck_assert_int_eq(causal_cpu_clock_read(&clk, 9, 3000, &cpu),
			 CAUSAL_CPU_READ_STOPPED);
	ck_assert_uint_eq(cpu, 42);
}
END_TEST

START_TEST(no_clock_reads_nothing)
{
	struct causal_cpu_clock none = { 0 };
	uint64_t cpu = 42;

	ck_assert_int_eq(causal_cpu_clock_read(&none, 9, 3000, &cpu),
			 CAUSAL_CPU_READ_NONE);
	ck_assert_uint_eq(cpu, 42);
}
END_TEST

/* Slots 1 .. nslots (0 is the head); consecutive ids of a namespace
 * never share one. */
START_TEST(index_spreads_consecutive_tids)
{
	static uint8_t seen[1 + NSLOTS];

	memset(seen, 0, sizeof(seen));
	for (uint32_t tid = 300; tid < 300 + NSLOTS; tid++) {
		uint32_t k = causal_bpf_clock_index(NS, tid, NSLOTS - 1);

		ck_assert_uint_ge(k, 1);
		ck_assert_uint_le(k, NSLOTS);
		ck_assert_msg(!seen[k], "tid %u shares slot %u", tid, k);
		seen[k] = 1;
	}
	ck_assert_uint_ne(causal_bpf_clock_index(NS, 5, NSLOTS - 1),
			  causal_bpf_clock_index(NS + 1, 5, NSLOTS - 1));
}
END_TEST

/*
 * A writer on another CPU rewriting the slot as fast as it can, keeping
 * cpu_at_in == in_at (never more than 50 us before now): a consistent
 * read gives exactly now, a torn one (cpu_at_in of one write, in_at of
 * another) does not.
 */
static volatile int stop_writer;

#define TORN_BASE (1ull << 40)

static void *writer(void *arg)
{
	struct causal_bpf_clock_slot *s = slot_of(NS, 11);
	uint64_t k = 1;

	(void)arg;
	while (!stop_writer) {
		__atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
		/* in the order the reader reads last to first: a read
		 * between two of these stores is torn */
		__atomic_store_n(&s->in_at, TORN_BASE + k % 50000,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&s->cpu_at_in, TORN_BASE + k % 50000,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&s->ns, NS, __ATOMIC_RELAXED);
		__atomic_store_n(&s->tid, (k & 7) ? 11 : 12, __ATOMIC_RELAXED);
		__atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
		k++;
	}
	return NULL;
}

START_TEST(concurrent_writes_are_never_read_torn)
{
	const uint64_t now = TORN_BASE + 50000;
	long ok = 0, other = 0, busy = 0;
	pthread_t th;

	stop_writer = 0;
	switch_in(NS, 11, TORN_BASE, TORN_BASE);
	ck_assert_int_eq(pthread_create(&th, NULL, writer, NULL), 0);
	for (long i = 0; i < 3000000; i++) {
		uint64_t cpu = 0;
		int r = causal_cpu_clock_read(&clk, 11, now, &cpu);

		if (r == CAUSAL_CPU_READ_OK) {
			ok++;
			ck_assert_msg(cpu == now, "torn read: %llu off",
				      (unsigned long long)(cpu - now));
		} else if (r == CAUSAL_CPU_READ_NOT_MINE) {
			other++;
		} else {
			ck_assert_int_eq(r, CAUSAL_CPU_READ_BUSY);
			busy++;
		}
	}
	stop_writer = 1;
	pthread_join(th, NULL);
	ck_assert_int_gt(ok, 0);
}
END_TEST

START_TEST(open_missing_clock_is_enoent)
{
	struct causal_cpu_clock c;
	char why[256];

	ck_assert_int_eq(causal_cpu_clock_open(&c, tmp_path("none/clock"), why,
					       sizeof(why)),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "none/clock': No such file"));
	ck_assert_ptr_null(c.slots);
}
END_TEST

/* A file that is not a pinned map: refused, the process reads the
 * system call. */
START_TEST(open_plain_file_is_refused)
{
	struct causal_cpu_clock c;
	char why[256];
	int fd = open(tmp_path("clock"), O_CREAT | O_WRONLY, 0666);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, map, sizeof(map)), (ssize_t)sizeof(map));
	close(fd);
	ck_assert_int_lt(
		causal_cpu_clock_open(&c, tmp_path("clock"), why, sizeof(why)),
		0);
	ck_assert_ptr_nonnull(strstr(why, "clock': cannot open it: "));
	ck_assert_ptr_null(c.slots);
}
END_TEST

static void tmp_setup(void)
{
	tmpdir_make("check-cpu-clock");
}

static void tmp_teardown(void)
{
	tmpdir_remove();
}

Suite *cpu_clock_suite(void)
{
	Suite *s = suite_create("cpu_clock");
	TCase *tc = tcase_create("read");
	TCase *to = tcase_create("open");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, read_is_cpu_at_switch_in_plus_time_since);
	tcase_add_test(tc, read_long_after_switch_in_is_stale);
	tcase_add_test(tc, read_switched_in_after_now_is_cpu_at_switch_in);
	tcase_add_test(tc, no_slot_yet_is_not_mine);
	tcase_add_test(tc, another_thread_in_the_slot_is_not_mine);
	tcase_add_test(tc, same_tid_of_another_namespace_is_not_mine);
	tcase_add_test(tc, slot_being_written_is_busy);
	tcase_add_test(tc, slot_rewritten_during_the_read_is_read_again);
	tcase_add_test(tc, stopped_clock_is_never_read);
	tcase_add_test(tc, no_clock_reads_nothing);
	tcase_add_test(tc, index_spreads_consecutive_tids);
	tcase_add_test(tc, concurrent_writes_are_never_read_torn);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(to, tmp_setup, tmp_teardown);
	tcase_add_test(to, open_missing_clock_is_enoent);
	tcase_add_test(to, open_plain_file_is_refused);
	suite_add_tcase(s, to);
	return s;
}
