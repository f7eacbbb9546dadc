/*
 * check-e2e-figure1.c - end to end: the example of Figure 1 of the CPU paper
 * (examples/figure1/) traced on simulated hosts, merged, and summarised by
 * `ccsg report --format=json`; the CCSG must show the CPU the programs
 * burned (figure1-cpu.h), where they burned it.
 *
 * main (figure1-client, on host A) calls foo (A); foo calls times (B),
 * what_to_say (C, which spawns two threads) and say_it three times (D).
 * Each server runs under `unshare --uts` with a hostname of its own, in
 * the test's network namespace (rpc_isolate()).
 *
 *   trace   the deployment on four hosts, checked from SQL only (Equation
 *           1 of the CPU paper on rpc_calls, Equation 2 on threads): the
 *           programs and the trace are right, whatever ccsg says
 *   ccsg    the same run through ccsg: per host self and descendant
 *           vectors, call counts, the thread node, the global main
 *   figure2 Figure 2 of the paper: the same programs on four hosts (one
 *           server each) and on two (A+B in one server process, C+D in
 *           another); per function self CPU must agree within 5% + 1 ms
 *
 * Tolerance against what was burned: 10% + 1 ms per vector element.
 *
 * Besides the components, <main> holds the runtime: <serving threads>
 * (the servers' dispatch loops and start-up) and <threads of main> (the
 * client's main thread), whose CPU depends on how cold and loaded the
 * machine is.  They are not compared with a constant: every program
 * prints the CPU each of its threads used, by its own clock, and the
 * runtime nodes must hold no more than what the programs spent outside
 * their components; and on every host the CCSG must account for all the
 * CPU the programs' threads measured (conservation), less what ran before
 * the tracer started and the stubs' CPU, which Equation 1 gives to no node.
 */
#include <ctype.h>
#include <math.h>

#include "e2e-rpc.h"

#define FIG1_NO_BURN
#include "../examples/figure1/figure1-cpu.h"

#define FIG1_PROG 0x20000f01 /* examples/figure1/figure1.x */

static const int say_it_us[] = FIG1_SAY_IT_US_INIT;

/* ---- the deployments ----------------------------------------------------- */

struct fig1_server {
	const char *host, *roles;
	pid_t pid;
	int tcp, udp;
	/* what the program printed: its threads' CPU, its components' burn */
	double cpu_us, burned_us;
};

struct fig1_deploy {
	const char *name;
	int n;
	struct fig1_server s[4]; /* started in this order: A last */
	double client_cpu_us;	 /* figure1-client's thread, on A's host */
};

static const struct fig1_deploy four_hosts = {
	"4 hosts", 4,
	{{"hostD", "D", 0, 0, 0, 0, 0}, {"hostC", "C", 0, 0, 0, 0, 0},
	 {"hostB", "B", 0, 0, 0, 0, 0}, {"hostA", "A", 0, 0, 0, 0, 0}},
	0};
static const struct fig1_deploy two_hosts = {
	"2 hosts", 2,
	{{"hostCD", "CD", 0, 0, 0, 0, 0}, {"hostAB", "AB", 0, 0, 0, 0, 0}},
	0};

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

static struct fig1_server *fig1_serving(struct fig1_deploy *d, char role)
{
	for (int i = 0; i < d->n; i++)
		if (strchr(d->s[i].roles, role))
			return &d->s[i];
	ck_abort_msg("%s: nobody serves %c", d->name, role);
	return NULL;
}

/* Start argv traced, in a UTS namespace named host; returns its pid. */
static pid_t fig1_spawn_hosted(struct e2e *t, const char *host,
			       const char *const *args, const char *out,
			       const char *err)
{
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
	return e2e_spawn(argv, NULL, out, err);
}

/*
 * What a figure1 program printed: "cpu ROLE tid T us U" as each thread
 * ends (all its CPU) and "NAME tid T us U" per component invocation (the
 * CPU it burned), into *cpu and *burned.
 */
static void fig1_read_out(const char *path, double *cpu, double *burned)
{
	char *text = e2e_slurp(path, NULL), *line, *save = NULL;
	char name[32], role[32];
	long long us;
	int tid;

	*cpu = *burned = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "cpu %31s tid %d us %lld", role, &tid, &us) == 3)
			*cpu += (double)us;
		else if (sscanf(line, "%31s tid %d us %lld", name, &tid, &us) == 3)
			*burned += (double)us;
	}
	free(text);
	ck_assert_msg(*cpu > 0, "%s: no 'cpu' line", path);
}

/*
 * Run the deployment traced: the servers, then main (on A's host), then
 * SIGTERM to every server (each must exit 0), then merge.
 */
static void fig1_run(struct e2e *t, struct fig1_deploy *d)
{
	char out[PATH_MAX], err[PATH_MAX], *text;
	int status;
	pid_t client;

	for (int i = 0; i < d->n; i++) {
		struct fig1_server *s = &d->s[i];
		char ready[PATH_MAX], ports[3][16];
		const char *args[16];
		int n = 0, pid;

		e2e_fmt(ready, sizeof(ready), "%s/%s.ready", t->dir, s->roles);
		e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, s->roles);
		e2e_fmt(err, sizeof(err), "%s/%s.err", t->dir, s->roles);
		args[n++] = fig1_prog("figure1-server");
		args[n++] = "-R";
		args[n++] = s->roles;
		args[n++] = "-r";
		args[n++] = ready;
		if (strchr(s->roles, 'A')) {
			/* foo's callees: times over UDP, the others TCP */
			static const char *const opt[] = {"-b", "-c", "-d"};

			for (int k = 0; k < 3; k++) {
				struct fig1_server *o = fig1_serving(d, "BCD"[k]);

				if (o == s)
					continue; /* its own ports: default */
				snprintf(ports[k], sizeof(ports[k]), "%d",
					 k ? o->tcp : o->udp);
				args[n++] = opt[k];
				args[n++] = ports[k];
			}
		}
		args[n] = NULL;
		s->pid = fig1_spawn_hosted(t, s->host, args, out, err);
		rpc_wait_file(ready, s->pid);
		text = e2e_slurp(ready, NULL);
		ck_assert_msg(sscanf(text, "pid %d tcp %d udp %d", &pid,
				     &s->tcp, &s->udp) == 3,
			      "%s: bad ready file: %s", s->roles, text);
		/* unshare, sh and env exec: the server is what we started */
		ck_assert_int_eq(pid, s->pid);
		free(text);
	}

	e2e_fmt(out, sizeof(out), "%s/client.out", t->dir);
	e2e_fmt(err, sizeof(err), "%s/client.err", t->dir);
	{
		char port[16];
		const char *args[] = {fig1_prog("figure1-client"), port, NULL};

		snprintf(port, sizeof(port), "%d", fig1_serving(d, 'A')->tcp);
		client = fig1_spawn_hosted(t, fig1_serving(d, 'A')->host, args,
					   out, err);
	}
	status = e2e_wait(client);
	text = e2e_slurp(out, NULL);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
			      strstr(text, "foo = 3"),
		      "%s: figure1-client: status 0x%x, stdout '%s', stderr "
		      "'%s'",
		      d->name, status, text, e2e_slurp(err, NULL));
	free(text);
	{
		double burned;

		fig1_read_out(out, &d->client_cpu_us, &burned);
	}
	for (int i = 0; i < d->n; i++) {
		ck_assert_int_eq(kill(d->s[i].pid, SIGTERM), 0);
		e2e_assert_exit(e2e_wait(d->s[i].pid), 0, d->s[i].roles);
		e2e_fmt(out, sizeof(out), "%s/%s.out", t->dir, d->s[i].roles);
		fig1_read_out(out, &d->s[i].cpu_us, &d->s[i].burned_us);
	}
	e2e_merge(t);
	ck_assert_int_eq(e2e_query_int(t->sql, "SELECT count(*) FROM hosts"),
			 d->n);
	ck_assert_int_eq(e2e_query_int(t->sql, "SELECT count(*) FROM processes "
					       "WHERE complete = 1"),
			 d->n + 1);
}

/* |got - want| <= 10% of want + 1 ms, all in microseconds */
static void fig1_near(double got, double want, const char *what)
{
	ck_assert_msg(fabs(got - want) <= 0.10 * want + 1000.0,
		      "%s: %.0f us, the programs burned %.0f us (10%% + 1 ms)",
		      what, got, want);
}

/* ---- trace: the same numbers from SQL -------------------------------------- */

/* Equation 1 of call id: skeleton CPU minus its own calls' stub intervals. */
static double fig1_sql_self_us(struct e2e *t, long long id)
{
	return e2e_query_int(
		   t->sql,
		   "SELECT c.skel_end_cpu_ns - c.skel_start_cpu_ns - "
		   "coalesce((SELECT sum(k.stub_end_cpu_ns - "
		   "k.stub_start_cpu_ns) FROM rpc_calls k WHERE k.chain = "
		   "c.chain AND k.client_proc_id = c.server_proc_id AND "
		   "k.client_tid = c.server_tid AND k.stub_start_event > "
		   "c.skel_start_event AND k.stub_end_event < "
		   "c.skel_end_event), 0) FROM rpc_calls c WHERE call_id = "
		   "%lld",
		   id) /
	       1000.0;
}

START_TEST(test_trace)
{
	struct fig1_deploy d = four_hosts;
	static const struct {
		int proc;
		const char *host, *symbol;
		int n, us;
	} want[] = {
		{1, "hostA", "foo_1", 1, FIG1_FOO_US},
		{2, "hostB", "times_1", 1, FIG1_TIMES_US},
		{3, "hostC", "what_to_say_1", 1, FIG1_WHAT_TO_SAY_US},
		{4, "hostD", "say_it_1", FIG1_SAY_TIMES, 0},
	};
	struct e2e t;
	long long foo;

	rpc_isolate();
	e2e_init(&t);
	fig1_run(&t, &d);

	rpc_assert_calls(&t, rpc_q("prog = %d", FIG1_PROG), RPC_LINKED, 6);
	foo = rpc_call_id(&t, "proc = 1");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *where = rpc_q("proc = %d", want[i].proc);
		long long n = 0;

		rpc_assert_calls(
		    &t, where,
		    rpc_q("site_symbol = '%s' AND (SELECT h.name FROM "
			  "processes p JOIN hosts h USING (host_id) WHERE "
			  "p.proc_id = server_proc_id) = '%s'",
			  want[i].symbol, want[i].host),
		    want[i].n);
		for (long long id = 1; id <= 6; id++) {
			char what[64];
			int us;

			if (rpc_col(&t, id, "proc") != want[i].proc)
				continue;
			us = want[i].proc == 4 ? say_it_us[n % 3] : want[i].us;
			e2e_fmt(what, sizeof(what), "call %lld (%s) self",
				id, want[i].symbol);
			fig1_near(fig1_sql_self_us(&t, id), us, what);
			if (id != foo)
				rpc_assert_nested(&t, foo, id);
			n++;
		}
	}
	/* what_to_say's two threads: spawned inside it (their context is
	 * its skeleton's), each with its CPU (Equation 2: they call nothing) */
	ck_assert_int_eq(
	    e2e_query_int(t.sql,
			  "SELECT count(*) FROM threads t JOIN rpc_calls c ON "
			  "t.proc_id = c.server_proc_id AND t.ctx_function = "
			  "c.server_function_id AND t.parent_tid = c.server_tid "
			  "WHERE c.proc = 3 AND t.cpu_ns BETWEEN %d AND %d",
			  (int)(FIG1_THREAD_US * 900), (int)(FIG1_THREAD_US * 1100 + 1000000)),
	    FIG1_THREADS);
	e2e_release(&t);
}
END_TEST

/* ---- a JSON reader for ccsg's one shape ------------------------------------ */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	int type;
	double num;
	char *str;
	int n;		 /* items of an array or object */
	char **keys;	 /* an object's */
	struct jv *item; /* n of them */
};

struct jp {
	const char *p;
	const char *err;
};

static void jp_ws(struct jp *j)
{
	while (*j->p && isspace((unsigned char)*j->p))
		j->p++;
}

static int jp_value(struct jp *j, struct jv *v);

static int jp_string(struct jp *j, char **out)
{
	size_t cap = 16, n = 0;
	char *s = malloc(cap);

	j->p++; /* the opening quote */
	while (*j->p && *j->p != '"') {
		char c = *j->p++;

		if (c == '\\') {
			c = *j->p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': /* names are ASCII: keep a placeholder */
				for (int i = 0; i < 4 && *j->p; i++)
					j->p++;
				c = '?';
				break;
			case '\0':
				j->err = "unterminated string";
				free(s);
				return -1;
			}
		}
		if (n + 2 > cap)
			s = realloc(s, cap *= 2);
		s[n++] = c;
	}
	if (*j->p != '"') {
		j->err = "unterminated string";
		free(s);
		return -1;
	}
	j->p++;
	s[n] = '\0';
	*out = s;
	return 0;
}

static int jp_list(struct jp *j, struct jv *v, int object)
{
	char close = object ? '}' : ']';

	v->type = object ? J_OBJ : J_ARR;
	j->p++;
	jp_ws(j);
	if (*j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		v->item = realloc(v->item, (v->n + 1) * sizeof(*v->item));
		memset(&v->item[v->n], 0, sizeof(*v->item));
		if (object) {
			v->keys = realloc(v->keys, (v->n + 1) * sizeof(char *));
			jp_ws(j);
			if (*j->p != '"' || jp_string(j, &v->keys[v->n]))
				return j->err = "object key expected", -1;
			jp_ws(j);
			if (*j->p++ != ':')
				return j->err = "':' expected", -1;
		}
		if (jp_value(j, &v->item[v->n]))
			return -1;
		v->n++;
		jp_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == close) {
			j->p++;
			return 0;
		}
		return j->err = "',' or end of list expected", -1;
	}
}

static int jp_value(struct jp *j, struct jv *v)
{
	char *end;

	jp_ws(j);
	switch (*j->p) {
	case '{':
		return jp_list(j, v, 1);
	case '[':
		return jp_list(j, v, 0);
	case '"':
		v->type = J_STR;
		return jp_string(j, &v->str);
	case 't':
	case 'f':
	case 'n':
		if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
			v->type = *j->p == 't' ? J_BOOL : J_NULL;
			v->num = *j->p == 't';
			j->p += 4;
			return 0;
		}
		if (!strncmp(j->p, "false", 5)) {
			v->type = J_BOOL;
			j->p += 5;
			return 0;
		}
		break;
	default:
		v->num = strtod(j->p, &end);
		if (end != j->p) {
			v->type = J_NUM;
			j->p = end;
			return 0;
		}
	}
	j->err = "value expected";
	return -1;
}

static void jv_release(struct jv *v)
{
	for (int i = 0; i < v->n; i++) {
		jv_release(&v->item[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->item);
	free(v->keys);
	free(v->str);
}

static void json_free(struct jv *v)
{
	if (v) {
		jv_release(v);
		free(v);
	}
}

/* Parse text, failing the test with where it went wrong. */
static struct jv *json_parse(const char *text, const char *what)
{
	struct jp j = {text, NULL};
	struct jv *v = calloc(1, sizeof(*v));

	if (!jp_value(&j, v)) {
		jp_ws(&j);
		if (!*j.p)
			return v;
		j.err = "trailing text";
	}
	ck_abort_msg("%s: bad JSON at offset %ld: %s", what,
		     (long)(j.p - text), j.err);
	return NULL;
}

static const struct jv *json_get(const struct jv *o, const char *key)
{
	if (o && o->type == J_OBJ)
		for (int i = 0; i < o->n; i++)
			if (!strcmp(o->keys[i], key))
				return &o->item[i];
	return NULL;
}

static const struct jv *json_need(const struct jv *o, const char *key,
				  int type, const char *what)
{
	const struct jv *v = json_get(o, key);

	ck_assert_msg(v && v->type == type, "%s: no \"%s\" of JSON type %d",
		      what, key, type);
	return v;
}

/* ---- the CCSG of a run ------------------------------------------------------ */

#define FIG1_MAX_HOSTS 8

/* N_FOO..N_SAY are also the procedure numbers of figure1.x; N_RUNTIME
 * sums the thread nodes under main (<serving threads>, <threads of main>) */
enum { N_MAIN, N_FOO, N_TIMES, N_WHAT, N_SAY, N_THREAD, N_RUNTIME, N_KINDS };
static const char *const node_label[N_KINDS] = {
	"main", "foo", "times", "what_to_say", "say_it", "what_to_say's threads",
	"runtime under main"};

struct fig1_node {
	int found;  /* nodes aggregated into this one */
	double id;  /* the (last) node's id */
	double self[FIG1_MAX_HOSTS], desc[FIG1_MAX_HOSTS];
	double calls, threads;
};

struct fig1_ccsg {
	int nhosts;
	char *host[FIG1_MAX_HOSTS];
	struct fig1_node node[N_KINDS];
	struct jv *json;
};

/*
 * ccsg names come from the .x (FIG1_PROG::FOO) or the stub symbols (foo,
 * foo_1): the part after the interface, in any case.
 */
static int fig1_kind_of(const char *name)
{
	static const char *const names[] = {NULL, "foo", "times",
					    "what_to_say", "say_it"};
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

static void fig1_vector(const struct jv *node, const char *key, int nhosts,
			double *out, const char *what)
{
	const struct jv *a = json_need(node, key, J_ARR, what);

	ck_assert_msg(a->n == nhosts, "%s: %s has %d elements for %d hosts",
		      what, key, a->n, nhosts);
	for (int i = 0; i < a->n; i++) {
		ck_assert_msg(a->item[i].type == J_NUM, "%s: %s[%d] not a number",
			      what, key, i);
		out[i] += a->item[i].num;
	}
}

/* `ccsg report --format=json` on t's database, read into c. */
static void fig1_ccsg(struct e2e *t, struct fig1_ccsg *c)
{
	char ccsg[PATH_MAX], idl[PATH_MAX], out[PATH_MAX], err[PATH_MAX];
	const struct jv *hosts, *nodes, *edges;
	const char *argv[] = {ccsg, "report", "--format=json", "--db", t->db,
			      "--idl", idl, NULL};
	int status, wot = -1, main_id = -1;
	char *text;

	memset(c, 0, sizeof(*c));
	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	ck_assert_msg(access(ccsg, X_OK) == 0,
		      "'%s' is not built: the CCSG cannot be checked (ccsg/ "
		      "missing?); test_trace checks the same run from SQL",
		      ccsg);
	/* rules.mk copies the .x next to what rpcgen made of it */
	e2e_fmt(idl, sizeof(idl), "%s/examples/figure1/gen/figure1.x",
		e2e_build());
	e2e_fmt(out, sizeof(out), "%s/ccsg.json", t->dir);
	e2e_fmt(err, sizeof(err), "%s/ccsg.err", t->dir);
	status = e2e_run_plain(argv, out, err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "ccsg report --format=json: status 0x%x: %s", status,
		      e2e_slurp(err, NULL));
	text = e2e_slurp(out, NULL);
	c->json = json_parse(text, "ccsg report --format=json");
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
			const struct jv *nd = &nodes->item[i];
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
				    json_need(nd, "parent", J_NUM, name)->num;

				k = parent == wot ? N_THREAD
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
			fig1_vector(nd, "self_cpu_us", c->nhosts, f->self, name);
			fig1_vector(nd, "desc_cpu_us", c->nhosts, f->desc, name);
			if (k >= N_FOO && k <= N_SAY) {
				f->calls += json_need(nd, "calls", J_NUM, name)->num;
				ck_assert_int_eq(json_need(nd, "program", J_NUM, name)->num,
						 FIG1_PROG);
				ck_assert_int_eq(json_need(nd, "procedure", J_NUM, name)->num,
						 k);
			}
			if (k == N_THREAD)
				f->threads += json_need(nd, "threads", J_NUM, name)->num;
			if (k == N_WHAT)
				wot = (int)id;
		}
	}
	edges = json_need(c->json, "edges", J_ARR, "report");
	(void)edges;
}

static int fig1_host_index(const struct fig1_ccsg *c, const char *host)
{
	for (int i = 0; i < c->nhosts; i++)
		if (!strcmp(c->host[i], host))
			return i;
	ck_abort_msg("host '%s' not in the report's hosts", host);
	return -1;
}

/* The count of the edge from node a to node b (0: none). */
static double fig1_edge(const struct fig1_ccsg *c, double a, double b)
{
	const struct jv *edges = json_get(c->json, "edges");
	double n = 0;

	for (int i = 0; i < edges->n; i++) {
		const struct jv *e = &edges->item[i];

		if (json_need(e, "from", J_NUM, "edge")->num == a &&
		    json_need(e, "to", J_NUM, "edge")->num == b)
			n += json_need(e, "count", J_NUM, "edge")->num;
	}
	return n;
}

/* What each node should show on each host, from figure1-cpu.h. */
static void fig1_expected(const struct fig1_ccsg *c, struct fig1_deploy *d,
			  double self[N_KINDS][FIG1_MAX_HOSTS],
			  double desc[N_KINDS][FIG1_MAX_HOSTS])
{
	int a = fig1_host_index(c, fig1_serving(d, 'A')->host),
	    b = fig1_host_index(c, fig1_serving(d, 'B')->host),
	    cc = fig1_host_index(c, fig1_serving(d, 'C')->host),
	    dd = fig1_host_index(c, fig1_serving(d, 'D')->host);
	int say = say_it_us[0] + say_it_us[1] + say_it_us[2];

	memset(self, 0, sizeof(double) * N_KINDS * FIG1_MAX_HOSTS);
	memset(desc, 0, sizeof(double) * N_KINDS * FIG1_MAX_HOSTS);
	self[N_FOO][a] = FIG1_FOO_US;
	self[N_TIMES][b] = FIG1_TIMES_US;
	self[N_WHAT][cc] = FIG1_WHAT_TO_SAY_US;
	self[N_SAY][dd] = say;
	self[N_THREAD][cc] = FIG1_THREADS * FIG1_THREAD_US;
	desc[N_WHAT][cc] = FIG1_THREADS * FIG1_THREAD_US;
	desc[N_FOO][b] += FIG1_TIMES_US;
	desc[N_FOO][cc] += FIG1_WHAT_TO_SAY_US + FIG1_THREADS * FIG1_THREAD_US;
	desc[N_FOO][dd] += say;
	/* main's descendants: foo's tree, and the runtime the report shows
	 * (checked on its own by fig1_assert_runtime()) */
	for (int h = 0; h < c->nhosts; h++)
		desc[N_MAIN][h] = self[N_FOO][h] + desc[N_FOO][h] +
				  c->node[N_RUNTIME].self[h];
}

/*
 * The runtime nodes against what the programs measured themselves, per
 * host h: they hold at most the CPU the programs' threads used outside
 * their components once the tracer ran (all their CPU less the burn and
 * less what ran before the tracer started), and main's descendants are all the CPU the
 * threads used, less what ran before the tracer read a thread's clock at
 * its start (the dynamic loader, before our constructor) and the stubs'
 * CPU, which no node holds: the CCSG loses and invents nothing.
 */
static void fig1_assert_runtime(struct e2e *t, const struct fig1_ccsg *c,
				const struct fig1_deploy *d)
{
	printf("figure1 %s: per host, ms: programs' threads (burned) | trace: "
	       "before start, stubs | CCSG: runtime, main's descendants\n",
	       d->name);
	for (int h = 0; h < c->nhosts; h++) {
		double cpu = 0, burned = 0, before, stubs, runtime, total;
		char what[128];

		for (int i = 0; i < d->n; i++)
			if (!strcmp(d->s[i].host, c->host[h])) {
				cpu += d->s[i].cpu_us;
				burned += d->s[i].burned_us;
			}
		if (!strcmp(fig1_serving((struct fig1_deploy *)d, 'A')->host,
			    c->host[h]))
			cpu += d->client_cpu_us;
		before = e2e_query_int(
			     t->sql,
			     "SELECT coalesce(sum(t.start_cpu_ns), 0) FROM "
			     "threads t JOIN processes p USING (proc_id) JOIN "
			     "hosts h USING (host_id) WHERE h.name = '%s' AND "
			     "t.marker = 'user'",
			     c->host[h]) /
			 1000.0;
		stubs = e2e_query_int(
			    t->sql,
			    "SELECT coalesce(sum(stub_end_cpu_ns - "
			    "stub_start_cpu_ns), 0) FROM rpc_calls c JOIN "
			    "processes p ON p.proc_id = c.client_proc_id JOIN "
			    "hosts h USING (host_id) WHERE h.name = '%s'",
			    c->host[h]) /
			1000.0;
		runtime = c->node[N_RUNTIME].self[h];
		total = c->node[N_MAIN].desc[h];
		printf("  %-8s %8.2f (%7.2f) | %6.2f %6.2f | %6.2f %8.2f\n",
		       c->host[h], cpu / 1000, burned / 1000, before / 1000,
		       stubs / 1000, runtime / 1000, total / 1000);
		fflush(stdout);
		ck_assert_msg(runtime >= 0 &&
				      runtime <= cpu - before - burned + 1000,
			      "%s: runtime nodes on %s: %.0f us, but the "
			      "programs used %.0f us outside their components "
			      "once traced (+ 1 ms)",
			      d->name, c->host[h], runtime,
			      cpu - before - burned);
		e2e_fmt(what, sizeof(what), "%s: main's descendants on %s, "
			"against the programs' threads", d->name, c->host[h]);
		ck_assert_msg(fabs(total - (cpu - before - stubs)) <=
				      0.02 * cpu + 1000,
			      "%s: %.0f us; the threads used %.0f us, %.0f "
			      "before the tracer started and %.0f in stubs "
			      "(2%% + 1 ms)",
			      what, total, cpu, before, stubs);
	}
}

static void fig1_print(const struct fig1_ccsg *c, const char *title)
{
	printf("figure1 %s: CCSG, CPU in ms per host (", title);
	for (int h = 0; h < c->nhosts; h++)
		printf("%s%s", h ? " " : "", c->host[h]);
	printf(")\n");
	for (int k = 0; k < N_KINDS; k++) {
		const struct fig1_node *f = &c->node[k];

		printf("  %-22s self", node_label[k]);
		for (int h = 0; h < c->nhosts; h++)
			printf(" %6.2f", f->self[h] / 1000);
		printf("  desc");
		for (int h = 0; h < c->nhosts; h++)
			printf(" %6.2f", f->desc[h] / 1000);
		printf("\n");
	}
	fflush(stdout);
}

static void fig1_assert_ccsg(struct fig1_ccsg *c, struct fig1_deploy *d)
{
	double self[N_KINDS][FIG1_MAX_HOSTS], desc[N_KINDS][FIG1_MAX_HOSTS];

	for (int k = 0; k < N_RUNTIME; k++)
		ck_assert_msg(c->node[k].found >= 1, "%s: no %s node", d->name,
			      node_label[k]);
	ck_assert_msg(c->node[N_MAIN].found == 1 && c->node[N_THREAD].found == 1,
		      "one main node, one thread node under what_to_say");
	fig1_expected(c, d, self, desc);
	fig1_print(c, d->name);
	for (int k = 0; k < N_RUNTIME; k++)
		for (int h = 0; h < c->nhosts; h++) {
			char what[128];

			e2e_fmt(what, sizeof(what), "%s: %s self on %s",
				d->name, node_label[k], c->host[h]);
			if (k != N_MAIN) /* main's own: whatever main did */
				fig1_near(c->node[k].self[h], self[k][h], what);
			e2e_fmt(what, sizeof(what), "%s: %s descendants on %s",
				d->name, node_label[k], c->host[h]);
			fig1_near(c->node[k].desc[h], desc[k][h], what);
		}
	ck_assert_int_eq(c->node[N_FOO].calls, 1);
	ck_assert_int_eq(c->node[N_TIMES].calls, 1);
	ck_assert_int_eq(c->node[N_WHAT].calls, 1);
	ck_assert_int_eq(c->node[N_SAY].calls, FIG1_SAY_TIMES);
	ck_assert_int_eq(c->node[N_THREAD].threads, FIG1_THREADS);
	/* the tree of Figure 1, with its counts (one node per function
	 * here: each is served by one object) */
	ck_assert_int_eq(fig1_edge(c, c->node[N_MAIN].id, c->node[N_FOO].id), 1);
	ck_assert_int_eq(fig1_edge(c, c->node[N_FOO].id, c->node[N_TIMES].id), 1);
	ck_assert_int_eq(fig1_edge(c, c->node[N_FOO].id, c->node[N_WHAT].id), 1);
	ck_assert_int_eq(fig1_edge(c, c->node[N_FOO].id, c->node[N_SAY].id),
			 FIG1_SAY_TIMES);
	ck_assert_int_eq(fig1_edge(c, c->node[N_WHAT].id, c->node[N_THREAD].id),
			 FIG1_THREADS);
	{
		double total = 0, runtime = 0;

		for (int h = 0; h < c->nhosts; h++) {
			total += c->node[N_MAIN].desc[h];
			runtime += c->node[N_RUNTIME].self[h];
		}
		fig1_near(total - runtime, FIG1_TOTAL_US,
			  "main's descendants but the runtime, all hosts");
	}
}

/*
 * The dot format renders with Graphviz (installed by the set-up) into a
 * picture that names every function and the thread node.
 */
static void fig1_assert_dot_renders(struct e2e *t)
{
	char ccsg[PATH_MAX], idl[PATH_MAX], dot[PATH_MAX], svg[PATH_MAX];
	char err[PATH_MAX];
	const char *report[] = {ccsg, "report", "--format=dot", "--db", t->db,
				"--idl", idl, NULL};
	const char *render[] = {"/usr/bin/dot", "-Tsvg", "-o", svg, dot, NULL};
	const char *names[] = {"FIG1_PROG::FOO", "FIG1_PROG::TIMES",
			       "FIG1_PROG::WHAT_TO_SAY", "FIG1_PROG::SAY_IT",
			       "threads of FIG1_PROG::WHAT_TO_SAY"};
	char *text;

	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	e2e_fmt(idl, sizeof(idl), "%s/examples/figure1/gen/figure1.x",
		e2e_build());
	e2e_fmt(dot, sizeof(dot), "%s/ccsg.dot", t->dir);
	e2e_fmt(svg, sizeof(svg), "%s/ccsg.svg", t->dir);
	e2e_fmt(err, sizeof(err), "%s/dot.err", t->dir);
	e2e_assert_exit(e2e_run_plain(report, dot, err), 0,
			"ccsg report --format=dot");
	ck_assert_msg(access(render[0], X_OK) == 0,
		      "Graphviz's dot is missing: run scripts/setup.sh");
	e2e_assert_exit(e2e_run_plain(render, NULL, err), 0, "dot -Tsvg");
	text = e2e_slurp(svg, NULL);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ck_assert_msg(strstr(text, names[i]), "no %s in the picture",
			      names[i]);
	free(text);
}

START_TEST(test_ccsg)
{
	struct fig1_deploy d = four_hosts;
	struct fig1_ccsg c;
	struct e2e t;

	rpc_isolate();
	e2e_init(&t);
	fig1_run(&t, &d);
	fig1_ccsg(&t, &c);
	ck_assert_int_eq(c.nhosts, 4);
	fig1_assert_ccsg(&c, &d);
	fig1_assert_runtime(&t, &c, &d);
	fig1_assert_dot_renders(&t);
	json_free(c.json);
	e2e_release(&t);
}
END_TEST

/*
 * Figure 2 of the CPU paper: the measurement does not depend on the
 * deployment.  Per function (and the thread node), self CPU summed over
 * the hosts, four hosts against two: the difference is printed, relative
 * to the two-host figure as in the paper, and must stay under 5% + 1 ms
 * (the paper saw up to 44%; these functions only burn CPU).
 */
START_TEST(test_figure2)
{
	struct fig1_deploy d4 = four_hosts, d2 = two_hosts;
	struct fig1_ccsg c4, c2;
	struct e2e t4, t2;

	rpc_isolate();
	e2e_init(&t4);
	fig1_run(&t4, &d4);
	fig1_ccsg(&t4, &c4);
	fig1_assert_ccsg(&c4, &d4);
	fig1_assert_runtime(&t4, &c4, &d4);
	e2e_init(&t2);
	fig1_run(&t2, &d2);
	fig1_ccsg(&t2, &c2);
	ck_assert_int_eq(c2.nhosts, 2);
	fig1_assert_ccsg(&c2, &d2);
	fig1_assert_runtime(&t2, &c2, &d2);

	printf("figure2: self CPU, 4 hosts vs 2 hosts (A+B, C+D)\n");
	printf("  %-22s %10s %10s %8s\n", "function/thread", "4-host us",
	       "2-host us", "diff");
	for (int k = N_FOO; k < N_RUNTIME; k++) {
		double s4 = 0, s2 = 0, diff;

		for (int h = 0; h < c4.nhosts; h++)
			s4 += c4.node[k].self[h];
		for (int h = 0; h < c2.nhosts; h++)
			s2 += c2.node[k].self[h];
		diff = s2 ? (s4 - s2) / s2 * 100 : 0;
		printf("  %-22s %10.0f %10.0f %7.2f%%\n", node_label[k], s4,
		       s2, diff);
		fflush(stdout);
		ck_assert_msg(fabs(s4 - s2) <= 0.05 * s2 + 1000.0,
			      "%s: self CPU %.0f us on 4 hosts, %.0f us on 2 "
			      "(%.1f%%; 5%% + 1 ms allowed)",
			      node_label[k], s4, s2, diff);
	}
	json_free(c4.json);
	json_free(c2.json);
	e2e_release(&t4);
	e2e_release(&t2);
}
END_TEST

Suite *e2e_figure1_suite(void)
{
	Suite *s = suite_create("e2e-figure1");
	TCase *tc = tcase_create("figure1");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_trace);
	tcase_add_test(tc, test_ccsg);
	tcase_add_test(tc, test_figure2);
	suite_add_tcase(s, tc);
	return s;
}
