/*
 * e2e.h - helpers shared by the end-to-end suites (test/check-e2e-*.c).
 *
 * An end-to-end test runs one of build/test/progs/ under
 * LD_PRELOAD=libcausal.so with its own log directory, merges the logs with
 * `tracedump merge` and asserts on the SQLite database, comparing it with
 * facts the program printed (its gettid() values, the CPU it burned).
 *
 * Binaries are found through $CAUSAL_BUILD (an absolute build directory,
 * set by `make test`).  Every helper fails the current test with a message
 * naming what went wrong, so a test body reads as a list of claims.
 *
 * Each test works in a fresh directory inside one directory per test case,
 * made in $TMPDIR (else /tmp) by the unchecked fixture e2e_add_fixture()
 * installs and removed by it when the test case is over.  The fixture runs
 * in the runner's process, so the removal happens even when a test fails
 * or times out (Check's fork mode leaves a failed test through _exit()).  Set
 * CAUSAL_E2E_KEEP=1 to keep the directories for inspection.
 *
 * The helpers are in e2e.c, compiled once and linked into the runner.
 */
#ifndef CAUSAL_TEST_E2E_H
#define CAUSAL_TEST_E2E_H

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "causal/log-format.h"
#include "test-tmp.h"

extern char **environ;

/* Generous: a traced program plus a merge, on a loaded 2-CPU machine. */
#define E2E_TIMEOUT 120

struct e2e {
	char dir[PATH_MAX];  /* the test's temporary directory */
	char logs[PATH_MAX]; /* dir/logs: CAUSAL_LOG_DIR of traced runs */
	char db[PATH_MAX];   /* dir/logs/trace.db once merged */
	sqlite3 *sql;	     /* open after e2e_merge() */
};

extern struct e2e *e2e_current; /* the test's, for e2e_spawn() */
extern char e2e_root[PATH_MAX]; /* the test case's, in the runner */

/* $CAUSAL_BUILD, which must be set. */
const char *e2e_build(void);

/* Format into a fixed buffer, failing the test on truncation. */
void e2e_fmt(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Path of a built test program: $CAUSAL_BUILD/test/progs/NAME. */
const char *e2e_prog(const char *name);

/* The fixture e2e_add_fixture() installs: make e2e_root, and remove it
 * (unless CAUSAL_E2E_KEEP is set). */
void e2e_case_setup(void);
void e2e_case_teardown(void);

/* Give a test case its directory; every e2e test case needs this. */
void e2e_add_fixture(TCase *tc);

/* Make the test's directory; the log directory is left to the library. */
void e2e_init(struct e2e *t);

/* Done with t: its directory goes now (unless kept), not at teardown. */
void e2e_release(struct e2e *t);

/*
 * Start argv with the current environment plus env_add ("NAME=value",
 * NULL-terminated; a name given here replaces the inherited one), stdout
 * and stderr to the files out and err (NULL: /dev/null).  The child gets
 * SIGKILL if the test process dies, so a timed-out test leaves no program
 * behind.  It runs in the test's directory, so a default ./logs lands
 * there too.
 */
pid_t e2e_spawn(const char *const argv[], const char *const env_add[],
		const char *out, const char *err);

/* Wait for pid; returns its wait status. */
int e2e_wait(pid_t pid);

/* Run untraced; returns the wait status. */
int e2e_run_plain(const char *const argv[], const char *out, const char *err);

/*
 * The environment of a traced run: LD_PRELOAD, CAUSAL_LOG_DIR=t->logs and
 * the caller's extras (which may override CAUSAL_LOG_DIR).  env must have
 * room for 3 + extras entries.
 */
void e2e_traced_env(struct e2e *t, const char **env, const char *const extra[]);

/* e2e_spawn() and e2e_run_plain() traced: with e2e_traced_env(). */
pid_t e2e_spawn_traced(struct e2e *t, const char *const argv[],
		       const char *const extra[], const char *out,
		       const char *err);
int e2e_run_traced(struct e2e *t, const char *const argv[],
		   const char *const extra[], const char *out, const char *err);

/*
 * A copy of the file at path (a build product: a program, libcausal.so)
 * that another user can run: the build may lie under a directory only
 * its owner can enter (a clone in a 0700 mktemp -d).  The copy is in
 * t->dir/reach/ (removed with t->dir), and t->dir and the directories
 * above it are made searchable by others.  Its path, in a static buffer
 * of four rotating ones.
 */
const char *e2e_reachable(struct e2e *t, const char *path);

/* Assert a wait status is a normal exit with the given code. */
void e2e_assert_exit(int status, int code, const char *what);

/* Read a whole file (NUL-terminated); *len gets its size. */
char *e2e_slurp(const char *path, size_t *len);

/* Number of *.clog files in dir (0 when dir does not exist). */
int e2e_count_logs(const char *dir);

/*
 * `tracedump merge --raw t->logs`, which must exit 0, then open the
 * database.
 * Its stderr is kept in dir/merge.err for the failure message.
 */
void e2e_merge(struct e2e *t);

/*
 * The one value of a query that must return exactly one row, as an integer
 * (SQL NULL fails the test: use coalesce() or `IS NULL` to ask for it).
 * fmt is an sqlite3_mprintf() format: %q quotes a string.
 */
long long e2e_query_int(sqlite3 *db, const char *fmt, ...);

/* Like e2e_query_int() for text; the result is malloc'ed, NULL for NULL. */
char *e2e_query_text(sqlite3 *db, const char *fmt, ...);

/* proc_id of the one process with this pid. */
long long e2e_proc(struct e2e *t, long pid);

/* DB tid of the thread whose gettid() was os_tid, in process proc. */
long long e2e_tid(struct e2e *t, long long proc, long os_tid);

/* Sleep ms milliseconds, whatever signals come. */
void e2e_sleep_ms(long ms);

/* The uuid of the traced process pid, from its log in t->logs
 * (HOST.PID.UUID.clog); the test fails when there is none. */
void e2e_log_uuid(struct e2e *t, pid_t pid, uint8_t uuid[CAUSAL_UUID_LEN]);

#endif /* CAUSAL_TEST_E2E_H */
