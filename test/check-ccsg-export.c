/*
 * check-ccsg-export.c - `ccsg export` (export.h) on small made traces:
 *
 *   skew      three hosts whose clocks are seconds apart (B 5 s ahead of
 *             A, C 3 s behind): the offsets found are the true ones within
 *             the error bounds they state, every skeleton lands inside its
 *             stub, and the chrome export says so in its metadata
 *   drift     calls whose intervals cannot all hold at one offset: the
 *             pair is marked inconsistent, the skeletons moved inside
 *             their stubs and counted (clamped_calls)
 *   usage     bad usage (exit 2) and bad input (exit 1, one line)
 *   chrome_threads  the chrome export's formatter threads: the same
 *             bytes as the calls formatted in order
 *   pipe      the output buffer with its writer thread (export-buf.c):
 *             every byte in order, whatever the sizes put; a failed write
 *             said, without a hang
 *
 * The end-to-end checks of the three formats on real traces are in
 * check-e2e-export.c.
 */
#include <errno.h>

#include "ccsg-export-compare.h"
#include "ccsg-fixture.h"
#include "export/export-buf.h"
#include "export/export.h"
#include "json-read.h"
#include "tool-run.h"

#define S (1000000LL * US) /* a second, in ns */

struct loaded {
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	struct idl_names nm;
	struct export_ctx x;
	struct export_source src;
};

static void load(struct loaded *l, const char *path)
{
	idl_names_init(&l->nm);
	ck_assert_int_eq(ccsg_trace_load(&l->t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&l->d, &l->t), 0);
	ck_assert_int_eq(ccsg_dims_hosts(&l->dims, &l->t), 0);
	ck_assert_int_eq(ccsg_graph_build(&l->g, &l->d, &l->dims, 0), 0);
	ck_assert_int_eq(ccsg_graph_name(&l->g, &l->nm), 0);
	ck_assert_int_eq(export_ctx_init(&l->x, &l->t, &l->g, &l->nm), 0);
	export_source_loaded(&l->src, &l->g);
	ck_assert_int_eq(export_align(&l->x, &l->src, NULL, NULL), 0);
	ck_assert_int_eq(export_bounds(&l->x, &l->src), 0);
	/* the command reads the calls again, chain by chain: the same */
	xc_compare(path, &l->g);
}

static void unload(struct loaded *l)
{
	export_ctx_release(&l->x);
	ccsg_graph_release(&l->g);
	ccsg_dims_release(&l->dims);
	ccsg_dscg_release(&l->d);
	ccsg_trace_release(&l->t);
	idl_names_release(&l->nm);
}

/* Set the last call's four times (ns on each side's own clock, from
 * an origin 10 s before A's zero: times are never negative). */
static void times(long long c0, long long s0, long long s1, long long c1)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "stub_start_ns = %lld, skel_start_exit_ns = %lld, "
		 "skel_end_ns = %lld, stub_end_exit_ns = %lld",
		 10 * S + c0, 10 * S + s0, 10 * S + s1, 10 * S + c1);
	fx_set(sql);
}

/*
 * A (proc 1) calls B (proc 2) twice; inside the first, B calls C (proc
 * 3).  B's clock reads 5 s more than A's, C's 3 s less; drift adds a
 * call A -> B whose interval contradicts the others'.
 */
static const char *skewed(int drift)
{
	static const char chain[] = "0000000000000000000000000000000000000001";
	static const long long n[4] = { NUL, NUL, NUL, NUL };

	fx_open();
	fx_host(1, "A");
	fx_host(2, "B");
	fx_host(3, "C");
	fx_proc(1, 1);
	fx_proc(2, 2);
	fx_proc(3, 3);
	fx_thread(1, 1, 0, 100, -1);
	fx_thread(2, 1, 0, 100, -1);
	fx_thread(3, 1, 0, 100, -1);
	fx_call(chain, 7, 1, "one_1", 1, 1, 2, 1, 1,
		(const long long[4]){ 0, 1, 6, 7 }, n);
	times(100 * US, 5 * S + 200 * US, 5 * S + 900 * US, 1000 * US);
	/* nested in the first: client on B's clock, server on C's */
	fx_call(chain, 7, 2, "two_1", 2, 1, 3, 1, 2,
		(const long long[4]){ 2, 3, 4, 5 }, n);
	times(5 * S + 300 * US, -3 * S + 350 * US, -3 * S + 700 * US,
	      5 * S + 800 * US);
	fx_call(chain, 7, 1, "one_1", 1, 1, 2, 1, 1,
		(const long long[4]){ 8, 9, 10, 11 }, n);
	times(2000 * US, 5 * S + 2100 * US, 5 * S + 2400 * US, 2600 * US);
	if (drift) {
		fx_call(chain, 7, 1, "one_1", 1, 1, 2, 1, 1,
			(const long long[4]){ 12, 13, 14, 15 }, n);
		times(3000 * US, 5 * S + 3200 * US, 5 * S + 3250 * US,
		      3100 * US);
	}
	return fx_close();
}

static int64_t rel(const struct export_ctx *x, int a, int b)
{
	return x->hosts[b].offset_ns - x->hosts[a].offset_ns;
}

/* Every skeleton inside its stub on the aligned clock. */
static void assert_inside(const struct export_ctx *x)
{
	for (size_t i = 0; i < x->t->ncalls; i++) {
		int64_t c0, c1, s0, s1;

		export_call_times(x, &x->t->calls[i], &c0, &c1, &s0, &s1);
		ck_assert_msg(s0 >= c0 && s1 <= c1 && s0 <= s1,
			      "call %zu: skeleton [%lld, %lld] outside stub "
			      "[%lld, %lld]",
			      i, (long long)s0, (long long)s1, (long long)c0,
			      (long long)c1);
	}
}

static int host_index(const struct ccsg_trace *t, const char *name)
{
	for (size_t h = 0; h < t->nhosts; h++)
		if (!strcmp(t->hosts[h], name))
			return (int)h;
	ck_abort_msg("no host %s", name);
	return -1;
}

START_TEST(test_skew)
{
	struct loaded l;
	const char *path = skewed(0);
	int a, b, c;
	int64_t ab, bc;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct jval *doc;
	const struct jval *hosts;

	load(&l, path);
	ck_assert_int_eq(l.t.ncalls, 3);
	a = host_index(&l.t, "A");
	b = host_index(&l.t, "B");
	c = host_index(&l.t, "C");
	ab = rel(&l.x, a, b);
	bc = rel(&l.x, b, c);
	/* B reads 5 s more than A: its offset is 5 s less; C's 8 s more
	 * than B's */
	ck_assert_msg(llabs((long long)(ab + 5 * S)) <=
			      (long long)(l.x.hosts[b].error_ns +
					  l.x.hosts[a].error_ns),
		      "B - A offset %lld ns, truth %lld", (long long)ab,
		      -5 * S);
	ck_assert_msg(llabs((long long)(bc - 8 * S)) <=
			      (long long)(l.x.hosts[b].error_ns +
					  l.x.hosts[c].error_ns),
		      "C - B offset %lld ns, truth %lld", (long long)bc, 8 * S);
	/* the bound of A and B: the calls' intervals meet in [-5 s - 100
	 * us, -5 s - 100 us + 200 us]: 100 us either way */
	ck_assert_int_eq(ab, -5 * S);
	ck_assert_int_eq(l.x.hosts[a].error_ns + l.x.hosts[b].error_ns,
			 100 * US);
	ck_assert_int_eq(l.x.clamped, 0);
	assert_inside(&l.x);

	f = open_memstream(&buf, &len);
	ck_assert_int_eq(export_chrome(f, &l.x, &l.src), 0);
	fclose(f);
	doc = json_parse(buf, "chrome");
	hosts = json_need(json_need(doc, "metadata", J_OBJ, "chrome"), "hosts",
			  J_ARR, "metadata");
	ck_assert_int_eq(hosts->n, 3);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(
			json_need(&hosts->item[i], "offset_ns", J_NUM, "host")
				->num,
			l.x.hosts[i].offset_ns);
	json_free(doc);
	free(buf);
	unload(&l);
	unlink(path);
}
END_TEST

START_TEST(test_drift)
{
	struct loaded l;
	const char *path = skewed(1);
	int a, b;

	load(&l, path);
	a = host_index(&l.t, "A");
	b = host_index(&l.t, "B");
	ck_assert(l.x.hosts[a].inconsistent || l.x.hosts[b].inconsistent);
	ck_assert_int_ge(l.x.clamped, 1);
	assert_inside(&l.x);
	unload(&l);
	unlink(path);
}
END_TEST

#define EXPORT(...)                                                            \
	((const char *[]){ tool_path("ccsg"), "export", __VA_ARGS__, NULL })

static void expect_status(const char *const argv[], int code, const char *says)
{
	struct tool_out r = tool_run(argv);
	char *lines[8];
	size_t n;

	e2e_assert_exit(r.status, code, says);
	n = tool_lines(r.err, lines, 8);
	ck_assert_msg(n >= 1 && strstr(lines[0], says),
		      "expected '%s', got '%s'", says, n ? lines[0] : "");
	if (code == 1)
		ck_assert_int_eq(n, 1);
	ck_assert_str_eq(r.out, "");
	tool_out_release(&r);
}

START_TEST(test_usage)
{
	const char *path;
	struct e2e t;

	e2e_init(&t);
	path = skewed(0);
	expect_status(EXPORT("--db", path), 2, "give --format");
	expect_status(EXPORT("--format=svg", "--db", path), 2,
		      "unknown format 'svg'");
	expect_status(EXPORT("--format=chrome", "--weight=cpu", "--db", path),
		      2, "--weight goes with --format=folded");
	expect_status(EXPORT("--format=folded", "--weight=bytes", "--db", path),
		      2, "--weight takes");
	expect_status(EXPORT("--format=otlp", "--batch", "10", "--db", path), 2,
		      "go with --endpoint");
	expect_status(
		EXPORT("--format=otlp", "--endpoint", "ftp://x", "--db", path),
		2, "http://");
	expect_status(EXPORT("--format=folded", "--endpoint",
			     "http://127.0.0.1:1/", "--db", path),
		      2, "go with --format=otlp");
	expect_status(
		EXPORT("--format=otlp", "--service-name", "x", "--db", path), 2,
		"EXE=NAME");
	expect_status(EXPORT("--format=folded", "--db", "/nonexistent/t.db"), 1,
		      "ccsg: error: ");
	expect_status(EXPORT("--format=chrome", "--db", path, "-o", t.dir), 1,
		      "not a regular file");
	/* a good one writes its file whole, and nothing on stdout */
	{
		char out[PATH_MAX + 16];
		struct tool_out r;
		char *text;

		e2e_fmt(out, sizeof(out), "%s/x.folded", t.dir);
		r = tool_run(EXPORT("--format=folded", "--weight=calls", "--db",
				    path, "-o", out));
		e2e_assert_exit(r.status, 0, "export");
		ck_assert_str_eq(r.out, "");
		text = e2e_slurp(out, NULL);
		ck_assert_str_eq(text, "A:p1:main;B:7::one 2\n"
				       "A:p1:main;B:7::one;C:7::two 1\n");
		free(text);
		tool_out_release(&r);
	}
	unlink(path);
	e2e_release(&t);
}
END_TEST

/* The chrome export of l as text. */
static char *chrome_text(struct loaded *l, size_t *len)
{
	char *p = NULL;
	FILE *m = open_memstream(&p, len);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(export_chrome(m, &l->x, &l->src), 0);
	ck_assert_int_eq(fclose(m), 0);
	return p;
}

/*
 * The formatter threads (export-chrome.c) give the same bytes as the
 * calls formatted in order: 300 calls in batches of 7 (43 batches, more
 * than wait at once), of 1, of 300 and of 1000.
 */
START_TEST(test_chrome_threads)
{
	static const char chain[] = "0000000000000000000000000000000000000002";
	static const long long n[4] = { NUL, NUL, NUL, NUL };
	static const size_t batches[] = { 7, 1, 300, 1000 };
	size_t keep_batch = export_chrome_par_batch;
	size_t keep_min = export_chrome_par_min, len, plen;
	struct loaded l;
	char *serial;

	fx_open();
	fx_two_procs();
	for (long long i = 0; i < 300; i++) {
		fx_call(chain, 7, 1 + i % 3, i % 3 ? "two_1" : "one_1", 1, 1, 2,
			1, 1,
			(const long long[4]){ 4 * i, 4 * i + 1, 4 * i + 2,
					      4 * i + 3 },
			n);
		times(1000 * i * US, 1000 * i * US + 10 * US,
		      1000 * i * US + 20 * US + i, 1000 * i * US + 40 * US);
	}
	load(&l, fx_close());
	export_chrome_par_min = SIZE_MAX;
	serial = chrome_text(&l, &len);
	ck_assert_msg(strstr(serial, "\"cat\":\"rpc.server\""), "%.200s",
		      serial);
	export_chrome_par_min = 0;
	for (size_t k = 0; k < sizeof(batches) / sizeof(batches[0]); k++) {
		char *par;

		export_chrome_par_batch = batches[k];
		par = chrome_text(&l, &plen);
		ck_assert_msg(plen == len && !memcmp(par, serial, len),
			      "batches of %zu: %zu bytes, in order %zu",
			      batches[k], plen, len);
		free(par);
	}
	/* a device that takes nothing: the writer thread's error, and why,
	 * come back; the reading stops */
	{
		FILE *full = fopen("/dev/full", "w");

		ck_assert_ptr_nonnull(full);
		setvbuf(full, NULL, _IONBF, 0);
		export_chrome_par_batch = 7;
		errno = 0;
		ck_assert_int_eq(export_chrome(full, &l.x, &l.src), -EIO);
		ck_assert_int_eq(errno, ENOSPC);
		fclose(full);
	}
	export_chrome_par_batch = keep_batch;
	export_chrome_par_min = keep_min;
	free(serial);
	unload(&l);
}
END_TEST

/* The text export_otlp() writes of l. */
static char *otlp_text(struct loaded *l)
{
	struct export_otlp_opts oo = { NULL, 0, 0, 0, 0 };
	char *p = NULL;
	size_t len;
	FILE *m = open_memstream(&p, &len);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(export_otlp(m, &l->x, &l->src, &oo), 0);
	ck_assert_int_eq(fclose(m), 0);
	return p;
}

/* The whole JSON object around text[at] whose first key is key (a span,
 * a slice), malloc'd: from its '{' to its '}'. */
static char *object_at(const char *text, const char *at, const char *key)
{
	const char *s = at, *e = at;
	int depth = 0;

	while (s > text && strncmp(s, key, strlen(key)))
		s--;
	for (e = s; *e; e++) {
		depth += *e == '{' ? 1 : *e == '}' ? -1 : 0;
		if (!depth)
			break;
	}
	return strndup(s, (size_t)(e - s + 1));
}

/*
 * Each side's status is its own: a call the client gave up on (the
 * fixture's 7::timedout: RPC_TIMEDOUT) whose server went on and replied
 * success is an error on the client span and slice, not on the server's.
 */
START_TEST(test_each_side_its_own_status)
{
	struct loaded l;
	char *chrome, *otlp, *o;
	const char *at;
	size_t len;
	int client = 0, server = 0;

	load(&l, fx_outcomes());
	chrome = chrome_text(&l, &len);
	for (at = chrome; (at = strstr(at, "\"outcome\":\"")); at++) {
		o = object_at(chrome, at, "{\"ph\"");
		if (strstr(o, "\"cat\":\"rpc.server\"") &&
		    strstr(o, "\"outcome\":\"success\""))
			ck_assert_msg(!strstr(o, "terrible") &&
					      !strstr(o, " ["),
				      "a server slice that replied success is "
				      "marked failed: %s",
				      o);
		if (strstr(o, "\"cat\":\"rpc.client\"") &&
		    strstr(o, "\"outcome\":\"RPC_TIMEDOUT\"") &&
		    strstr(o, "\"failed\":true")) {
			client++;
			ck_assert_msg(strstr(o, " [RPC_TIMEDOUT]\"") &&
					      strstr(o, "terrible"),
				      "the timed-out client slice: %s", o);
		}
		free(o);
	}
	ck_assert_int_eq(client, 2); /* timedout_1 and noserver_1 */

	otlp = otlp_text(&l);
	client = 0;
	for (at = otlp; (at = strstr(at, "\"key\":\"causal.side\"")); at++) {
		o = object_at(otlp, at, "{\"name\":");
		if (!strncmp(o, "{\"name\":\"7::timedout\",", 22)) {
			if (strstr(o, "\"stringValue\":\"server\"")) {
				server++;
				ck_assert_msg(!strstr(o, "\"status\""),
					      "the server span of a call it "
					      "answered with success: %s",
					      o);
			} else {
				client++;
				ck_assert_msg(strstr(o,
						     "\"status\":{\"code\":2,"
						     "\"message\":"
						     "\"RPC_TIMEDOUT\"}"),
					      "the client span: %s", o);
			}
		}
		free(o);
	}
	ck_assert_int_eq(client, 1);
	ck_assert_int_eq(server, 1);
	free(otlp);
	free(chrome);
	unload(&l);
}
END_TEST

/* Bytes of a known sequence, n of them from position at. */
static void pattern(char *p, size_t at, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)('a' + (at + i) * 7919 % 26);
}

/* A file that takes its time over each write: the writer thread lags
 * behind, so that anything written around it would come out of order. */
static ssize_t slow_write(void *cookie, const char *buf, size_t n)
{
	usleep(300);
	return (ssize_t)fwrite(buf, 1, n, cookie);
}

START_TEST(test_pipe)
{
	static const size_t sizes[] = { 1,
					7,
					100,
					4096,
					XBUF_SIZE - 3,
					XBUF_SIZE,
					XBUF_SIZE + 1,
					3 * XBUF_SIZE + 5 };
	struct xbuf *x = malloc(sizeof(*x));
	size_t total = 0, max = 3 * XBUF_SIZE + 5;
	char *chunk = malloc(max), *back;
	FILE *f = tmpfile(), *full, *slow;
	long len;

	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(f);
	slow = fopencookie(f, "w",
			   (cookie_io_functions_t){ .write = slow_write });
	ck_assert_ptr_nonnull(slow);
	setvbuf(slow, NULL, _IONBF, 0);
	xb_init(x, slow);
	XB_LIT(x, "head"); /* buffered before the thread starts: kept first */
	total = 4;
	ck_assert_int_eq(xb_pipe_start(x), 0);
	/* some 40 blocks: the ring of 8 wraps round, the caller waits */
	for (int round = 0; round < 12; round++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			pattern(chunk, total, sizes[k]);
			xb_put(x, chunk, sizes[k]);
			total += sizes[k];
		}
	xb_u64(x, 1234567890123ull);
	/* a string to escape goes through the blocks too, in its place */
	xb_json(x, "q\"\n");
	xb_flush(x);
	xb_pipe_end(x);
	ck_assert_int_eq(x->err, 0);
	ck_assert_ptr_null(x->pipe);
	fclose(slow);
	fflush(f);
	len = ftell(f);
	ck_assert_int_eq(len, (long)total + 13 + 7);
	back = malloc((size_t)len);
	rewind(f);
	ck_assert_uint_eq(fread(back, 1, (size_t)len, f), (size_t)len);
	ck_assert_int_eq(memcmp(back, "head", 4), 0);
	for (size_t at = 4; at < total; at += max) {
		size_t n = total - at < max ? total - at : max;

		pattern(chunk, at, n);
		ck_assert_msg(!memcmp(back + at, chunk, n), "bytes from %zu",
			      at);
	}
	ck_assert_int_eq(memcmp(back + total, "1234567890123\"q\\\"\\n\"", 20),
			 0);
	fclose(f);
	free(back);

	/* a device that takes nothing: the error comes back, no hang */
	full = fopen("/dev/full", "w");
	ck_assert_ptr_nonnull(full);
	setvbuf(full, NULL, _IONBF, 0);
	xb_init(x, full);
	ck_assert_int_eq(xb_pipe_start(x), 0);
	for (int i = 0; i < 40; i++)
		xb_put(x, chunk, XBUF_SIZE);
	errno = 0;
	xb_pipe_end(x);
	ck_assert_int_eq(x->err, 1);
	ck_assert_int_eq(errno, ENOSPC); /* why, to say it */
	fclose(full);
	free(chunk);
	free(x);
}
END_TEST

Suite *ccsg_export_suite(void)
{
	Suite *s = suite_create("ccsg-export");
	TCase *tc = tcase_create("export");

	e2e_add_fixture(tc);
	tcase_add_test(tc, test_skew);
	tcase_add_test(tc, test_drift);
	tcase_add_test(tc, test_usage);
	tcase_add_test(tc, test_pipe);
	tcase_add_test(tc, test_chrome_threads);
	tcase_add_test(tc, test_each_side_its_own_status);
	suite_add_tcase(s, tc);
	return s;
}
