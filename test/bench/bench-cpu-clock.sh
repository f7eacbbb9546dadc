#!/usr/bin/env bash
# bench-cpu-clock - cost of one read of a thread's CPU clock: the system
# call (clock_gettime(CLOCK_THREAD_CPUTIME_ID), what a process reads
# without the bpf clock) against the bpf clock (preload/cpu-clock.h, with
# the CLOCK_MONOTONIC read it needs), side by side in one run
# (cpu-clock-cost: ABBA rounds, medians; reads just after a switch-in, as
# a probe's come).  The clock is started in a pin directory of the
# benchmark's own and stopped at the end.
#
# Target: the bpf read costs at most half the system call (it is a read of
# two cache lines and a vDSO clock; the system call is 0.3-1.3 us on these
# VMs), 99% of the reads answered by the bpf clock.  Skipped with one line where
# the clock cannot be started (not root, no BTF).
#
#   BUILD=/abs/build bash test/bench/bench-cpu-clock.sh [READS]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
reads=${1:-128000}
ctl=$BUILD/causalctl
cost=$BUILD/bench/cpu-clock-cost
for f in "$ctl" "$cost"; do
	[ -x "$f" ] || { echo "bench-cpu-clock: '$f' is not built" >&2; exit 1; }
done
# shellcheck source=test/bench/lib.sh
. test/bench/lib.sh # own_bpf_clock, stop_own_bpf_clock (the scripts run from the top of the tree)
dir=/sys/fs/bpf/causal-bench-$$
trap 'stop_own_bpf_clock "$dir"' EXIT
if ! own_bpf_clock "$dir"; then
	echo "bench-cpu-clock: skipped: the bpf clock needs root and kernel BTF"
	exit 0
fi
out=$("$cost" "$dir/clock" "$reads")
echo "$out" | awk '{ printf "one CPU clock read: system call %s ns, bpf clock %s ns: %.3fx (%s%% of reads by the bpf clock)\n", $2, $4, $6, $8 }'
if echo "$out" | awk '{ exit !($6 <= 0.5 && $8 >= 99) }'; then
	echo "target met: the bpf read costs at most half the system call"
else
	echo "TARGET MISSED: the bpf read is $(echo "$out" | awk '{ print $6 }')x the system call (0.5 allowed), $(echo "$out" | awk '{ print $8 }')% of reads by the bpf clock (99% needed)"
	exit 1
fi
