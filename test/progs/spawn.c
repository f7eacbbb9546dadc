/*
 * spawn - children made without fork(): starts PROG [ARGS...] with
 * vfork() + execv(), with posix_spawn(), and with posix_spawnp() by its
 * base name (its directory must be on PATH); then a vfork() child that
 * _exit()s without exec, and a posix_spawn() of a path that does not
 * exist.  Waits for each child before the next.
 *
 *   spawn PROG [ARGS...]
 *
 * Prints "parent <pid>", "vfork <pid>", "posix_spawn <pid>",
 * "posix_spawnp <pid>", "vfork-exit <pid>" (PROG's output mixed in).
 * Exits 0 when every child exited 0 and the last spawn failed.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int waited_ok(const char *how, pid_t pid)
{
	int st;

	printf("%s %d\n", how, (int)pid);
	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		return 0;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "spawn: %s child: status 0x%x\n", how, st);
		return 0;
	}
	return 1;
}

/* The child never returns from here: it execs or leaves with _exit(). */
static pid_t vfork_child(char **argv)
{
	pid_t pid = vfork();

	if (pid == 0) {
		if (argv)
			execv(argv[0], argv);
		_exit(argv ? 127 : 0);
	}
	return pid;
}

int main(int argc, char **argv)
{
	char *nowhere[] = {"/nonexistent/causal-spawn-test", NULL};
	const char *base;
	int ok = 1, ret;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: spawn PROG [ARGS...]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("parent %d\n", (int)getpid());

	pid = vfork_child(argv + 1);
	ok &= pid > 0 && waited_ok("vfork", pid);

	ret = posix_spawn(&pid, argv[1], NULL, NULL, argv + 1, environ);
	if (ret)
		fprintf(stderr, "posix_spawn: %s\n", strerror(ret));
	ok &= !ret && waited_ok("posix_spawn", pid);

	base = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	argv[1] = (char *)base;
	ret = posix_spawnp(&pid, base, NULL, NULL, argv + 1, environ);
	if (ret)
		fprintf(stderr, "posix_spawnp: %s\n", strerror(ret));
	ok &= !ret && waited_ok("posix_spawnp", pid);

	pid = vfork_child(NULL);
	ok &= pid > 0 && waited_ok("vfork-exit", pid);

	ret = posix_spawn(&pid, nowhere[0], NULL, NULL, nowhere, environ);
	if (ret != ENOENT) {
		fprintf(stderr, "spawn: '%s': %s\n", nowhere[0],
			ret ? strerror(ret) : "started");
		ok = 0;
	}
	return ok ? 0 : 1;
}
