/*
 * exec-hooks.c - process boundaries: fork, the exec family, _exit.
 *
 * An exec replaces the image without running exit handlers, so every
 * record so far is written first (EXEC, then PROCESS_END).  If the exec
 * fails the log goes on with EXEC_FAILED.  fork() records the child's pid in
 * the parent; the child's new identity and log are made by the fork handler
 * in lifecycle.c, which also runs for fork() calls made inside libc.
 *
 * vfork() cannot be wrapped (the child returns through the caller's stack
 * frame) and runs no fork handler, and posix_spawn() execs in its child
 * without going through our exec wrappers.  Either child is traced only
 * once it has exec'd, as a new image that cannot know its parent: so the
 * parent's log names the child (FORK with how = vfork / posix_spawn /
 * posix_spawnp, log-format.h) and the merge links the two.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "sampler.h"

static void record_fork(struct causal_tbuf *tb, pid_t child, uint32_t how,
			uint64_t mono_ns)
{
	uint64_t pending;
	struct rec_fork *r = (void *)causal_record_begin_at(
		tb, CAUSAL_REC_FORK, sizeof(*r), &pending, mono_ns);

	if (!r)
		return;
	r->hdr.aux = (uint32_t)child;
	r->how = how;
	causal_record_commit(tb, pending);
}

/*
 * An exec in a child that shares our memory (vfork(), or clone() with
 * CLONE_VM | CLONE_VFORK): the fork handlers never ran, so the pid is not
 * ours.  The parent thread that made the child is suspended until the
 * exec succeeds or the child exits, and is the only producer of its own
 * buffer (the TLS we see is its): we write its FORK record for it.
 * (A child made by _Fork() or a raw clone() has a copy of the memory: the
 * record goes into the copy, which the exec discards.)
 */
static void note_vfork_child(void)
{
	pid_t pid;

	if (causal_self.in_hook || !causal_running())
		return;
	pid = getpid();
	if (pid == causal_g.id.pid)
		return;
	if (causal_self.tbuf && causal_self.status == CAUSAL_THREAD_LIVE)
		record_fork(causal_self.tbuf, pid, CAUSAL_FORK_VFORK,
			    causal_now_ns());
	else
		causal_tbufs_count_lost(1); /* a thread we never saw start */
}

static void before_exec(const char *path)
{
	causal_ensure_init();
	if (causal_self.in_hook || !causal_running())
		return;
	causal_self.in_hook = 1;
	causal_writer_before_exec(path ? path : "");
	causal_sampler_before_exec(); /* no sample pending across it */
	causal_self.in_hook = 0;
}

static void after_failed_exec(int err)
{
	struct causal_tbuf *tb;

	if (causal_self.in_hook || !causal_running() ||
	    getpid() != causal_g.id.pid)
		return; /* untraced, or a vfork child sharing our memory */
	causal_sampler_after_failed_exec();
	tb = causal_thread_current();
	if (tb)
		causal_record_simple(tb, CAUSAL_REC_EXEC_FAILED, (uint32_t)err);
}

/* Every exec wrapper: flush, exec, and on failure say so and keep errno. */
#define EXEC_WRAP(path, call)                                   \
	do {                                                    \
		int ret_, err_;                                 \
		causal_real_resolve();                          \
		if (!causal_real.execve) {                      \
			errno = ENOSYS;                         \
			return -1;                              \
		}                                               \
		note_vfork_child();                             \
		before_exec(path);                              \
		ret_ = (call);                                  \
		err_ = errno;                                   \
		after_failed_exec(err_);                        \
		errno = err_;                                   \
		return ret_;                                    \
	} while (0)

CAUSAL_EXPORT int execve(const char *path, char *const argv[],
			 char *const envp[])
{
	EXEC_WRAP(path, causal_real.execve(path, argv, envp));
}

CAUSAL_EXPORT int execv(const char *path, char *const argv[])
{
	EXEC_WRAP(path, causal_real.execve(path, argv, environ));
}

CAUSAL_EXPORT int execvpe(const char *file, char *const argv[],
			  char *const envp[])
{
	EXEC_WRAP(file, causal_real.execvpe(file, argv, envp));
}

CAUSAL_EXPORT int execvp(const char *file, char *const argv[])
{
	EXEC_WRAP(file, causal_real.execvpe(file, argv, environ));
}

CAUSAL_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	EXEC_WRAP("(fexecve)", causal_real.fexecve(fd, argv, envp));
}

/* The execl family: gather the variadic arguments into an argv on the
 * stack (no malloc) and go through the vector forms above.  A variable
 * length array, as glibc's execl has: no larger than the arguments the
 * caller pushed, and no malloc in a vfork child. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wvla"
#define COLLECT_ARGS(first, ap, argv, envp_out)                          \
	size_t argc_ = 1;                                                \
	va_start(ap, first);                                             \
	while (va_arg(ap, const char *))                                 \
		argc_++;                                                 \
	va_end(ap);                                                      \
	const char *argv[argc_ + 1];                                     \
	va_start(ap, first);                                             \
	argv[0] = first;                                                 \
	for (size_t i_ = 1; i_ <= argc_; i_++)                           \
		argv[i_] = va_arg(ap, const char *);                     \
	envp_out;                                                        \
	va_end(ap)

CAUSAL_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;

	COLLECT_ARGS(arg, ap, argv, (void)0);
	return execv(path, (char *const *)argv);
}

CAUSAL_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;

	COLLECT_ARGS(arg, ap, argv, (void)0);
	return execvp(file, (char *const *)argv);
}

CAUSAL_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	va_list ap;

	COLLECT_ARGS(arg, ap, argv, envp = va_arg(ap, char *const *));
	return execve(path, (char *const *)argv, envp);
}
#pragma GCC diagnostic pop

CAUSAL_EXPORT pid_t fork(void)
{
	int saved_errno;
	pid_t pid;

	causal_real_resolve();
	if (!causal_real.fork) {
		errno = ENOSYS;
		return -1;
	}
	causal_ensure_init();
	pid = causal_real.fork();
	saved_errno = errno;
	if (pid > 0 && !causal_self.in_hook && causal_running()) {
		struct causal_tbuf *tb = causal_thread_current();

		if (tb)
			record_fork(tb, pid, CAUSAL_FORK_FORK, causal_now_ns());
	}
	errno = saved_errno;
	return pid;
}

typedef int (*spawn_fn)(pid_t *, const char *,
			const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static int spawn(spawn_fn real, uint32_t how, pid_t *pid, const char *path,
		 const posix_spawn_file_actions_t *actions,
		 const posix_spawnattr_t *attr, char *const argv[],
		 char *const envp[])
{
	int ret, saved_errno;
	uint64_t before;
	pid_t child;

	if (!real)
		return ENOSYS;
	causal_ensure_init();
	/* before the child can start: the merge links the first image of
	 * the child's pid that starts at or after this */
	before = causal_now_ns();
	ret = real(&child, path, actions, attr, argv, envp);
	saved_errno = errno;
	if (ret == 0) {
		if (pid)
			*pid = child;
		if (!causal_self.in_hook && causal_running()) {
			struct causal_tbuf *tb = causal_thread_current();

			if (tb)
				record_fork(tb, child, how, before);
		}
	}
	errno = saved_errno;
	return ret;
}

CAUSAL_EXPORT int posix_spawn(pid_t *pid, const char *path,
			      const posix_spawn_file_actions_t *actions,
			      const posix_spawnattr_t *attr,
			      char *const argv[], char *const envp[])
{
	causal_real_resolve();
	return spawn(causal_real.posix_spawn, CAUSAL_FORK_POSIX_SPAWN, pid,
		     path, actions, attr, argv, envp);
}

CAUSAL_EXPORT int posix_spawnp(pid_t *pid, const char *file,
			       const posix_spawn_file_actions_t *actions,
			       const posix_spawnattr_t *attr,
			       char *const argv[], char *const envp[])
{
	causal_real_resolve();
	return spawn(causal_real.posix_spawnp, CAUSAL_FORK_POSIX_SPAWNP, pid,
		     file, actions, attr, argv, envp);
}

CAUSAL_EXPORT void _exit(int status)
{
	causal_real_resolve();
	if (!causal_self.in_hook)
		causal_writer_finish(CAUSAL_END__EXIT, status, 0);
	if (causal_real._exit)
		causal_real._exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

CAUSAL_EXPORT void _Exit(int status)
{
	causal_real_resolve();
	if (!causal_self.in_hook)
		causal_writer_finish(CAUSAL_END__EXIT, status, 0);
	if (causal_real._Exit)
		causal_real._Exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}
