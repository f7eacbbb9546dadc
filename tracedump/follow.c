/*
 * follow.c - `tracedump merge --follow` (follow.h): the database, the
 * scan for closed segments not yet loaded, and one segment's load.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "causal/db-schema.h"
#include "follow-ch.h"
#include "follow-copy.h"
#include "follow-watch.h"
#include "follow.h"
#include "logdir.h"
#include "merge.h"
#include "schema.h"
#include "store-url.h"
#include "timespec.h"
#include "tmp-cleanup.h"
#include "usage.h"

/* What the SQL text below names (db-schema.h). */
DB_NAMED_TABLE(loaded_segments);
DB_NAMED(LOADED_SEGMENTS, name);
DB_NAMED_TABLE(meta);
DB_NAMED(META, key);
DB_NAMED(META, value);

/* meta's key saying who made the database, and its value here. */
#define META_LOADER "loader"
#define LOADER_FOLLOW "follow"

struct follower {
	const struct follow_opts *o;
	struct follow_stats *stats;
	struct follow_watch watch;
	char dir[PATH_MAX]; /* o->dir, absolute */
	sqlite3 *db;
	sqlite3_stmt *is_loaded, *ins_loaded;
	struct follow_ch *ch; /* a ClickHouse store: its writer, no db */
	bool said_retry;
};

static int db_fail(struct follower *f, const char *what)
{
	return fail("database '%s': %s: %s", f->o->db, what,
		    sqlite3_errmsg(f->db));
}

static int exec(struct follower *f, const char *sql)
{
	return sqlite3_exec(f->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0
								       : -EIO;
}

/* meta.loader of the database, in v ("" when none); -1 on no tables. */
static int read_loader(struct follower *f, char *v, size_t size)
{
	sqlite3_stmt *st;
	int rc;

	v[0] = 0;
	if (sqlite3_prepare_v2(
		    f->db,
		    "SELECT value FROM meta WHERE key = '" META_LOADER "'", -1,
		    &st, NULL) != SQLITE_OK)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		snprintf(v, size, "%s",
			 (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* A new database: the schema, and meta saying --follow made it. */
static int create_schema(struct follower *f)
{
	if (exec(f, "BEGIN IMMEDIATE") || schema_create(f->db, false) ||
	    schema_create_indexes(f->db) ||
	    schema_set_meta(f->db, META_LOADER, LOADER_FOLLOW) ||
	    follow_copy_indexes(f->db) || exec(f, "COMMIT"))
		return db_fail(f, "cannot create the schema");
	return 0;
}

/*
 * Open the database, made (mode 0600, like a merge's) when missing; a
 * file there must be a database --follow made, of this schema.
 */
static int open_db(struct follower *f)
{
	const char *path = f->o->db;
	char loader[32];
	struct stat st;
	int fd;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return fail("'%s' is not a regular file: refusing to use it",
			    path);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail("cannot open database '%s': %s", path,
			    strerror(errno));
	close(fd);
	if (sqlite3_open_v2(path, &f->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK)
		return fail("cannot open database '%s': %s", path,
			    f->db ? sqlite3_errmsg(f->db) : "out of memory");
	/*
	 * WAL: readers (ccsg serve --follow) read the last committed
	 * segment while the next is written.  NORMAL sync: a crash may
	 * lose the last commits, each whole with its loaded_segments row,
	 * so those segments are loaded again.
	 */
	sqlite3_busy_timeout(f->db, 10000);
	if (exec(f, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"))
		return db_fail(f, "cannot open");
	if (read_loader(f, loader, sizeof(loader))) {
		sqlite3_stmt *q;
		bool empty;

		if (sqlite3_prepare_v2(f->db, "SELECT 1 FROM sqlite_master", -1,
				       &q, NULL) != SQLITE_OK)
			return db_fail(f, "cannot read");
		empty = sqlite3_step(q) != SQLITE_ROW;
		sqlite3_finalize(q);
		if (!empty)
			return fail("'%s' is not a trace database", path);
		if (create_schema(f))
			return -1;
	} else if (strcmp(loader, LOADER_FOLLOW)) {
		return fail("'%s' was not made by tracedump merge --follow: "
			    "refusing to add to it",
			    path);
	}
	if (sqlite3_prepare_v2(f->db,
			       "SELECT 1 FROM loaded_segments WHERE name = ?",
			       -1, &f->is_loaded, NULL) != SQLITE_OK ||
	    schema_prepare_insert(f->db, DB_LOADED_SEGMENTS, "INSERT", 1,
				  &f->ins_loaded))
		return db_fail(
			f, "not of schema version " DB_STR(DB_SCHEMA_VERSION));
	return 0;
}

static void close_db(struct follower *f)
{
	sqlite3_finalize(f->is_loaded);
	sqlite3_finalize(f->ins_loaded);
	sqlite3_close(f->db);
	f->db = NULL;
}

static bool is_loaded(struct follower *f, const char *name)
{
	bool yes;

	sqlite3_bind_text(f->is_loaded, 1, name, -1, SQLITE_STATIC);
	yes = sqlite3_step(f->is_loaded) == SQLITE_ROW;
	sqlite3_reset(f->is_loaded);
	return yes;
}

/* The 32 hex digits of the UUID in a segment's name (logdir.h). */
static void name_uuid(const char *name, char uuid[33])
{
	size_t stem;
	const char *base;

	uuid[0] = 0;
	if (!logdir_segment(name, &stem))
		return;
	base = name + stem; /* ".NNNNNN.clog" */
	if (stem > 32 && base[-33] == '.')
		snprintf(uuid, 33, "%.32s", base - 32);
}

/* The segment's row of loaded_segments, by st (an INSERT of it). */
static int insert_loaded(sqlite3_stmt *st, const char *name, uint64_t number,
			 uint64_t bytes, const struct follow_copied *c)
{
	char uuid[33];

	if (c->uuid[0])
		snprintf(uuid, sizeof(uuid), "%s", c->uuid);
	else
		name_uuid(name, uuid);
	schema_bind_text(st, DB_LOADED_SEGMENTS_NAME, name, -1);
	if (uuid[0])
		schema_bind_text(st, DB_LOADED_SEGMENTS_UUID, uuid, -1);
	schema_bind_u64(st, DB_LOADED_SEGMENTS_SEGMENT, number);
	if (c->proc_id)
		schema_bind_int(st, DB_LOADED_SEGMENTS_PROC_ID, c->proc_id);
	if (c->file_id)
		schema_bind_int(st, DB_LOADED_SEGMENTS_FILE_ID, c->file_id);
	schema_bind_u64(st, DB_LOADED_SEGMENTS_RECORDS, c->records);
	schema_bind_u64(st, DB_LOADED_SEGMENTS_BYTES, bytes);
	schema_bind_text(st, DB_LOADED_SEGMENTS_STATUS,
			 c->status[0] ? c->status : DB_FILE_CORRUPT, -1);
	schema_bind_u64(st, DB_LOADED_SEGMENTS_LOADED_NS,
			clock_ns(CLOCK_REALTIME));
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return -EIO;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return 0;
}

/* The database failed: said once until a segment loads. */
static void say_retry(struct follower *f, const char *why)
{
	/* a store's messages name it (store/clickhouse.h) */
	if (!f->said_retry && f->ch)
		warning("%s: retrying", why);
	else if (!f->said_retry)
		warning("database '%s': %s: retrying", f->o->db, why);
	f->said_retry = true;
}

/* What the staging database holds of the segment: its process, its
 * files row's status.  0 or -EIO. */
static int stage_copied(sqlite3 *s, struct follow_copied *c)
{
	sqlite3_stmt *st;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (sqlite3_prepare_v2(s,
			       "SELECT p.proc_id, p.uuid, p.records, "
			       "f.file_id, f.status FROM files AS f LEFT JOIN "
			       "processes AS p ON p.file_id = f.file_id",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		c->proc_id = sqlite3_column_int64(st, 0);
		if (sqlite3_column_text(st, 1))
			snprintf(c->uuid, sizeof(c->uuid), "%s",
				 (const char *)sqlite3_column_text(st, 1));
		c->records = (uint64_t)sqlite3_column_int64(st, 2);
		c->file_id = sqlite3_column_int64(st, 3);
		snprintf(c->status, sizeof(c->status), "%s",
			 (const char *)sqlite3_column_text(st, 4));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

/*
 * A ClickHouse store: the segment's row into the staging database (made
 * with no rows when nothing of the segment could be read), which goes
 * into the store as one load.  0, or -EAGAIN: nothing of it counts.
 */
static int commit_store(struct follower *f, const char *stage_db, bool merged,
			const char *name, uint64_t number, uint64_t bytes,
			struct follow_copied *c)
{
	sqlite3 *s = NULL;
	sqlite3_stmt *st = NULL;
	char err[1024] = "the staging database failed";
	int rc = -EAGAIN;

	memset(c, 0, sizeof(*c));
	if (!merged)
		unlink(stage_db);
	if (sqlite3_open(stage_db, &s) == SQLITE_OK &&
	    (merged || !schema_create(s, false)) && !stage_copied(s, c) &&
	    !schema_prepare_insert(s, DB_LOADED_SEGMENTS, "INSERT", 1, &st) &&
	    !insert_loaded(st, name, number, bytes, c)) {
		sqlite3_finalize(st);
		st = NULL;
		sqlite3_close(s);
		s = NULL;
		if (!follow_ch_load(f->ch, stage_db, f->dir, name, err,
				    sizeof(err)))
			rc = 0;
	}
	sqlite3_finalize(st);
	sqlite3_close(s);
	if (rc)
		say_retry(f, err);
	return rc;
}

/*
 * The staging database (or none: merged is false, nothing readable)
 * into the followed one with the segment's row, in one transaction.
 * 0, or -EAGAIN: the database failed, nothing of it was written.
 */
static int commit_segment(struct follower *f, const char *stage_db,
			  const char *name, uint64_t number, uint64_t bytes,
			  struct follow_copied *c)
{
	char *sql = NULL;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (stage_db) {
		sql = sqlite3_mprintf("ATTACH %Q AS s", stage_db);
		if (!sql || exec(f, sql)) {
			sqlite3_free(sql);
			return -EAGAIN;
		}
		sqlite3_free(sql);
	}
	if (exec(f, "BEGIN IMMEDIATE"))
		rc = -EAGAIN;
	else if ((stage_db && follow_copy(f->db, name, c)) ||
		 insert_loaded(f->ins_loaded, name, number, bytes, c) ||
		 exec(f, "COMMIT"))
		rc = -EAGAIN;
	if (rc) {
		say_retry(f, sqlite3_errmsg(f->db));
		exec(f, "ROLLBACK");
	}
	if (stage_db)
		exec(f, "DETACH s");
	return rc;
}

/*
 * The staging merge's stderr goes to a memory file (*saved: the real
 * one), so that what it says names the segment by its path in the log
 * directory, not by its link in the staging one; -1 leaves it as is.
 */
static int capture_stderr(int *saved)
{
	int fd = memfd_create("causal-follow-err", MFD_CLOEXEC);

	fflush(stderr);
	*saved = fd < 0 ? -1 : dup(STDERR_FILENO);
	if (*saved < 0 || dup2(fd, STDERR_FILENO) < 0) {
		if (*saved >= 0)
			close(*saved);
		*saved = -1;
	}
	return fd;
}

/* Put stderr back and say again what the merge said (when it loaded
 * something: else the caller's one line says it), stage replaced by dir. */
static void release_stderr(int fd, int saved, bool show, const char *stage,
			   const char *dir)
{
	char buf[4096], *p, *hit;
	ssize_t n;

	if (fd < 0)
		return;
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	n = show ? pread(fd, buf, sizeof(buf) - 1, 0) : 0;
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	for (p = buf; (hit = strstr(p, stage)); p = hit + strlen(stage))
		fprintf(stderr, "%.*s%s", (int)(hit - p), p, dir);
	fputs(p, stderr);
}

/*
 * Load one closed segment: merged alone into a staging database in a
 * private directory of $TMPDIR (a link to it there is the merge's log
 * directory), then committed.  0, 1 when it was gone (the cap deleted
 * it: counted in a later segment), -EAGAIN when the database or the
 * staging merge failed (nothing of it written: try again).
 */
static int load_segment(struct follower *f, const char *name, uint64_t number)
{
	struct merge_stats ms = { 0 };
	struct merge_opts mo = { 0 };
	struct follow_copied c;
	struct tmp_file tf;
	char path[PATH_MAX * 2], link_path[PATH_MAX * 2];
	const char *base = strrchr(name, '/');
	struct stat st;
	int merged, rc, err_fd, saved;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	if (stat(path, &st) < 0)
		return 1;
	if (tmp_file_make(&tf, "causal-follow", "stage.db"))
		return -EAGAIN;
	snprintf(link_path, sizeof(link_path), "%s/%s", tf.dir,
		 base ? base + 1 : name);
	mo.dir = tf.dir;
	mo.output = tf.path;
	err_fd = capture_stderr(&saved);
	merged = symlink(path, link_path) == 0 && merge_run(&mo, &ms) == 0;
	/*
	 * Unreadable: the merge found the file corrupt or truncated to
	 * nothing.  A merge that failed otherwise (no room in $TMPDIR, no
	 * memory) says so, and the segment is tried again: never skipped.
	 */
	rc = merged || ms.corrupt + ms.truncated ? 0 : -EAGAIN;
	release_stderr(err_fd, saved, merged || (rc && !f->said_retry), tf.dir,
		       f->dir);
	f->said_retry |= rc != 0;
	merge_stats_release(&ms);
	if (!rc && f->ch)
		rc = commit_store(f, tf.path, merged, name, number,
				  (uint64_t)st.st_size, &c);
	else if (!rc)
		rc = commit_segment(f, merged ? tf.path : NULL, name, number,
				    (uint64_t)st.st_size, &c);
	unlink(link_path);
	tmp_file_remove(&tf);
	if (rc)
		return rc;
	f->said_retry = false;
	f->stats->segments++;
	f->stats->records += c.records;
	/* a damaged one the merge named; an unreadable one here */
	f->stats->corrupt += !merged || strcmp(c.status, DB_FILE_OK);
	if (!merged)
		warning("segment '%s' is corrupt: nothing could be read, "
			"skipped",
			path);
	return 0;
}

/* Wait *wait_ms before trying again, longer each time (up to 5 s):
 * true when a stop signal came. */
static bool backoff(struct follower *f, int *wait_ms)
{
	struct follow_watch w = f->watch;

	f->stats->retries++;
	w.rescan_ms = *wait_ms;
	*wait_ms = *wait_ms < 2500 ? *wait_ms * 2 : 5000;
	return follow_watch_wait(&w);
}

/* Retry a load the database refused until it takes or a stop signal
 * comes. */
static int load_retrying(struct follower *f, const char *name, uint64_t number)
{
	int wait_ms = 100, rc;

	while ((rc = load_segment(f, name, number)) == -EAGAIN)
		if (backoff(f, &wait_ms))
			return -EAGAIN;
	return rc;
}

/* A ClickHouse store: the segments it holds, read once, retried while
 * the server is away.  0, or -EAGAIN on a stop signal. */
static int store_known(struct follower *f)
{
	char err[1024];
	int wait_ms = 100;

	while (follow_ch_known(f->ch, err, sizeof(err))) {
		say_retry(f, err);
		if (backoff(f, &wait_ms))
			return -EAGAIN;
	}
	return 0;
}

static bool is_segment_loaded(struct follower *f, const char *name)
{
	return f->ch ? follow_ch_is_loaded(f->ch, name) : is_loaded(f, name);
}

/* Every closed segment under the directory not loaded yet, in order. */
static void scan(struct follower *f, bool first)
{
	struct logdir ld;

	if (f->ch && store_known(f))
		return;
	if (logdir_scan(f->o->dir, &ld) < 0)
		return; /* gone for now: the next scan sees */
	for (size_t i = 0; i < ld.n_logs && !follow_watch_stopped(); i++) {
		const struct logdir_log *l = &ld.logs[i];

		for (size_t k = l->first; k < l->first + l->n; k++) {
			const char *name = ld.names[k];
			size_t stem;
			uint64_t number = logdir_segment(name, &stem);

			if (!number)
				continue; /* open, or not rotated */
			if (is_segment_loaded(f, name)) {
				f->stats->known += first;
				continue;
			}
			if (follow_watch_stopped() ||
			    load_retrying(f, name, number) == -EAGAIN)
				break;
		}
	}
	logdir_release(&ld);
}

int follow_run(const struct follow_opts *o, struct follow_stats *stats)
{
	struct follower f = { .o = o, .stats = stats };
	struct stat st;
	int rc = -1;

	memset(stats, 0, sizeof(*stats));
	if (stat(o->dir, &st) < 0)
		return fail("directory '%s' does not exist", o->dir);
	if (!S_ISDIR(st.st_mode))
		return fail("'%s' is not a directory", o->dir);
	if (!realpath(o->dir, f.dir))
		return fail("cannot resolve '%s': %s", o->dir, strerror(errno));
	if ((store_is_url(o->db) ? (f.ch = follow_ch_open(o->db)) != NULL
				 : !open_db(&f)) &&
	    !follow_watch_init(&f.watch, f.dir, o->rescan_ms)) {
		for (bool first = true;; first = false) {
			scan(&f, first);
			if (follow_watch_wait(&f.watch))
				break;
		}
		follow_watch_release(&f.watch);
		rc = 0;
	}
	close_db(&f);
	follow_ch_close(f.ch);
	return rc;
}
