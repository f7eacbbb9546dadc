/*
 * check-e2e-viewer.c - the viewer's page in a real browser (issue 13,
 * item 5): the Figure 1 example traced on four simulated hosts and merged,
 * `ccsg serve` on it, and test/browser/viewer-test.py driving headless
 * Chromium through Selenium (chromium, chromium-driver and
 * python3-selenium, installed by scripts/setup.sh): each tree opened
 * where the cost is (issue 39, item 1: the CCSG with SAY_IT shown without
 * a click, every node above 5% of the root open, a node under 5% closed,
 * in the whole trees, a compacted DSCG from its URL and the CCDG), CCSG
 * FIG1_PROG::SAY_IT followed to its three invocations in the DSCG
 * (grouped by host D) and to its IDT procedure (calls = 3), the URL
 * reloaded, the DSCG folded by host, a second page with a compaction of
 * its own (issue 40, item 7), the CCDG of a typed specification marking
 * say_it, foo and main; then test/browser/flame-test.py, the flame graph
 * (issue 39, item 2: widths within a pixel of the CCSG's figures, colours
 * by host, search, zoom, a click selecting the node in the tree); then
 * test/browser/hyper-test.py, the hyperbolic tree (issue 39, item 4: a
 * clicked node brought to the centre within a pixel by an isometry, its
 * children away from its parent, nothing outside the disk, the node
 * selected in the tree; 10,000 generated nodes, frames per second
 * printed); then test/browser/pes-test.py, a thread's PES (issue 39,
 * item 5: the time view in ms from the start, the frequency view's 99%
 * range and log axis, a drag clipping the sequence); and
 * test/browser/timeline-test.py, the chain timeline (issue 39, item 3:
 * FOO's slice on host A holding SAY_IT's three on host D, their arrows,
 * zoom, a click selecting the node in the trees).
 * Screenshots go to build/browser/.  Without the
 * browser packages the test says so on one line and passes.
 */
#include <check.h>

#include "e2e-figure1.h"
#include "serve-run.h"
#include "tool-run.h"

#define PYTHON "/usr/bin/python3"

START_TEST(test_browser)
{
	struct fig1_deploy d = fig1_four_hosts;
	const char *missing = browser_missing();
	char out[PATH_MAX], err[PATH_MAX], url[128], shots[PATH_MAX];
	char script[PATH_MAX], idl[PATH_MAX], home[PATH_MAX], *text = NULL;
	static const char *const views[] = { "flame-test.py", "hyper-test.py",
					     "pes-test.py", "timeline-test.py" };
	struct tool_out r;
	struct e2e t;
	pid_t serve;
	int status;

	if (missing) {
		printf("skipped the browser test: %s is not installed "
		       "(scripts/setup.sh installs it)\n",
		       missing);
		return;
	}
	rpc_isolate();
	e2e_init(&t);
	fig1_run(&t, &d);

	e2e_fmt(idl, sizeof(idl), "%s/examples/figure1/figure1.x",
		getenv("CAUSAL_SRC") ? getenv("CAUSAL_SRC") : ".");
	e2e_fmt(out, sizeof(out), "%s/serve.out", t.dir);
	e2e_fmt(err, sizeof(err), "%s/serve.err", t.dir);
	serve = e2e_spawn((const char *[]){ tool_path("ccsg"), "serve", "--db",
					    t.db, "--idl", idl, "--listen",
					    "127.0.0.1:0", NULL },
			  NULL, out, err);
	url[0] = '\0';
	for (int ms = 0; ms < TOOL_DEADLINE_S * 1000 && !url[0]; ms += 20) {
		const char *u;

		free(text);
		text = access(out, R_OK) ? NULL : e2e_slurp(out, NULL);
		if (text && (u = strstr(text, "http://")) && strchr(u, '\n'))
			snprintf(url, sizeof(url), "%.*s",
				 (int)strcspn(u, " \n"), u);
		else if (waitpid(serve, &status, WNOHANG) == serve)
			ck_abort_msg("ccsg serve exited: %s",
				     e2e_slurp(err, NULL));
		else
			e2e_sleep_ms(20);
	}
	free(text);
	ck_assert_msg(url[0], "ccsg serve printed no URL");

	e2e_fmt(script, sizeof(script), "%s/test/browser/viewer-test.py",
		getenv("CAUSAL_SRC") ? getenv("CAUSAL_SRC") : ".");
	e2e_fmt(shots, sizeof(shots), "%s/browser", e2e_build());
	e2e_fmt(home, sizeof(home), "HOME=%s", t.dir);
	r = tool_run_env((const char *[]){ PYTHON, script, url, shots, NULL },
			 (const char *[]){ home, NULL }, 2 * TOOL_DEADLINE_S);
	ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		      "viewer-test.py failed (screenshots in %s):\n%s%s", shots,
		      r.out, r.err);
	tool_out_release(&r);
	/* the other views, on the same server: the flame graph (issue 39,
	 * item 2), the hyperbolic tree (item 4), a thread's PES (item 5) and
	 * the chain timeline (item 3); what they print (frames per second)
	 * goes to the log */
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		e2e_fmt(script, sizeof(script), "%s/test/browser/%s",
			getenv("CAUSAL_SRC") ? getenv("CAUSAL_SRC") : ".",
			views[i]);
		r = tool_run_env(
			(const char *[]){ PYTHON, script, url, shots, NULL },
			(const char *[]){ home, NULL }, 2 * TOOL_DEADLINE_S);
		ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
			      "%s failed (screenshots in %s):\n%s%s", views[i],
			      shots, r.out, r.err);
		printf("%s", r.out);
		tool_out_release(&r);
	}

	ck_assert_int_eq(kill(serve, SIGTERM), 0);
	e2e_assert_exit(e2e_wait(serve), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

Suite *e2e_viewer_suite(void)
{
	Suite *s = suite_create("e2e-viewer");
	TCase *tc = tcase_create("viewer");

	tcase_set_timeout(tc, 2 * E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_browser);
	suite_add_tcase(s, tc);
	return s;
}
