/*
 * cmd-follow.c - the models `ccsg serve` serves (follow.h): one built at
 * start-up, or, with --follow, built again by a watching thread each time
 * the store changed and handed to the serving thread.
 *
 * The two threads share only what struct follow's lock guards: the model
 * ready to be taken, the one taken over (to be freed here), the store's
 * state and the stop flag.  Everything else a thread has is its own: a
 * model is built whole before it is handed over and never changed after
 * (the serving thread's caches in it, api.h, are that thread's alone).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "follow-window.h"
#include "follow.h"
#include "json.h"
#include "store-url.h"
#include "store.h"
#include "timespec.h"
#include "tmp-cleanup.h"
#include "usage.h"

struct serve_model *serve_model_build(const struct cli *o, const char *spec,
				      const char *shown)
{
	struct serve_model *m = calloc(1, sizeof(*m));
	char *name;

	if (!m) {
		fail("out of memory");
		return NULL;
	}
	/* the values of calls for the node details (values/values.h);
	 * the types first: a .x that does not parse is named by line */
	if (ccsg_values_load(&m->vals, o->db, o->idl, o->nidl) ||
	    session_open(&m->s, o, 1))
		goto fail;
	m->s.dscg.values = &m->vals;
	if (shown) { /* the trace as the user named it, not its copy */
		if (!(name = strdup(shown))) {
			fail("out of memory");
			goto fail;
		}
		free(m->s.trace.path);
		m->s.trace.path = name;
	}
	m->viewer_ready = 1; /* released even when its set-up fails */
	if (viewer_init(&m->v, &m->s.graph, &m->s.names, spec))
		goto fail;
	return m;
fail:
	serve_model_free(m);
	return NULL;
}

void serve_model_free(struct serve_model *m)
{
	if (!m)
		return;
	if (m->viewer_ready)
		viewer_release(&m->v);
	session_close(&m->s);
	ccsg_values_release(&m->vals);
	free(m->follow_json);
	free(m);
}

/* ---- following --------------------------------------------------------- */

struct follow {
	struct cli o; /* o.db: the store; a copy's path when building */
	const char *spec;
	struct follow_opts fo;
	struct tmp_file copy; /* the window, while a model is built of it */
	struct store_watch watch;
	int had_data; /* a model was built from the store itself */
	uint64_t generation;
	int fd; /* eventfd: something for follow_take() */
	pthread_t thread;
	int running;
	/* under lock */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stop;
	struct serve_model *ready, *retired;
	char error[512]; /* the store's problem now; "" when none */
	int error_new;	 /* changed since follow_take() last looked */
};

static void notify(struct follow *f)
{
	uint64_t one = 1;

	if (write(f->fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		warning("cannot wake the server: %s", strerror(errno));
}

/* The store's state: said once on stderr when it changes; "" clears. */
static void set_error(struct follow *f, const char *msg)
{
	int changed;

	pthread_mutex_lock(&f->lock);
	changed = strcmp(f->error, msg) != 0;
	if (changed) {
		snprintf(f->error, sizeof(f->error), "%s", msg);
		f->error_new = 1;
	}
	pthread_mutex_unlock(&f->lock);
	if (!changed)
		return;
	if (*msg && f->had_data)
		warning("%s; serving generation %llu, the last good one, and "
			"watching",
			msg, (unsigned long long)f->generation);
	else if (*msg)
		warning("%s; serving an empty trace until it can be read", msg);
	else
		fprintf(stderr, "ccsg serve: '%s' is readable again\n",
			f->o.db);
	notify(f);
}

/*
 * A model of the store's window now (of an empty trace when empty): the
 * model, or NULL with err set (*busy: a writer held the store).
 */
static struct serve_model *build(struct follow *f, int empty, int *busy,
				 char *err, size_t len)
{
	struct window win = { 0 };
	struct serve_model *m;
	struct cli o = f->o;
	const char *src = f->o.db;
	int url = store_is_url(src), failed;

	*busy = 0;
	if (!empty && url) { /* the store's finished loads, copied again */
		store_sqlite_forget();
		if (!(src = store_sqlite_path(f->o.db))) {
			snprintf(err, len, "cannot copy '%s' (said above)",
				 f->o.db);
			return NULL;
		}
	}
	failed = empty ? window_empty(f->copy.path, err, len)
		       : window_copy(src, f->copy.path,
				     (int64_t)(f->fo.last_min * 60e9), &win,
				     busy, err, len);
	if (!empty && url)
		store_sqlite_forget(); /* the window is copied */
	if (failed)
		return NULL;
	o.db = f->copy.path;
	o.empty_ok = 1;
	m = serve_model_build(&o, f->spec, f->o.db);
	unlink(f->copy.path); /* read whole: the model holds it all */
	if (!m) {
		snprintf(err, len, "cannot build the view of '%s' (said above)",
			 f->o.db);
		return NULL;
	}
	m->has_window = win.has;
	m->window_start_ns = win.start_ns;
	m->window_end_ns = win.end_ns;
	m->generation = ++f->generation;
	m->built_ns = (int64_t)clock_ns(CLOCK_REALTIME);
	return m;
}

/* Look at the store; build and hand over a model when it changed. */
static void refresh(struct follow *f)
{
	struct serve_model *m, *old;
	char err[512];
	int busy;

	switch (store_watch_check(&f->watch, f->o.db, err, sizeof(err))) {
	case STORE_SAME:
		return;
	case STORE_ABSENT:
		if (!f->had_data)
			return; /* no data yet: the empty view stays */
				/* fall through */
	case STORE_UNREADABLE:
		store_watch_forget(&f->watch); /* built again once readable */
		set_error(f, err);
		return;
	}
	if (!(m = build(f, 0, &busy, err, sizeof(err)))) {
		if (busy) /* try again next time, not an error */
			store_watch_forget(&f->watch);
		else
			set_error(f, err);
		return;
	}
	f->had_data = 1;
	pthread_mutex_lock(&f->lock);
	old = f->ready; /* built, never taken: a newer one replaces it */
	f->ready = m;
	pthread_mutex_unlock(&f->lock);
	serve_model_free(old);
	set_error(f, "");
	notify(f);
}

static void *follow_main(void *arg)
{
	struct follow *f = arg;
	struct serve_model *retired;
	struct timespec until;
	int64_t ns;

	pthread_mutex_lock(&f->lock);
	while (!f->stop) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		ns = until.tv_nsec + (int64_t)(f->fo.refresh_s * 1e9);
		until.tv_sec += ns / 1000000000;
		until.tv_nsec = ns % 1000000000;
		while (!f->stop && pthread_cond_timedwait(&f->wake, &f->lock,
							  &until) != ETIMEDOUT)
			;
		if (f->stop)
			break;
		retired = f->retired;
		f->retired = NULL;
		pthread_mutex_unlock(&f->lock);
		serve_model_free(retired);
		refresh(f);
		pthread_mutex_lock(&f->lock);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

/* /api/info's "follow" of m, with the store's state err. */
static char *follow_json(const struct follow *f, const struct serve_model *m,
			 const char *err)
{
	time_t sec = (time_t)(m->built_ns / 1000000000);
	char when[32], *buf = NULL;
	size_t len;
	struct tm tm;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	gmtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(out, "{\"last_minutes\": %g, \"refresh_seconds\": %g, ",
		f->fo.last_min, f->fo.refresh_s);
	if (m->has_window)
		fprintf(out,
			"\"window_start_ns\": %lld, \"window_end_ns\": %lld, ",
			(long long)m->window_start_ns,
			(long long)m->window_end_ns);
	else
		fputs("\"window_start_ns\": null, \"window_end_ns\": null, ",
		      out);
	fprintf(out, "\"generation\": %llu, \"refreshed_at\": \"%s\", ",
		(unsigned long long)m->generation, when);
	fputs("\"error\": ", out);
	if (*err)
		json_cstr(out, err);
	else
		fputs("null", out);
	fputc('}', out);
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* m's follow_json made again; NULL when out of memory (none shown). */
static void set_json(const struct follow *f, struct serve_model *m,
		     const char *err)
{
	free(m->follow_json);
	m->follow_json = follow_json(f, m, err);
	m->v.follow = m->follow_json;
}

struct follow *follow_start(const struct cli *o, const char *spec,
			    const struct follow_opts *fo, int *fd)
{
	struct follow *f = calloc(1, sizeof(*f));
	struct serve_model *m;
	pthread_condattr_t ca;
	sigset_t all, was;
	char err[512];
	int busy, rc;

	if (!f) {
		fail("out of memory");
		return NULL;
	}
	f->o = *o;
	f->spec = spec;
	f->fo = *fo;
	f->fd = -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* follow_main() */
	pthread_cond_init(&f->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (tmp_file_make(&f->copy, "causal-serve", "window.db"))
		goto fail;
	if ((f->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		fail("cannot make an eventfd: %s", strerror(errno));
		goto fail;
	}
	/* the first model: the store's, else an empty one */
	rc = store_watch_check(&f->watch, o->db, err, sizeof(err));
	m = rc == STORE_CHANGED ? build(f, 0, &busy, err, sizeof(err)) : NULL;
	if (m)
		f->had_data = 1;
	else if (rc == STORE_ABSENT)
		fprintf(stderr,
			"ccsg serve: '%s' has no trace yet: showing an empty "
			"one until it has\n",
			o->db);
	else {
		store_watch_forget(&f->watch);
		set_error(f, err);
	}
	if (!m && !(m = build(f, 1, &busy, err, sizeof(err))))
		goto fail;
	f->ready = m;
	/* the thread takes no signal (it inherits the mask): SIGINT and
	 * SIGTERM are the serving loop's, through its signalfd */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	rc = pthread_create(&f->thread, NULL, follow_main, f);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (rc) {
		fail("cannot start the follower: %s", strerror(rc));
		goto fail;
	}
	f->running = 1;
	*fd = f->fd;
	return f;
fail:
	follow_stop(f);
	return NULL;
}

struct serve_model *follow_take(struct follow *f, struct serve_model *cur)
{
	struct serve_model *m, *old = NULL;
	uint64_t n;
	char err[sizeof(f->error)];
	int again;

	if (read(f->fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		warning("cannot read the follower's eventfd: %s",
			strerror(errno));
	pthread_mutex_lock(&f->lock);
	m = f->ready;
	f->ready = NULL;
	again = f->error_new || m;
	f->error_new = 0;
	memcpy(err, f->error, sizeof(err));
	if (m && cur) {		  /* freed by the thread: the server goes on */
		old = f->retired; /* none: the thread frees it before building
				   */
		f->retired = cur;
	}
	pthread_mutex_unlock(&f->lock);
	serve_model_free(old);
	if (!m)
		m = cur;
	if (again && m)
		set_json(f, m, err);
	return m;
}

void follow_stop(struct follow *f)
{
	if (!f)
		return;
	if (f->running) {
		pthread_mutex_lock(&f->lock);
		f->stop = 1;
		pthread_cond_signal(&f->wake);
		pthread_mutex_unlock(&f->lock);
		pthread_join(f->thread, NULL);
	}
	serve_model_free(f->ready);
	serve_model_free(f->retired);
	store_watch_close(&f->watch);
	tmp_file_remove(&f->copy);
	if (f->fd >= 0)
		close(f->fd);
	pthread_cond_destroy(&f->wake);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
