/*
 * e2e-figure1.h - the example of Figure 1 of the CPU paper
 * (examples/figure1/) run on simulated hosts, for the suites that check
 * ccsg on it (check-e2e-figure1.c, check-e2e-impact.c): deployments of
 * the servers over hosts, a traced run merged into t's database, and
 * ccsg's JSON of the run read into one vector per component and host.
 *
 * main (figure1-client, on host A) calls foo (A); foo calls times (B),
 * what_to_say (C, which spawns two threads) and say_it three times (D;
 * round robin over the servers of D when a deployment has several).
 * Each server runs under `unshare --uts` with a hostname of its own, in
 * the test's network namespace (rpc_isolate()), with the environment
 * its deployment gives it (FIG1_SCALE: examples/figure1/figure1-cpu.h).
 */
#ifndef CAUSAL_TEST_E2E_FIGURE1_H
#define CAUSAL_TEST_E2E_FIGURE1_H

#include <math.h>

#include "e2e-rpc.h"
#include "json-read.h"

#define FIG1_NO_BURN
#include "../examples/figure1/figure1-cpu.h"

#define FIG1_PROG 0x20000f01 /* examples/figure1/figure1.x */

/* say_it's burn: invocation n burns fig1_say_it_us[n % 3] us */
extern const int fig1_say_it_us[3];

/* ---- the deployments ----------------------------------------------------- */

/* N_FOO..N_SAY are also the procedure numbers of figure1.x; N_RUNTIME
 * sums the thread nodes under main (<serving threads>, <threads of main>) */
enum { N_MAIN, N_FOO, N_TIMES, N_WHAT, N_SAY, N_THREAD, N_RUNTIME, N_KINDS };

struct fig1_server {
	const char *host, *roles;
	const char
		*env; /* "NAME=value" it runs with (FIG1_SCALE=...), or NULL */
	pid_t pid;
	int tcp, udp;
	/* what the program printed: its threads' CPU, its components' burn */
	double cpu_us, burned_us;
	/* per node kind (N_FOO..N_THREAD), the CPU its invocations here used
	 * beyond their burn, by their threads' own clocks (their stubs, the
	 * kernel's work in their system calls: what moves from run to run) */
	double extra_us[N_KINDS];
};

#define FIG1_MAX_SERVERS 6

struct fig1_deploy {
	const char *name;
	int n;
	struct fig1_server
		s[FIG1_MAX_SERVERS]; /* started in this order: A last */
	double client_cpu_us;	     /* figure1-client's thread, on A's host */
	/* the client's "NAME=value" (NULL: none), and what runs once the
	 * servers serve, before the client starts (NULL: nothing) */
	const char *client_env;
	void (*before_client)(struct e2e *t, struct fig1_deploy *d);
	int clients; /* figure1-client runs, one after the other (0: 1) */
};

/* A, B, C and D each on a host of its own; A with B, C with D on two. */
extern const struct fig1_deploy fig1_four_hosts, fig1_two_hosts;

/* The server of role ('A' to 'D') in d. */

struct fig1_server *fig1_serving(struct fig1_deploy *d, char role);

/*
 * ccsg names come from the .x (FIG1_PROG::FOO) or the stub symbols (foo,
 * foo_1): the part after the interface, in any case.
 */
int fig1_kind_of(const char *name);

/*
 * Run the deployment traced: the servers, then main (on A's host; as many
 * times as d->clients says, one after the other), then
 * SIGTERM to every server (each must exit 0), then merge.  What a server
 * prints goes to HOST.out in t's directory.
 */
void fig1_run(struct e2e *t, struct fig1_deploy *d);

/* |got - want| <= 10% of want + 1 ms, all in microseconds */
void fig1_near(double got, double want, const char *what);

/* ---- the CCSG of a run ------------------------------------------------------
 */

#define FIG1_MAX_HOSTS 8

/* What a node kind is called in messages. */
extern const char *const fig1_node_label[N_KINDS];

struct fig1_node {
	int found; /* nodes aggregated into this one */
	double id; /* the (last) node's id */
	double self[FIG1_MAX_HOSTS], desc[FIG1_MAX_HOSTS];
	double calls, threads;
};

struct fig1_ccsg {
	int nhosts;
	char *host[FIG1_MAX_HOSTS];
	struct fig1_node node[N_KINDS];
	struct jval *json;
};

/*
 * `ccsg CMD --format=json --db DB --idl figure1.x ARGS...` (cmd: "report",
 * or "impact" with its --change in args) on t's database, read into c:
 * each node's vectors self_key and desc_key ("self_cpu_us", or
 * "self_cpu_us_after" ...).  The document stays in c->json.
 */
void fig1_ccsg_read(struct e2e *t, struct fig1_ccsg *c, const char *cmd,
		    const char *const *args, const char *self_key,
		    const char *desc_key);

/* `ccsg report --format=json` on t's database, read into c. */
void fig1_ccsg(struct e2e *t, struct fig1_ccsg *c);

/* The index of host in c's hosts (not there: the test fails). */
int fig1_host_index(const struct fig1_ccsg *c, const char *host);

/* The count of the edge from node a to node b (0: none). */
double fig1_edge(const struct fig1_ccsg *c, double a, double b);

/* Print c's self and descendant CPU per node kind and host, in ms. */
void fig1_print(const struct fig1_ccsg *c, const char *title);

#endif
