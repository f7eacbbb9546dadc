/*
 * cpu-first.h - run a program whose CPU a resource policy measures so that
 * it has a CPU whenever it wants one, whatever the machine's load.
 *
 * A CPU policy (cpu>50%/100ms) is a share of the wall clock: a program
 * that cannot get the CPU (a 2-CPU machine loaded ten times over, where
 * nice counts only inside a session's autogroup) never breaches it, and a
 * test of it fails for the load, not the code.  At SCHED_FIFO (chrt) the
 * program runs whenever it is runnable (the kernel keeps 5% of each
 * second for everything else); where the real-time class is not allowed,
 * nice -15, as before.
 */
#ifndef CAUSAL_TEST_CPU_FIRST_H
#define CAUSAL_TEST_CPU_FIRST_H

/* argv behind that prefix (static: one at a time, up to 28 words). */
const char *const *cpu_first(const char *const argv[]);

/* The prefix as one shell word list: "chrt -f 1" or "nice -n -15". */
const char *cpu_first_shell(void);

#endif
