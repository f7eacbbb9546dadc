/*
 * coord-listen.c - where the coordinator listens (coordinator.h): its
 * Unix socket, made safely, and TCP on an address it is given (loopback
 * unless told otherwise); how many connections its open files allow.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "causal/monitor-proto.h"
#include "coordinator.h"
#include "usage.h"

int coord_default_socket(char *path, size_t size)
{
	return causal_mon_local_socket(0, (unsigned)geteuid(), path, size)
		       ? -ENAMETOOLONG
		       : 0;
}

/* Root's default directory: made if missing; it must be root's and
 * writable by root alone, or anyone could put a socket of theirs there. */
static int root_dir(const char *path)
{
	char dir[sizeof(CAUSAL_MON_SOCKET)];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	if (mkdir(dir, 0755) && errno != EEXIST)
		return fail("cannot make '%s': %s", dir, strerror(errno));
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022))
		return fail("'%s' is not a directory of root's that only root "
			    "may write: remove it",
			    dir);
	return 0;
}

/* A socket file already at path: one a coordinator answers on is said
 * no; a stale one (nobody listening) is removed. */
static int clear_stale(const char *path)
{
	struct stat st;
	int fd, err = 0;

	if (lstat(path, &st))
		return errno == ENOENT ? 0
				       : fail("cannot look at '%s': %s", path,
					      strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return fail("'%s' exists and is not a socket", path);
	fd = causal_mon_dial_unix(path, &err);
	if (fd >= 0) {
		close(fd);
		return fail("a coordinator already listens on '%s'", path);
	}
	if (err != ECONNREFUSED && err != ENOENT)
		return fail("cannot tell whether a coordinator listens on "
			    "'%s': %s",
			    path, strerror(err));
	if (unlink(path) && errno != ENOENT)
		return fail("cannot remove the stale socket '%s': %s", path,
			    strerror(errno));
	return 0;
}

int coord_listen_unix(const char *path, unsigned long *ino)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t mask;
	int fd, r, root = geteuid() == 0;

	if (strlen(path) >= sizeof(sun.sun_path))
		return fail("socket path too long '%s'", path), -ENAMETOOLONG;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (root && !strcmp(path, CAUSAL_MON_SOCKET) && root_dir(path))
		return -EACCES;
	if (clear_stale(path))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("cannot make a socket: %s", strerror(errno)),
		       -errno;
	/* born 0600, opened to every user afterwards by root only: the
	 * peers' credentials decide what each may do */
	mask = umask(0177);
	r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(mask);
	if (r || listen(fd, 128) || (root && chmod(path, 0666)) ||
	    lstat(path, &st)) {
		r = -errno;
		fail("cannot listen on '%s': %s", path, strerror(errno));
		close(fd);
		return r;
	}
	*ino = (unsigned long)st.st_ino;
	return fd;
}

void coord_unlisten(const char *path, unsigned long ino)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISSOCK(st.st_mode) &&
	    (unsigned long)st.st_ino == ino)
		unlink(path);
}

int coord_listen_tcp(const char *host, uint16_t port, uint16_t *bound,
		     char *shown, size_t size, int *loopback)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char p[8], addr[INET6_ADDRSTRLEN];
	int fd, one = 1, r;

	if (!host)
		host = "127.0.0.1";
	snprintf(p, sizeof(p), "%u", (unsigned)port);
	r = getaddrinfo(host, p, &hints, &res);
	if (r)
		return fail("cannot listen on '%s': %s", host, gai_strerror(r)),
		       -EINVAL;
	fd = socket(res->ai_family,
		    res->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		r = -errno;
		fail("cannot listen on '%s' port %u: %s", host, (unsigned)port,
		     strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return r;
	}
	freeaddrinfo(res);
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, addr, sizeof(addr));
		*bound = ntohs(a->sin6_port);
		*loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
		snprintf(shown, size, "[%s]:%u", addr, (unsigned)*bound);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, addr, sizeof(addr));
		*bound = ntohs(a->sin_port);
		*loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
		snprintf(shown, size, "%s:%u", addr, (unsigned)*bound);
	}
	return fd;
}

size_t coord_max_conns(size_t want)
{
	struct rlimit rl;
	const rlim_t spare = 32; /* listeners, the ready file, stdio */

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return want / 4;
	if (rl.rlim_cur < want + spare && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur =
			rl.rlim_max < want + spare ? rl.rlim_max : want + spare;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur <= spare + 16)
		return 16;
	return rl.rlim_cur - spare < want ? (size_t)(rl.rlim_cur - spare)
					  : want;
}
