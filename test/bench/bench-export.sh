#!/usr/bin/env bash
# bench-export - `ccsg export` of the bench-scale trace (gen-rpc-logs:
# 1,000,000 Sun RPC calls in nested chains of 5 between 8 processes on 4
# hosts, merged by tracedump) in each format, to a file: the time to load
# the trace (the database read, the DSCG and the CCSG, as every ccsg
# command does: bench-scale measures it), the time of the export itself
# (`--timing`), the calls exported per second, peak memory (maximum
# resident set size, /usr/bin/time -v) and the file's size.  folded and
# chrome run 3 times (median), otlp once; chrome once more to /dev/null,
# to show what the disk takes (some 900 bytes a call).
#
# Target (issue 14, item 6): at least 1,000,000 calls/s exported for
# folded and chrome (the export after the load).  Exit status 1 when the
# target is missed.
#
#   BUILD=/abs/build bash test/bench/bench-export.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
. test/bench/lib.sh
n=${1:-1000000}
gen=$BUILD/bench/gen-rpc-logs
for f in "$gen" "$BUILD/tracedump" "$BUILD/ccsg"; do
	[ -x "$f" ] || { echo "bench-export: '$f' is not built" >&2; exit 1; }
done
timer=/usr/bin/time
[ -x "$timer" ] || { echo "bench-export: no /usr/bin/time (apt-get install time)" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-export.XXXXXX")
trap 'rm -rf "$dir"' EXIT
calls=$("$gen" "$dir/logs" "$n")
"$BUILD/tracedump" merge "$dir/logs" -o "$dir/trace.db" >/dev/null
rm -rf "$dir/logs"

printf '%-7s %8s %9s %12s %9s %9s\n' format load_s export_s calls/s peak_MB file_MB
status=0
for format in folded chrome otlp; do
	rounds=3
	[ "$format" = otlp ] && rounds=1
	: > "$dir/export-s"
	for ((r = 0; r < rounds; r++)); do
		"$timer" -v -o "$dir/time" "$BUILD/ccsg" export --format="$format" \
			--db "$dir/trace.db" -o "$dir/out" --timing 2> "$dir/err" ||
			{ echo "bench-export: $format failed:" >&2; cat "$dir/err" >&2; exit 1; }
		# "ccsg: N calls: read in X s, exported in Y s (Z calls/s)"
		load=$(sed -n 's/.*read in \([0-9.]*\) s.*/\1/p' "$dir/err")
		sed -n 's/.*exported in \([0-9.]*\) s.*/\1/p' "$dir/err" >> "$dir/export-s"
		peak=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$dir/time")
		size=$(( $(stat -c %s "$dir/out") / 1048576 ))
		rm -f "$dir/out"
	done
	secs=$(median < "$dir/export-s")
	rate=$(awk -v n="$calls" -v t="$secs" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }')
	printf '%-7s %8s %9s %12s %9s %9s\n' "$format" "$load" "$secs" "$rate" "$peak" "$size"
	if [ "$format" = chrome ]; then
		# the same without the disk: what formatting alone costs
		"$BUILD/ccsg" export --format=chrome --db "$dir/trace.db" --timing \
			2> "$dir/err" > /dev/null
		secs=$(sed -n 's/.*exported in \([0-9.]*\) s.*/\1/p' "$dir/err")
		echo "chrome to /dev/null (no disk): $secs s, $(awk -v n="$calls" -v t="$secs" \
			'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }') calls/s"
	fi
	if [ "$format" != otlp ]; then
		if [ "$rate" -ge 1000000 ]; then
			echo "target met: $format exports $rate calls/s (>= 1,000,000 calls/s)"
		else
			echo "TARGET MISSED: $format exports $rate calls/s (1,000,000 calls/s wanted)"
			status=1
		fi
	fi
done
exit $status
