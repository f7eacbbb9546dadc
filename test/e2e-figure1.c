/*
 * e2e-figure1.c - the helpers e2e-figure1.h declares, whose comments there are
 * their contract: compiled once and linked into the runner.
 */
#include "e2e-figure1.h"

const int fig1_say_it_us[3] = FIG1_SAY_IT_US_INIT;

const struct fig1_deploy fig1_four_hosts = {
	.name = "4 hosts",
	.n = 4,
	.s = { { .host = "hostD", .roles = "D" },
	       { .host = "hostC", .roles = "C" },
	       { .host = "hostB", .roles = "B" },
	       { .host = "hostA", .roles = "A" } },
};

const struct fig1_deploy fig1_two_hosts = {
	.name = "2 hosts",
	.n = 2,
	.s = { { .host = "hostCD", .roles = "CD" },
	       { .host = "hostAB", .roles = "AB" } },
};

static const char *fig1_prog(const char *name)
{
	static char paths[4][PATH_MAX];
	static int next;
	char *p = paths[next++ % 4];

	e2e_fmt(p, PATH_MAX, "%s/examples/%s", e2e_build(), name);
	ck_assert_msg(access(p, X_OK) == 0,
		      "'%s' is not built (make -f Makefile -f "
		      "examples/rules.mk, or the Makefile's include of "
		      "examples/rules.mk)",
		      p);
	return p;
}

struct fig1_server *fig1_serving(struct fig1_deploy *d, char role)
{
	for (int i = 0; i < d->n; i++)
		if (strchr(d->s[i].roles, role))
			return &d->s[i];
	ck_abort_msg("%s: nobody serves %c", d->name, role);
	return NULL;
}

/* Start argv traced, in a UTS namespace named host, with env (a
 * "NAME=value", or NULL) added to its environment; returns its pid. */
static pid_t fig1_spawn_hosted(struct e2e *t, const char *host, const char *env,
			       const char *const *args, const char *out,
			       const char *err)
{
	const char *env_add[] = { env, NULL };
	static char script[PATH_MAX * 3 + 256];
	const char *argv[40];
	int n = 0;

	e2e_fmt(script, sizeof(script),
		"hostname %s && exec env LD_PRELOAD=%s/libcausal.so "
		"CAUSAL_LOG_DIR=%s \"$@\"",
		host, e2e_build(), t->logs);
	argv[n++] = "/usr/bin/unshare";
	argv[n++] = "--uts";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n++] = "figure1"; /* $0 */
	for (int i = 0; args[i] && n < 39; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return e2e_spawn(argv, env ? env_add : NULL, out, err);
}

int fig1_kind_of(const char *name)
{
	static const char *const names[] = { NULL, "foo", "times",
					     "what_to_say", "say_it" };
	const char *sep = strstr(name, "::");

	while (sep) {
		name = sep + 2;
		sep = strstr(name, "::");
	}
	for (int k = N_FOO; k <= N_SAY; k++) {
		size_t l = strlen(names[k]);

		if (!strncasecmp(name, names[k], l) &&
		    (!name[l] || !strcmp(name + l, "_1")))
			return k;
	}
	return -1;
}

/*
 * What a figure1 program printed: "cpu ROLE tid T us U" as each thread
 * ends (all its CPU) and "NAME tid T us U cpu C" per component invocation
 * (U the CPU it burned, C all its thread used in it), into *cpu, *burned
 * and extra[kind] (C - U), extra NULL for the client, which has no
 * components.
 */
static void fig1_read_out(const char *path, double *cpu, double *burned,
			  double extra[N_KINDS])
{
	char *text = e2e_slurp(path, NULL), *line, *save = NULL;
	char name[32], role[32];
	long long us, spent;
	int tid, k;

	*cpu = *burned = 0;
	if (extra)
		memset(extra, 0, N_KINDS * sizeof(*extra));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "cpu %31s tid %d us %lld", role, &tid, &us) ==
		    3) {
			*cpu += (double)us;
			continue;
		}
		if (sscanf(line, "%31s tid %d us %lld cpu %lld", name, &tid,
			   &us, &spent) != 4)
			continue;
		*burned += (double)us;
		k = strcmp(name, "thread") ? fig1_kind_of(name) : N_THREAD;
		ck_assert_msg(k >= N_FOO, "%s: '%s'?", path, line);
		if (extra)
			extra[k] += (double)(spent - us);
	}
	free(text);
	ck_assert_msg(*cpu > 0, "%s: no 'cpu' line", path);
}

/*
 * The -b, -c and -d options of a server of A: the ports of foo's callees
 * it does not serve itself (times over UDP, the others over TCP; -d lists
 * every server of say_it, which foo calls in turn).  Appended to args.
 */
static int fig1_callee_args(struct fig1_deploy *d, struct fig1_server *s,
			    const char **args, int n, char ports[3][64])
{
	static const char *const opt[] = { "-b", "-c", "-d" };

	for (int k = 0; k < 3; k++) {
		size_t len = 0;

		ports[k][0] = '\0';
		for (int i = 0; i < d->n; i++) {
			struct fig1_server *o = &d->s[i];

			if (!strchr(o->roles, "BCD"[k]) || (k < 2 && len))
				continue;
			len += (size_t)snprintf(ports[k] + len, 64 - len,
						"%s%d", len ? "," : "",
						k ? o->tcp : o->udp);
			ck_assert_msg(len < 64, "too many servers");
		}
		ck_assert_msg(len, "%s: nobody serves %c", d->name, "BCD"[k]);
		/* its own ports are the default */
		if (strchr(s->roles, "BCD"[k]) && !strchr(ports[k], ','))
			continue;
		args[n++] = opt[k];
		args[n++] = ports[k];
	}
	return n;
}

void fig1_run(struct e2e *t, struct fig1_deploy *d)
{
	char out[PATH_MAX], err[PATH_MAX], *text;
	int status;
	pid_t client;

	for (int i = 0; i < d->n; i++) {
		struct fig1_server *s = &d->s[i];
		char ready[PATH_MAX], ports[3][64];
		const char *args[16];
		int n = 0, pid;

		e2e_fmt(ready, sizeof(ready), "%s/%s.ready", t->dir, s->host);
		e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, s->host);
		e2e_fmt(err, sizeof(err), "%s/%s.err", t->dir, s->host);
		args[n++] = fig1_prog("figure1-server");
		args[n++] = "-R";
		args[n++] = s->roles;
		args[n++] = "-r";
		args[n++] = ready;
		if (strchr(s->roles, 'A'))
			n = fig1_callee_args(d, s, args, n, ports);
		args[n] = NULL;
		s->pid = fig1_spawn_hosted(t, s->host, s->env, args, out, err);
		rpc_wait_file(ready, s->pid);
		text = e2e_slurp(ready, NULL);
		ck_assert_msg(sscanf(text, "pid %d tcp %d udp %d", &pid,
				     &s->tcp, &s->udp) == 3,
			      "%s: bad ready file: %s", s->roles, text);
		/* unshare, sh and env exec: the server is what we started */
		ck_assert_int_eq(pid, s->pid);
		free(text);
	}

	if (d->before_client)
		d->before_client(t, d);
	d->client_cpu_us = 0;
	for (int run = 0; run < (d->clients > 0 ? d->clients : 1); run++) {
		char port[16];
		const char *args[] = { fig1_prog("figure1-client"), port,
				       NULL };
		double cpu, burned;

		/* client.out, client1.out ... */
		e2e_fmt(out, sizeof(out), "%s/client%.0d.out", t->dir, run);
		e2e_fmt(err, sizeof(err), "%s/client%.0d.err", t->dir, run);
		snprintf(port, sizeof(port), "%d", fig1_serving(d, 'A')->tcp);
		client = fig1_spawn_hosted(t, fig1_serving(d, 'A')->host,
					   d->client_env, args, out, err);
		status = e2e_wait(client);
		text = e2e_slurp(out, NULL);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
				      strstr(text, "foo = 3"),
			      "%s: figure1-client: status 0x%x, stdout '%s', "
			      "stderr '%s'",
			      d->name, status, text, e2e_slurp(err, NULL));
		free(text);
		fig1_read_out(out, &cpu, &burned, NULL);
		d->client_cpu_us += cpu;
	}
	for (int i = 0; i < d->n; i++) {
		ck_assert_int_eq(kill(d->s[i].pid, SIGTERM), 0);
		e2e_assert_exit(e2e_wait(d->s[i].pid), 0, d->s[i].roles);
		e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, d->s[i].host);
		fig1_read_out(out, &d->s[i].cpu_us, &d->s[i].burned_us,
			      d->s[i].extra_us);
	}
	e2e_merge(t);
	ck_assert_int_eq(e2e_query_int(t->sql, "SELECT count(*) FROM hosts"),
			 d->n);
	ck_assert_int_eq(e2e_query_int(t->sql, "SELECT count(*) FROM processes "
					       "WHERE complete = 1"),
			 d->n + (d->clients > 0 ? d->clients : 1));
}

void fig1_near(double got, double want, const char *what)
{
	ck_assert_msg(fabs(got - want) <= 0.10 * want + 1000.0,
		      "%s: %.0f us, the programs burned %.0f us (10%% + 1 ms)",
		      what, got, want);
}

const char *const fig1_node_label[N_KINDS] = { "main",
					       "foo",
					       "times",
					       "what_to_say",
					       "say_it",
					       "what_to_say's threads",
					       "runtime under main" };

static void fig1_vector(const struct jval *node, const char *key, int nhosts,
			double *out, const char *what)
{
	const struct jval *a = json_need(node, key, J_ARR, what);

	ck_assert_msg(a->n == nhosts, "%s: %s has %d elements for %d hosts",
		      what, key, a->n, nhosts);
	for (int i = 0; i < a->n; i++) {
		ck_assert_msg(a->item[i].type == J_NUM,
			      "%s: %s[%d] not a number", what, key, i);
		out[i] += a->item[i].num;
	}
}

void fig1_ccsg_read(struct e2e *t, struct fig1_ccsg *c, const char *cmd,
		    const char *const *args, const char *self_key,
		    const char *desc_key)
{
	char ccsg[PATH_MAX], idl[PATH_MAX], out[PATH_MAX], err[PATH_MAX];
	const struct jval *hosts, *nodes, *edges;
	const char *argv[24] = { ccsg,	 cmd,	"--format=json",
				 "--db", t->db, "--idl",
				 idl,	 NULL };
	int status, wot = -1, main_id = -1, na = 7;
	char *text;

	for (int i = 0; args && args[i] && na < 23; i++)
		argv[na++] = args[i];
	argv[na] = NULL;
	memset(c, 0, sizeof(*c));
	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	ck_assert_msg(access(ccsg, X_OK) == 0,
		      "'%s' is not built: the CCSG cannot be checked (ccsg/ "
		      "missing?); test_trace checks the same run from SQL",
		      ccsg);
	/* rules.mk copies the .x next to what rpcgen made of it */
	e2e_fmt(idl, sizeof(idl), "%s/examples/figure1/gen/figure1.x",
		e2e_build());
	e2e_fmt(out, sizeof(out), "%s/ccsg-%s.json", t->dir, cmd);
	e2e_fmt(err, sizeof(err), "%s/ccsg-%s.err", t->dir, cmd);
	status = e2e_run_plain(argv, out, err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "ccsg %s --format=json: status 0x%x: %s", cmd, status,
		      e2e_slurp(err, NULL));
	text = e2e_slurp(out, NULL);
	c->json = json_parse(text, cmd);
	free(text);

	hosts = json_need(c->json, "hosts", J_ARR, "report");
	ck_assert_msg(hosts->n <= FIG1_MAX_HOSTS, "%d hosts", hosts->n);
	c->nhosts = hosts->n;
	for (int i = 0; i < hosts->n; i++) {
		ck_assert_msg(hosts->item[i].type == J_STR, "hosts[%d]", i);
		c->host[i] = hosts->item[i].str;
	}
	nodes = json_need(c->json, "nodes", J_ARR, "report");
	for (int pass = 0; pass < 2; pass++) {
		/* thread nodes name their parent: function nodes first */
		for (int i = 0; i < nodes->n; i++) {
			const struct jval *nd = &nodes->item[i];
			const char *kind =
				json_need(nd, "kind", J_STR, "node")->str;
			const char *name =
				json_need(nd, "name", J_STR, "node")->str;
			double id = json_need(nd, "id", J_NUM, "node")->num;
			struct fig1_node *f;
			int k;

			if (!strcmp(kind, "main")) {
				k = N_MAIN;
				main_id = (int)id;
			} else if (!strcmp(kind, "function")) {
				k = fig1_kind_of(name);
			} else if (!strcmp(kind, "thread")) {
				double parent =
					json_need(nd, "parent", J_NUM, name)
						->num;

				k = parent == wot	? N_THREAD
				    : parent == main_id ? N_RUNTIME
							: -1;
			} else {
				ck_abort_msg("node %s: kind '%s'", name, kind);
			}
			if (k < 0 ||
			    (pass == 0) != (k != N_THREAD && k != N_RUNTIME))
				continue;
			f = &c->node[k];
			f->found++;
			f->id = id;
			fig1_vector(nd, self_key, c->nhosts, f->self, name);
			fig1_vector(nd, desc_key, c->nhosts, f->desc, name);
			if (k >= N_FOO && k <= N_SAY) {
				f->calls += json_need(nd, "calls", J_NUM, name)
						    ->num;
				ck_assert_int_eq(
					json_need(nd, "program", J_NUM, name)
						->num,
					FIG1_PROG);
				ck_assert_int_eq(
					json_need(nd, "procedure", J_NUM, name)
						->num,
					k);
			}
			if (k == N_THREAD)
				f->threads +=
					json_need(nd, "threads", J_NUM, name)
						->num;
			if (k == N_WHAT)
				wot = (int)id;
		}
	}
	edges = json_need(c->json, "edges", J_ARR, "report");
	(void)edges;
}

void fig1_ccsg(struct e2e *t, struct fig1_ccsg *c)
{
	fig1_ccsg_read(t, c, "report", NULL, "self_cpu_us", "desc_cpu_us");
}

int fig1_host_index(const struct fig1_ccsg *c, const char *host)
{
	for (int i = 0; i < c->nhosts; i++)
		if (!strcmp(c->host[i], host))
			return i;
	ck_abort_msg("host '%s' not in the report's hosts", host);
	return -1;
}

double fig1_edge(const struct fig1_ccsg *c, double a, double b)
{
	const struct jval *edges = json_get(c->json, "edges");
	double n = 0;

	for (int i = 0; i < edges->n; i++) {
		const struct jval *e = &edges->item[i];

		if (json_need(e, "from", J_NUM, "edge")->num == a &&
		    json_need(e, "to", J_NUM, "edge")->num == b)
			n += json_need(e, "count", J_NUM, "edge")->num;
	}
	return n;
}

void fig1_print(const struct fig1_ccsg *c, const char *title)
{
	printf("figure1 %s: CCSG, CPU in ms per host (", title);
	for (int h = 0; h < c->nhosts; h++)
		printf("%s%s", h ? " " : "", c->host[h]);
	printf(")\n");
	for (int k = 0; k < N_KINDS; k++) {
		const struct fig1_node *f = &c->node[k];

		printf("  %-22s self", fig1_node_label[k]);
		for (int h = 0; h < c->nhosts; h++)
			printf(" %6.2f", f->self[h] / 1000);
		printf("  desc");
		for (int h = 0; h < c->nhosts; h++)
			printf(" %6.2f", f->desc[h] / 1000);
		printf("\n");
	}
	fflush(stdout);
}
