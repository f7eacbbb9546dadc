/*
 * dump.h - print the records of raw logs, one per line.
 */
#ifndef CAUSAL_DUMP_H
#define CAUSAL_DUMP_H

#include <stdint.h>
#include <stdio.h>

enum dump_format {
	DUMP_TEXT,
	DUMP_JSON,
};

struct dump_stats {
	uint64_t files;		/* causal logs read (even damaged) */
	uint64_t records;	/* records printed */
	uint64_t damaged;	/* logs with a truncated or corrupt part */
	uint64_t rejected;	/* files that are not (supported) causal logs */
};

/*
 * Print every record of path (a log, or a directory: every *.clog under
 * it in name order) on out.  Damage and rejected files are reported on
 * stderr by name.  Returns 0 when every file was read (damaged ones
 * too: a warning names each) and at least one record was printed, else
 * -1 after reporting why: a file of a directory that is not a causal log
 * or cannot be opened is an error, its records missing, though the
 * others are printed.
 */
int dump_path(FILE *out, const char *path, enum dump_format fmt,
	      struct dump_stats *stats);

#endif
