/*
 * cmd-status.c - `causalctl status`: every process that has connected to
 * the coordinator, what it applied, and whether the whole system has
 * reached the state last published.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmds.h"
#include "coordinator.h"
#include "usage.h"

enum { OPT_WAIT = OPT_LONG };

static const struct opt status_opts[] = {
	{ "coordinator", 'c', "WHERE",
	  "the coordinator: local, a socket path or HOST[:PORT] (default "
	  "$CAUSAL_COORDINATOR, else local)" },
	{ "wait", OPT_WAIT, "SECONDS",
	  "ask again until the state last published is reached, for up to "
	  "SECONDS; exit 1 if it is not" },
	OPT_END
};

/* Print the status; 1 if every connected process applied the last event,
 * 0 if not, -1 on a malformed reply. */
static int show(const char *where, char *reply, int print)
{
	unsigned long long seq = 0, malformed = 0, denied = 0, limited = 0,
			   keeps = 0, cut = 0;
	int connected = 0, behind = 0, n = 0;
	char instance[32];

	/* KEEPS and KEEPS_CUT: not from an older coordinator */
	if (sscanf(reply, "STATE %31s %llu %llu %llu %llu %llu %llu", instance,
		   &seq, &malformed, &denied, &limited, &keeps, &cut) < 5)
		return -1;
	if (print) {
		printf("coordinator %s (instance %s): %llu event%s published, "
		       "%llu malformed message%s rejected, %llu request%s "
		       "denied, %llu connection%s cut by a limit\n",
		       where, instance, seq, seq == 1 ? "" : "s", malformed,
		       malformed == 1 ? "" : "s", denied,
		       denied == 1 ? "" : "s", limited,
		       limited == 1 ? "" : "s");
		printf("tail keep: %llu chain%s kept announced, %llu cut by "
		       "the rate caps\n",
		       keeps, keeps == 1 ? "" : "s", cut);
		printf("%-16s %8s %6s %8s %5s %7s %12s %s  %s\n", "HOST", "PID",
		       "UID", "APPLIED", "BAD", "DROPPED", "LAST SEEN",
		       "KEEPS/DROPPED/CUT", "EXECUTABLE");
	}
	for (char *line = strtok(reply, "\n"); line;
	     line = strtok(NULL, "\n")) {
		char host[64], uid[16], exe[256];
		long pid;
		unsigned long long applied, seen, bad, dropped, k = 0, kd = 0,
								kc = 0;
		char keep[64];
		int conn;

		if (strncmp(line, "PROC ", 5))
			continue;
		if (sscanf(line,
			   "PROC %63s %ld %15s %llu %d %llu %llu %llu %255s "
			   "%llu %llu %llu",
			   host, &pid, uid, &applied, &conn, &seen, &bad,
			   &dropped, exe, &k, &kd, &kc) < 9)
			return -1;
		n++;
		connected += conn;
		behind += conn && applied < seq;
		snprintf(keep, sizeof(keep), "%llu/%llu/%llu", k, kd, kc);
		if (print)
			printf("%-16s %8ld %6s %8llu %5llu %7llu %9.1f s%s "
			       "%17s  %s\n",
			       host, pid, uid, applied, bad, dropped,
			       (double)seen / 1000, conn ? "" : " (gone)", keep,
			       exe);
	}
	if (print) {
		if (!behind)
			printf("state reached: %d connected process%s applied "
			       "event %llu (%d ever connected)\n",
			       connected, connected == 1 ? "" : "es", seq, n);
		else
			printf("state not reached: %d of %d connected "
			       "process%s behind event %llu\n",
			       behind, connected, connected == 1 ? "" : "es",
			       seq);
	}
	return !behind;
}

static int run_status(int argc, char **argv)
{
	const char *where = NULL, *v;
	double wait_s = 0;
	struct opt_parser p;
	char *reply, *end;
	int c, r;
	struct timespec t0, t;

	opt_init(&p, &cmd_status, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		if (c == 'c') {
			where = v;
		} else if (c == OPT_WAIT) {
			wait_s = strtod(v, &end);
			if (!*v || *end || wait_s < 0 || wait_s > 86400) {
				fail("bad --wait '%s': seconds from 0 to "
				     "86400",
				     v);
				return 2;
			}
		}
	}
	if ((c = opt_no_operands(&p, c)) >= 0)
		return c;
	where = ctl_coordinator(where);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		char *copy;

		if ((r = coord_request(where, "STATUS", &reply)))
			return ctl_failed(r);
		clock_gettime(CLOCK_MONOTONIC, &t);
		copy = strdup(reply);
		r = copy ? show(where, copy, 0) : -1;
		free(copy);
		if (r != 0 ||
		    (double)(t.tv_sec - t0.tv_sec) +
				    (double)(t.tv_nsec - t0.tv_nsec) / 1e9 >=
			    wait_s)
			break;
		free(reply);
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	}
	r = show(where, reply, 1);
	free(reply);
	if (r < 0) {
		fail("malformed status from the coordinator '%s'", where);
		return 1;
	}
	return wait_s > 0 && !r ? 1 : 0;
}

const struct command cmd_status = {
	"status", run_status, "[--coordinator WHERE] [--wait SECONDS]",
	"list the processes the coordinator knows and whether the state "
	"last published is reached",
	status_opts
};
