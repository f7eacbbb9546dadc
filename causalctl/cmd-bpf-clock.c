/*
 * cmd-bpf-clock.c - `causalctl bpf-clock start|stop|status [--dir DIR]`:
 * options and what is printed; bpf-clock.c does the work.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bpf-clock.h"
#include "causal/bpf-clock.h"
#include "cmds.h"
#include "usage.h"

/* `status` of a host without a clock (LSB's "program is not running"). */
#define EXIT_NOT_RUNNING 3

enum { OPT_VERBOSE = OPT_LONG };

static const struct opt bpf_clock_opts[] = {
	{ "dir", 'd', "DIR",
	  "where the clock is pinned, on a bpf filesystem "
	  "(default " CAUSAL_BPF_CLOCK_DIR
	  "; libcausal.so: CAUSAL_BPF_CLOCK_DIR)" },
	{ "verbose", OPT_VERBOSE, NULL,
	  "start: show libbpf's messages (why the kernel refused the "
	  "program)" },
	OPT_END
};

static const char *state_name(uint32_t state)
{
	static const char *const names[] = { "loading", "live", "stopped" };

	return state < 3 ? names[state] : "unknown";
}

/* Whether processes of other users can reach the map: the directories
 * above it must let them through. */
static void check_reachable(const char *path)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (!stat(dir, &st) && (st.st_mode & 0001) == 0) {
			warning("'%s' is mode %04o: processes of users other "
				"than its owner cannot reach the clock (chmod "
				"o+x '%s')",
				dir, (unsigned)(st.st_mode & 07777), dir);
			return;
		}
	}
}

static void print_status(const struct bpf_clock_info *in)
{
	printf("state:    %s\n", state_name(in->state));
	printf("map:      %s (mode %04o, id %" PRIu32 ", %" PRIu32
	       " slots, %" PRIu32 " written)\n",
	       in->map_path, in->mode, in->map_id, in->nslots, in->used);
	if (in->link == 1)
		printf("program:  id %" PRIu32 ", link id %" PRIu32
		       ", attached to sched_switch\n",
		       in->prog_id, in->link_id);
	else if (in->link == 0)
		printf("program:  detached (no link pinned)\n");
	else
		printf("program:  unknown (the link: %s)\n",
		       strerror(-in->link));
	if (in->state == CAUSAL_BPF_CLOCK_LIVE && in->started_ns &&
	    in->now_ns >= in->started_ns)
		printf("running:  %.1f s\n",
		       (double)(in->now_ns - in->started_ns) / 1e9);
}

static int run_start(const char *dir, int verbose)
{
	struct bpf_clock_info in;
	int already;

	if (bpf_clock_start(dir, verbose, &already, &in))
		return 1;
	if (already)
		printf("bpf clock already running in '%s'\n", dir);
	else
		printf("bpf clock started in '%s'\n", dir);
	print_status(&in);
	check_reachable(in.map_path);
	return 0;
}

static int run_stop(const char *dir)
{
	int was;

	if (bpf_clock_stop(dir, &was))
		return 1;
	if (was)
		printf("bpf clock stopped in '%s'\n", dir);
	else
		printf("no bpf clock in '%s'\n", dir);
	return 0;
}

static int run_status(const char *dir)
{
	struct bpf_clock_info in;

	if (bpf_clock_status(dir, &in))
		return 1;
	if (!in.present) {
		printf("state:    not running (nothing pinned at '%s')\n",
		       in.map_path);
		return EXIT_NOT_RUNNING;
	}
	print_status(&in);
	if (in.state != CAUSAL_BPF_CLOCK_LIVE)
		return EXIT_NOT_RUNNING;
	if (in.link == 0) {
		fail("the clock in '%s' is stale: its program is detached "
		     "(processes read the system call); run 'causalctl "
		     "bpf-clock start' to replace it",
		     dir);
		return 1;
	}
	return 0;
}

static int run_bpf_clock(int argc, char **argv)
{
	const char *dir = CAUSAL_BPF_CLOCK_DIR, *v, *action;
	struct opt_parser p;
	int c, verbose = 0;

	opt_init(&p, &cmd_bpf_clock, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		if (c == 'd')
			dir = v;
		else if (c == OPT_VERBOSE)
			verbose = 1;
	}
	if (c == OPT_STOP)
		return p.status;
	if (p.nargs != 1)
		return opt_bad(&cmd_bpf_clock,
			       p.nargs ? "too many arguments"
				       : "start, stop or status is needed");
	if (!*dir || strlen(dir) > 200)
		return opt_bad(&cmd_bpf_clock, "bad directory '%s'", dir);
	action = p.args[0];
	if (!strcmp(action, "start"))
		return run_start(dir, verbose);
	if (!strcmp(action, "stop"))
		return run_stop(dir);
	if (!strcmp(action, "status"))
		return run_status(dir);
	return opt_bad(&cmd_bpf_clock, "unknown action '%s'", action);
}

const struct command cmd_bpf_clock = {
	"bpf-clock",
	run_bpf_clock,
	"start|stop|status [--dir DIR]",
	"the thread CPU clock without a system call: load and pin it (root), "
	"remove it, or report on it",
	bpf_clock_opts,
};
