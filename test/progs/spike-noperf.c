/*
 * spike-noperf - run a command where perf events are not allowed, as in a
 * container whose seccomp profile refuses perf_event_open (sporadic
 * bottlenecks, docs/tracing.md: the sampler must fall back to its timer
 * and say so).  A seccomp filter makes perf_event_open fail with EACCES;
 * every other system call passes.
 *
 *   spike-noperf COMMAND [ARG...]
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	if (argc < 2) {
		fprintf(stderr, "usage: spike-noperf COMMAND [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("spike-noperf: seccomp");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("spike-noperf: exec");
	return 127;
}
