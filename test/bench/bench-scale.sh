#!/usr/bin/env bash
# bench-scale - how merge and report grow with the trace: synthetic logs
# of 100,000 and 1,000,000 Sun RPC calls (gen-rpc-logs: nested chains of
# 5 calls between 8 processes on 4 hosts, 4 threads each, a thread spawned
# in every 10th chain), then `tracedump merge` and `ccsg report
# --format=json` timed separately, each with its peak memory (maximum
# resident set size, from /usr/bin/time -v).
#
# Targets (issue 9, item 4): 1,000,000 calls merged and reported in at
# most 6 s in total (wall clock), peak resident memory at most 600 MB, a
# database of at most 400 MB; from the first size to the last, time and
# memory grow at most linearly (a ratio of at most 1.25 times the ratio of
# the sizes: the smaller size has fixed costs, so a ratio under it is
# normal).  Time there is CPU time (user + system): the wall clock of a
# 3 GB database includes the kernel writing it back to disk and, on a
# shared machine, the others' load; both growths are printed.  Exit
# status 1, with a TARGET MISSED line, when a target is missed.
# `make bench` runs 100,000 and 1,000,000 calls; `make bench-large` adds
# 10,000,000 (about 2 minutes here, 700 MB of logs, 3.5 GB of database).
#
#   BUILD=/abs/build bash test/bench/bench-scale.sh [CALLS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
gen=$BUILD/bench/gen-rpc-logs
for f in "$gen" "$BUILD/tracedump"; do
	[ -x "$f" ] || { echo "bench-scale: '$f' is not built" >&2; exit 1; }
done
ccsg=$BUILD/ccsg
[ -x "$ccsg" ] || { echo "bench-scale: $ccsg is not built yet: timing merge only"; ccsg=; }
timer=/usr/bin/time
[ -x "$timer" ] || { echo "bench-scale: no /usr/bin/time (apt-get install time): no peak memory"; timer=; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-scale.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# shellcheck source=test/bench/lib.sh
. test/bench/lib.sh # measure (the scripts run from the top of the tree)
bench="bench-scale"

printf '%-9s %-6s %8s %8s %12s %9s\n' calls step seconds cpu_s calls/s peak_MB
status=0
declare -A total_s total_mb total_cpu
for n in "${sizes[@]}"; do
	logs=$dir/logs-$n
	calls=$("$gen" "$logs" "$n")
	measure "merge-$n" "$BUILD/tracedump" merge "$logs" -o "$dir/trace-$n.db"
	m_s=$secs m_mb=$peak_mb m_cpu=$cpu
	records=$(awk '/^records:/ { print $2 }' "$dir/merge-$n.out")
	printf '%-9s %-6s %8.2f %8.2f %12.0f %9s   (%s records, %.0f records/s)\n' "$calls" merge "$m_s" "$m_cpu" \
		"$(awk -v n="$calls" -v t="$m_s" 'BEGIN { print (t > 0 ? n / t : 0) }')" "$m_mb" \
		"$records" "$(awk -v n="$records" -v t="$m_s" 'BEGIN { print (t > 0 ? n / t : 0) }')"
	r_s=0 r_mb=0 r_cpu=0
	if [ -n "$ccsg" ]; then
		measure "report-$n" "$ccsg" report --format=json --db "$dir/trace-$n.db"
		r_s=$secs r_mb=$peak_mb r_cpu=$cpu
		printf '%-9s %-6s %8.2f %8.2f %12.0f %9s\n' "$calls" report "$r_s" "$r_cpu" \
			"$(awk -v n="$calls" -v t="$r_s" 'BEGIN { print (t > 0 ? n / t : 0) }')" "$r_mb"
	fi
	total_s[$n]=$(awk -v a="$m_s" -v b="$r_s" 'BEGIN { print a + b }')
	total_cpu[$n]=$(awk -v a="$m_cpu" -v b="$r_cpu" 'BEGIN { print a + b }')
	total_mb[$n]=$(( m_mb > r_mb ? m_mb : r_mb ))
	db_mb=$(( $(stat -c %s "$dir/trace-$n.db") / 1048576 ))
	printf '%-9s %-6s %8.2f %8.2f %12.0f %9s   (db %s MB)\n' "$calls" total "${total_s[$n]}" "${total_cpu[$n]}" \
		"$(awk -v n="$calls" -v t="${total_s[$n]}" 'BEGIN { print (t > 0 ? n / t : 0) }')" \
		"${total_mb[$n]}" "$db_mb"
	if [ "$n" -eq 1000000 ]; then
		ok=$(awk -v t="${total_s[$n]}" -v m="${total_mb[$n]}" -v d="$db_mb" \
			'BEGIN { print (t <= 6 && m <= 600 && d <= 400) ? 1 : 0 }')
		if [ "$ok" = 1 ]; then
			echo "target met: $calls calls merged${ccsg:+ and reported} in ${total_s[$n]} s (<= 6 s), peak ${total_mb[$n]} MB (<= 600 MB), database $db_mb MB (<= 400 MB)"
		else
			echo "TARGET MISSED: $calls calls: ${total_s[$n]} s (6 s allowed), peak ${total_mb[$n]} MB (600 MB allowed), database $db_mb MB (400 MB allowed)"
			status=1
		fi
	fi
	rm -rf "$logs" "$dir/trace-$n.db"
done
if [ ${#sizes[@]} -ge 2 ]; then
	a=${sizes[0]} b=${sizes[-1]}
	awk -v a="$a" -v b="$b" -v ta="${total_s[$a]}" -v tb="${total_s[$b]}" \
		-v ca="${total_cpu[$a]}" -v cb="${total_cpu[$b]}" \
		-v ma="${total_mb[$a]}" -v mb="${total_mb[$b]}" 'BEGIN {
		printf "growth %d -> %d calls (x%.0f): CPU time x%.2f, wall time x%.2f, peak memory x%.2f (linear: x%.0f)\n",
			a, b, b / a, (ca > 0 ? cb / ca : 0), (ta > 0 ? tb / ta : 0), (ma > 0 ? mb / ma : 0), b / a }'
	ok=$(awk -v a="$a" -v b="$b" -v ta="${total_cpu[$a]}" -v tb="${total_cpu[$b]}" \
		-v ma="${total_mb[$a]}" -v mb="${total_mb[$b]}" 'BEGIN {
		lim = 1.25 * b / a
		print (ta > 0 && tb / ta > lim) || (ma > 0 && mb / ma > lim) ? 0 : 1 }')
	if [ "$ok" = 1 ]; then
		echo "target met: CPU time and memory grow at most linearly from $a to $b calls"
	else
		echo "TARGET MISSED: CPU time or memory grows faster than linearly from $a to $b calls (a ratio over 1.25 x $((b / a)))"
		status=1
	fi
fi
[ -n "$ccsg" ] || echo "bench-scale: report not timed (no ccsg): the target counts merge only"
exit $status
