#!/usr/bin/env bash
# Merge throughput: generate ~2,000,000 records in 8 synthetic logs
# (gen-logs: thread records), then time `tracedump merge` and `tracedump
# merge --raw` (the records table too), taking turns, best of 3 each: the
# records/s of each, the database of each and what --raw costs (its
# figures over the default's).  No target of its own: bench-scale has
# the merge's.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
: "${MERGE_PROCS:=8}"
: "${MERGE_RECORDS_PER_PROC:=250000}"

dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-merge.XXXXXX")
trap 'rm -rf "$dir"' EXIT

"$BUILD/bench/gen-logs" "$dir/logs" "$MERGE_PROCS" "$MERGE_RECORDS_PER_PROC" >/dev/null
declare -A best size
for run in 1 2 3; do
	for mode in default raw; do
		opt=
		[ $mode = raw ] && opt=--raw
		rm -f "$dir/trace.db"
		start=$(date +%s.%N)
		"$BUILD/tracedump" merge $opt "$dir/logs" -o "$dir/trace.db" >"$dir/summary" 2>/dev/null
		end=$(date +%s.%N)
		best[$mode]=$(awk -v s="$start" -v e="$end" -v b="${best[$mode]:-}" \
			'BEGIN { t = e - s; print (b == "" || t < b) ? t : b }')
		size[$mode]=$(stat -c %s "$dir/trace.db")
	done
done
n=$(awk '/^records:/ { print $2 }' "$dir/summary")
for mode in default raw; do
	awk -v n="$n" -v t="${best[$mode]}" -v m="$mode" -v sz="${size[$mode]}" 'BEGIN {
		printf "merge (%s): %d records in %.3f s = %.0f records/s (best of 3), database %.1f MB\n",
			m == "raw" ? "--raw" : "default", n, t, n / t, sz / 1048576 }'
done
awk -v a="${best[default]}" -v b="${best[raw]}" -v sa="${size[default]}" -v sb="${size[raw]}" 'BEGIN {
	printf "--raw / default: time x%.2f, database x%.2f\n", b / a, sb / sa }'
