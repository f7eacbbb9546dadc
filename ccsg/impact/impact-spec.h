/*
 * impact-spec.h - the change statements of `ccsg impact` (impact.h),
 * parsed and written again (impact-spec.c): what a change says, before
 * ccsg_impact_resolve() finds what it names in a CCSG.
 *
 *	reduction on processor group { G1, G2 } by 10% to function {
 *		FIG1_PROG::SAY_IT, FIG1_PROG::TIMES };
 */
#ifndef CCSG_IMPACT_SPEC_H
#define CCSG_IMPACT_SPEC_H

#include <stddef.h>
#include <stdint.h>

enum ccsg_change_kind { CCSG_REDUCTION, CCSG_INCREASE };

/* Where a change applies: every processor, groups (--groups; without
 * it, each host is a group of its own) or hosts. */
enum ccsg_change_scope { CCSG_ON_ALL, CCSG_ON_GROUPS, CCSG_ON_HOSTS };

/* A reduction is by a percentage in (0, 100], an increase in (0, 10000]. */
#define CCSG_INCREASE_MAX 10000

/* Where a token of a statement was written, for messages. */
struct ccsg_spec_pos {
	int line, col;
};

struct ccsg_change {
	int kind;      /* enum ccsg_change_kind */
	int scope;     /* enum ccsg_change_scope */
	char *percent; /* as written: "20", "12.5", "300/7" */
	double percent_value;
	uint64_t num, den; /* the factor (100 -/+ p) / 100, reduced */
	char **where;	   /* host or group names */
	struct ccsg_spec_pos *where_pos;
	size_t nwhere;
	char **functions; /* INTERFACE::FUNCTION patterns */
	struct ccsg_spec_pos *function_pos;
	size_t nfunctions;
	char *source;		  /* "--change 2", or the file's path */
	int one_line;		  /* source is one line: say only columns */
	struct ccsg_spec_pos pos; /* of its first word */
	/* Filled by ccsg_impact_resolve(): */
	uint8_t *host_in; /* per trace host: in scope */
	int32_t *nodes;	  /* the function nodes matched */
	size_t nnodes;
	int64_t calls; /* the calls it changes */
};

struct ccsg_changes {
	struct ccsg_change *v;
	size_t n, cap;
};

/*
 * Append the statements of text (from source: "--change 1", a file's
 * path; one_line: the text is a command-line argument) to cs.  A
 * malformed statement, or a percentage out of range, is a fail() naming
 * source, line and column and the offending token: -EINVAL, with cs as
 * before the call.  -ENOMEM.
 */
int ccsg_changes_parse(struct ccsg_changes *cs, const char *text,
		       const char *source, int one_line);
void ccsg_changes_release(struct ccsg_changes *cs);

/* The statement as it can be written again: "reduction on ... ;". */
void ccsg_change_format(const struct ccsg_change *c, char *buf, size_t len);

/* fail() with "SOURCE: column C: MSG" (one_line) or "SOURCE:L:C: MSG". */
int ccsg_spec_fail(const char *source, int one_line, struct ccsg_spec_pos pos,
		   const char *msg);

static inline uint64_t ccsg_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

#endif
