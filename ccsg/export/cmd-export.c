/*
 * cmd-export.c - `ccsg export`: the trace as a Perfetto / chrome://tracing
 * timeline, OTLP/JSON spans (to a file or an OTLP/HTTP receiver) or
 * folded stacks for flame graphs (export.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "export.h"
#include "usage.h"
#include "values/values.h"

enum {
	X_WEIGHT = OPT_LONG + 200,
	X_ENDPOINT,
	X_SERVICE,
	X_BATCH,
	X_RETRIES,
	X_TIMING,
};

/* --format's value and help, and the usage line, made from formats[] */
static char format_names[64], format_help[256], export_args[512];

static const struct opt export_opts[] = {
	{ "format", CLI_FORMAT, format_names, format_help },
	{ "output", 'o', "FILE",
	  "write to FILE (through a temporary file renamed when complete), "
	  "not to standard output" },
	{ "weight", X_WEIGHT, "cpu|latency|calls",
	  "folded: what a stack weighs, in microseconds or calls (default "
	  "cpu)" },
	{ "endpoint", X_ENDPOINT, "URL",
	  "otlp: POST the spans to the OTLP/HTTP receiver at URL "
	  "(http://HOST:4318/v1/traces)" },
	{ "service-name", X_SERVICE, "EXE=NAME",
	  "otlp: service.name of the processes of executable EXE "
	  "(repeatable; default: the executable)" },
	{ "batch", X_BATCH, "N",
	  "otlp --endpoint: spans per request (default 512)" },
	{ "retries", X_RETRIES, "N",
	  "otlp --endpoint: tries again a request that failed N times "
	  "(default 4)" },
	{ "timing", X_TIMING, NULL,
	  "say on standard error how long the export took, the trace's "
	  "readings included, and how many times it was read" },
	CLI_OPT_DB,
	CLI_OPT_IDL,
	OPT_END
};

struct export_cli {
	int format; /* in formats[], -1 until given */
	int weight; /* -1 until given */
	const char *output, *endpoint;
	const char *db;
	const char **idl;
	size_t nidl;
	const char **services;
	size_t nservices;
	long batch, retries;
	int timing;
};

#define bad(...) opt_bad(&cmd_export, __VA_ARGS__)

/* The options that go with some formats only: a mask of these. */
enum { TAKES_WEIGHT = 1, TAKES_OTLP = 2 };

static int write_chrome(FILE *f, struct export_ctx *x,
			const struct export_source *src,
			const struct export_cli *o,
			const struct export_otlp_opts *oo)
{
	(void)o;
	(void)oo;
	return export_chrome(f, x, src);
}

static int write_otlp(FILE *f, struct export_ctx *x,
		      const struct export_source *src,
		      const struct export_cli *o,
		      const struct export_otlp_opts *oo)
{
	(void)o;
	return export_otlp(f, x, src, oo);
}

static int write_folded(FILE *f, struct export_ctx *x,
			const struct export_source *src,
			const struct export_cli *o,
			const struct export_otlp_opts *oo)
{
	struct ccsg_monitoring m;
	int ret;

	(void)oo;
	ret = export_folded(f, x, src, o->weight < 0 ? EXPORT_CPU : o->weight);
	m = x->t->mon; /* a stream's, complete once read */
	/* folded stacks have no room for a comment: the monitoring that
	 * was in force (when not all on, without selections) is said on
	 * standard error, every interval (docs/export.md, "folded") */
	m.list = 1;
	if (!ret)
		ccsg_monitoring_prefixed(stderr, &m, "ccsg: ");
	if (!ret && x->sampling) /* the weights are estimates, likewise */
		fprintf(stderr,
			"ccsg: sampling: chains recorded at rate %.6g; the "
			"calls' weights are the head-sampled chains' / rate "
			"(estimated), the threads' as measured\n",
			x->sample_rate);
	return ret;
}

/*
 * The formats, in the order the help names them: a new format is a line
 * here and its writer (export.h).  --format's help, the usage line and
 * the messages that name formats are made from this table.
 */
static const struct export_format {
	const char *name;
	const char *help; /* what it is, in --format's help */
	int (*write)(FILE *f, struct export_ctx *x,
		     const struct export_source *src,
		     const struct export_cli *o,
		     const struct export_otlp_opts *oo);
	unsigned takes; /* TAKES_*: the options that go with it only */
} formats[] = {
	{ "chrome", "the Trace Event Format (Perfetto, chrome://tracing)",
	  write_chrome, 0 },
	{ "otlp", "OTLP/JSON", write_otlp, TAKES_OTLP },
	{ "folded", "folded stacks", write_folded, TAKES_WEIGHT },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

/* a then b at the end of the string in buf (cut to fit) */
static void append(char *buf, size_t len, const char *a, const char *b)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", a, b);
}

/* "NAME|NAME..." of the formats that take what (a TAKES_*), or of all
 * (0), into buf. */
static void names_of(char *buf, size_t len, unsigned what)
{
	buf[0] = '\0';
	for (size_t i = 0; i < NFORMATS; i++)
		if (!what || (formats[i].takes & what))
			append(buf, len, *buf ? "|" : "", formats[i].name);
}

/* Between the helps of formats i - 1 and i: "A, B, or C", "A or B". */
static const char *help_sep(size_t i)
{
	if (!i)
		return "";
	if (i + 1 < NFORMATS)
		return ", ";
	return NFORMATS > 2 ? ", or " : " or ";
}

/*
 * Made before main() runs (a constructor), since `ccsg --help` prints
 * the usage line without running the command: "chrome|otlp|folded",
 * the helps joined, "--format=chrome|otlp|folded [-o FILE] ...".
 */
__attribute__((constructor)) static void export_help_init(void)
{
	names_of(format_names, sizeof(format_names), 0);
	for (size_t i = 0; i < NFORMATS; i++)
		append(format_help, sizeof(format_help), help_sep(i),
		       formats[i].help);
	snprintf(export_args, sizeof(export_args),
		 "--format=%s [-o FILE] [--weight=cpu|latency|calls] "
		 "[--endpoint URL] [--service-name EXE=NAME]... [--db PATH] "
		 "[--idl FILE.x]...",
		 format_names);
}

static int add(const char ***v, size_t *n, const char *s)
{
	const char **m = realloc(*v, (*n + 1) * sizeof(*m));

	if (!m)
		die("out of memory");
	*v = m;
	m[(*n)++] = s;
	return 0;
}

static int number(const char *v, long lo, long hi, long *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < lo || n > hi)
		return -1;
	*out = n;
	return 0;
}

/* 0, -1 after --help, or 2 after a bad-usage message. */
static int parse(struct export_cli *o, int argc, char **argv)
{
	static const char *const weights[] = { "cpu", "latency", "calls" };
	char names[64];
	struct opt_parser p;
	const char *v;
	int c;

	opt_init(&p, &cmd_export, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		switch (c) {
		case CLI_FORMAT:
			o->format = -1;
			for (size_t i = 0; i < NFORMATS; i++)
				if (!strcmp(v, formats[i].name))
					o->format = (int)i;
			if (o->format < 0)
				return bad("unknown format '%s'", v);
			break;
		case X_WEIGHT:
			for (int i = 0; i < 3; i++)
				if (!strcmp(v, weights[i]))
					o->weight = i;
			if (o->weight < 0)
				return bad("--weight takes 'cpu', 'latency' or "
					   "'calls', not '%s'",
					   v);
			break;
		case 'o':
			o->output = v;
			break;
		case X_ENDPOINT:
			if (strncmp(v, "http://", 7) &&
			    strncmp(v, "https://", 8))
				return bad("--endpoint takes an http:// or "
					   "https:// URL, not '%s'",
					   v);
			o->endpoint = v;
			break;
		case X_SERVICE:
			if (!strchr(v, '=') || *v == '=' || !strchr(v, '=')[1])
				return bad("--service-name takes EXE=NAME, not "
					   "'%s'",
					   v);
			add(&o->services, &o->nservices, v);
			break;
		case X_BATCH:
			if (number(v, 1, 1000000, &o->batch))
				return bad("--batch takes a number of spans "
					   "(1 to 1000000), not '%s'",
					   v);
			break;
		case X_RETRIES:
			if (number(v, 0, 100, &o->retries))
				return bad("--retries takes a number (0 to "
					   "100), not '%s'",
					   v);
			break;
		case X_TIMING:
			o->timing = 1;
			break;
		case CLI_DB:
			o->db = v;
			break;
		case CLI_IDL:
			add(&o->idl, &o->nidl, v);
			break;
		}
	}
	if (c == OPT_STOP)
		return p.status ? p.status : -1;
	if (p.nargs)
		return bad("unexpected argument '%s'", p.args[0]);
	if (o->format < 0)
		return bad("give --format=%s", format_names);
	if (o->weight >= 0 && !(formats[o->format].takes & TAKES_WEIGHT)) {
		names_of(names, sizeof(names), TAKES_WEIGHT);
		return bad("--weight goes with --format=%s", names);
	}
	if ((o->endpoint || o->nservices || o->batch || o->retries >= 0) &&
	    !(formats[o->format].takes & TAKES_OTLP)) {
		names_of(names, sizeof(names), TAKES_OTLP);
		return bad("--endpoint, --service-name, --batch and "
			   "--retries go with --format=%s",
			   names);
	}
	if ((o->batch || o->retries >= 0) && !o->endpoint)
		return bad("%s", "--batch and --retries go with --endpoint");
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Refuse an output that is there and not a regular file. */
static int check_output(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return fail("cannot write '%s': not a regular file", path);
	return 0;
}

/* Write the export to o->output through a temporary file beside it. */
static int write_file(struct export_ctx *x, const struct export_source *src,
		      const struct export_cli *o,
		      const struct export_otlp_opts *oo)
{
	char *tmp = malloc(strlen(o->output) + 8);
	mode_t mask = umask(0);
	FILE *f = NULL;
	int fd, ret;

	umask(mask);
	if (!tmp)
		return fail("out of memory");
	sprintf(tmp, "%s.XXXXXX", o->output);
	if ((fd = mkstemp(tmp)) < 0) {
		ret = fail("cannot write '%s': %s", o->output, strerror(errno));
		free(tmp);
		return ret;
	}
	if (fchmod(fd, 0666 & ~mask) || !(f = fdopen(fd, "w"))) {
		ret = fail("cannot write '%s': %s", tmp, strerror(errno));
		close(fd);
		goto fail;
	}
	ret = formats[o->format].write(f, x, src, o, oo);
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret) {
		ret = ret == -1 ? -1 /* said */
		      : ret == -ENOMEM
			      ? fail("out of memory writing '%s'", o->output)
			      : fail("cannot write '%s': %s", o->output,
				     strerror(errno ? errno : EIO));
		goto fail;
	}
	if (rename(tmp, o->output)) {
		ret = fail("cannot rename '%s' to '%s': %s", tmp, o->output,
			   strerror(errno));
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	return -1;
}

static int run(const struct export_cli *o)
{
	const char *dir = getenv("CAUSAL_LOG_DIR");
	struct export_otlp_opts oo = { (const char *const *)o->services,
				       o->nservices,
				       o->batch ? (size_t)o->batch : 512,
				       o->retries >= 0 ? (int)o->retries : 4,
				       10000 };
	char db[PATH_MAX];
	const char *path = o->db ? o->db : db;
	struct ccsg_values vals = { 0 };
	struct export_ctx x;
	struct export_stream ss;
	struct idl_names nm;
	double t0 = now();
	int ret = 1;

	memset(&x, 0, sizeof(x));
	memset(&ss, 0, sizeof(ss));
	snprintf(db, sizeof(db), "%s/trace.db", dir && *dir ? dir : "logs");
	idl_names_init(&nm);
	if (o->output && check_output(o->output))
		goto out;
	/* the values of calls, for OTLP (the types first: a .x that does
	 * not parse is named by line) */
	if (ccsg_values_load(&vals, path, o->idl, o->nidl))
		goto out;
	for (size_t i = 0; i < o->nidl; i++)
		if (idl_names_load(&nm, o->idl[i]))
			goto out;
	idl_names_load_rpc(&nm, "/etc/rpc");
	/* all but the calls; the calls chain by chain, as each format's
	 * passes need them, the first folding the graph */
	if (export_stream_open(&ss, path, &nm) ||
	    export_ctx_init(&x, &ss.t, &ss.g, &nm))
		goto out;
	x.values = &vals;
	if (o->output) {
		if (write_file(&x, &ss.src, o, &oo))
			goto out;
	} else if (!o->endpoint) {
		int r = formats[o->format].write(stdout, &x, &ss.src, o, &oo);

		if (!r && fflush(stdout))
			r = -EIO;
		if (r) {
			if (r == -ENOMEM)
				fail("out of memory");
			else if (r != -1)
				fail("cannot write the export: %s",
				     strerror(errno ? errno : EIO));
			goto out;
		}
	}
	if (o->endpoint && export_otlp_send(&x, &ss.src, &oo, o->endpoint))
		goto out;
	if (o->timing) {
		double t1 = now();
		size_t n = export_ncalls(&x);

		fprintf(stderr,
			"ccsg: %zu calls: exported in %.3f s (%.0f calls/s), "
			"the trace read %zu times\n",
			n, t1 - t0, t1 > t0 ? (double)n / (t1 - t0) : 0.0,
			ss.passes);
	}
	ret = 0;
out:
	export_ctx_release(&x);
	export_stream_close(&ss);
	idl_names_release(&nm);
	ccsg_values_release(&vals);
	return ret;
}

static int run_export(int argc, char **argv)
{
	struct export_cli o = { .format = -1, .weight = -1, .retries = -1 };
	int status = parse(&o, argc, argv);

	if (!status)
		status = run(&o);
	else if (status < 0)
		status = 0;
	free(o.idl);
	free(o.services);
	return status;
}

const struct command cmd_export = {
	"export",
	run_export,
	export_args,
	"the trace for other tools: a Perfetto timeline, OpenTelemetry spans, "
	"flame graphs",
	export_opts,
};
