/*
 * chdir-fork - what a daemon does: change directory, then fork a child
 * that does the work.
 *
 *   chdir-fork DIR
 *
 * Prints "parent <pid>", then "child <pid>" from the child (which runs a
 * thread and exits 0); the parent waits and exits 0 if the child did.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void *work(void *arg) { return arg; }

int main(int argc, char **argv)
{
	pthread_t th;
	pid_t pid;
	int st;

	if (argc != 2) {
		fprintf(stderr, "usage: chdir-fork DIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("parent %d\n", (int)getpid());
	if (chdir(argv[1])) {
		perror("chdir");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		printf("child %d\n", (int)getpid());
		if (pthread_create(&th, NULL, work, NULL) == 0)
			pthread_join(th, NULL);
		return 0;
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
