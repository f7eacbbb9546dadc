/*
 * read-file.c - reading a small file without waiting on it (read-file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read-file.h"

int causal_file_open(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

ssize_t causal_file_read(const char *path, char *buf, size_t size, int whole)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	if (!size)
		return -EFBIG;
	fd = causal_file_open(path);
	if (fd < 0)
		return fd;
	/* /proc files say size 0: only the reads tell their length */
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len))) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		len += (size_t)n;
	}
	if (whole && len + 1 >= size) {
		char more;

		while ((n = read(fd, &more, 1)) < 0 && errno == EINTR)
			;
		if (n != 0) {
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

const char *causal_file_strerror(int err)
{
	switch (err) {
	case ELOOP:
		return "is a symbolic link";
	case EINVAL:
		return "is not a regular file";
	case EFBIG:
		return "is too long";
	default:
		return strerror(err);
	}
}
