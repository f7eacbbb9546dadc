/*
 * check-e2e-process.c - end to end: processes as a whole.
 *
 * fork and exec give one log per process image, linked by uuid, with no
 * record copied from parent to child; a SIGKILLed process keeps what was
 * flushed before the kill; and tracing never changes what the program's
 * user sees: stdout and exit status are identical, stderr too except for
 * one "causal: " line when the logs cannot be written.
 */
#include <poll.h>

#include "e2e.h"

/* Path of a file in the test's directory (valid for 8 more calls). */
static const char *in_dir(struct e2e *t, const char *name)
{
	static char paths[8][PATH_MAX];
	static int next;
	char *p = paths[next++ % 8];

	e2e_fmt(p, PATH_MAX, "%s/%s", t->dir, name);
	return p;
}

/* The value after "KEY " on the line of out starting so; -1 if none. */
static long find_num(const char *out, const char *key, int nth)
{
	size_t kl = strlen(key);
	const char *p = out;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ' && nth-- == 0)
			return strtol(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static long long count_type(struct e2e *t, long long proc, int type)
{
	return e2e_query_int(t->sql,
			     "SELECT count(*) FROM records WHERE proc_id = "
			     "%lld AND type = %d",
			     proc, type);
}

/*
 * Parent with two threads forks a child that exits and a child that execs
 * thread-tree: four process images, four complete logs.
 */
START_TEST(test_fork_exec)
{
	const char *argv[] = {e2e_prog("fork-exec"), e2e_prog("thread-tree"),
			      "1", "2", NULL};
	long parent, child_exit, child_exec, pt[2], ct;
	long long p, a, pre, post;
	struct e2e t;
	char *out;
	int status;

	e2e_init(&t);
	status = e2e_run_traced(&t, argv, NULL, in_dir(&t, "out"),
				in_dir(&t, "err"));
	e2e_assert_exit(status, 0, "fork-exec");
	out = e2e_slurp(in_dir(&t, "out"), NULL);
	parent = find_num(out, "parent", 0);
	pt[0] = find_num(out, "parent-thread", 0);
	pt[1] = find_num(out, "parent-thread", 1);
	child_exit = find_num(out, "child-exit", 0);
	ct = find_num(out, "child-thread", 0);
	child_exec = find_num(out, "child-exec", 0);
	ck_assert_msg(parent > 0 && pt[0] > 0 && pt[1] > 0 && child_exit > 0 &&
			  ct > 0 && child_exec > 0,
		      "unexpected output: %s", out);

	ck_assert_int_eq(e2e_count_logs(t.logs), 4);
	e2e_merge(&t);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM files "
					      "WHERE status = 'ok'"),
			 4);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes"),
			 4);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes"
					      " WHERE complete = 1"),
			 4);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM hosts"), 1);

	/* The parent: two threads, two forks, nothing inherited. */
	p = e2e_proc(&t, parent);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT parent_uuid IS NULL AND "
				       "end_reason = 'exit' FROM processes "
				       "WHERE proc_id = %lld",
				       p),
			 1);
	ck_assert_int_eq(count_type(&t, p, CAUSAL_REC_FORK), 2);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(e2e_query_int(t.sql,
					       "SELECT count(*) FROM records "
					       "WHERE proc_id = %lld AND type "
					       "= %d AND tid = %lld",
					       p, CAUSAL_REC_THREAD_START,
					       e2e_tid(&t, p, pt[i])),
				 1);

	/* The child that exits: its own main and thread, none of the
	 * parent's, linked to the parent by uuid. */
	a = e2e_proc(&t, child_exit);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT c.parent_uuid = p.uuid AND "
				       "c.end_reason = 'exit' AND c.ppid = "
				       "p.pid FROM processes c, processes p "
				       "WHERE c.proc_id = %lld AND p.proc_id "
				       "= %lld",
				       a, p),
			 1);
	ck_assert_int_eq(e2e_tid(&t, a, child_exit), 1);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT parent_tid FROM threads WHERE "
				       "proc_id = %lld AND tid = %lld",
				       a, e2e_tid(&t, a, ct)),
			 1);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "proc_id = %lld AND marker = 'user'",
				       a),
			 2);
	ck_assert_int_eq(count_type(&t, a, CAUSAL_REC_THREAD_SPAWN), 1);
	ck_assert_int_eq(count_type(&t, a, CAUSAL_REC_FORK), 0);

	/* The child that execs: two images of one pid. */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM processes WHERE "
				       "pid = %ld",
				       child_exec),
			 2);
	pre = e2e_query_int(t.sql,
			    "SELECT proc_id FROM processes WHERE pid = %ld "
			    "AND end_reason = 'exec'",
			    child_exec);
	post = e2e_query_int(t.sql,
			     "SELECT proc_id FROM processes WHERE pid = %ld "
			     "AND end_reason IS NOT 'exec'",
			     child_exec);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT c.parent_uuid = p.uuid FROM "
				       "processes c, processes p WHERE "
				       "c.proc_id = %lld AND p.proc_id = %lld",
				       pre, p),
			 1);
	ck_assert_int_eq(count_type(&t, pre, CAUSAL_REC_EXEC), 1);
	ck_assert_int_eq(count_type(&t, pre, CAUSAL_REC_FORK), 0);
	ck_assert_int_eq(count_type(&t, pre, CAUSAL_REC_THREAD_SPAWN), 0);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "proc_id = %lld AND marker = 'user'",
				       pre),
			 1);
	/* The new image: thread-tree 1 2, after the old one ended. */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT end_reason = 'exit' AND exe "
				       "LIKE '%%/thread-tree' AND "
				       "json_array_length(argv) = 3 AND "
				       "json_extract(argv, '$[2]') = '2' FROM"
				       " processes WHERE proc_id = %lld",
				       post),
			 1);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "proc_id = %lld AND marker = 'user'",
				       post),
			 3);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT n.start_mono_ns >= o.end_mono_ns"
				       " FROM processes n, processes o WHERE "
				       "n.proc_id = %lld AND o.proc_id = %lld",
				       post, pre),
			 1);

	/* The parent's threads appear in the parent only, and no record
	 * appears in two processes. */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "os_tid IN (%ld, %ld)",
				       pt[0], pt[1]),
			 2);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM records a JOIN "
				       "records b ON a.type = b.type AND "
				       "a.tid = b.tid AND a.mono_ns = "
				       "b.mono_ns AND a.proc_id < b.proc_id"),
			 0);
	free(out);
	e2e_release(&t);
}
END_TEST

/* Name of the one *.clog in dir into path; 0 if there is none yet. */
static int find_log(const char *dir, char *path, size_t size)
{
	size_t sl = strlen(CAUSAL_LOG_SUFFIX);
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && !found) {
		size_t l = strlen(e->d_name);

		if (l > sl && !strcmp(e->d_name + l - sl, CAUSAL_LOG_SUFFIX)) {
			e2e_fmt(path, size, "%s/%s", dir, e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *buf = e2e_slurp(from, &len);
	FILE *f = fopen(to, "wb");

	ck_assert_msg(f, "cannot create '%s'", to);
	ck_assert(fwrite(buf, 1, len, f) == len);
	fclose(f);
	free(buf);
}

/*
 * The library's busy threads keep file tables of their own (own-files.h)
 * with none of the program's files in them: a program that closes its
 * standard output while it runs closes it for its reader, as untraced.
 */
START_TEST(test_closed_output_reaches_reader)
{
	const char *argv[] = { e2e_prog("close-stdout"), NULL };
	const char *env[8];
	char buf[256];
	size_t got = 0;
	int pfd[2], status, eof = 0;
	struct e2e t;
	pid_t pid;

	e2e_init(&t);
	e2e_traced_env(&t, env, NULL);
	ck_assert(pipe(pfd) == 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (!pid) {
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		for (int i = 0; env[i]; i++)
			putenv((char *)env[i]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	/* up to 20 s for the end of the output */
	for (int i = 0; i < 200 && !eof; i++) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(pfd[0], buf + got, sizeof(buf) - 1 - got);
		if (n > 0)
			got += (size_t)n;
		eof = n == 0;
	}
	buf[got] = '\0';
	/* still running: the end came from its close(), not its exit */
	ck_assert_int_eq(waitpid(pid, &status, WNOHANG), 0);
	kill(pid, SIGTERM);
	e2e_wait(pid);
	close(pfd[0]);
	ck_assert_msg(eof,
		      "no end of output while the program ran (read: '%s')",
		      buf);
	ck_assert_str_eq(buf, "closing\n");
	ck_assert_int_eq(e2e_count_logs(t.logs), 1);
	e2e_release(&t);
}
END_TEST

/*
 * SIGKILL a busy process once its log has grown over a few flushes.  The
 * log still merges (ok or truncated), is marked incomplete, and holds at
 * least everything a copy taken just before the kill held.
 */
START_TEST(test_sigkill)
{
	const char *argv[] = {e2e_prog("killme"), NULL};
	const char *env[] = {"CAUSAL_FLUSH_MS=20", NULL};
	char log[PATH_MAX], snapdir[PATH_MAX], snaplog[PATH_MAX];
	long long snap_records, snap_starts;
	off_t last = 0, size;
	int growths = 0, status;
	struct e2e t;
	pid_t pid;

	e2e_init(&t);
	pid = e2e_spawn_traced(&t, argv, env, in_dir(&t, "out"),
			       in_dir(&t, "err"));
	/* Up to 20 s for four growths of the log (flushes every 20 ms). */
	for (int i = 0; i < 4000 && growths < 4; i++) {
		e2e_sleep_ms(5);
		if (!find_log(t.logs, log, sizeof(log)))
			continue;
		size = file_size(log);
		if (size > last) {
			growths++;
			last = size;
		}
	}
	if (growths < 4) {
		kill(pid, SIGKILL);
		e2e_wait(pid);
		ck_abort_msg("the log of a busy process did not grow over "
			     "4 flushes of 20 ms in 20 s (size %lld)",
			     (long long)last);
	}
	e2e_fmt(snapdir, sizeof(snapdir), "%s/snap", t.dir);
	ck_assert(mkdir(snapdir, 0755) == 0);
	e2e_fmt(snaplog, sizeof(snaplog), "%s/%s", snapdir,
		strrchr(log, '/') + 1);
	copy_file(log, snaplog);
	kill(pid, SIGKILL);
	status = e2e_wait(pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	/* The copy first: what was on disk before the kill. */
	e2e_fmt(t.logs, sizeof(t.logs), "%s", snapdir);
	e2e_fmt(t.db, sizeof(t.db), "%s/trace.db", snapdir);
	e2e_merge(&t);
	snap_records = e2e_query_int(t.sql, "SELECT count(*) FROM records");
	snap_starts = e2e_query_int(t.sql,
				    "SELECT count(*) FROM records WHERE "
				    "type = %d",
				    CAUSAL_REC_THREAD_START);
	ck_assert_msg(snap_starts > 4, "only %lld thread starts flushed",
		      snap_starts);
	sqlite3_close(t.sql);
	t.sql = NULL;

	e2e_fmt(t.logs, sizeof(t.logs), "%s/logs", t.dir);
	e2e_fmt(t.db, sizeof(t.db), "%s/trace.db", t.logs);
	e2e_merge(&t);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM files WHERE "
				       "status IN ('ok', 'truncated')"),
			 1);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT complete = 0 AND end_reason IS"
				       " NULL AND pid = %ld FROM processes",
				       (long)pid),
			 1);
	ck_assert_int_ge(e2e_query_int(t.sql, "SELECT count(*) FROM records"),
			 snap_records);
	ck_assert_int_ge(e2e_query_int(t.sql,
				       "SELECT count(*) FROM records WHERE "
				       "type = %d",
				       CAUSAL_REC_THREAD_START),
			 snap_starts);
	/* The four long-running threads and main are known. */
	ck_assert_int_ge(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "parent_tid = 1 AND marker = 'user'"),
			 4);
	e2e_release(&t);
}
END_TEST

/*
 * SIGTERM with the default action: the parent still sees death by
 * SIGTERM, and the log is complete, says so, and closes the threads that
 * were running.
 */
START_TEST(test_sigterm)
{
	const char *argv[] = {e2e_prog("killme"), NULL};
	char log[PATH_MAX], *out = NULL;
	struct e2e t;
	int status;
	pid_t pid;

	e2e_init(&t);
	pid = e2e_spawn_traced(&t, argv, NULL, in_dir(&t, "out"), NULL);
	for (int i = 0; i < 2000; i++) {
		e2e_sleep_ms(5);
		if (access(in_dir(&t, "out"), F_OK))
			continue; /* the child has not opened it yet */
		free(out);
		out = e2e_slurp(in_dir(&t, "out"), NULL);
		if (strstr(out, "ready") && find_log(t.logs, log, sizeof(log)))
			break;
	}
	kill(pid, SIGTERM);
	status = e2e_wait(pid);
	ck_assert_msg(out && strstr(out, "ready"), "killme never got ready");
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
		      "traced process did not die of SIGTERM (status 0x%x)",
		      status);
	e2e_merge(&t);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT complete = 1 AND end_reason = "
				       "'signal' AND end_detail = %d FROM "
				       "processes",
				       SIGTERM),
			 1);
	/* main and the four churning threads were running */
	ck_assert_int_ge(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "end_how = 'at_exit' AND marker = "
				       "'user'"),
			 5);
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * Start dfl-signal (argv) traced or not, wait for "ready" and send it
 * signo (SIGSEGV: it faults by itself); its wait status.
 */
static int run_dfl_signal(struct e2e *t, const char *const argv[], int traced,
			  int signo, const char *out)
{
	pid_t pid = traced ? e2e_spawn_traced(t, argv, NULL, out, NULL)
			   : e2e_spawn(argv, NULL, out, NULL);
	char *text = NULL;
	int ready = 0;

	for (int i = 0; i < 4000 && signo != SIGSEGV && !ready; i++) {
		e2e_sleep_ms(5);
		if (access(out, F_OK))
			continue; /* the child has not opened it yet */
		free(text);
		text = e2e_slurp(out, NULL);
		ready = strstr(text, "ready") != NULL;
	}
	free(text);
	if (signo != SIGSEGV) {
		if (!ready)
			kill(pid, SIGKILL);
		else
			kill(pid, signo);
	}
	return e2e_wait(pid);
}

/*
 * A program that sets a fatal signal back to SIG_DFL itself, with
 * signal() or sigaction(), and dies of it, taken in main or in another
 * thread (3 x 2 x 2 runs).  Traced, its log is complete: PROCESS_END
 * 'signal' with the signal, the threads that were running closed.  And the
 * program saw and did what it does untraced: what it was told of the
 * action (handler, flags, mask) and its wait status.
 */
START_TEST(test_explicit_sig_dfl)
{
	static const struct {
		const char *name;
		int signo;
	} sigs[] = {{"TERM", SIGTERM}, {"INT", SIGINT}, {"SEGV", SIGSEGV}};
	const char *how = (_i / 2) % 2 ? "sigaction" : "signal";
	const char *who = _i % 2 ? "thread" : "main";
	int signo = sigs[_i / 4].signo;
	const char *argv[] = {e2e_prog("dfl-signal"), sigs[_i / 4].name, how,
			      who, NULL};
	char *out0, *out1, *r0, *r1;
	int st0, st1;
	struct e2e t;

	e2e_init(&t);
	st0 = run_dfl_signal(&t, argv, 0, signo, in_dir(&t, "out0"));
	st1 = run_dfl_signal(&t, argv, 1, signo, in_dir(&t, "out1"));
	ck_assert_msg(WIFSIGNALED(st0) && WTERMSIG(st0) == signo,
		      "%s %s %s untraced: status 0x%x", argv[1], how, who, st0);
	ck_assert_msg(st1 == st0, "%s %s %s: status 0x%x traced, 0x%x not",
		      argv[1], how, who, st1, st0);
	/* what it was told, up to "ready <pid>" */
	out0 = e2e_slurp(in_dir(&t, "out0"), NULL);
	out1 = e2e_slurp(in_dir(&t, "out1"), NULL);
	r0 = strstr(out0, "ready");
	r1 = strstr(out1, "ready");
	ck_assert_msg(r0 && r1, "%s %s %s: never ready", argv[1], how, who);
	*r0 = *r1 = '\0';
	ck_assert_msg(!strcmp(out0, out1) && strstr(out0, "view dfl 1"),
		      "%s %s %s: the program saw\n%s---untraced:\n%s", argv[1],
		      how, who, out1, out0);

	e2e_merge(&t);
	ck_assert_msg(e2e_query_int(t.sql,
				    "SELECT complete = 1 AND end_reason = "
				    "'signal' AND end_detail = %d FROM "
				    "processes",
				    signo) == 1,
		      "%s %s %s: no PROCESS_END 'signal' %d (%lld records)",
		      argv[1], how, who, signo,
		      e2e_query_int(t.sql, "SELECT count(*) FROM records"));
	/* main, the three churning threads (and the victim) were running */
	ck_assert_int_ge(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "end_how = 'at_exit' AND marker = "
				       "'user'"),
			 4);
	free(out0);
	free(out1);
	e2e_release(&t);
}
END_TEST

/* Run output untraced, then traced with env; compare. */
static void compare_output(struct e2e *t, const char *const env[],
			   int expect_logs, int expect_causal_line)
{
	const char *argv[] = {e2e_prog("output"), NULL};
	char *out0, *err0, *out1, *err1, *line, *rest;
	size_t len0, len1;
	int st0, st1;

	st0 = e2e_run_plain(argv, in_dir(t, "out0"), in_dir(t, "err0"));
	st1 =
	    e2e_run_traced(t, argv, env, in_dir(t, "out1"), in_dir(t, "err1"));
	e2e_assert_exit(st0, 3, "output untraced");
	ck_assert_int_eq(st1, st0);

	out0 = e2e_slurp(in_dir(t, "out0"), &len0);
	out1 = e2e_slurp(in_dir(t, "out1"), &len1);
	ck_assert_msg(len0 > 1000 && len0 == len1 && !memcmp(out0, out1, len0),
		      "stdout differs when traced");

	err0 = e2e_slurp(in_dir(t, "err0"), &len0);
	err1 = e2e_slurp(in_dir(t, "err1"), &len1);
	if (expect_causal_line) {
		/* Take out the one "causal: " line, wherever it is. */
		line = strstr(err1, "causal: ");
		ck_assert_msg(line && (line == err1 || line[-1] == '\n'),
			      "no \"causal: \" line in stderr: %s", err1);
		rest = strchr(line, '\n');
		ck_assert_msg(rest, "unterminated causal line");
		memmove(line, rest + 1, strlen(rest + 1) + 1);
		len1 = strlen(err1);
		ck_assert_msg(!strstr(err1, "causal: "),
			      "more than one \"causal: \" line: %s", err1);
	}
	ck_assert_msg(len0 == len1 && !memcmp(err0, err1, len0),
		      "stderr differs when traced:\n%s---\n%s", err0, err1);
	ck_assert_int_eq(e2e_count_logs(t->logs), expect_logs);
	free(out0);
	free(out1);
	free(err0);
	free(err1);
}

/* Logging normally, the program's output and status are untouched. */
START_TEST(test_output_unchanged)
{
	struct e2e t;

	e2e_init(&t);
	compare_output(&t, NULL, 1, 0);
	e2e_merge(&t);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT complete = 1 AND end_reason = "
				       "'exit' FROM processes"),
			 1);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "marker = 'user'"),
			 5);
	e2e_release(&t);
}
END_TEST

/*
 * A log directory that cannot be created (its parent is a regular file:
 * root cannot get past that either): one "causal: " line, nothing else
 * changes, no log anywhere.
 */
START_TEST(test_output_dir_uncreatable)
{
	char env0[PATH_MAX + 32], file[PATH_MAX];
	const char *env[] = {env0, NULL};
	struct e2e t;
	FILE *f;

	e2e_init(&t);
	e2e_fmt(file, sizeof(file), "%s", in_dir(&t, "a-file"));
	f = fopen(file, "w");
	ck_assert(f && fclose(f) == 0);
	e2e_fmt(env0, sizeof(env0), "CAUSAL_LOG_DIR=%s/logs", file);
	compare_output(&t, env, 0, 1);
	ck_assert_int_eq(file_size(file), 0);
	e2e_release(&t);
}
END_TEST

/* A log directory that exists but takes no files, even from root. */
START_TEST(test_output_dir_unwritable)
{
	const char *env[] = {"CAUSAL_LOG_DIR=/proc", NULL};
	struct e2e t;

	e2e_init(&t);
	compare_output(&t, env, 0, 1);
	e2e_release(&t);
}
END_TEST

/*
 * CAUSAL_LOG_DIR names a symbolic link to a directory (the attack: a link
 * to /etc planted where root runs a traced program): refused in one
 * "causal: " line, the program runs untraced and unchanged, and nothing
 * is written behind the link.
 */
START_TEST(test_log_dir_symlink_refused)
{
	char real[PATH_MAX], *err;
	struct e2e t;

	e2e_init(&t);
	e2e_fmt(real, sizeof(real), "%s/real", t.dir);
	ck_assert_int_eq(mkdir(real, 0700), 0);
	ck_assert_int_eq(symlink(real, t.logs), 0);
	compare_output(&t, NULL, 0, 1);
	ck_assert_int_eq(e2e_count_logs(real), 0);
	err = e2e_slurp(in_dir(&t, "err1"), NULL);
	ck_assert_msg(strstr(err, "causal: refusing log directory") &&
			      strstr(err, "is a symbolic link"),
		      "%s", err);
	free(err);
	e2e_release(&t);
}
END_TEST

/*
 * The default ./logs is resolved once: a daemon-like program that
 * chdir()s away and then forks gets its child's log beside its own, not
 * under the new working directory.
 */
START_TEST(test_log_dir_resolved_once)
{
	char away[PATH_MAX], away_logs[PATH_MAX];
	const char *argv[] = {e2e_prog("chdir-fork"), away, NULL};
	const char *env[] = {"CAUSAL_LOG_DIR=", NULL}; /* the default */
	long parent, child;
	struct e2e t;
	char *out;

	e2e_init(&t);
	e2e_fmt(away, sizeof(away), "%s/away", t.dir);
	e2e_fmt(away_logs, sizeof(away_logs), "%s/logs", away);
	ck_assert_int_eq(mkdir(away, 0700), 0);
	e2e_assert_exit(e2e_run_traced(&t, argv, env, in_dir(&t, "out"), NULL),
			0, "chdir-fork");
	out = e2e_slurp(in_dir(&t, "out"), NULL);
	parent = find_num(out, "parent", 0);
	child = find_num(out, "child", 0);
	ck_assert_msg(parent > 0 && child > 0, "unexpected output: %s", out);
	ck_assert_int_eq(e2e_count_logs(away_logs), 0);
	ck_assert_int_eq(e2e_count_logs(t.logs), 2);
	e2e_merge(&t);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT c.parent_uuid = p.uuid AND "
				       "c.complete AND p.complete FROM "
				       "processes c, processes p WHERE c.pid "
				       "= %ld AND p.pid = %ld",
				       child, parent),
			 1);
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * A fork child reuses the log buffers and compression context it inherits
 * (4 MiB of frame queue and a zstd context) instead of allocating its own
 * and leaking the parent's: along a chain of forks, each generation is no
 * larger than the one before, and every generation's log is whole and
 * linked to its parent's.
 */
START_TEST(test_fork_chain_reuses_buffers)
{
	enum { LAST = 6 };
	char arg[16];
	const char *argv[] = { e2e_prog("fork-chain"), arg, NULL };
	long vm[LAST + 1];
	struct e2e t;
	char *out, *line;
	int g;

	e2e_init(&t);
	e2e_fmt(arg, sizeof(arg), "%d", LAST);
	e2e_assert_exit(e2e_run_traced(&t, argv, NULL, in_dir(&t, "out"), NULL),
			0, "fork-chain");
	out = e2e_slurp(in_dir(&t, "out"), NULL);
	for (g = 0; g <= LAST; g++) {
		char key[32];

		e2e_fmt(key, sizeof(key), "gen %d ", g);
		line = strstr(out, key);
		ck_assert_msg(line, "no generation %d in: %s", g, out);
		line = strstr(line, "vm_kb ");
		ck_assert_ptr_nonnull(line);
		vm[g] = strtol(line + 6, NULL, 10);
		ck_assert_int_gt(vm[g], 0);
	}
	/* gen 1 is the first to inherit buffers; each leak was 4.3 MiB */
	ck_assert_msg(vm[LAST] - vm[1] < 1024,
		      "the fork children grew from %ld kB to %ld kB", vm[1],
		      vm[LAST]);
	ck_assert_int_eq(e2e_count_logs(t.logs), LAST + 1);
	e2e_merge(&t);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes"
					      " WHERE complete"),
			 LAST + 1);
	/* every child's parent is one of the chain */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM processes c, "
				       "processes p WHERE c.parent_uuid = "
				       "p.uuid"),
			 LAST);
	free(out);
	e2e_release(&t);
}
END_TEST

Suite *e2e_process_suite(void)
{
	Suite *s = suite_create("e2e-process");
	TCase *tc = tcase_create("process");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_fork_exec);
	tcase_add_test(tc, test_fork_chain_reuses_buffers);
	tcase_add_test(tc, test_closed_output_reaches_reader);
	tcase_add_test(tc, test_sigkill);
	tcase_add_test(tc, test_sigterm);
	tcase_add_loop_test(tc, test_explicit_sig_dfl, 0, 12);
	tcase_add_test(tc, test_output_unchanged);
	tcase_add_test(tc, test_output_dir_uncreatable);
	tcase_add_test(tc, test_output_dir_unwritable);
	tcase_add_test(tc, test_log_dir_symlink_refused);
	tcase_add_test(tc, test_log_dir_resolved_once);
	suite_add_tcase(s, tc);
	return s;
}
