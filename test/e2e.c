/*
 * e2e.c - the helpers e2e.h declares, whose comments there are their contract:
 * compiled once and linked into the runner.
 */
#include "e2e.h"

struct e2e *e2e_current;
char e2e_root[PATH_MAX];

const char *e2e_build(void)
{
	const char *b = getenv("CAUSAL_BUILD");

	if (!b || !*b)
		ck_abort_msg("CAUSAL_BUILD is not set: run the suites with "
			     "`make test` or CAUSAL_BUILD=$PWD/build");
	return b;
}

void e2e_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	ck_assert_msg(n >= 0 && (size_t)n < size, "path too long: %s", fmt);
}

const char *e2e_prog(const char *name)
{
	static char paths[8][PATH_MAX];
	static int next;
	char *p = paths[next++ % 8];

	e2e_fmt(p, PATH_MAX, "%s/test/progs/%s", e2e_build(), name);
	ck_assert_msg(access(p, X_OK) == 0, "'%s' is not built", p);
	return p;
}

static int e2e_rm_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void e2e_rm_tree(const char *dir)
{
	nftw(dir, e2e_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void e2e_case_setup(void)
{
	int n = snprintf(e2e_root, sizeof(e2e_root), "%s/causal-e2e-XXXXXX",
			 test_tmp_dir());

	if (n < 0 || (size_t)n >= sizeof(e2e_root) || !mkdtemp(e2e_root)) {
		perror("e2e: mkdtemp");
		e2e_root[0] = '\0';
	}
}

void e2e_case_teardown(void)
{
	if (!e2e_root[0])
		return;
	if (getenv("CAUSAL_E2E_KEEP"))
		fprintf(stderr, "e2e: kept %s\n", e2e_root);
	else
		e2e_rm_tree(e2e_root);
	e2e_root[0] = '\0';
}

void e2e_add_fixture(TCase *tc)
{
	tcase_add_unchecked_fixture(tc, e2e_case_setup, e2e_case_teardown);
}

void e2e_init(struct e2e *t)
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

void e2e_release(struct e2e *t)
{
	if (t->sql)
		sqlite3_close(t->sql);
	t->sql = NULL;
	if (!getenv("CAUSAL_E2E_KEEP"))
		e2e_rm_tree(t->dir);
	if (e2e_current == t)
		e2e_current = NULL;
}

pid_t e2e_spawn(const char *const argv[], const char *const env_add[],
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

int e2e_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		ck_assert_msg(errno == EINTR, "waitpid: %s", strerror(errno));
	return status;
}

int e2e_run_plain(const char *const argv[], const char *out, const char *err)
{
	return e2e_wait(e2e_spawn(argv, NULL, out, err));
}

void e2e_traced_env(struct e2e *t, const char **env, const char *const extra[])
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

pid_t e2e_spawn_traced(struct e2e *t, const char *const argv[],
		       const char *const extra[], const char *out,
		       const char *err)
{
	const char *env[64];

	e2e_traced_env(t, env, extra);
	return e2e_spawn(argv, env, out, err);
}

int e2e_run_traced(struct e2e *t, const char *const argv[],
		   const char *const extra[], const char *out, const char *err)
{
	return e2e_wait(e2e_spawn_traced(t, argv, extra, out, err));
}

/* Let others search dir and its parents up to the test's temporary
 * directory (the test's own directories only). */
static void searchable_up_to_tmp(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;
	size_t tmp = strlen(test_tmp_dir());
	char *slash;

	e2e_fmt(p, sizeof(p), "%s", dir);
	while (strlen(p) > tmp) {
		ck_assert_int_eq(stat(p, &st), 0);
		ck_assert_int_eq(chmod(p, (st.st_mode & 07777) | 0111), 0);
		if (!(slash = strrchr(p, '/')))
			break;
		*slash = '\0';
	}
}

const char *e2e_reachable(struct e2e *t, const char *path)
{
	static char copies[4][PATH_MAX];
	static int next;
	char *copy = copies[next++ % 4], dir[PATH_MAX];
	const char *name = strrchr(path, '/');
	size_t len;
	char *data = e2e_slurp(path, &len);
	int fd;

	e2e_fmt(dir, sizeof(dir), "%s/reach", t->dir);
	ck_assert_msg(mkdir(dir, 0755) == 0 || errno == EEXIST, "mkdir %s: %s",
		      dir, strerror(errno));
	searchable_up_to_tmp(dir);
	e2e_fmt(copy, PATH_MAX, "%s/%s", dir, name ? name + 1 : path);
	fd = open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ck_assert_msg(fd >= 0, "cannot write '%s': %s", copy, strerror(errno));
	ck_assert_msg(write(fd, data, len) == (ssize_t)len && !close(fd),
		      "cannot write '%s'", copy);
	free(data);
	return copy;
}

void e2e_assert_exit(int status, int code, const char *what)
{
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == code,
		      "%s: expected exit %d, got %s %d", what, code,
		      WIFEXITED(status) ? "exit" : "signal",
		      WIFEXITED(status) ? WEXITSTATUS(status)
					: WTERMSIG(status));
}

char *e2e_slurp(const char *path, size_t *len)
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

int e2e_count_logs(const char *dir)
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

void e2e_merge(struct e2e *t)
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
static sqlite3_stmt *e2e_query_row(sqlite3 *db, char **sql, const char *fmt,
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

static void e2e_query_end(sqlite3_stmt *st, char *sql)
{
	ck_assert_msg(sqlite3_step(st) == SQLITE_DONE, "%s: more than one row",
		      sql);
	sqlite3_finalize(st);
	sqlite3_free(sql);
}

long long e2e_query_int(sqlite3 *db, const char *fmt, ...)
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

char *e2e_query_text(sqlite3 *db, const char *fmt, ...)
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

long long e2e_proc(struct e2e *t, long pid)
{
	return e2e_query_int(
		t->sql, "SELECT proc_id FROM processes WHERE pid = %ld", pid);
}

long long e2e_tid(struct e2e *t, long long proc, long os_tid)
{
	return e2e_query_int(t->sql,
			     "SELECT tid FROM threads WHERE proc_id = %lld "
			     "AND os_tid = %ld",
			     proc, os_tid);
}

void e2e_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void e2e_log_uuid(struct e2e *t, pid_t pid, uint8_t uuid[CAUSAL_UUID_LEN])
{
	char mark[32];
	DIR *d = opendir(t->logs);
	struct dirent *e;
	int found = 0;

	ck_assert_ptr_nonnull(d);
	e2e_fmt(mark, sizeof(mark), ".%d.", (int)pid);
	while (!found && (e = readdir(d))) {
		const char *p = strstr(e->d_name, mark);

		if (!p || !strstr(p, CAUSAL_LOG_SUFFIX))
			continue;
		p += strlen(mark);
		for (int i = 0; i < CAUSAL_UUID_LEN; i++) {
			unsigned byte;

			ck_assert_int_eq(sscanf(p + 2 * i, "%2x", &byte), 1);
			uuid[i] = (uint8_t)byte;
		}
		found = 1;
	}
	closedir(d);
	ck_assert_msg(found, "no log of process %d in %s", (int)pid, t->logs);
}
