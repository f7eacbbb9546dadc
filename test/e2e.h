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
 * Everything is static: test/ helpers are not compiled on their own.
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

/* Not every suite uses every helper. */
#define E2E_FN static __attribute__((unused))

/* Generous: a traced program plus a merge, on a loaded 2-CPU machine. */
#define E2E_TIMEOUT 120

struct e2e {
	char dir[PATH_MAX];  /* the test's temporary directory */
	char logs[PATH_MAX]; /* dir/logs: CAUSAL_LOG_DIR of traced runs */
	char db[PATH_MAX];   /* dir/logs/trace.db once merged */
	sqlite3 *sql;	     /* open after e2e_merge() */
};

static struct e2e *e2e_current; /* the test's, for e2e_spawn() */
static char e2e_root[PATH_MAX]; /* the test case's, in the runner */

E2E_FN const char *e2e_build(void)
{
	const char *b = getenv("CAUSAL_BUILD");

	if (!b || !*b)
		ck_abort_msg("CAUSAL_BUILD is not set: run the suites with "
			     "`make test` or CAUSAL_BUILD=$PWD/build");
	return b;
}

/* Format into a fixed buffer, failing the test on truncation. */
E2E_FN void e2e_fmt(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
E2E_FN void e2e_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	ck_assert_msg(n >= 0 && (size_t)n < size, "path too long: %s", fmt);
}

/* Path of a built test program: $CAUSAL_BUILD/test/progs/NAME. */
E2E_FN const char *e2e_prog(const char *name)
{
	static char paths[8][PATH_MAX];
	static int next;
	char *p = paths[next++ % 8];

	e2e_fmt(p, PATH_MAX, "%s/test/progs/%s", e2e_build(), name);
	ck_assert_msg(access(p, X_OK) == 0, "'%s' is not built", p);
	return p;
}

E2E_FN int e2e_rm_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

E2E_FN void e2e_rm_tree(const char *dir)
{
	nftw(dir, e2e_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

E2E_FN void e2e_case_setup(void)
{
	int n = snprintf(e2e_root, sizeof(e2e_root), "%s/causal-e2e-XXXXXX",
			 test_tmp_dir());

	if (n < 0 || (size_t)n >= sizeof(e2e_root) || !mkdtemp(e2e_root)) {
		perror("e2e: mkdtemp");
		e2e_root[0] = '\0';
	}
}

E2E_FN void e2e_case_teardown(void)
{
	if (!e2e_root[0])
		return;
	if (getenv("CAUSAL_E2E_KEEP"))
		fprintf(stderr, "e2e: kept %s\n", e2e_root);
	else
		e2e_rm_tree(e2e_root);
	e2e_root[0] = '\0';
}

/* Give a test case its directory; every e2e test case needs this. */
E2E_FN void e2e_add_fixture(TCase *tc)
{
	tcase_add_unchecked_fixture(tc, e2e_case_setup, e2e_case_teardown);
}

/* Make the test's directory; the log directory is left to the library. */
E2E_FN void e2e_init(struct e2e *t)
{
	memset(t, 0, sizeof(*t));
	ck_assert_msg(e2e_root[0], "no test-case directory: "
				   "e2e_add_fixture() missing");
	e2e_fmt(t->dir, sizeof(t->dir), "%s/test-XXXXXX", e2e_root);
	ck_assert_msg(mkdtemp(t->dir), "mkdtemp: %s", strerror(errno));
	e2e_fmt(t->logs, sizeof(t->logs), "%s/logs", t->dir);
	e2e_fmt(t->db, sizeof(t->db), "%s/trace.db", t->logs);
	e2e_current = t;
}

/* Done with t: its directory goes now (unless kept), not at teardown. */
E2E_FN void e2e_release(struct e2e *t)
{
	if (t->sql)
		sqlite3_close(t->sql);
	t->sql = NULL;
	if (!getenv("CAUSAL_E2E_KEEP"))
		e2e_rm_tree(t->dir);
	if (e2e_current == t)
		e2e_current = NULL;
}

/*
 * Start argv with the current environment plus env_add ("NAME=value",
 * NULL-terminated; a name given here replaces the inherited one), stdout
 * and stderr to the files out and err (NULL: /dev/null).  The child gets
 * SIGKILL if the test process dies, so a timed-out test leaves no program
 * behind.  It runs in the test's directory, so a default ./logs lands
 * there too.
 */
E2E_FN pid_t e2e_spawn(const char *const argv[], const char *const env_add[],
		       const char *out, const char *err)
{
	const char *env[512];
	size_t n = 0;
	pid_t pid;

	for (size_t i = 0; env_add && env_add[i]; i++)
		env[n++] = env_add[i];
	for (char **e = environ; *e && n < 510; e++) {
		size_t len = strcspn(*e, "=");
		int dup = 0;

		for (size_t i = 0; env_add && env_add[i]; i++)
			if (!strncmp(env_add[i], *e, len) &&
			    env_add[i][len] == '=')
				dup = 1;
		if (!dup)
			env[n++] = *e;
	}
	env[n] = NULL;

	fflush(NULL);
	pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fo = open(out ? out : "/dev/null",
			      O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(err ? err : "/dev/null",
			      O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fo < 0 || fe < 0)
			_exit(126);
		dup2(fo, 1);
		dup2(fe, 2);
		if (e2e_current && chdir(e2e_current->dir))
			_exit(126);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execve(argv[0], (char *const *)argv, (char *const *)env);
		dprintf(2, "e2e: cannot exec '%s': %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	return pid;
}

E2E_FN int e2e_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		ck_assert_msg(errno == EINTR, "waitpid: %s", strerror(errno));
	return status;
}

/* Run untraced; returns the wait status. */
E2E_FN int e2e_run_plain(const char *const argv[], const char *out,
			 const char *err)
{
	return e2e_wait(e2e_spawn(argv, NULL, out, err));
}

/*
 * The environment of a traced run: LD_PRELOAD, CAUSAL_LOG_DIR=t->logs and
 * the caller's extras (which may override CAUSAL_LOG_DIR).  env must have
 * room for 3 + extras entries.
 */
E2E_FN void e2e_traced_env(struct e2e *t, const char **env,
			   const char *const extra[])
{
	static char preload[PATH_MAX + 16], logdir[PATH_MAX + 16];
	size_t n = 0;

	e2e_fmt(preload, sizeof(preload), "LD_PRELOAD=%s/libcausal.so",
		e2e_build());
	e2e_fmt(logdir, sizeof(logdir), "CAUSAL_LOG_DIR=%s", t->logs);
	for (size_t i = 0; extra && extra[i]; i++)
		env[n++] = extra[i];
	env[n++] = preload;
	env[n++] = logdir; /* extras come first, so they win */
	env[n] = NULL;
}

E2E_FN pid_t e2e_spawn_traced(struct e2e *t, const char *const argv[],
			      const char *const extra[], const char *out,
			      const char *err)
{
	const char *env[64];

	e2e_traced_env(t, env, extra);
	return e2e_spawn(argv, env, out, err);
}

E2E_FN int e2e_run_traced(struct e2e *t, const char *const argv[],
			  const char *const extra[], const char *out,
			  const char *err)
{
	return e2e_wait(e2e_spawn_traced(t, argv, extra, out, err));
}

/* Assert a wait status is a normal exit with the given code. */
E2E_FN void e2e_assert_exit(int status, int code, const char *what)
{
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == code,
		      "%s: expected exit %d, got %s %d", what, code,
		      WIFEXITED(status) ? "exit" : "signal",
		      WIFEXITED(status) ? WEXITSTATUS(status)
					: WTERMSIG(status));
}

/* Read a whole file (NUL-terminated); *len gets its size. */
E2E_FN char *e2e_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	ck_assert_msg(f, "cannot open '%s': %s", path, strerror(errno));
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
			ck_assert(buf);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Number of *.clog files in dir (0 when dir does not exist). */
E2E_FN int e2e_count_logs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	size_t sl = strlen(CAUSAL_LOG_SUFFIX);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > sl && !strcmp(e->d_name + l - sl, CAUSAL_LOG_SUFFIX))
			n++;
	}
	closedir(d);
	return n;
}

/*
 * `tracedump merge --raw t->logs`, which must exit 0, then open the
 * database.
 * Its stderr is kept in dir/merge.err for the failure message.
 */
E2E_FN void e2e_merge(struct e2e *t)
{
	char td[PATH_MAX], out[PATH_MAX], err[PATH_MAX];
	/* --raw: suites count and read the records themselves */
	const char *argv[] = { td, "merge", "--raw", t->logs, NULL };
	int status;

	e2e_fmt(td, sizeof(td), "%s/tracedump", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/merge.out", t->dir);
	e2e_fmt(err, sizeof(err), "%s/merge.err", t->dir);
	status = e2e_run_plain(argv, out, err);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *msg = e2e_slurp(err, NULL);

		ck_abort_msg("tracedump merge '%s' failed (status 0x%x): %s",
			     t->logs, status, msg);
	}
	ck_assert_msg(sqlite3_open_v2(t->db, &t->sql, SQLITE_OPEN_READONLY,
				      NULL) == SQLITE_OK,
		      "cannot open '%s'", t->db);
}

/*
 * Prepare the query fmt (an sqlite3_vmprintf() format: %q quotes strings)
 * and step to its row; the query must return exactly one.  The caller
 * reads column 0, then calls e2e_query_end().
 */
E2E_FN sqlite3_stmt *e2e_query_row(sqlite3 *db, char **sql, const char *fmt,
				   va_list ap)
{
	sqlite3_stmt *st;
	int rc;

	*sql = sqlite3_vmprintf(fmt, ap);
	rc = sqlite3_prepare_v2(db, *sql, -1, &st, NULL);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", *sql, sqlite3_errmsg(db));
	rc = sqlite3_step(st);
	ck_assert_msg(rc == SQLITE_ROW, "%s: no row (%s)", *sql,
		      sqlite3_errmsg(db));
	return st;
}

E2E_FN void e2e_query_end(sqlite3_stmt *st, char *sql)
{
	ck_assert_msg(sqlite3_step(st) == SQLITE_DONE, "%s: more than one row",
		      sql);
	sqlite3_finalize(st);
	sqlite3_free(sql);
}

/*
 * The one value of a query that must return exactly one row, as an integer
 * (SQL NULL fails the test: use coalesce() or `IS NULL` to ask for it).
 */
E2E_FN long long e2e_query_int(sqlite3 *db, const char *fmt, ...)
{
	sqlite3_stmt *st;
	long long v;
	va_list ap;
	char *sql;

	va_start(ap, fmt);
	st = e2e_query_row(db, &sql, fmt, ap);
	va_end(ap);
	ck_assert_msg(sqlite3_column_type(st, 0) != SQLITE_NULL, "%s: NULL",
		      sql);
	v = sqlite3_column_int64(st, 0);
	e2e_query_end(st, sql);
	return v;
}

/* Like e2e_query_int() for text; the result is malloc'ed, NULL for NULL. */
E2E_FN char *e2e_query_text(sqlite3 *db, const char *fmt, ...)
{
	const unsigned char *s;
	sqlite3_stmt *st;
	va_list ap;
	char *sql, *v;

	va_start(ap, fmt);
	st = e2e_query_row(db, &sql, fmt, ap);
	va_end(ap);
	s = sqlite3_column_text(st, 0);
	v = s ? strdup((const char *)s) : NULL;
	e2e_query_end(st, sql);
	return v;
}

/* proc_id of the one process with this pid. */
E2E_FN long long e2e_proc(struct e2e *t, long pid)
{
	return e2e_query_int(
	    t->sql, "SELECT proc_id FROM processes WHERE pid = %ld", pid);
}

/* DB tid of the thread whose gettid() was os_tid, in process proc. */
E2E_FN long long e2e_tid(struct e2e *t, long long proc, long os_tid)
{
	return e2e_query_int(t->sql,
			     "SELECT tid FROM threads WHERE proc_id = %lld "
			     "AND os_tid = %ld",
			     proc, os_tid);
}

E2E_FN void e2e_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

#endif /* CAUSAL_TEST_E2E_H */
