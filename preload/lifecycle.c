/*
 * lifecycle.c - start-up, fork and teardown of the tracer.
 *
 * Start-up runs once, from our constructor or from the first wrapper called
 * (whichever comes first).  If tracing cannot work (secure-execution mode,
 * no usable log directory) it says so in one line on stderr and the program
 * runs untraced: every wrapper then calls straight through.
 *
 * The one place that starts, forks and stops the modules, in order: each
 * module is called from here, and none calls another's start (the state
 * they share is state.c's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "internal.h"
#include "sampler.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void disable(const char *why, int err)
{
	atomic_store(&causal_run.state, CAUSAL_DISABLED);
	causal_say("causal: ", why, err ? ": " : "", err ? strerror(err) : "",
		   "; running untraced", NULL);
}

/*
 * The log's descriptor is out of the program's numbers (log-file.c),
 * unless the limit could not be raised (soft = hard, without
 * CAP_SYS_RESOURCE): then it took the program's highest, which is said
 * once (a fork child does not say it again).
 */
static void say_fd_in_range(void)
{
	static int said;
	char line[256];

	if (!causal_g.log.fd_in_range || said)
		return;
	said = 1;
	snprintf(line, sizeof(line),
		 "causal: the log takes descriptor %d, the highest the "
		 "program may open (RLIMIT_NOFILE %d cannot be raised): it "
		 "can open one file fewer",
		 causal_g.log.fd, causal_g.log.fd + 1);
	causal_say(line, NULL);
}

/*
 * Log file and header: at start-up and in a fork child, in the directory
 * resolved at start-up (never against a working directory the program
 * has changed since), walked and checked again each time (log-dir.h).
 */
static int open_log(int in_fork_child)
{
	char uuid[2 * CAUSAL_UUID_LEN + 1], why[1024];
	const char *what;
	int ret, dir_fd;

	dir_fd = causal_log_dir_open(&causal_g.log_dir, why, sizeof(why));
	if (dir_fd < 0) {
		causal_g.log.fd = -1;
		atomic_store(&causal_run.state, CAUSAL_DISABLED);
		causal_say(why, "; running untraced", NULL);
		return -1;
	}
	causal_uuid_hex(causal_g.id.uuid, uuid);
	if (in_fork_child)
		ret = causal_log_file_open_in_child(
			&causal_g.log, dir_fd, causal_g.log_dir.path,
			causal_g.id.hostname, causal_g.id.pid, uuid, &what);
	else
		ret = causal_log_file_open(
			&causal_g.log, dir_fd, causal_g.log_dir.path,
			causal_g.id.hostname, causal_g.id.pid, uuid, &what);
	close(dir_fd);
	if (!ret) {
		say_fd_in_range();
		ret = causal_writer_header();
	}
	if (ret) {
		atomic_store(&causal_run.state, CAUSAL_DISABLED);
		causal_say("causal: cannot ", what, " in '",
			   causal_g.log_dir.path, "': ", strerror(-ret),
			   "; running untraced", NULL);
		return -1;
	}
	return 0;
}

/*
 * The CPU clock, before the log header that names it, said once on stderr
 * whenever a bpf clock is in play: the one line "causal: reading the cpu
 * clock from the bpf clock 'PATH'" when it is used, the one line of why
 * not when it is there but cannot be used or CAUSAL_CPU_CLOCK=bpf asked
 * for it.  Silent when there is nothing to find (no `causalctl bpf-clock
 * start` on this host, CAUSAL_CPU_CLOCK=syscall): the process reads the
 * system call as it always did.  The header says which, whatever
 * happened.
 */
static void find_cpu_clock(void)
{
	char path[sizeof(causal_g.cfg.bpf_clock_dir) + 16], why[512];
	int ret;

	if (causal_g.cfg.cpu_clock == CAUSAL_CPU_CLOCK_WANT_SYSCALL)
		return;
	snprintf(path, sizeof(path), "%s/%s", causal_g.cfg.bpf_clock_dir,
		 CAUSAL_BPF_CLOCK_MAP);
	ret = causal_cpu_clock_open(&causal_cpu_clock, path, why, sizeof(why));
	if (!ret)
		causal_say("causal: reading the cpu clock from the bpf clock '",
			   path, "'", NULL);
	else if (ret != -ENOENT ||
		 causal_g.cfg.cpu_clock != CAUSAL_CPU_CLOCK_AUTO)
		causal_say("causal: cannot use the bpf clock ", why,
			   "; reading the cpu clock with a system call", NULL);
}

static void atfork_prepare(void)
{
	/* the child must inherit neither lock held by another thread */
	if (causal_running()) {
		causal_writer_lock();
		causal_tbufs_lock();
	}
}

static void atfork_parent(void)
{
	if (causal_running()) {
		causal_tbufs_unlock();
		causal_writer_unlock();
	}
}

static void atfork_child(void)
{
	struct causal_tbuf *self = causal_self.tbuf;

	if (!causal_running())
		return;
	causal_writer_after_fork();
	causal_tbufs_after_fork(self);

	/* a new process: new identity, its own log, never the parent's
	 * unflushed records (the rings and the open frame are discarded) */
	memcpy(causal_g.id.parent_uuid, causal_g.id.uuid, CAUSAL_UUID_LEN);
	causal_identity_init(&causal_g.id);
	causal_g.id.has_parent = 1;
	if (causal_g.log.fd >= 0)
		close(causal_g.log.fd);
	causal_g.log.fd = -1;
	causal_g.log.frame_len = 0;
	causal_g.log.frame_records = 0;
	causal_g.log.records_written = 0;
	causal_g.log.failed = 0;
	atomic_store(&causal_g.next_tid, 1);
	/* the mapping is inherited; the pid namespace may not be */
	if (causal_cpu_clock_after_fork(&causal_cpu_clock))
		causal_say("causal: cannot use the bpf clock in a fork child "
			   "(its pid or time namespace); reading the cpu "
			   "clock with a system call",
			   NULL);
	if (open_log(1))
		return;
	causal_spikes_after_fork();
	if (self) {
		/* the forking thread is the child's first thread */
		self->tid = atomic_fetch_add(&causal_g.next_tid, 1);
		self->parent_tid = 0;
		self->start_ctx = causal_self.ctx;
		causal_thread_begin(self, 1);
	}
	if (causal_writer_start()) {
		disable("cannot start the log writer", 0);
	} else {
		causal_monitor_after_fork(causal_tbuf_acquire());
		causal_consumer_start();
	}
}

static void init(void)
{
	char problems[1024];
	int ret;

	causal_real_resolve();
	causal_self.in_hook = 1;
	if (getauxval(AT_SECURE)) {
		disable("secure-execution mode (setuid, setgid or "
			"capabilities)", 0);
		goto out;
	}
	if (causal_config_load(&causal_g.cfg, (causal_getenv_fn)getenv,
			       problems, sizeof(problems)))
		causal_say(problems, NULL); /* ends with its own newline */
	causal_run.cpu_exact_us = causal_g.cfg.cpu_exact_us;
	causal_run.values_max = causal_g.cfg.values_max;
	/* once: a fork child after chdir() writes where we started */
	ret = causal_log_dir_resolve(&causal_g.log_dir, causal_g.cfg.log_dir,
				     causal_g.cfg.log_dir_trust);
	if (ret) {
		causal_say("causal: cannot resolve log directory '",
			   causal_g.cfg.log_dir, "': ", strerror(-ret),
			   "; running untraced", NULL);
		atomic_store(&causal_run.state, CAUSAL_DISABLED);
		goto out;
	}
	causal_identity_init(&causal_g.id);
	atomic_store(&causal_g.next_tid, 1);
	causal_tid_init();
	find_cpu_clock();
	if (open_log(0))
		goto out;
	causal_tbufs_init(); /* once the log's buffers are mapped */
	ret = pthread_key_create(&causal_g.end_key, causal_thread_unwound);
	if (ret) {
		disable("cannot create a thread key", ret);
		goto out;
	}
	atomic_store_explicit(&causal_run.state, CAUSAL_RUNNING,
			      memory_order_release);
	/* the start-up state first: the first thread's start obeys it */
	causal_monitor_start(causal_tbuf_acquire());
	causal_consumer_start(); /* the coordinator's, if one is set */
	/* before the sampler takes its signal: what it gives back, or raises
	 * a foreign one under, is then the flush (an end record) */
	causal_signals_install();
	causal_spikes_start();	 /* a resource policy, if any (sampler.h) */
	causal_thread_current(); /* the thread that loaded us, normally main */
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	ret = causal_writer_start();
	if (ret)
		disable("cannot start the log writer", -ret);
out:
	causal_self.in_hook = 0;
}

void causal_ensure_init(void)
{
	pthread_once(&init_once, init);
}

__attribute__((constructor)) static void causal_constructor(void)
{
	causal_ensure_init();
}

/* Runs after the program's atexit handlers: the log sees all of exit. */
__attribute__((destructor)) static void causal_destructor(void)
{
	causal_spikes_finish(); /* the last windows and the profile */
	causal_writer_finish(CAUSAL_END_EXIT, 0, 0);
}
