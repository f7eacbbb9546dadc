/*
 * own-files.h - the library's busy threads keep a file table of their own.
 *
 * Once a thread shares its process's file table, the kernel takes a
 * reference on the file at every read, write and poll of every thread;
 * a single-threaded program shares it as soon as libcausal.so starts its
 * writer.  That was most of what a second thread costs it: 0.1-0.3 us an
 * RPC side on these VMs (bench-rpc's idle-thread run; with the idle
 * thread's table unshared, 0.04 us).  So the writer and the flusher
 * unshare theirs (CLONE_FILES) and close every descriptor of the copy at
 * once but the ones they keep: the copy holds none of the program's
 * files, and the program's close() still closes (a pipe's reader sees its
 * end, a daemon that closed its terminal lets it go).
 */
#ifndef CAUSAL_OWN_FILES_H
#define CAUSAL_OWN_FILES_H

/*
 * The calling thread takes a table of its own with only `keep` in it (-1:
 * none).  0, or -errno when it could not (then it shares, as before, and
 * nothing changed).  The thread is marked so (its own TLS).
 */
int causal_own_files(int keep);

/*
 * The program's own `fd` (its standard error, for a message) as the
 * calling thread can write it: fd itself, or, in a thread with a table of
 * its own, a copy (*copy set: the close it needs after use is the
 * caller's).  -1 when the process cannot give it (no pidfd_getfd(),
 * Linux 5.6; the main thread gone).
 */
int causal_program_fd(int fd, int *copy);

#endif
