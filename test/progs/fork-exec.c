/*
 * fork-exec - a process tree: the parent runs two threads, then forks one
 * child that runs a thread of its own and exits, and one child that
 * execs PROG.  The parent waits for both.
 *
 *   fork-exec PROG [ARGS...]
 *
 * Prints "parent <pid>", "parent-thread <os_tid>" (twice),
 * "child-exit <pid>", "child-thread <os_tid>", "child-exec <pid>"; PROG's
 * output is mixed in.  Exits 0 when both children exited 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *report(void *arg)
{
	printf("%s %d\n", (const char *)arg, (int)gettid());
	return NULL;
}

static void run_thread(const char *label)
{
	pthread_t th;

	if (pthread_create(&th, NULL, report, (void *)label)) {
		perror("pthread_create");
		exit(1);
	}
	pthread_join(th, NULL);
}

int main(int argc, char **argv)
{
	pid_t a, b;
	int sa, sb;

	if (argc < 2) {
		fprintf(stderr, "usage: fork-exec PROG [ARGS...]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("parent %d\n", (int)getpid());
	/*
	 * Fork right after the threads: their records are likely still in
	 * the tracer's buffers, which fork() copies into the children.
	 */
	run_thread("parent-thread");
	run_thread("parent-thread");

	a = fork();
	if (a == 0) {
		printf("child-exit %d\n", (int)getpid());
		run_thread("child-thread");
		exit(0);
	}
	b = fork();
	if (b == 0) {
		printf("child-exec %d\n", (int)getpid());
		execv(argv[1], argv + 1);
		perror("execv");
		_exit(127);
	}
	if (a < 0 || b < 0) {
		perror("fork");
		return 1;
	}
	waitpid(a, &sa, 0);
	waitpid(b, &sb, 0);
	return WIFEXITED(sa) && !WEXITSTATUS(sa) && WIFEXITED(sb) &&
		       !WEXITSTATUS(sb)
		   ? 0
		   : 1;
}
