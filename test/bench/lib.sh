# lib.sh - what the benchmark scripts share; sourced, not run.

# The median of the numbers on standard input, one a line.
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
