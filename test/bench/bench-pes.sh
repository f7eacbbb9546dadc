#!/usr/bin/env bash
# bench-pes - `ccsg pes` on a program execution sequence of 10,000,000
# transitions (issue 16, item 5): reading it, then building, filtering,
# aggregating and modelling it, and the periodogram of 2^24 points, each
# timed with its peak memory (GNU time's elapsed and maximum resident
# set).  The sequence is a simulation by ccsg pes itself of a small
# hand-written one: a philosopher's cycle T A E R, 1 to 3 ns each, with
# one of 20 rare states (N00..N19) after one cycle in 50; 10,000,000
# entries span about 2 10^7 ns, so that the time view clipped to 2^24 ns
# and sampled every ns gives 2^24 points.
#
# No target is set by the issue: the figures are printed.  The run fails
# only when a command fails.
#
#   BUILD=/abs/build bash test/bench/bench-pes.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
ccsg=$BUILD/ccsg
[ -x "$ccsg" ] || { echo "bench-pes: '$ccsg' is not built" >&2; exit 1; }
N=${PES_BENCH_N:-10000000}
SPAN=16777216
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-pes.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# the seed: 50 cycles, the 50th followed by a rare state; each of the
# 20 rare states once
{
	echo "timebase ns"
	t=0
	for r in $(seq 0 19); do
		for c in $(seq 1 49); do
			for s in T A E R; do
				echo "$t $s"
				t=$((t + 1 + (t + c) % 3))
			done
		done
		for s in T A E R; do
			echo "$t $s"
			t=$((t + 2))
		done
		printf '%d N%02d\n' "$t" "$r"
		t=$((t + 3))
	done
	echo "end $t"
} > "$dir/seed.pes"
/usr/bin/time -f '%e %M' -o "$dir/time" "$ccsg" pes "$dir/seed.pes" \
	--simulate="$N" --format=pes -o "$dir/big.pes"
read -r secs kb < "$dir/time"
echo "sequence: $N transitions, $(($(stat -c %s "$dir/big.pes") / 1048576)) MB of PES file, simulated and written in $secs s ($((kb / 1024)) MB peak)"

# run LABEL ARGS...: the figures of one ccsg pes run
run() {
	local label=$1
	shift
	/usr/bin/time -f '%e %M' -o "$dir/time" "$ccsg" pes "$dir/big.pes" "$@" \
		> "$dir/out" 2> "$dir/err" || { cat "$dir/err"; exit 1; }
	read -r secs kb < "$dir/time"
	printf '  %-50s %6.2f s  %6d MB peak\n' "$label" "$secs" "$((kb / 1024))"
}

run "read (and write 1 entry)" --clip=event:0:0 --format=pes
run "read, model" --format=json
run "read, event filter, sequence aggregation, model" \
	--filter=event:100000 --aggregate='sequence:T A E R -> C' --format=json
grep -o '"entries":[0-9]*' "$dir/out" | head -1 | sed 's/^/    after: /'
run "read, parallel aggregation, time filter, model" \
	--aggregate='parallel:R T -> P' --filter=time:0.01 --format=json
run "read, event filter, frequency filter (4 FFTs)" --filter=event:100000 \
	--filter=frequency:0.24:0.26:0.9 --format=json
run "read, simulate 10M, compare" --simulate=0 --format=json
run "read, periodogram of 2^24 points (svg)" --clip=time:0:$SPAN \
	--view=frequency --sample=1 -o "$dir/f.svg"
