# lib.sh - what the benchmark scripts share; sourced, not run.
# shellcheck shell=bash

# The median of the numbers on standard input, one a line.
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# measure NAME CMD...: run CMD, its output into $dir/NAME.out and
# $dir/NAME.err; sets secs (wall), cpu (user + system) and peak_mb (the
# largest resident set, from /usr/bin/time -v when $timer names it, else
# 0).  A failure prints the command's last lines as "$bench: NAME failed"
# and exits 1.  The caller sets dir, timer and bench.
# shellcheck disable=SC2154,SC2034 # dir, timer, bench: the caller's; secs, cpu, peak_mb: for it
measure() {
	local name=$1
	shift
	if [ -n "$timer" ]; then
		"$timer" -v -o "$dir/$name.time" "$@" >"$dir/$name.out" 2>"$dir/$name.err" ||
			{ echo "$bench: $name failed:" >&2; tail -5 "$dir/$name.err" >&2; exit 1; }
		secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {
			n = split($2, p, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + p[i]
			print s }' "$dir/$name.time")
		cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$dir/$name.time")
		peak_mb=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$dir/$name.time")
	else
		local start end
		start=$(date +%s.%N)
		"$@" >"$dir/$name.out" 2>"$dir/$name.err" ||
			{ echo "$bench: $name failed:" >&2; tail -5 "$dir/$name.err" >&2; exit 1; }
		end=$(date +%s.%N)
		secs=$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')
		cpu=$secs
		peak_mb=0
	fi
}
