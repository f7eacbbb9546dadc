/*
 * cmd-pes.c - `ccsg pes`: a program execution sequence from a PES file,
 * clipped, filtered and aggregated in the order the options come, then
 * its model, a view, the sequence itself or a simulation of the model.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cmds.h"
#include "pes-output.h"
#include "pes-spec.h"
#include "pes-trace.h"
#include "pes.h"
#include "usage.h"

enum {
	PES_CLIP = CLI_RESOURCE + 1, /* after the shared options of cmds.h */
	PES_FILTER,
	PES_AGGREGATE,
	PES_VIEW,
	PES_FORMAT,
	PES_SIGNAL,
	PES_SAMPLE,
	PES_BINS,
	PES_SIMULATE,
	PES_SEED,
	PES_TOL,
	PES_THREAD,
	PES_LOG_FREQ,
	PES_ALL_FREQ,
};

static const struct opt pes_opts[] = {
	{ "clip", PES_CLIP, "time:T0:T1|event:E0:E1",
	  "keep a time range (time base units) or events E0 to E1" },
	{ "filter", PES_FILTER, "SPEC",
	  "time:FRACTION, event:K or frequency:F0:F1[:SHARE]: drop states "
	  "under FRACTION of the time, under K times, or with SHARE (0.5) of "
	  "their power in F0..F1 cycles per event" },
	{ "aggregate", PES_AGGREGATE, "SPEC",
	  "rules:FILE, static:RULE, sequence:RULE, parallel:RULE or undo; a "
	  "RULE is 'STATE... -> AGGREGATE'" },
	{ "view", PES_VIEW, "time|event|frequency",
	  "write a view instead of the model" },
	{ "output", 'o', "FILE", "write to FILE (svg and png need one)" },
	{ "format", PES_FORMAT, "text|json|csv|svg|png|pes",
	  "output format (default text; a view's from -o's suffix, else csv)" },
	{ "signal", PES_SIGNAL, "STATE",
	  "frequency view of STATE's indicator, not of the state numbers" },
	{ "sample", PES_SAMPLE, "DT",
	  "frequency view of the time view sampled every DT time units "
	  "(default: the event view)" },
	{ "log-frequency", PES_LOG_FREQ, NULL,
	  "frequency view in SVG or PNG: a logarithmic frequency axis" },
	{ "all-frequencies", PES_ALL_FREQ, NULL,
	  "frequency view in SVG or PNG: every bin up to the Nyquist "
	  "frequency (default: up to where 99% of the power lies below)" },
	{ "bins", PES_BINS, "N", "occupancy histogram bins (default 10)" },
	{ "simulate", PES_SIMULATE, "N",
	  "simulate the model for N entries (0: as many as observed) and "
	  "compare, or write it with --format=pes" },
	{ "seed", PES_SEED, "N", "the simulation's seed (default 1)" },
	CLI_OPT_DB,
	{ "thread", PES_THREAD, "PROC:TID",
	  "with --db: the PES of that thread of the trace (proc_id:tid); "
	  "given more than once (at most 8), the tuple of their states" },
	{ "steady-tolerance", PES_TOL, "FRACTION",
	  "steady state: rates of the two halves within FRACTION (0.1)" },
	OPT_END
};

struct step {
	int key;
	const char *value;
};

#define PES_MAX_THREADS 8

struct pes_cli {
	struct step *steps;
	size_t nsteps;
	const char *file, *output, *signal, *db;
	int32_t proc[PES_MAX_THREADS], tid[PES_MAX_THREADS]; /* --thread */
	size_t nthreads;
	int view;	   /* -1: none */
	int format;	   /* -1: not given */
	int64_t sample;	   /* 0: the event domain */
	unsigned freq_axis; /* PES_FREQ_* */
	size_t bins;
	long long simulate; /* -1: no simulation */
	uint64_t seed;
	double tol;
};

static int parse(struct pes_cli *o, int argc, char **argv)
{
	static const char *const views[] = { "time", "event", "frequency" };
	static const char *const formats[] = { "text", "json", "csv",
					       "svg",  "png",  "pes" };
	struct opt_parser op;
	const char *v;
	uint64_t u;
	size_t cap = 0;
	int c;

	memset(o, 0, sizeof(*o));
	o->view = o->format = -1;
	o->bins = 10;
	o->simulate = -1;
	o->seed = 1;
	o->tol = 0.1;
	opt_init(&op, &cmd_pes, argc, argv);
	while ((c = opt_next(&op, &v)) > 0) {
		int bad = 0;

		switch (c) {
		case PES_CLIP:
		case PES_FILTER:
		case PES_AGGREGATE:
			if (GROW(o->steps, cap, o->nsteps + 1))
				die("out of memory");
			o->steps[o->nsteps++] = (struct step){ c, v };
			break;
		case PES_VIEW:
			for (o->view = 2; o->view >= 0; o->view--)
				if (!strcmp(v, views[o->view]))
					break;
			bad = o->view < 0;
			break;
		case PES_FORMAT:
			for (o->format = 5; o->format >= 0; o->format--)
				if (!strcmp(v, formats[o->format]))
					break;
			bad = o->format < 0;
			break;
		case 'o':
			o->output = v;
			break;
		case PES_SIGNAL:
			o->signal = v;
			break;
		case PES_SAMPLE:
			bad = pes_parse_u64(v, &u) || !u || u > INT64_MAX;
			o->sample = (int64_t)u;
			break;
		case PES_LOG_FREQ:
			o->freq_axis |= PES_FREQ_LOG;
			break;
		case PES_ALL_FREQ:
			o->freq_axis |= PES_FREQ_ALL;
			break;
		case PES_BINS:
			bad = pes_parse_u64(v, &u) || !u || u > 100000;
			o->bins = (size_t)u;
			break;
		case PES_SIMULATE:
			bad = pes_parse_u64(v, &u) || u > (1ULL << 32);
			o->simulate = (long long)u;
			break;
		case PES_SEED:
			bad = pes_parse_u64(v, &o->seed);
			break;
		case PES_TOL:
			bad = pes_parse_double(v, &o->tol) || o->tol < 0;
			break;
		case CLI_DB:
			o->db = v;
			break;
		case PES_THREAD: {
			int64_t a, b;

			bad = pes_parse_range(v, &a, &b) || a <= 0 || b <= 0 ||
			      a > INT32_MAX || b > INT32_MAX ||
			      o->nthreads == PES_MAX_THREADS;
			if (!bad) {
				o->proc[o->nthreads] = (int32_t)a;
				o->tid[o->nthreads++] = (int32_t)b;
			}
			break;
		}
		}
		if (bad) {
			const struct opt *x = pes_opts;

			while (x->key != c)
				x++;
			free(o->steps);
			return opt_bad(&cmd_pes, "bad value '%s' for --%s", v,
				       x->name);
		}
	}
	if (c == OPT_STOP) {
		free(o->steps);
		return op.status;
	}
	if (o->db ? op.nargs || !o->nthreads : op.nargs != 1 || o->nthreads) {
		free(o->steps);
		return opt_bad(&cmd_pes, "expected one PES file, or --db PATH "
					 "and --thread PROC:TID");
	}
	o->file = o->db ? o->db : op.args[0];
	return -1;
}

/* The output format: --format, else a view's from -o's suffix. */
static int out_format(const struct pes_cli *o)
{
	const char *dot = o->output ? strrchr(o->output, '.') : NULL;

	if (o->format >= 0)
		return o->format;
	if (o->view < 0)
		return PES_OUT_TEXT;
	if (dot && !strcmp(dot, ".svg"))
		return PES_OUT_SVG;
	if (dot && !strcmp(dot, ".png"))
		return PES_OUT_PNG;
	if (dot && !strcmp(dot, ".json"))
		return PES_OUT_JSON;
	return PES_OUT_CSV;
}

static int write_view(struct pes *p, const struct pes_cli *o, FILE *out,
		      int fmt)
{
	double *power = NULL, bin;
	int64_t sig = -1;
	size_t nf;
	int ret;

	if (o->view != PES_VIEW_FREQ)
		return pes_print_view(out, o->output, p, o->view, fmt);
	if (o->signal && (sig = pes_state(p, o->signal, 0)) < 0)
		return fail("--signal names no state '%s'", o->signal);
	if (pes_periodogram(p, o->sample > 0, o->sample, sig, &power, &nf,
			    &bin))
		return -1;
	ret = pes_print_freq(out, o->output, p, power, nf, bin, o->sample > 0,
			     o->signal, o->freq_axis, fmt);
	free(power);
	return ret;
}

static int write_model(struct pes *p, const struct pes_cli *o, FILE *out,
		       int fmt)
{
	struct pes_model m, ms;
	struct pes syn;
	int ret = 0, sim = o->simulate >= 0;

	if (pes_model_build(p, &m, o->bins, o->tol))
		return fail("out of memory");
	if (sim && pes_simulate(p, &m, o->simulate ? (size_t)o->simulate : p->n,
				o->seed, &syn)) {
		pes_model_release(&m);
		return fail("out of memory");
	}
	if (sim && fmt == PES_OUT_PES) {
		ret = pes_write(&syn, out);
	} else if (sim) {
		if (pes_model_build(&syn, &ms, o->bins, o->tol))
			ret = fail("out of memory");
		else
			ret = pes_print_model(out, p, &m, &syn, &ms, fmt);
		if (!ret)
			pes_model_release(&ms);
	} else {
		ret = pes_print_model(out, p, &m, NULL, NULL, fmt);
	}
	if (sim)
		pes_release(&syn);
	pes_model_release(&m);
	return ret;
}

/* The PES of the --thread(s) in the trace --db names: one thread's, or
 * the tuple of several. */
static int read_thread(struct pes *p, const struct pes_cli *o)
{
	struct pes parts[PES_MAX_THREADS];
	struct ccsg_trace t;
	struct idl_names nm;
	sqlite3 *db = NULL;
	size_t skipped, made = 0;
	int ret = 0;

	if (ccsg_trace_load(&t, o->db))
		return -1;
	if (sqlite3_open_v2(t.file, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		fail("cannot open '%s': %s", o->db,
		     db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		ccsg_trace_release(&t);
		return -1;
	}
	idl_names_init(&nm);
	idl_names_load_rpc(&nm, "/etc/rpc");
	for (size_t i = 0; i < o->nthreads && !ret; i++) {
		struct pes *one = o->nthreads == 1 ? p : &parts[i];

		ret = pes_from_thread(one, &t, db, &nm, o->proc[i], o->tid[i],
				      &skipped);
		if (ret)
			break;
		made++;
		if (skipped)
			warning("%zu calls of thread %d:%d left out: a probe "
				"missing",
				skipped, o->proc[i], o->tid[i]);
	}
	if (!ret && o->nthreads > 1)
		ret = pes_tuple(p, parts, o->nthreads);
	if (o->nthreads > 1)
		for (size_t i = 0; i < made; i++)
			pes_release(&parts[i]);
	sqlite3_close(db);
	idl_names_release(&nm);
	ccsg_trace_release(&t);
	return ret;
}

static int run_pes(int argc, char **argv)
{
	struct pes_cli o;
	struct pes p;
	FILE *in, *out = stdout;
	int ret, fmt;

	if ((ret = parse(&o, argc, argv)) >= 0)
		return ret;
	fmt = out_format(&o);
	if ((fmt == PES_OUT_SVG || fmt == PES_OUT_PNG) &&
	    (o.view < 0 || !o.output)) {
		free(o.steps);
		return opt_bad(&cmd_pes, "svg and png are views: they need "
					 "--view and --output FILE");
	}
	if (o.view >= 0 && fmt != PES_OUT_SVG && fmt != PES_OUT_PNG &&
	    fmt != PES_OUT_CSV && fmt != PES_OUT_JSON) {
		free(o.steps);
		return opt_bad(&cmd_pes, "a view is csv, json, svg or png");
	}
	if (o.view < 0 && fmt == PES_OUT_CSV) {
		free(o.steps);
		return opt_bad(&cmd_pes, "csv is for views (--view)");
	}
	memset(&p, 0, sizeof(p));
	if (o.db) {
		ret = read_thread(&p, &o);
	} else {
		in = strcmp(o.file, "-") ? fopen(o.file, "r") : stdin;
		if (!in) {
			ret = fail("cannot open '%s': %s", o.file,
				   strerror(errno));
			goto out;
		}
		ret = pes_read(&p, in, o.file);
		if (in != stdin)
			fclose(in);
	}
	for (size_t i = 0; i < o.nsteps && !ret; i++) {
		const char *v = o.steps[i].value;

		if (o.steps[i].key == PES_CLIP)
			ret = pes_clip_spec(&p, v);
		else if (o.steps[i].key == PES_FILTER)
			ret = pes_filter_spec(&p, v);
		else
			ret = pes_aggregate_spec(&p, v);
	}
	if (ret)
		goto out;
	if (o.output && fmt != PES_OUT_SVG && fmt != PES_OUT_PNG &&
	    !(out = fopen(o.output, "w"))) {
		ret = fail("cannot create '%s': %s", o.output, strerror(errno));
		goto out;
	}
	if (o.view >= 0)
		ret = write_view(&p, &o, out, fmt);
	else if (fmt == PES_OUT_PES && o.simulate < 0)
		ret = pes_write(&p, out);
	else
		ret = write_model(&p, &o, out, fmt);
	if (out != stdout && fclose(out) && !ret)
		ret = fail("cannot write '%s': %s", o.output, strerror(errno));
	else if (out == stdout && fflush(stdout) && !ret)
		ret = fail("cannot write the output: %s", strerror(errno));
out:
	pes_release(&p);
	free(o.steps);
	return ret ? 1 : 0;
}

const struct command cmd_pes = {
	"pes",
	run_pes,
	"FILE|--db PATH --thread PROC:TID [--clip=...]... [--filter=...]... "
	"[--aggregate=...]... "
	"[--view=time|event|frequency] [-o FILE] [--format=...]",
	"program execution sequences: views, filters, aggregation and the "
	"semi-Markov model (Chitra)",
	pes_opts,
};
