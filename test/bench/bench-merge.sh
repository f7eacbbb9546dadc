#!/usr/bin/env bash
# Merge throughput: generate ~2,000,000 records in 8 synthetic logs
# (gen-logs), then time `tracedump merge`.  Target: 1M records/s.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
: "${MERGE_PROCS:=8}"
: "${MERGE_RECORDS_PER_PROC:=250000}"

dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-merge.XXXXXX")
trap 'rm -rf "$dir"' EXIT

"$BUILD/bench/gen-logs" "$dir/logs" "$MERGE_PROCS" "$MERGE_RECORDS_PER_PROC" >/dev/null
best=
for run in 1 2 3; do
	rm -f "$dir/trace.db"
	start=$(date +%s.%N)
	"$BUILD/tracedump" merge "$dir/logs" -o "$dir/trace.db" >"$dir/summary" 2>/dev/null
	end=$(date +%s.%N)
	best=$(awk -v s="$start" -v e="$end" -v b="$best" \
		'BEGIN { t = e - s; print (b == "" || t < b) ? t : b }')
done
n=$(awk '/^records:/ { print $2 }' "$dir/summary")
awk -v n="$n" -v t="$best" 'BEGIN {
	printf "merge: %d records in %.3f s = %.0f records/s (best of 3)\n", n, t, n / t }'
