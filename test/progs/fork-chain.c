/*
 * fork-chain - each generation forks the next and waits for it.
 *
 *   fork-chain N
 *
 * Generation 0 is the program; generations 1..N are each the child of
 * the one before.  Each prints "gen <g> pid <pid> vm_kb <VmSize>", its
 * virtual size after the fork (what a tracer that re-allocates its
 * buffers in every child instead of reusing the inherited ones would
 * grow), and runs one thread.  Exits 0 if the whole chain did.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *work(void *arg) { return arg; }

static long vm_size_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	int gen = 0, last, st;
	pthread_t th;
	pid_t pid;

	if (argc != 2 || (last = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: fork-chain N\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		printf("gen %d pid %d vm_kb %ld\n", gen, (int)getpid(),
		       vm_size_kb());
		if (pthread_create(&th, NULL, work, NULL) == 0)
			pthread_join(th, NULL);
		if (gen == last)
			return 0;
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			gen++;
			continue;
		}
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
	}
}
