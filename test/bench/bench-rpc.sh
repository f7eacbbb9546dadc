#!/usr/bin/env bash
# bench-rpc - what tracing adds to a Sun RPC call: 20,000 calls of the null
# procedure (demo_null_1) and of SAY_IT (int in, int out, say_it_1) over
# TCP loopback, client and server both untraced vs both traced, in
# alternating rounds in one run.  Client and server share CPU 0 (taskset):
# a cross-CPU loopback wake-up costs 300-450 us on these VMs and would
# swamp everything else.
#
# Per call: wall time (throughput), and the CPU of each process -- the
# client's own getrusage() around its loop, the server's getrusage()
# read by the CPU_NS procedure before and after it (both include the
# tracer's background writer).  Prints medians over ROUNDS (11 unless
# given; the kinds in rotating order, ABC CBA ...), the
# throughput ratio (traced/untraced calls per second) and the CPU tracing
# adds per call on each side.
#
# The traced runs read the bpf clock, started by the benchmark in a pin
# directory of its own where it can be (root, kernel BTF; the targets
# below are stated for it), else the system call, judged by that
# clock's target.
#
# A third kind, untraced with one idle thread (bench/idle-thread.so),
# shows what a single-threaded program pays only for having a second
# thread that shares its file table (the library's threads keep tables
# of their own, preload/own-files.h, so they pay little of it): printed
# beside, for the record; the targets are judged against the plain run.
#
#   BUILD=/abs/build bash test/bench/bench-rpc.sh [ROUNDS [CALLS]]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
rounds=${1:-11}
calls=${2:-20000}
lib=$BUILD/libcausal.so
idle=$BUILD/bench/idle-thread.so
ctl=$BUILD/causalctl
for f in "$BUILD/test/rpc/demo-server" "$BUILD/test/rpc/demo-client" "$lib" "$idle" "$ctl"; do
	[ -e "$f" ] || { echo "bench-rpc: '$f' is not built" >&2; exit 1; }
done

# shellcheck source=test/bench/lib.sh
. test/bench/lib.sh # median, rpc_round, own_bpf_clock, traced_clock (the scripts run from the top of the tree)

tmp=$(mktemp -d /tmp/causal-bench-rpc.XXXXXX)
clock_dir=/sys/fs/bpf/causal-bench-rpc-$$
rpc_spid=
cleanup() {
	[ -n "$rpc_spid" ] && kill "$rpc_spid" 2>/dev/null && wait "$rpc_spid" 2>/dev/null
	stop_own_bpf_clock "$clock_dir"
	rm -rf "$tmp"
}
trap cleanup EXIT
own_bpf_clock "$clock_dir" ||
	echo "bench-rpc: no bpf clock here (it needs root and kernel BTF): tracing reads the cpu clock with the system call"

# env of a run: traced ones log into a fresh directory each
envof() {
	case $1 in
	traced) echo "LD_PRELOAD=$lib CAUSAL_LOG_DIR=$tmp/logs CAUSAL_BPF_CLOCK_DIR=$clock_dir" ;;
	idle) echo "LD_PRELOAD=$idle" ;;
	esac
}

# One round of one kind: a server, the two client loops, the server
# stopped; notes the clock the traced server read its CPU with (it says
# when bpf).
round() {
	# shellcheck disable=SC2046 # the words of an environment
	rpc_round "$1" "null say" "$calls" $(envof "$1")
	if [ "$1" = traced ]; then traced_clock "$tmp/server.out" >"$tmp/clock"; fi
}

: >"$tmp/results"
round plain	# warm up
: >"$tmp/results"
# rotating rounds (ABC CBA ...): a drift of the machine over the run
# weighs on the kinds alike, not on whichever runs first
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then kinds="plain traced idle"; else kinds="idle traced plain"; fi
	for kind in $kinds; do
		round "$kind"
	done
done

clock=$(cat "$tmp/clock")
# Targets (issue 9, item 2): added CPU per call per side at most 1.0 us
# with the bpf clock, 1.5 us with the system call; the loop at most 1.08x
# untraced (stated for the bpf clock; held to it with either).
if [ "$clock" = bpf ]; then cpu_max=1.0; else cpu_max=1.5; fi
status=0
printf "%d calls over TCP loopback, client and server on CPU 0, median of %d rounds, traced with the %s clock:\n" \
	"$calls" "$rounds" "$clock"
for proc in null say; do
	for kind in plain traced idle; do
		n=$(awk -v k="$kind" -v p="$proc" '$1 == k && $2 == p' \
			"$tmp/results" | wc -l)
		[ "$n" -eq "$rounds" ] ||
			{ echo "bench-rpc: a $kind $proc run failed" >&2; exit 1; }
		for col in 3 4 5; do
			awk -v k="$kind" -v p="$proc" -v c="$col" \
				'$1 == k && $2 == p { print $c }' \
				"$tmp/results" | median >"$tmp/$kind.$proc.$col"
		done
	done
	awk -v p="$proc" -v n="$calls" -v max="$cpu_max" -v clock="$clock" \
		-v pw="$(cat "$tmp/plain.$proc.3")" -v tw="$(cat "$tmp/traced.$proc.3")" \
		-v pc="$(cat "$tmp/plain.$proc.4")" -v tc="$(cat "$tmp/traced.$proc.4")" \
		-v ps="$(cat "$tmp/plain.$proc.5")" -v ts="$(cat "$tmp/traced.$proc.5")" \
		-v ic="$(cat "$tmp/idle.$proc.4")" -v is="$(cat "$tmp/idle.$proc.5")" 'BEGIN {
		name = p == "null" ? "null procedure" : "int -> int (SAY_IT)"
		printf "  %s:\n", name
		printf "    untraced  %8.0f calls/s  client %6.2f us/call CPU  server %6.2f us/call CPU\n",
			n / (pw / 1e9), pc / n / 1e3, ps / n / 1e3
		printf "    traced    %8.0f calls/s  client %6.2f us/call CPU  server %6.2f us/call CPU\n",
			n / (tw / 1e9), tc / n / 1e3, ts / n / 1e3
		printf "  %s loop time traced/untraced: %.3f (target <= 1.08: %.2f us a call, both sides, of the untraced %.2f us)\n",
			p, tw / pw, 0.08 * pw / n / 1e3, pw / n / 1e3
		printf "  %s added CPU per call: client %.2f us, server %.2f us (target <= %.1f)\n",
			p, (tc - pc) / n / 1e3, (ts - ps) / n / 1e3, max
		printf "    (untraced with an idle second thread: client +%.2f us, server +%.2f us)\n",
			(ic - pc) / n / 1e3, (is - ps) / n / 1e3
		if (tw / pw > 1.08)
			printf "TARGET MISSED: %s loop traced/untraced %.3f (1.08 allowed)\n", p, tw / pw
		if ((tc - pc) / n / 1e3 > max || (ts - ps) / n / 1e3 > max)
			printf "TARGET MISSED: %s added CPU per call client %.2f us, server %.2f us (%.1f allowed with the %s clock)\n",
				p, (tc - pc) / n / 1e3, (ts - ps) / n / 1e3, max, clock
	}' | tee -a "$tmp/summary"
done
grep -q "^TARGET MISSED" "$tmp/summary" && status=1
exit $status
