/*
 * read-file.h - the files the library reads on the program's behalf (the
 * policy file, /proc/self/...), opened so that none can stop the program
 * or feed it without end: a FIFO, a terminal or a device named there is
 * refused at once, never read.
 *
 * Each is opened O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC (no wait
 * for a writer, no symbolic link as the last component, nothing left
 * open across an exec), checked to be a regular file with fstat(), and
 * read up to a bound.  No malloc, no stdio: this runs at start-up and in
 * the library's threads.
 */
#ifndef CAUSAL_READ_FILE_H
#define CAUSAL_READ_FILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Open path for reading as above: the descriptor, or -errno: -ELOOP for a
 * symbolic link, -EINVAL for anything but a regular file (a FIFO, a
 * socket, a device, a directory), else open()'s error.
 */
int causal_file_open(const char *path);

/*
 * The whole of path into buf, NUL-terminated: its length, or -errno
 * (causal_file_open()'s, a read error, or -EFBIG when the file holds
 * more than size - 1 bytes and `whole` is set; without it the first
 * size - 1 bytes are taken, as for /proc files that may be long).
 */
ssize_t causal_file_read(const char *path, char *buf, size_t size, int whole);

/* What the error of the two above means, for a message: "is a symbolic
 * link", "is not a regular file", "is too long", or strerror(). */
const char *causal_file_strerror(int err);

#endif
