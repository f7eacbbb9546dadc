/*
 * log-dir.c - resolving and checking the log directory (see log-dir.h).
 *
 * The walk keeps one O_PATH descriptor at a time and never follows a
 * symbolic link, so the directory checked is the one the log is created
 * in, whatever is renamed meanwhile.  A path string is kept rather than a
 * descriptor for the life of the process: the program may close every
 * descriptor, and a fork child must not share a directory position or
 * file lock with its parent; walking again costs a few system calls per
 * log, once per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log-dir.h"

#define TRUST_HINT " (CAUSAL_LOG_DIR_TRUST=1 accepts it)"

int causal_log_dir_resolve(struct causal_log_dir *d, const char *dir,
			   int trust)
{
	size_t len = 0, dl = strlen(dir);

	d->trust = trust;
	if (dir[0] != '/') {
		if (!getcwd(d->path, sizeof(d->path)))
			return errno == ERANGE ? -ENAMETOOLONG : -errno;
		len = strlen(d->path);
		if (len && d->path[len - 1] != '/')
			d->path[len++] = '/';
	}
	if (len + dl >= sizeof(d->path))
		return -ENAMETOOLONG;
	memcpy(d->path + len, dir, dl + 1);
	/* "logs/" and "logs" are one directory; "/" stays */
	for (len += dl; len > 1 && d->path[len - 1] == '/'; len--)
		d->path[len - 1] = '\0';
	return 0;
}

static int say(char *why, size_t size, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int say(char *why, size_t size, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (size)
		vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return ret;
}

static int cannot(const struct causal_log_dir *d, char *why, size_t size,
		  const char *verb, int err)
{
	return say(why, size, -err, "causal: cannot %s log directory '%.600s': "
		   "%s", verb, d->path, strerror(err));
}

/* The checks on the directory reached, through its descriptor. */
static int check(const struct causal_log_dir *d, int fd, char *why,
		 size_t size)
{
	struct stat st;
	int w;

	if (fstat(fd, &st))
		return cannot(d, why, size, "check", errno);
	if (st.st_uid != geteuid())
		return say(why, size, -EPERM, "causal: refusing log directory "
			   "'%.600s': owned by uid %u, not by uid %u" TRUST_HINT,
			   d->path, (unsigned)st.st_uid, (unsigned)geteuid());
	w = (st.st_mode & S_IWGRP ? 1 : 0) | (st.st_mode & S_IWOTH ? 2 : 0);
	if (w && !(st.st_mode & S_ISVTX))
		return say(why, size, -EPERM, "causal: refusing log directory "
			   "'%.600s': writable by %s without the sticky bit "
			   "(mode %04o)" TRUST_HINT, d->path,
			   w == 1 ? "group" : w == 2 ? "others"
				  : "group and others",
			   (unsigned)(st.st_mode & 07777));
	return 0;
}

static int open_trusted(const struct causal_log_dir *d, char *why,
			size_t size)
{
	int fd;

	if (mkdir(d->path, 0700) && errno != EEXIST)
		return cannot(d, why, size, "create", errno);
	fd = open(d->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cannot(d, why, size, "open", errno);
	return fd;
}

/*
 * One component below fd, never through a symbolic link, created if
 * missing and `create`; -errno, and *verb says which step failed.
 */
static int open_component(int fd, const char *name, int create,
			  const char **verb)
{
	int nfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			 O_CLOEXEC);

	*verb = "open";
	if (nfd < 0 && errno == ENOENT && create) {
		*verb = "create";
		if (mkdirat(fd, name, 0700) && errno != EEXIST)
			return -errno;
		nfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			     O_CLOEXEC);
	}
	return nfd < 0 ? -errno : nfd;
}

int causal_log_dir_open(const struct causal_log_dir *d, char *why,
			size_t size)
{
	char name[NAME_MAX + 1];
	const char *p = d->path, *end, *verb;
	int fd, nfd, ret;

	if (d->trust)
		return open_trusted(d, why, size);
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cannot(d, why, size, "open", errno);
	for (;;) {
		struct stat st;
		size_t n;
		int last;

		p += strspn(p, "/");
		if (!*p)
			break;
		n = strcspn(p, "/");
		end = p + n;
		last = end[strspn(end, "/")] == '\0';
		if (n > NAME_MAX) {
			close(fd);
			return cannot(d, why, size, "open", ENAMETOOLONG);
		}
		memcpy(name, p, n);
		name[n] = '\0';
		nfd = open_component(fd, name, last, &verb);
		if (nfd < 0) {
			/* a symbolic link is not a directory to O_NOFOLLOW */
			if ((nfd == -ENOTDIR || nfd == -ELOOP) &&
			    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				ret = say(why, size, -EPERM,
					  "causal: refusing log directory "
					  "'%.600s': '%.*s' is a symbolic link"
					  TRUST_HINT, d->path,
					  (int)(end - d->path), d->path);
			else
				ret = cannot(d, why, size, verb, -nfd);
			close(fd);
			return ret;
		}
		close(fd);
		fd = nfd;
		p = end;
	}
	ret = check(d, fd, why, size);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}
