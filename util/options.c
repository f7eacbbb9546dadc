/*
 * options.c - getopt_long over a command's option table (options.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"

#define KEY_HELP 'h'

static const struct opt help_opt = { "help", KEY_HELP, NULL, "show this help" };

static size_t count(const struct opt *o)
{
	size_t n = 0;

	while (o && o[n].name)
		n++;
	return n;
}

void opt_init(struct opt_parser *p, const struct command *cmd, int argc,
	      char **argv)
{
	size_t n = count(cmd->opts), k = 0, i;
	char *s = p->shorts;

	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->argc = argc;
	p->argv = argv;
	if (n > OPT_MAX)	/* caught by the suite tools_cli (--help) */
		die("command '%s' has more than %d options", cmd->name, OPT_MAX);
	/*
	 * ':' first: a missing value is told apart from an unknown option.
	 * No '+': options may follow the operands (merge DIR -o DB).
	 */
	*s++ = ':';
	for (i = 0; i <= n; i++) {
		const struct opt *o = i < n ? &cmd->opts[i] : &help_opt;

		p->longopts[k++] = (struct option){
			o->name, o->arg ? required_argument : no_argument,
			NULL, o->key };
		if (o->key > 0 && o->key < OPT_LONG) {
			*s++ = (char)o->key;
			if (o->arg)
				*s++ = ':';
		}
	}
	*s = '\0';
	/* 0, not 1: glibc then forgets an earlier parse entirely. */
	optind = 0;
	opterr = 0;
}

/* The option whose long name is name (n bytes), or the one it abbreviates. */
static const struct option *find_long(const struct opt_parser *p,
				      const char *name, size_t n)
{
	const struct option *found = NULL;
	int matches = 0;

	for (const struct option *o = p->longopts; o->name; o++) {
		if (strncmp(o->name, name, n))
			continue;
		if (!o->name[n])
			return o;
		found = o;
		matches++;
	}
	return matches == 1 ? found : NULL;
}

/*
 * The option getopt_long complained about, as the user wrote it: a long
 * one is argv[optind - 1] (getopt has moved past it) when it names the
 * option whose letter is optopt (0: unknown), else the letter in optopt.
 */
static void offender(const struct opt_parser *p, char *buf, size_t size,
		     const struct option **lo)
{
	const char *a = optind >= 1 && optind <= p->argc ? p->argv[optind - 1] : NULL;

	*lo = NULL;
	if (a && !strncmp(a, "--", 2) && a[2]) {
		size_t n = strcspn(a + 2, "=");

		*lo = find_long(p, a + 2, n);
		if (*lo ? (*lo)->val == optopt : !optopt) {
			snprintf(buf, size, "--%.*s", (int)n, a + 2);
			return;
		}
	}
	*lo = NULL;
	snprintf(buf, size, "-%c", optopt);
}

int opt_next(struct opt_parser *p, const char **value)
{
	const struct option *lo;
	char name[128];
	int c;

	*value = NULL;
	c = getopt_long(p->argc, p->argv, p->shorts, p->longopts, NULL);
	switch (c) {
	case -1:
		p->args = p->argv + optind;
		p->nargs = p->argc - optind;
		return OPT_DONE;
	case KEY_HELP:
		opt_help(p->cmd, stdout);
		p->status = fflush(stdout) ? 1 : 0;
		return OPT_STOP;
	case ':':
		offender(p, name, sizeof(name), &lo);
		p->status = opt_bad(p->cmd, "option '%s' needs a value", name);
		return OPT_STOP;
	case '?':
		offender(p, name, sizeof(name), &lo);
		if (lo && lo->has_arg == no_argument)
			p->status = opt_bad(p->cmd, "option '%s' takes no value",
					    name);
		else
			p->status = opt_bad(p->cmd, "unknown option '%s'", name);
		return OPT_STOP;
	}
	*value = optarg;
	return c;
}

static void usage_line(const struct command *cmd, FILE *out)
{
	fprintf(out, "usage: %s %s %s\n", causal_progname, cmd->name, cmd->args);
}

/* "col  help", the help wrapped at 79 columns under itself. */
static void print_wrapped(FILE *out, const char *col, int width, const char *help)
{
	int room = 79 - width - 2;

	if (room < 30)
		room = 30;
	fprintf(out, "%-*s  ", width, col);
	for (;;) {
		int n = (int)strlen(help);

		if (n > room) {
			n = room;
			while (n > 0 && help[n] != ' ')
				n--;
			if (!n)
				n = (int)strcspn(help, " ");
		}
		fprintf(out, "%.*s\n", n, help);
		help += n;
		while (*help == ' ')
			help++;
		if (!*help)
			return;
		fprintf(out, "%*s", width + 2, "");
	}
}

void opt_help(const struct command *cmd, FILE *out)
{
	size_t n = count(cmd->opts), width = 0;
	char col[128];

	usage_line(cmd, out);
	fprintf(out, "\n%s\n\noptions:\n", cmd->help);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i <= n; i++) {
			const struct opt *o = i < n ? &cmd->opts[i] : &help_opt;
			size_t len;

			if (o->key > 0 && o->key < OPT_LONG)
				len = snprintf(col, sizeof(col), "  -%c, --%s%s%s",
					       o->key, o->name, o->arg ? "=" : "",
					       o->arg ? o->arg : "");
			else
				len = snprintf(col, sizeof(col), "      --%s%s%s",
					       o->name, o->arg ? "=" : "",
					       o->arg ? o->arg : "");
			if (!pass && len > width)
				width = len;
			if (pass)
				print_wrapped(out, col, (int)width, o->help);
		}
}

int opt_bad(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", causal_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage_line(cmd, stderr);
	return 2;
}

int opt_no_operands(const struct opt_parser *p, int c)
{
	if (c == OPT_STOP)
		return p->status;
	if (p->nargs) {
		fail("unexpected argument '%s'", p->args[0]);
		return 2;
	}
	return -1;
}
