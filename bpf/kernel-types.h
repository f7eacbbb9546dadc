/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * kernel-types.h - the few kernel types bpf-clock.bpf.c reads, instead of
 * a vmlinux.h made from the build machine's BTF: the build then needs no
 * kernel BTF (nor a kernel with BPF), only clang, libbpf-dev's headers
 * and the uapi headers.  CO-RE: preserve_access_index makes every field
 * access a relocation that libbpf resolves at load time against the
 * running kernel's BTF (by type and field name; the offsets and sizes
 * here are never used), so only the fields named must exist there.
 */
#ifndef CAUSAL_BPF_KERNEL_TYPES_H
#define CAUSAL_BPF_KERNEL_TYPES_H

#include <linux/bpf.h> /* __u32 and the map types, for bpf_helpers.h */
#include <stdbool.h>

typedef __u64 u64;

#define CAUSAL_CORE __attribute__((preserve_access_index))
#pragma clang attribute push(CAUSAL_CORE, apply_to = record)

struct ns_common {
	unsigned int inum;
};

struct pid_namespace {
	struct ns_common ns;
};

struct upid {
	int nr;
	struct pid_namespace *ns;
};

struct pid {
	unsigned int level;
	struct upid numbers[1];
};

struct sched_entity {
	u64 sum_exec_runtime;
};

struct task_struct {
	int pid;
	struct pid *thread_pid;
	struct sched_entity se;
};

#pragma clang attribute pop

#endif
