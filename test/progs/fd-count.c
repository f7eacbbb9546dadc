/*
 * fd-count - what a program sees of its file descriptors, to compare
 * traced and untraced runs line for line.
 *
 *   fd-count count
 *     prints "limit SOFT HARD" (RLIMIT_NOFILE), "first N" (the number
 *     open() gives first), then opens /dev/null until it fails: "count N"
 *     (how many it got), "last N" (the last number) and "fail ERRNO".
 *     Then, as a daemon does, closes every descriptor above 2
 *     (close_range) and opens one: "after-close N".  Exits 0.
 *
 *   fd-count clobber FILE
 *     a program that takes the log's number for a file of its own:
 *     raises its soft limit to the hard one, looks in /proc/self/fd for
 *     a descriptor open on a *.clog file ("found 0|1"), dup2()s FILE
 *     onto it, writes "mine\n" through it, closes every descriptor
 *     above 2 and exits 0.  FILE must then hold "mine\n" alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static int count(void)
{
	struct rlimit rl;
	int fd, n = 0, last = -1;

	getrlimit(RLIMIT_NOFILE, &rl);
	printf("limit %llu %llu\n", (unsigned long long)rl.rlim_cur,
	       (unsigned long long)rl.rlim_max);
	fd = open("/dev/null", O_RDONLY);
	printf("first %d\n", fd);
	if (fd >= 0) {
		n++;
		last = fd;
	}
	while ((fd = open("/dev/null", O_RDONLY)) >= 0) {
		n++;
		last = fd;
	}
	printf("count %d\nlast %d\nfail %s\n", n, last,
	       errno == EMFILE ? "EMFILE" : strerror(errno));
	fflush(stdout);
	syscall(SYS_close_range, 3u, ~0u, 0u);
	printf("after-close %d\n", open("/dev/null", O_RDONLY));
	return 0;
}

/* The descriptor open on a log, or -1. */
static int find_log(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = -1;

	while (d && (e = readdir(d))) {
		char path[300], target[PATH_MAX];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 5)
			continue;
		target[n] = '\0';
		if (!strcmp(target + n - 5, ".clog"))
			found = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

static int clobber(const char *file)
{
	struct rlimit rl;
	int fd, log;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	log = find_log();
	printf("found %d\n", log >= 0);
	fflush(stdout);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(file);
		return 1;
	}
	if (log >= 0 && dup2(fd, log) == log) {
		close(fd);
		fd = log;
	}
	if (write(fd, "mine\n", 5) != 5)
		return 1;
	syscall(SYS_close_range, 3u, ~0u, 0u);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "count"))
		return count();
	if (argc == 3 && !strcmp(argv[1], "clobber"))
		return clobber(argv[2]);
	fprintf(stderr, "usage: fd-count count | clobber FILE\n");
	return 2;
}
