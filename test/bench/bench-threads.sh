#!/usr/bin/env bash
# bench-threads - what tracing adds to thread creation: create+join of
# 20,000 empty threads ($BUILD/bench/create-join), pinned to CPU 0 (as
# issue 9 item 3 states it: creator and thread on one CPU, so a
# cross-CPU wake-up does not swamp the figure), untraced and traced, in
# ABBA rounds in one run so that both see the same machine state; prints
# the medians and their ratio.  The traced runs read the bpf clock,
# started by the benchmark in a pin directory of its own where it can be
# (root, kernel BTF), else the system call, and say which.
#
#   BUILD=/abs/build bash test/bench/bench-threads.sh [ROUNDS [THREADS]]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
rounds=${1:-9}
threads=${2:-20000}
prog=$BUILD/bench/create-join
lib=$BUILD/libcausal.so
for f in "$prog" "$lib" "$BUILD/causalctl"; do
	[ -e "$f" ] || { echo "bench-threads: '$f' is not built" >&2; exit 1; }
done
# shellcheck source=test/bench/lib.sh
. test/bench/lib.sh # median, own_bpf_clock, traced_clock (the scripts run from the top of the tree)

tmp=$(mktemp -d /tmp/causal-bench-threads.XXXXXX)
clock_dir=/sys/fs/bpf/causal-bench-threads-$$
trap 'rm -rf "$tmp"; stop_own_bpf_clock "$clock_dir"' EXIT
own_bpf_clock "$clock_dir" || true

# One run; prints the loop's time in ns.  Traced runs log into a fresh
# directory each, removed at once so the disk does not fill up.
run() {
	if [ "$1" = traced ]; then
		rm -rf "$tmp/logs"
		LD_PRELOAD=$lib CAUSAL_LOG_DIR=$tmp/logs \
			CAUSAL_BPF_CLOCK_DIR=$clock_dir taskset -c 0 \
			"$prog" "$threads" 2>>"$tmp/traced.err"
	else
		taskset -c 0 "$prog" "$threads"
	fi | awk '/^create-join/ { print $4 }'
}

run plain >/dev/null	# warm up: page cache, thread stacks
: >"$tmp/plain"
: >"$tmp/traced"
for ((i = 1; i <= rounds; i++)); do
	if ((i % 2)); then
		run plain >>"$tmp/plain"
		run traced >>"$tmp/traced"
	else
		run traced >>"$tmp/traced"
		run plain >>"$tmp/plain"
	fi
done
for kind in plain traced; do
	[ "$(wc -l <"$tmp/$kind")" -eq "$rounds" ] ||
		{ echo "bench-threads: a $kind run failed" >&2; exit 1; }
done

clock=$(traced_clock "$tmp/traced.err")
echo "traced with the $clock clock, pinned to CPU 0"
p=$(median <"$tmp/plain")
t=$(median <"$tmp/traced")
awk -v p="$p" -v t="$t" -v n="$threads" -v r="$rounds" 'BEGIN {
	printf "create+join of %d threads, median of %d rounds:\n", n, r
	printf "  untraced  %8.1f ms  (%.2f us/thread)\n", p / 1e6, p / n / 1e3
	printf "  traced    %8.1f ms  (%.2f us/thread)\n", t / 1e6, t / n / 1e3
	printf "create+join traced/untraced: %.3f (target <= 1.05)\n", t / p
	if (t / p > 1.05) {
		printf "TARGET MISSED: create+join traced/untraced %.3f (1.05 allowed)\n", t / p
		exit 1
	}
}'
